//===- DistDialect.cpp - the dist dialect ---------------------------------===//

#include "dist/DistDialect.h"
#include "dist/DistAttrs.h"
#include "dist/DistOps.h"
#include "dist/DistTypes.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace autodist::dist;

#include "dist/DistDialect.cpp.inc"

void DistDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "dist/DistOps.cpp.inc"
      >();
}
