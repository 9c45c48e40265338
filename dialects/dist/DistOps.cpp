//===- DistOps.cpp - dist op verifiers ------------------------------------===//

#include "dist/DistOps.h"

#include "mlir/IR/OpImplementation.h"

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
