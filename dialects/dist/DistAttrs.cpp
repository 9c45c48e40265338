//===- DistAttrs.cpp - strategy attribute verifiers -----------------------===//

#include "dist/DistAttrs.h"
#include "dist/DistDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace autodist::dist;

#include "dist/DistEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dist/DistAttrs.cpp.inc"

void DistDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dist/DistAttrs.cpp.inc"
      >();
}

LogicalResult
AllReduceSynchronizerAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  AllReduceSpec, Compressor, int64_t group) {
  if (group < 0)
    return emitError() << "all-reduce group must be >= 0, got " << group;
  return success();
}

LogicalResult
NodeConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       StringRef varName, Attribute sync) {
  if (varName.empty())
    return emitError() << "node config needs a variable name";
  if (!isa<AllReduceSynchronizerAttr>(sync))
    return emitError() << "synchronizer of '" << varName
                       << "' must be a #dist.allreduce, got " << sync;
  return success();
}

LogicalResult StrategyAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   StringRef builder, ArrayAttr nodes) {
  llvm::StringSet<> seen;
  for (Attribute a : nodes) {
    auto node = dyn_cast<NodeConfigAttr>(a);
    if (!node)
      return emitError() << "strategy nodes must be #dist.node, got " << a;
    if (!seen.insert(node.getVarName()).second)
      return emitError() << "variable '" << node.getVarName()
                         << "' has more than one node config";
  }
  return success();
}

NodeConfigAttr StrategyAttr::lookup(StringRef varName) const {
  for (Attribute a : getNodes())
    if (auto node = cast<NodeConfigAttr>(a); node.getVarName() == varName)
      return node;
  return {};
}
