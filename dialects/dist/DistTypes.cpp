//===- DistTypes.cpp - dist dialect types ---------------------------------===//

#include "dist/DistTypes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace autodist::dist;

#define GET_TYPEDEF_CLASSES
#include "dist/DistTypes.cpp.inc"

void DistDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dist/DistTypes.cpp.inc"
      >();
}

LogicalResult FutureType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<Type> valueTypes) {
  if (valueTypes.empty())
    return emitError() << "a future holds at least one tensor";
  for (Type t : valueTypes) {
    auto ranked = dyn_cast<RankedTensorType>(t);
    if (!ranked || !ranked.getElementType().isF32())
      return emitError() << "a future holds ranked f32 tensors, not " << t;
  }
  return success();
}
