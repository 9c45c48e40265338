//===- NNEmbeddingBag.cpp - nn.embedding_bag and its gradient -------------===//
//
// Type inference, verifiers, the sparse-access interface and the VJP of
// nn.embedding_bag (bags of ids given by offsets), and nn.embedding_bag_grad.
// The lowerings are in NNEmbeddingBagLowering.cpp.
//
//===----------------------------------------------------------------------===//

#include "nn/NNOps.h"

using namespace mlir;
using namespace autodist::nn;

namespace {
RankedTensorType rankedType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

bool isBagMode(StringRef mode) {
  return mode == "sum" || mode == "mean" || mode == "max";
}
} // namespace

//===----------------------------------------------------------------------===//
// EmbeddingBagOp
//===----------------------------------------------------------------------===//

LogicalResult
EmbeddingBagOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                 ValueRange operands, DictionaryAttr attrs,
                                 OpaqueProperties props, RegionRange,
                                 SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  auto w = rankedType(op.getWeight());
  auto offsets = rankedType(op.getOffsets());
  if (w.getRank() != 2 || rankedType(op.getIds()).getRank() != 1 ||
      offsets.getRank() != 1)
    return emitOptionalError(loc, "nn.embedding_bag expects a 2-D table and "
                                  "1-D ids and offsets");
  int64_t bags = offsets.getDimSize(0);
  if (!ShapedType::isDynamic(bags) && op.getIncludeLastOffset()) {
    if (bags == 0)
      return emitOptionalError(loc, "nn.embedding_bag with "
                                    "include_last_offset needs an offset");
    --bags; // the last offset ends the last bag
  }
  results.push_back(
      RankedTensorType::get({bags, w.getDimSize(1)}, Float32Type::get(ctx)));
  return success();
}

LogicalResult EmbeddingBagOp::verify() {
  if (!isBagMode(getMode()))
    return emitOpError("mode must be \"sum\", \"mean\" or \"max\", not \"")
           << getMode() << "\"";
  if (getWeight().getType().isDynamicDim(0))
    return emitOpError("table has a dynamic number of rows");
  return success();
}

std::optional<int64_t> EmbeddingBagOp::getIndexBound(unsigned index) {
  if (index != getIdsMutable().getOperandNumber())
    return std::nullopt;
  return getWeight().getType().getDimSize(0);
}

bool EmbeddingBagOp::isSparseOperand(unsigned index) {
  return index == getWeightMutable().getOperandNumber();
}

std::optional<unsigned> EmbeddingBagOp::getBagOffsetsOperand(unsigned index) {
  if (index != getIdsMutable().getOperandNumber())
    return std::nullopt;
  return getOffsetsMutable().getOperandNumber();
}

bool EmbeddingBagOp::bagOffsetsIncludeEnd() { return getIncludeLastOffset(); }

LogicalResult EmbeddingBagOp::buildVJP(OpBuilder &b,
                                       ArrayRef<Value> resultGrads,
                                       SmallVectorImpl<Value> &operandGrads) {
  // "max" finds each element's row again from the table and the result.
  SmallVector<Value> maxInputs;
  if (getMode() == "max")
    maxInputs = {getWeight(), getResult()};
  Value dw = EmbeddingBagGradOp::create(
      b, getLoc(), resultGrads[0], getIds(), getOffsets(), maxInputs,
      getModeAttr(), getIncludeLastOffsetAttr(),
      b.getI64IntegerAttr(getWeight().getType().getDimSize(0)));
  operandGrads.assign({dw, Value(), Value()});
  return success();
}

//===----------------------------------------------------------------------===//
// EmbeddingBagGradOp
//===----------------------------------------------------------------------===//

LogicalResult EmbeddingBagGradOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr attrs, OpaqueProperties props, RegionRange,
    SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  auto g = rankedType(op.getGrad());
  if (g.getRank() != 2)
    return emitOptionalError(loc, "nn.embedding_bag_grad expects a 2-D "
                                  "gradient");
  if (op.getNumRows() < 1)
    return emitOptionalError(loc, "nn.embedding_bag_grad num_rows must be "
                                  ">= 1");
  results.push_back(RankedTensorType::get({op.getNumRows(), g.getDimSize(1)},
                                          Float32Type::get(ctx)));
  return success();
}

LogicalResult EmbeddingBagGradOp::verify() {
  if (!isBagMode(getMode()))
    return emitOpError("mode must be \"sum\", \"mean\" or \"max\", not \"")
           << getMode() << "\"";
  size_t want = getMode() == "max" ? 2 : 0;
  if (getMaxInputs().size() != want)
    return emitOpError("takes the table and the forward result for mode "
                       "\"max\" only, got ")
           << getMaxInputs().size() << " for \"" << getMode() << "\"";
  if (want && (getMaxInputs()[0].getType() != getType() ||
               rankedType(getMaxInputs()[1]).getRank() != 2))
    return emitOpError("max_inputs must be the table (of the result's type) "
                       "and the 2-D forward result");
  return success();
}
