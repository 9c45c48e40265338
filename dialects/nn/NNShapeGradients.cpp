//===- NNShapeGradients.cpp - VJPs of slice, split, expand, trilu ---------===//
//
// Vector-Jacobian products (DifferentiableOpInterface) of the data-movement
// ops of NNShapeOps.td. Integer and bool tensors get no gradient.
//
//===----------------------------------------------------------------------===//

#include "nn/NNOps.h"
#include "nn/NNShapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace autodist::nn;

static bool isF32Tensor(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType().isF32();
}

/// The result gradient placed into zeros where the slice read the input.
LogicalResult SliceOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({Value()});
  if (!isF32Tensor(getInput()))
    return success();
  operandGrads[0] = SliceGradOp::create(b, getLoc(), resultGrads[0], getInput(),
                                        getStartsAttr(), getEndsAttr(),
                                        getAxesAttr(), getStepsAttr());
  return success();
}

/// The result gradient where the input was placed: a slice along the
/// padded dims (none padded: the gradient itself).
LogicalResult PadOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                              SmallVectorImpl<Value> &operandGrads) {
  auto in = cast<RankedTensorType>(getInput().getType());
  ArrayRef<int64_t> pads = getPads();
  int64_t rank = in.getRank();
  SmallVector<int64_t> starts, ends, axes;
  for (int64_t i = 0; i < rank; ++i) {
    if (!pads[i] && !pads[rank + i])
      continue;
    starts.push_back(pads[i]);
    ends.push_back(pads[i] + in.getDimSize(i));
    axes.push_back(i);
  }
  if (axes.empty()) {
    operandGrads.assign({resultGrads[0]});
    return success();
  }
  SmallVector<int64_t> steps(axes.size(), 1);
  operandGrads.assign({SliceOp::create(
      b, getLoc(), resultGrads[0], b.getDenseI64ArrayAttr(starts),
      b.getDenseI64ArrayAttr(ends), b.getDenseI64ArrayAttr(axes),
      b.getDenseI64ArrayAttr(steps))});
  return success();
}

/// The results' gradients concatenated back; an unused result contributes
/// zeros shaped like it.
LogicalResult SplitOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({Value()});
  if (!isF32Tensor(getInput()))
    return success();
  Location loc = getLoc();
  SmallVector<Value> parts;
  Value zero;
  for (auto [r, g] : llvm::zip(getResults(), resultGrads)) {
    if (g) {
      parts.push_back(g);
      continue;
    }
    if (!zero)
      zero = arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()),
                                 0.0f));
    parts.push_back(
        BroadcastLikeOp::create(b, loc, zero, r, b.getBoolAttr(false)));
  }
  operandGrads[0] = parts.size() == 1
                        ? parts[0]
                        : ConcatOp::create(b, loc, parts, getAxisAttr());
  return success();
}

/// Summed over the broadcast dims back to the input's shape.
LogicalResult ExpandOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                 SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({Value()});
  if (!isF32Tensor(getInput()))
    return success();
  operandGrads[0] = sumToShape(b, getLoc(), resultGrads[0],
                               cast<RankedTensorType>(getInput().getType()));
  return success();
}

/// The same triangle of the gradient (the mask is linear).
LogicalResult TriluOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign(getNumOperands(), Value()); // none for runtime_k
  if (!isF32Tensor(getInput()))
    return success();
  operandGrads[0] = TriluOp::create(b, getLoc(), resultGrads[0], getRuntimeK(),
                                    getUpperAttr(), getKAttr());
  return success();
}
