//===- DistOps.cpp - dist op verifiers ------------------------------------===//

#include "dist/DistOps.h"

#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace autodist::dist;

LogicalResult AllReduceOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location>,
                                            ValueRange operands, DictionaryAttr,
                                            OpaqueProperties, RegionRange,
                                            SmallVectorImpl<Type> &results) {
  llvm::append_range(results, operands.getTypes());
  return success();
}

LogicalResult AllReduceOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one tensor to reduce");
  if (getGroupAttr().getInt() < 0)
    return emitOpError("group must be >= 0, got ") << getGroupAttr().getInt();
  return success();
}

#define GET_OP_CLASSES
#include "dist/DistOps.cpp.inc"
