//===- NNNormGradLowering.cpp - gather and layer-norm gradients to linalg -===//
//
// nn.gather_grad (scatter-add as a linalg.generic that reduces over the
// indices) and nn.layer_norm_grad.
//
//===----------------------------------------------------------------------===//

#include "nn/NNOps.h"
#include "nn/NNShapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
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
  MLIRContext *ctx = b.getContext();
  RankedTensorType type = getType();
  Value dy = getGrad(), indices = getIndices();
  int64_t rank = type.getRank();
  int64_t idxRank = typeOf(indices).getRank();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0)
    axis += rank;
  int64_t axisSize = static_cast<int64_t>(getAxisSize());
  // Loops: the result's dims (parallel), then the indices' dims (reduced):
  // dd[i, a, k] = sum_j (indices[j] == a) ? dy[i, j, k] : 0.
  SmallVector<Value> dyn;
  for (int64_t i = 0; i < rank; ++i)
    if (type.isDynamicDim(i))
      dyn.push_back(
          tensor::DimOp::create(b, loc, dy, i < axis ? i : i - 1 + idxRank));
  Value empty =
      tensor::EmptyOp::create(b, loc, type.getShape(), b.getF32Type(), dyn);
  Value init = linalg::FillOp::create(b, loc, f32Const(b, loc, 0.0f), empty)
                   .getResult(0);
  SmallVector<AffineExpr> dyExprs, idxExprs, outExprs;
  for (int64_t i = 0; i < rank; ++i) {
    outExprs.push_back(b.getAffineDimExpr(i));
    if (i == axis)
      for (int64_t j = 0; j < idxRank; ++j)
        dyExprs.push_back(b.getAffineDimExpr(rank + j));
    else
      dyExprs.push_back(b.getAffineDimExpr(i));
  }
  for (int64_t j = 0; j < idxRank; ++j)
    idxExprs.push_back(b.getAffineDimExpr(rank + j));
  int64_t numLoops = rank + idxRank;
  SmallVector<AffineMap> maps = {AffineMap::get(numLoops, 0, dyExprs, ctx),
                                 AffineMap::get(numLoops, 0, idxExprs, ctx),
                                 AffineMap::get(numLoops, 0, outExprs, ctx)};
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  iters.append(idxRank, utils::IteratorType::reduction);
  Value out =
      linalg::GenericOp::create(
          b, loc, TypeRange{type}, ValueRange{dy, indices}, ValueRange{init},
          maps, iters,
          [&](OpBuilder &nb, Location l, ValueRange a) {
            // Negative indices count from the end (the forward asserts the
            // range).
            Value wrapped = wrapNegativeIndex(nb, l, a[1], axisSize);
            Value at = arith::IndexCastOp::create(
                nb, l, nb.getI64Type(), linalg::IndexOp::create(nb, l, axis));
            Value hit = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                              wrapped, at);
            Value v = arith::SelectOp::create(nb, l, hit, a[0],
                                              f32Const(nb, l, 0.0f));
            linalg::YieldOp::create(nb, l, ValueRange{addF(nb, l, a[2], v)});
          })
          .getResult(0);
  return SmallVector<Value>{out};
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
