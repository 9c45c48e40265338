//===- NNShapeLowering.cpp - slice, split, expand, trilu to linalg --------===//
//
// LowerToLinalgOpInterface of the ops of NNShapeOps.td: slices and splits
// become tensor.extract_slice (views, no copy) where the steps are
// positive, everything else a linalg.generic.
//
//===----------------------------------------------------------------------===//

#include "nn/NNOps.h"
#include "nn/NNShapeUtils.h"
#include "nn/SliceBounds.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace autodist::nn;

using Results = FailureOr<SmallVector<Value>>;

static RankedTensorType typeOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// The slices an nn.slice / nn.slice_grad with these attributes takes of
/// `input` (the verifier and type inference have accepted them).
static SmallVector<DimSlice> slicesOf(Value input, ArrayRef<int64_t> starts,
                                      ArrayRef<int64_t> ends,
                                      ArrayRef<int64_t> axes,
                                      ArrayRef<int64_t> steps) {
  std::string error;
  return *resolveSlice(typeOf(input).getShape(), starts, ends, axes, steps,
                       error);
}

/// Reads `input` at `offset + step * i` along each dim into a new tensor
/// of `type` (a linalg.generic: also for negative steps, which
/// tensor.extract_slice does not take).
static Value stridedRead(OpBuilder &b, Location loc, Value input,
                         RankedTensorType type, ArrayRef<DimSlice> slices) {
  SmallVector<AffineExpr> exprs;
  for (auto [i, s] : llvm::enumerate(slices))
    exprs.push_back(b.getAffineDimExpr(i) * s.step + s.offset);
  AffineMap map = AffineMap::get(type.getRank(), 0, exprs, b.getContext());
  return buildMappedElementwise(
      b, loc, type, {input}, {map}, input,
      [](OpBuilder &, Location, ValueRange a) { return a[0]; });
}

/// An empty result (some dim of size 0) as a tensor.empty: a slice of it
/// may start past the end, which tensor.extract_slice rejects.
static Value emptyResult(OpBuilder &b, Location loc, RankedTensorType type,
                         Value input) {
  return emptyLike(b, loc, type, {input});
}

Results SliceOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  Value input = getInput();
  if (llvm::is_contained(getType().getShape(), 0))
    return SmallVector<Value>{emptyResult(b, loc, getType(), input)};
  SmallVector<DimSlice> slices =
      slicesOf(input, getStarts(), getEnds(), getAxes(), getSteps());
  if (llvm::any_of(slices, [](const DimSlice &s) { return s.step < 0; }))
    return SmallVector<Value>{stridedRead(b, loc, input, getType(), slices)};
  SmallVector<OpFoldResult> offsets, sizes, strides;
  for (auto [i, s] : llvm::enumerate(slices)) {
    offsets.push_back(b.getIndexAttr(s.offset));
    sizes.push_back(ShapedType::isDynamic(s.size) ? tensorDim(b, loc, input, i)
                                                  : b.getIndexAttr(s.size));
    strides.push_back(b.getIndexAttr(s.step));
  }
  return SmallVector<Value>{tensor::ExtractSliceOp::create(
      b, loc, getType(), input, offsets, sizes, strides)};
}

/// Zeros shaped like the input with the gradient inserted where the slice
/// read; along a negative-step axis the gradient is reversed first, so
/// that the insertion walks forwards from the last position read.
Results SliceGradOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  RankedTensorType type = getType();
  Value grad = getGrad();
  SmallVector<DimSlice> slices =
      slicesOf(getInput(), getStarts(), getEnds(), getAxes(), getSteps());
  Value out = linalg::FillOp::create(b, loc, f32Const(b, loc, 0.0f),
                                     emptyLike(b, loc, type, {getInput()}))
                  .getResult(0);
  if (llvm::is_contained(typeOf(grad).getShape(), 0))
    return SmallVector<Value>{out};
  SmallVector<DimSlice> flip;
  bool anyNegative = false;
  for (const DimSlice &s : slices) {
    if (s.step < 0 && s.size > 0) {
      flip.push_back({s.size - 1, s.size, -1});
      anyNegative = true;
    } else {
      flip.push_back({0, s.size, 1});
    }
  }
  if (anyNegative)
    grad = stridedRead(b, loc, grad, typeOf(grad), flip);
  SmallVector<OpFoldResult> offsets, sizes, strides;
  for (auto [i, s] : llvm::enumerate(slices)) {
    int64_t first =
        s.step < 0 && s.size > 0 ? s.offset + s.step * (s.size - 1) : s.offset;
    offsets.push_back(b.getIndexAttr(s.size > 0 ? first : 0));
    sizes.push_back(ShapedType::isDynamic(s.size) ? tensorDim(b, loc, grad, i)
                                                  : b.getIndexAttr(s.size));
    strides.push_back(b.getIndexAttr(s.step < 0 ? -s.step : s.step));
  }
  return SmallVector<Value>{tensor::InsertSliceOp::create(
      b, loc, grad, out, offsets, sizes, strides)};
}

/// `value` everywhere, then the input inserted after the leading pads (a
/// dynamic dim is not padded, so emptyLike sizes it from the input).
Results PadOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  Value input = getInput();
  Value out = linalg::FillOp::create(
                  b, loc, f32Const(b, loc, getValue().convertToFloat()),
                  emptyLike(b, loc, getType(), {input}))
                  .getResult(0);
  RankedTensorType in = typeOf(input);
  if (llvm::is_contained(in.getShape(), 0))
    return SmallVector<Value>{out};
  SmallVector<OpFoldResult> offsets, sizes, strides;
  for (int64_t i = 0; i < in.getRank(); ++i) {
    offsets.push_back(b.getIndexAttr(getPads()[i]));
    sizes.push_back(in.isDynamicDim(i) ? tensorDim(b, loc, input, i)
                                       : b.getIndexAttr(in.getDimSize(i)));
    strides.push_back(b.getIndexAttr(1));
  }
  return SmallVector<Value>{tensor::InsertSliceOp::create(
      b, loc, input, out, offsets, sizes, strides)};
}

/// Each result is a tensor.extract_slice at the sum of the sizes before it.
Results SplitOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  Value input = getInput();
  int64_t rank = typeOf(input).getRank();
  int64_t axis = getAxis();
  if (axis < 0)
    axis += rank;
  SmallVector<Value> out;
  int64_t offset = 0;
  for (auto [r, size] : llvm::zip(getResults(), getSizes())) {
    auto type = cast<RankedTensorType>(r.getType());
    if (llvm::is_contained(type.getShape(), 0)) {
      out.push_back(emptyResult(b, loc, type, input));
      offset += size;
      continue;
    }
    SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), sizes,
        strides(rank, b.getIndexAttr(1));
    offsets[axis] = b.getIndexAttr(offset);
    for (int64_t i = 0; i < rank; ++i)
      sizes.push_back(i == axis ? b.getIndexAttr(size)
                                : tensorDim(b, loc, input, i));
    out.push_back(tensor::ExtractSliceOp::create(
        b, loc, cast<RankedTensorType>(r.getType()), input, offsets, sizes,
        strides));
    offset += size;
  }
  return out;
}

Results ExpandOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  RankedTensorType type = getType();
  auto in = cast<RankedTensorType>(getInput().getType());
  ArrayRef<int64_t> shape = getShape();
  int64_t rank = type.getRank();
  // Each dynamic result dim: the input's (aligned right), a run-time entry
  // of `sizes`, or the larger of both.
  SmallVector<Value> dyn;
  for (int64_t i = 0; i < rank; ++i) {
    if (!type.isDynamicDim(i))
      continue;
    int64_t j = i - (rank - in.getRank());
    int64_t k = i - (rank - (int64_t)shape.size());
    Value size;
    if (j >= 0 && in.isDynamicDim(j))
      size = tensor::DimOp::create(b, loc, getInput(), j);
    if (k >= 0 && shape[k] == -1) {
      Value idx = arith::ConstantIndexOp::create(b, loc, k);
      Value entry = arith::IndexCastOp::create(
          b, loc, b.getIndexType(),
          tensor::ExtractOp::create(b, loc, getSizes(), ValueRange{idx}));
      size = size ? arith::MaxSIOp::create(b, loc, size, entry).getResult()
                  : entry;
    }
    dyn.push_back(size);
  }
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(),
                                       type.getElementType(), dyn);
  return SmallVector<Value>{buildElementwise(
      b, loc, type, {getInput()},
      [](OpBuilder &, Location, ValueRange a) { return a[0]; }, init)};
}

Results ShapeOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  auto in = cast<RankedTensorType>(getInput().getType());
  SmallVector<Value> dims;
  for (int64_t i = getStart(); i < getEnd(); ++i) {
    if (in.isDynamicDim(i))
      dims.push_back(arith::IndexCastOp::create(
          b, loc, b.getI64Type(),
          tensor::DimOp::create(b, loc, getInput(), i)));
    else
      dims.push_back(arith::ConstantOp::create(
          b, loc, b.getI64IntegerAttr(in.getDimSize(i))));
  }
  return SmallVector<Value>{
      tensor::FromElementsOp::create(b, loc, getType(), dims).getResult()};
}

/// Keeps entry (i, j) of the last two dims where j - i >= k (upper) or
/// j - i <= k (lower), else writes zero (false).
Results TriluOp::lowerToLinalg(OpBuilder &b) {
  RankedTensorType type = getType();
  int64_t rank = type.getRank();
  int64_t k = getK();
  bool upper = getUpper();
  Type elem = type.getElementType();
  Value runtimeK;
  if (Value rk = getRuntimeK())
    runtimeK = arith::IndexCastOp::create(
        b, getLoc(), b.getIndexType(),
        tensor::ExtractOp::create(b, getLoc(), rk, ValueRange{}));
  return SmallVector<Value>{buildElementwise(
      b, getLoc(), type, {getInput()},
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value i = linalg::IndexOp::create(nb, l, rank - 2);
        Value j = linalg::IndexOp::create(nb, l, rank - 1);
        Value diff = arith::SubIOp::create(nb, l, j, i);
        Value kv =
            runtimeK ? runtimeK : arith::ConstantIndexOp::create(nb, l, k);
        Value keep = arith::CmpIOp::create(nb, l,
                                           upper ? arith::CmpIPredicate::sge
                                                 : arith::CmpIPredicate::sle,
                                           diff, kv);
        Value zero = arith::ConstantOp::create(
            nb, l, cast<TypedAttr>(nb.getZeroAttr(elem)));
        return arith::SelectOp::create(nb, l, keep, a[0], zero);
      })};
}
