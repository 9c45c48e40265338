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
