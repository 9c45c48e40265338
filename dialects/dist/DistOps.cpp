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
  if (getCompressor() == Compressor::PowerSGD)
    return emitOpError("compressor 'powersgd' is not carried out by an "
                       "all-reduce bucket");
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
