//===- NNDynamicShapeOps.cpp - run-time axes and bounds: types, verifiers -===//
//
// The result type of these ops is their declared `shape`; the verifiers
// check what the operand types fix of it (the rank, and sizes that the
// element count or the untouched dims decide).
//
//===----------------------------------------------------------------------===//

#include "nn/NNOps.h"
#include "nn/NNShapeUtils.h"

using namespace mlir;

namespace autodist::nn {

namespace {

/// `shape` (-1 for a dynamic dim) as a tensor type of `element`, or an
/// error for an entry below -1.
LogicalResult declaredType(std::optional<Location> loc, StringRef op,
                           ArrayRef<int64_t> shape, Type element,
                           SmallVectorImpl<Type> &results) {
  SmallVector<int64_t> dims;
  for (int64_t d : shape) {
    if (d < -1)
      return emitOptionalError(loc, op, " shape ", shapeStr(shape),
                               " has a negative dim");
    dims.push_back(d == -1 ? ShapedType::kDynamic : d);
  }
  results.push_back(RankedTensorType::get(dims, element));
  return success();
}

/// The length of the 1-D index operand `v`, or an error when dynamic.
FailureOr<int64_t> vectorLength(Operation *op, Value v, StringRef what) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.isDynamicDim(0))
    return op->emitOpError() << what << " must have a static length";
  return t.getDimSize(0);
}

/// The element count of `t` when static.
std::optional<int64_t> staticCount(RankedTensorType t) {
  if (!t.hasStaticShape())
    return std::nullopt;
  return t.getNumElements();
}

/// Fails when `in` and `out` both have a static element count and they
/// differ (an op that only moves dims).
LogicalResult sameCount(Operation *op, RankedTensorType in,
                        RankedTensorType out) {
  std::optional<int64_t> a = staticCount(in), b = staticCount(out);
  if (a && b && *a != *b)
    return op->emitOpError("result ")
           << shapeStr(out.getShape()) << " has " << *b
           << " elements but the input " << shapeStr(in.getShape()) << " has "
           << *a;
  return success();
}

} // namespace

// The result type is the declared shape, of the input's element type.
#define DECLARED_TYPE(Op, name)                                                \
  LogicalResult Op::inferReturnTypes(                                          \
      MLIRContext *, std::optional<Location> loc, ValueRange operands,         \
      DictionaryAttr attrs, OpaqueProperties props, RegionRange,               \
      SmallVectorImpl<Type> &results) {                                        \
    Adaptor op(operands, attrs, props);                                        \
    return declaredType(                                                       \
        loc, name, op.getShape(),                                              \
        cast<RankedTensorType>(op.getInput().getType()).getElementType(),      \
        results);                                                              \
  }

DECLARED_TYPE(UnsqueezeDynamicOp, "nn.unsqueeze_dynamic")
DECLARED_TYPE(SqueezeDynamicOp, "nn.squeeze_dynamic")
DECLARED_TYPE(ReduceSumDynamicOp, "nn.reduce_sum_dynamic")
DECLARED_TYPE(SliceDynamicOp, "nn.slice_dynamic")
#undef DECLARED_TYPE

/// The (un)squeeze checks: the result rank is the input's plus `sign` times
/// the number of axes, and the element count is kept.
static LogicalResult verifyAxesMove(Operation *op, Value input, Value axes,
                                    RankedTensorType result, int sign) {
  FailureOr<int64_t> k = vectorLength(op, axes, "axes");
  if (failed(k))
    return failure();
  auto in = cast<RankedTensorType>(input.getType());
  if (result.getRank() != in.getRank() + sign * *k)
    return op->emitOpError("result rank ")
           << result.getRank() << " is not the input rank " << in.getRank()
           << (sign > 0 ? " + " : " - ") << *k << " axes";
  return sameCount(op, in, result);
}

LogicalResult UnsqueezeDynamicOp::verify() {
  return verifyAxesMove(*this, getInput(), getAxes(), getType(), 1);
}

LogicalResult SqueezeDynamicOp::verify() {
  return verifyAxesMove(*this, getInput(), getAxes(), getType(), -1);
}

LogicalResult ReduceSumDynamicOp::verify() {
  FailureOr<int64_t> k = vectorLength(*this, getAxes(), "axes");
  if (failed(k))
    return failure();
  if (*k == 0)
    return emitOpError("needs at least one axis (empty axes are known at "
                       "import: nn.reduce_sum)");
  RankedTensorType in = getInput().getType(), out = getType();
  if (getKeepdims()) {
    if (out.getRank() != in.getRank())
      return emitOpError("with keepdims, result rank ")
             << out.getRank() << " is not the input rank " << in.getRank();
    // A kept dim is its input dim, a reduced one 1.
    for (int64_t j = 0; j < in.getRank(); ++j)
      if (!in.isDynamicDim(j) && !out.isDynamicDim(j) &&
          out.getDimSize(j) != 1 && out.getDimSize(j) != in.getDimSize(j))
        return emitOpError("result dim ")
               << j << " is " << out.getDimSize(j) << ", neither 1 nor the "
               << "input's " << in.getDimSize(j);
    return success();
  }
  if (out.getRank() > in.getRank() - 1 || out.getRank() < in.getRank() - *k)
    return emitOpError("without keepdims, result rank ")
           << out.getRank() << " is not the input rank " << in.getRank()
           << " less 1 to " << *k << " axes";
  return success();
}

LogicalResult SliceDynamicOp::verify() {
  FailureOr<int64_t> k = vectorLength(*this, getStarts(), "starts");
  if (failed(k))
    return failure();
  for (auto [v, what] : {std::pair<Value, StringRef>{getEnds(), "ends"},
                         {getAxes(), "axes"},
                         {getSteps(), "steps"}}) {
    FailureOr<int64_t> n = vectorLength(*this, v, what);
    if (failed(n))
      return failure();
    if (*n != *k)
      return emitOpError() << what << " has " << *n
                           << " entries but starts has " << *k;
  }
  RankedTensorType in = getInput().getType();
  if (getType().getRank() != in.getRank())
    return emitOpError("result rank ")
           << getType().getRank() << " is not the input rank " << in.getRank();
  if (*k > in.getRank())
    return emitOpError("slices ")
           << *k << " axes of a rank-" << in.getRank() << " input";
  return success();
}

LogicalResult RangeOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        ValueRange operands, DictionaryAttr,
                                        OpaqueProperties, RegionRange,
                                        SmallVectorImpl<Type> &results) {
  Type elem = cast<RankedTensorType>(operands[0].getType()).getElementType();
  results.push_back(RankedTensorType::get({ShapedType::kDynamic}, elem));
  return success();
}

LogicalResult RangeOp::verify() {
  Type elem = getStart().getType().getElementType();
  if (getLimit().getType().getElementType() != elem ||
      getDelta().getType().getElementType() != elem)
    return emitOpError("start, limit and delta must have one element type, "
                       "got ")
           << getStart().getType() << ", " << getLimit().getType() << " and "
           << getDelta().getType();
  return success();
}

} // namespace autodist::nn
