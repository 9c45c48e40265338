//===- NNNormGradLowering.cpp - gather and layer-norm gradients to linalg -===//
//
// nn.gather_grad (scatter-add: scf.for loops over the indices adding
// slices in place) and nn.layer_norm_grad.
//
//===----------------------------------------------------------------------===//

#include "nn/NNOps.h"
#include "nn/NNShapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace autodist::nn;

using Results = FailureOr<SmallVector<Value>>;

static RankedTensorType typeOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

static Value addF(OpBuilder &b, Location l, Value x, Value y) {
  return arith::AddFOp::create(b, l, x, y);
}

Results GatherGradOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  RankedTensorType type = getType();
  Value dy = getGrad(), indices = getIndices();
  auto dyType = typeOf(dy);
  int64_t rank = type.getRank();
  int64_t idxRank = typeOf(indices).getRank();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0)
    axis += rank;
  // A dynamic axis is the forward data's, read at run time.
  Value axisSize =
      getAxisSize() == -1
          ? tensor::DimOp::create(b, loc, getData(), axis).getResult()
          : arith::ConstantIndexOp::create(b, loc, getAxisSize()).getResult();
  // A scatter-add, one slice per index: for each position j of `indices`,
  // dd[pre..., indices[j], post...] += dy[pre..., j..., post...], as loops
  // over the indices carrying the result (bufferized in place). Each slice
  // is a strided view of the result's row, so the work is that of reading
  // `dy` once (a reduction over the indices per result element would cost
  // axis_size times more).
  auto dyDim = [&](int64_t i) { return i < axis ? i : i - 1 + idxRank; };
  SmallVector<Value> dyn;
  for (int64_t i = 0; i < rank; ++i)
    if (type.isDynamicDim(i))
      dyn.push_back(i == axis ? axisSize
                              : tensor::DimOp::create(b, loc, dy, dyDim(i))
                                    .getResult());
  Value empty =
      tensor::EmptyOp::create(b, loc, type.getShape(), b.getF32Type(), dyn);
  Value init = linalg::FillOp::create(b, loc, f32Const(b, loc, 0.0f), empty)
                   .getResult(0);
  // The slice: the result's dims but the axis, sized as in `dy`.
  SmallVector<int64_t> sliceShape;
  for (int64_t i = 0; i < rank; ++i)
    if (i != axis)
      sliceShape.push_back(dyType.getDimSize(dyDim(i)));
  auto sliceType = RankedTensorType::get(sliceShape, b.getF32Type());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> lbs(idxRank, zero), steps(idxRank, one), ubs;
  for (int64_t j = 0; j < idxRank; ++j)
    ubs.push_back(tensor::DimOp::create(b, loc, indices, j));
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, ValueRange{init},
      [&](OpBuilder &nb, Location l, ValueRange ivs,
          ValueRange acc) -> scf::ValueVector {
        // Negative indices count from the end (the forward asserts the
        // range).
        Value index = tensor::ExtractOp::create(nb, l, indices, ivs);
        Value row = arith::IndexCastOp::create(
            nb, l, nb.getIndexType(),
            wrapNegativeIndex(nb, l, index, axisSize));
        SmallVector<OpFoldResult> dyOffsets, dySizes, outOffsets, outSizes;
        for (int64_t i = 0; i < dyType.getRank(); ++i) {
          bool isIndex = i >= axis && i < axis + idxRank;
          dyOffsets.push_back(isIndex ? OpFoldResult(ivs[i - axis])
                                      : OpFoldResult(nb.getIndexAttr(0)));
          dySizes.push_back(isIndex ? OpFoldResult(nb.getIndexAttr(1))
                                    : tensor::getMixedSize(nb, l, dy, i));
        }
        for (int64_t i = 0; i < rank; ++i) {
          outOffsets.push_back(i == axis ? OpFoldResult(row)
                                         : OpFoldResult(nb.getIndexAttr(0)));
          outSizes.push_back(i == axis
                                 ? OpFoldResult(nb.getIndexAttr(1))
                                 : tensor::getMixedSize(nb, l, dy, dyDim(i)));
        }
        SmallVector<OpFoldResult> dyStrides(dyType.getRank(),
                                            nb.getIndexAttr(1)),
            outStrides(rank, nb.getIndexAttr(1));
        Value part = tensor::ExtractSliceOp::create(
            nb, l, sliceType, dy, dyOffsets, dySizes, dyStrides);
        Value dest = tensor::ExtractSliceOp::create(
            nb, l, sliceType, acc[0], outOffsets, outSizes, outStrides);
        // dest += part, reading dest only as the output (in place).
        AffineMap id = nb.getMultiDimIdentityMap(sliceType.getRank());
        Value sum = linalg::GenericOp::create(
                        nb, l, TypeRange{sliceType}, ValueRange{part},
                        ValueRange{dest}, ArrayRef<AffineMap>{id, id},
                        SmallVector<utils::IteratorType>(
                            sliceType.getRank(), utils::IteratorType::parallel),
                        [](OpBuilder &eb, Location el, ValueRange a) {
                          linalg::YieldOp::create(
                              eb, el, ValueRange{addF(eb, el, a[1], a[0])});
                        })
                        .getResult(0);
        return {tensor::InsertSliceOp::create(nb, l, sum, acc[0], outOffsets,
                                              outSizes, outStrides)};
      });
  return SmallVector<Value>{nest.results[0]};
}

Results LayerNormGradOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  MLIRContext *ctx = b.getContext();
  Value dy = getGrad(), x = getInput();
  RankedTensorType type = typeOf(x);
  int64_t rank = type.getRank();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0)
    axis += rank;
  SmallVector<int64_t> dims, lead;
  int64_t count = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (d < axis) {
      lead.push_back(d);
      continue;
    }
    dims.push_back(d);
    count *= type.getDimSize(d);
  }
  AffineMap id = b.getMultiDimIdentityMap(rank);
  SmallVector<AffineExpr> leading;
  for (int64_t d = 0; d < axis; ++d)
    leading.push_back(b.getAffineDimExpr(d));
  AffineMap red = AffineMap::get(rank, 0, leading, ctx);
  SmallVector<utils::IteratorType> par(rank, utils::IteratorType::parallel);
  auto generic =
      [&](ValueRange ins, ArrayRef<AffineMap> inMaps,
          function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
        return buildMappedElementwise(b, loc, type, ins, inMaps, x, body);
      };
  auto mul = [](OpBuilder &nb, Location l, ValueRange a) -> Value {
    return arith::MulFOp::create(nb, l, a[0], a[1]);
  };
  float invCount = 1.0f / static_cast<float>(count);
  float eps = getEpsilon().convertToFloat();
  // The forward's statistics, as its lowering computes them.
  Value sum = buildReduction(b, loc, x, dims, 0.0f, addF);
  Value centered = generic(
      {x, sum}, {id, red}, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value mean =
            arith::MulFOp::create(nb, l, a[1], f32Const(nb, l, invCount));
        return arith::SubFOp::create(nb, l, a[0], mean).getResult();
      });
  Value squares = generic({centered, centered}, {id, id}, mul);
  Value sqSum = buildReduction(b, loc, squares, dims, 0.0f, addF);
  Value xhat = generic(
      {centered, sqSum}, {id, red},
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value var =
            arith::MulFOp::create(nb, l, a[1], f32Const(nb, l, invCount));
        Value inv = math::RsqrtOp::create(
            nb, l, arith::AddFOp::create(nb, l, var, f32Const(nb, l, eps)));
        return arith::MulFOp::create(nb, l, a[0], inv);
      });
  // dx = istd * (g - mean(g) - xhat * mean(g * xhat)), g = dy * scale.
  Value g = generic({dy, getScale()},
                    {id, broadcastMap(ctx, typeOf(getScale()), type)}, mul);
  Value gSum = buildReduction(b, loc, g, dims, 0.0f, addF);
  Value gx = generic({g, xhat}, {id, id}, mul);
  Value gxSum = buildReduction(b, loc, gx, dims, 0.0f, addF);
  Value dx = generic(
      {g, xhat, sqSum, gSum, gxSum}, {id, id, red, red, red},
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value ic = f32Const(nb, l, invCount);
        Value var = arith::MulFOp::create(nb, l, a[2], ic);
        Value inv = math::RsqrtOp::create(
            nb, l, arith::AddFOp::create(nb, l, var, f32Const(nb, l, eps)));
        Value t = arith::SubFOp::create(nb, l, a[0],
                                        arith::MulFOp::create(nb, l, a[3], ic));
        Value u = arith::MulFOp::create(nb, l, a[1],
                                        arith::MulFOp::create(nb, l, a[4], ic));
        return arith::MulFOp::create(nb, l, inv,
                                     arith::SubFOp::create(nb, l, t, u));
      });
  // Scale and bias: summed over the leading dims.
  Value dyx = generic({dy, xhat}, {id, id}, mul);
  Value dscale = dyx, dbias = dy;
  if (!lead.empty()) {
    dscale = buildReduction(b, loc, dyx, lead, 0.0f, addF);
    dbias = buildReduction(b, loc, dy, lead, 0.0f, addF);
  }
  return SmallVector<Value>{dx, dscale, dbias};
}
