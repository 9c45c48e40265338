//===- NNShapeOps.cpp - slice, split, expand, trilu: inference, verifiers -===//
//
// Type inference resolves each op's static attributes against the operand
// shape (ONNX's clamping for Slice, chunk sizes for Split, broadcasting for
// Expand); the verifiers check what does not depend on shapes.
//
//===----------------------------------------------------------------------===//

#include "nn/NNOps.h"
#include "nn/NNShapeUtils.h"
#include "nn/SliceBounds.h"

#include <limits>

using namespace mlir;

namespace autodist::nn {

FailureOr<SmallVector<DimSlice>>
resolveSlice(ArrayRef<int64_t> shape, ArrayRef<int64_t> starts,
             ArrayRef<int64_t> ends, ArrayRef<int64_t> axes,
             ArrayRef<int64_t> steps, std::string &error) {
  llvm::raw_string_ostream os(error);
  if (starts.size() != ends.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    os << "starts, ends, axes and steps differ in length (" << starts.size()
       << ", " << ends.size() << ", " << axes.size() << ", " << steps.size()
       << ")";
    return failure();
  }
  int64_t rank = shape.size();
  SmallVector<DimSlice> out;
  for (int64_t d : shape)
    out.push_back({0, d, 1});
  SmallVector<bool> seen(rank, false);
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (axis < -rank || axis >= rank) {
      os << "axis " << axis << " is out of range for rank " << rank;
      return failure();
    }
    int64_t a = axis < 0 ? axis + rank : axis;
    if (seen[a]) {
      os << "axis " << axis << " is repeated";
      return failure();
    }
    seen[a] = true;
    int64_t step = steps[i], dim = shape[a];
    if (step == 0) {
      os << "step along axis " << axis << " is 0";
      return failure();
    }
    if (ShapedType::isDynamic(dim)) {
      // Only the whole dim (0 to INT64_MAX by 1, as exporters write `:`).
      if (starts[i] == 0 && ends[i] == std::numeric_limits<int64_t>::max() &&
          step == 1)
        continue;
      os << "slices dynamic dim " << a;
      return failure();
    }
    // ONNX: negative indices count from the end, then clamp; a negative
    // step may end before index 0 (at -1).
    int64_t start = starts[i], end = ends[i];
    if (start < 0)
      start = start < -dim ? -1 : start + dim;
    if (end < 0)
      end = end < -dim ? -1 : end + dim;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
    } else {
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
    }
    int64_t span = step > 0 ? end - start : start - end;
    int64_t by = step > 0 ? step : -step;
    int64_t size = span <= 0 ? 0 : (span + by - 1) / by;
    out[a] = {start, size, step};
  }
  return out;
}

} // namespace autodist::nn

using namespace autodist::nn;

namespace {
RankedTensorType rankedType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// The shape `input` sliced by `slices`.
SmallVector<int64_t> slicedShape(ArrayRef<DimSlice> slices) {
  SmallVector<int64_t> out;
  for (const DimSlice &s : slices)
    out.push_back(s.size);
  return out;
}

/// Resolves slice attributes for op `opName`, reporting a failure at `loc`.
FailureOr<SmallVector<DimSlice>>
resolveOrReport(std::optional<Location> loc, StringRef opName,
                ArrayRef<int64_t> shape, ArrayRef<int64_t> starts,
                ArrayRef<int64_t> ends, ArrayRef<int64_t> axes,
                ArrayRef<int64_t> steps) {
  std::string error;
  auto slices = resolveSlice(shape, starts, ends, axes, steps, error);
  if (failed(slices))
    return emitOptionalError(loc, opName, " of ", shapeStr(shape), ": ", error);
  return slices;
}
} // namespace

//===----------------------------------------------------------------------===//
// SliceOp, SliceGradOp
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        ValueRange operands,
                                        DictionaryAttr attrs,
                                        OpaqueProperties props, RegionRange,
                                        SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  auto in = rankedType(op.getInput());
  auto slices = resolveOrReport(loc, "nn.slice", in.getShape(), op.getStarts(),
                                op.getEnds(), op.getAxes(), op.getSteps());
  if (failed(slices))
    return failure();
  results.push_back(
      RankedTensorType::get(slicedShape(*slices), in.getElementType()));
  return success();
}

/// The checks of nn.slice's attributes that do not need the shape.
static LogicalResult verifySliceAttrs(Operation *op, ArrayRef<int64_t> starts,
                                      ArrayRef<int64_t> ends,
                                      ArrayRef<int64_t> axes,
                                      ArrayRef<int64_t> steps) {
  if (starts.size() != ends.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return op->emitOpError("starts, ends, axes and steps differ in length");
  if (llvm::is_contained(steps, 0))
    return op->emitOpError("steps must be non-zero");
  return success();
}

LogicalResult SliceOp::verify() {
  return verifySliceAttrs(*this, getStarts(), getEnds(), getAxes(), getSteps());
}

LogicalResult SliceGradOp::inferReturnTypes(MLIRContext *ctx,
                                            std::optional<Location> loc,
                                            ValueRange operands,
                                            DictionaryAttr attrs,
                                            OpaqueProperties props, RegionRange,
                                            SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  auto in = rankedType(op.getInput()), grad = rankedType(op.getGrad());
  auto slices =
      resolveOrReport(loc, "nn.slice_grad", in.getShape(), op.getStarts(),
                      op.getEnds(), op.getAxes(), op.getSteps());
  if (failed(slices))
    return failure();
  SmallVector<int64_t> sliced = slicedShape(*slices);
  if (sliced.size() != (size_t)grad.getRank() ||
      !llvm::all_of(llvm::zip(sliced, grad.getShape()), [](auto p) {
        return dimsCompatible(std::get<0>(p), std::get<1>(p));
      }))
    return emitOptionalError(
        loc, "nn.slice_grad gradient ", shapeStr(grad.getShape()),
        " is not shaped like the slice ", shapeStr(sliced));
  results.push_back(
      RankedTensorType::get(in.getShape(), Float32Type::get(ctx)));
  return success();
}

LogicalResult SliceGradOp::verify() {
  return verifySliceAttrs(*this, getStarts(), getEnds(), getAxes(), getSteps());
}

//===----------------------------------------------------------------------===//
// PadOp
//===----------------------------------------------------------------------===//

/// Why `pads` cannot pad a tensor of `shape`, or an empty string.
static std::string padsError(ArrayRef<int64_t> shape, ArrayRef<int64_t> pads) {
  int64_t rank = shape.size();
  if ((int64_t)pads.size() != 2 * rank)
    return "has " + std::to_string(pads.size()) + " pads for rank " +
           std::to_string(rank) + " (2 x rank expected)";
  for (int64_t i = 0; i < rank; ++i) {
    if (pads[i] < 0 || pads[rank + i] < 0)
      return "pads of dim " + std::to_string(i) + " are negative";
    if (ShapedType::isDynamic(shape[i]) && (pads[i] || pads[rank + i]))
      return "pads the dynamic dim " + std::to_string(i);
  }
  return "";
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *ctx,
                                      std::optional<Location> loc,
                                      ValueRange operands, DictionaryAttr attrs,
                                      OpaqueProperties props, RegionRange,
                                      SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  auto in = rankedType(op.getInput());
  ArrayRef<int64_t> shape = in.getShape(), pads = op.getPads();
  std::string error = padsError(shape, pads);
  if (!error.empty())
    return emitOptionalError(loc, "nn.pad of ", shapeStr(shape), " ", error);
  int64_t rank = shape.size();
  SmallVector<int64_t> out(shape);
  for (int64_t i = 0; i < rank; ++i)
    if (!ShapedType::isDynamic(out[i]))
      out[i] += pads[i] + pads[rank + i];
  results.push_back(RankedTensorType::get(out, Float32Type::get(ctx)));
  return success();
}

LogicalResult PadOp::verify() {
  std::string error = padsError(getInput().getType().getShape(), getPads());
  if (!error.empty())
    return emitOpError() << error;
  return success();
}

//===----------------------------------------------------------------------===//
// SplitOp
//===----------------------------------------------------------------------===//

LogicalResult SplitOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        ValueRange operands,
                                        DictionaryAttr attrs,
                                        OpaqueProperties props, RegionRange,
                                        SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  auto in = rankedType(op.getInput());
  int64_t rank = in.getRank(), axis = op.getAxis();
  if (axis < -rank || axis >= rank)
    return emitOptionalError(loc, "nn.split axis ", axis,
                             " is out of range for rank ", rank);
  if (axis < 0)
    axis += rank;
  int64_t dim = in.getDimSize(axis);
  if (ShapedType::isDynamic(dim))
    return emitOptionalError(loc, "nn.split along dynamic dim ", axis, " of ",
                             shapeStr(in.getShape()));
  int64_t total = 0;
  for (int64_t s : op.getSizes()) {
    if (s < 0)
      return emitOptionalError(loc, "nn.split size ", s, " is negative");
    total += s;
  }
  if (total != dim)
    return emitOptionalError(loc, "nn.split sizes add up to ", total,
                             ", not to dim ", axis, " of ",
                             shapeStr(in.getShape()));
  for (int64_t s : op.getSizes()) {
    SmallVector<int64_t> shape(in.getShape());
    shape[axis] = s;
    results.push_back(RankedTensorType::get(shape, in.getElementType()));
  }
  return success();
}

LogicalResult SplitOp::verify() {
  if (getSizes().empty())
    return emitOpError("needs at least one size");
  return success();
}

//===----------------------------------------------------------------------===//
// ExpandOp
//===----------------------------------------------------------------------===//

LogicalResult ExpandOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         ValueRange operands,
                                         DictionaryAttr attrs,
                                         OpaqueProperties props, RegionRange,
                                         SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  auto in = rankedType(op.getInput());
  ArrayRef<int64_t> shape = op.getShape();
  if (llvm::any_of(shape, [](int64_t d) { return d < -1; }))
    return emitOptionalError(loc, "nn.expand shape ", shapeStr(shape),
                             " has a negative dim");
  // A run-time entry (-1) broadcasts like a dynamic dim.
  SmallVector<int64_t> target(shape);
  for (int64_t &d : target)
    if (d == -1)
      d = ShapedType::kDynamic;
  auto out = broadcastShapes(in.getShape(), target);
  if (failed(out))
    return emitOptionalError(loc, "nn.expand cannot broadcast ",
                             shapeStr(in.getShape()), " to ", shapeStr(shape));
  // A dynamic dim can only meet a 1 or a run-time entry: a static size
  // would decide the result's.
  for (int64_t i = 0; i < in.getRank(); ++i) {
    int64_t j = i + (int64_t)shape.size() - in.getRank();
    if (in.isDynamicDim(i) && j >= 0 && shape[j] != 1 && shape[j] != -1)
      return emitOptionalError(loc, "nn.expand of dynamic dim ", i, " of ",
                               shapeStr(in.getShape()), " to ", shape[j]);
  }
  results.push_back(RankedTensorType::get(*out, in.getElementType()));
  return success();
}

LogicalResult ExpandOp::verify() {
  ArrayRef<int64_t> shape = getShape();
  bool runTime = llvm::is_contained(shape, -1);
  if (!getSizes()) {
    if (runTime)
      return emitOpError("a -1 entry in shape needs the sizes operand");
    return success();
  }
  auto sizes = cast<RankedTensorType>(getSizes().getType());
  if (sizes.getRank() != 1 || sizes.getDimSize(0) != (int64_t)shape.size())
    return emitOpError("sizes must be a tensor<")
           << shape.size() << "xi64> (one entry per shape dim), got " << sizes;
  return success();
}

//===----------------------------------------------------------------------===//
// ShapeOp
//===----------------------------------------------------------------------===//

LogicalResult ShapeOp::inferReturnTypes(MLIRContext *ctx,
                                        std::optional<Location> loc,
                                        ValueRange operands,
                                        DictionaryAttr attrs,
                                        OpaqueProperties props, RegionRange,
                                        SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  int64_t rank = rankedType(op.getInput()).getRank();
  int64_t start = op.getStart(), end = op.getEnd();
  if (start < 0 || start > end || end > rank)
    return emitOptionalError(loc, "nn.shape range [", start, ", ", end,
                             ") is not within the rank ", rank);
  results.push_back(
      RankedTensorType::get({end - start}, IntegerType::get(ctx, 64)));
  return success();
}

LogicalResult ShapeOp::verify() { return success(); }

//===----------------------------------------------------------------------===//
// TriluOp
//===----------------------------------------------------------------------===//

LogicalResult TriluOp::verify() {
  if (getInput().getType().getRank() < 2)
    return emitOpError("needs rank >= 2, got ")
           << shapeStr(getInput().getType().getShape());
  return success();
}
