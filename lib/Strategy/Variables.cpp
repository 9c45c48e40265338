//===- Variables.cpp - the trainable variables a strategy covers ----------===//

#include "autodist/Strategy/Variables.h"

#include "nn/NNOps.h"

using namespace mlir;
using namespace autodist;

int64_t Variable::bytes() const {
  return type.getNumElements() *
         std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

func::FuncOp autodist::distributedFunction(ModuleOp module) {
  if (auto f = module.lookupSymbol<func::FuncOp>("train_step"))
    return f;
  return module.lookupSymbol<func::FuncOp>("forward");
}

/// Whether some use of `param` reads it sparsely (an embedding lookup), as
/// the op itself says (SparseAccessOpInterface).
static bool hasSparseUse(Value param) {
  for (OpOperand &use : param.getUses())
    if (auto sparse = dyn_cast<nn::SparseAccessOpInterface>(use.getOwner()))
      if (sparse.isSparseOperand(use.getOperandNumber()))
        return true;
  return false;
}

SmallVector<Variable> autodist::variables(func::FuncOp func) {
  SmallVector<Variable> vars;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (auto n = func.getArgAttrOfType<StringAttr>(i, "nn.param"))
      vars.push_back({n.getValue().str(),
                      cast<RankedTensorType>(func.getArgument(i).getType()),
                      hasSparseUse(func.getArgument(i))});
  return vars;
}
