//===- DistOps.cpp - dist op verifiers ------------------------------------===//

#include "dist/DistOps.h"

#include "mlir/IR/OpImplementation.h"

#include <algorithm>

using namespace mlir;
using namespace autodist::dist;

LogicalResult AllReduceOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one tensor to reduce");
  if (getGroupAttr().getInt() < 0)
    return emitOpError("group must be >= 0, got ") << getGroupAttr().getInt();
  bool powerSGD = getCompressor() == Compressor::PowerSGD;
  auto rank = static_cast<int64_t>(getPowersgdRank());
  if (powerSGD && rank < 1)
    return emitOpError("compressor 'powersgd' needs powersgd_rank >= 1, got ")
           << rank;
  if (!powerSGD && rank != 0)
    return emitOpError("powersgd_rank only applies to compressor 'powersgd'");
  return verifyState();
}

SmallVector<int64_t> AllReduceOp::getStateSizes() {
  switch (getCompressor()) {
  case Compressor::None:
  case Compressor::FP16:
    return {};
  case Compressor::FP16EF: {
    int64_t n = 0;
    for (Type t : getInputs().getTypes())
      n += cast<RankedTensorType>(t).getNumElements();
    return {n};
  }
  case Compressor::PowerSGD:
    break;
  }
  auto t = cast<RankedTensorType>(getInputs().front().getType());
  int64_t rows = t.getDimSize(0), cols = t.getNumElements() / rows;
  int64_t r = std::min({static_cast<int64_t>(getPowersgdRank()), rows, cols});
  return {rows * cols, cols * r};
}

/// The state operands, when present, are the compressor's (see the op's
/// description): 1-D tensors of the sizes its runtime function keeps.
LogicalResult AllReduceOp::verifyState() {
  if (getState().empty())
    return success();
  switch (getCompressor()) {
  case Compressor::None:
  case Compressor::FP16:
    return emitOpError("compressor '")
           << stringifyCompressor(getCompressor())
           << "' keeps no state, but the op has " << getState().size()
           << " state operand(s)";
  case Compressor::FP16EF:
    for (Type t : getInputs().getTypes())
      if (!cast<RankedTensorType>(t).hasStaticShape())
        return emitOpError("an fp16_ef bucket with state must have static "
                           "shapes, got ")
               << t;
    break;
  case Compressor::PowerSGD: {
    auto t = cast<RankedTensorType>(getInputs().front().getType());
    if (getInputs().size() != 1 || t.getRank() < 2 || !t.hasStaticShape())
      return emitOpError("a powersgd all-reduce with state must hold one "
                         "matrix of static shape (dist-split-powersgd)");
    break;
  }
  }
  SmallVector<int64_t> sizes = getStateSizes();
  if (getState().size() != sizes.size())
    return emitOpError("compressor '")
           << stringifyCompressor(getCompressor()) << "' keeps " << sizes.size()
           << " state tensor(s), got " << getState().size();
  for (auto [i, v] : llvm::enumerate(getState())) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getRank() != 1 || t.getDimSize(0) != sizes[i])
      return emitOpError("state operand #")
             << i << " must be tensor<" << sizes[i] << "xf32>, got " << t;
  }
  return success();
}

LogicalResult AllReduceStartOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one tensor to reduce");
  if (getGroupAttr().getInt() < 0)
    return emitOpError("group must be >= 0, got ") << getGroupAttr().getInt();
  if (TypeRange(getFuture().getType().getValueTypes()) !=
      getInputs().getTypes())
    return emitOpError("future type ")
           << getFuture().getType() << " does not hold the operand types";
  return success();
}

LogicalResult WaitOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                       ValueRange operands, DictionaryAttr,
                                       OpaqueProperties, RegionRange,
                                       SmallVectorImpl<Type> &results) {
  auto future = dyn_cast<FutureType>(operands.front().getType());
  if (!future)
    return failure();
  llvm::append_range(results, future.getValueTypes());
  return success();
}

LogicalResult WaitOp::verify() {
  int waits = llvm::count_if(getFuture().getUsers(),
                             [](Operation *user) { return isa<WaitOp>(user); });
  if (waits > 1)
    return emitOpError("waits for a future that is waited ")
           << waits << " times (a future is waited once)";
  return success();
}

/// The checks `dist.reduce` and `dist.broadcast` share.
static LogicalResult verifyRooted(Operation *op, ValueRange inputs,
                                  StringRef root) {
  if (inputs.empty())
    return op->emitOpError("needs at least one tensor");
  if (root.empty())
    return op->emitOpError("needs a root device");
  return success();
}

LogicalResult ReduceOp::verify() {
  return verifyRooted(*this, getInputs(), getRoot());
}

LogicalResult BroadcastOp::verify() {
  return verifyRooted(*this, getInputs(), getRoot());
}

#define GET_OP_CLASSES
#include "dist/DistOps.cpp.inc"
