//===- NNSignedness.cpp - unsigned integers through the lowering ----------===//

#include "nn/NNSignedness.h"
#include "nn/NNDialect.h"
#include "nn/NNOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;

namespace autodist::nn {

namespace {
bool isUnsignedElement(Type t) {
  auto i = dyn_cast<IntegerType>(getElementTypeOrSelf(t));
  return i && i.isUnsigned();
}

/// `t` with an unsigned integer element (or itself) made signless.
Type signless(Type t) {
  auto i = dyn_cast<IntegerType>(getElementTypeOrSelf(t));
  if (!i || !i.isUnsigned())
    return t;
  auto s = IntegerType::get(t.getContext(), i.getWidth());
  if (auto shaped = dyn_cast<ShapedType>(t))
    return shaped.clone(s);
  return s;
}

bool mark(Operation *op) {
  SmallVector<bool> flags;
  for (Value v : op->getOperands())
    flags.push_back(isUnsignedElement(v.getType()));
  for (Value v : op->getResults())
    flags.push_back(isUnsignedElement(v.getType()));
  if (!llvm::is_contained(flags, true))
    return false;
  op->setAttr(kUnsignedValuesAttr,
              DenseBoolArrayAttr::get(op->getContext(), flags));
  return true;
}

bool flag(Operation *op, unsigned index) {
  auto flags = op->getAttrOfType<DenseBoolArrayAttr>(kUnsignedValuesAttr);
  return flags && index < flags.size() && flags[index];
}
} // namespace

void eraseSignedness(Operation *root) {
  // All marks first: retyping a value changes what its users see.
  root->walk([&](Operation *op) {
    if (isa<NNDialect>(op->getDialect()))
      mark(op);
  });
  root->walk([&](Operation *op) {
    if (auto cast = dyn_cast<CastOp>(op))
      cast.setTo(signless(cast.getTo()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(signless(arg.getType()));
    for (OpResult r : op->getResults())
      r.setType(signless(r.getType()));
    if (auto fn = dyn_cast<FunctionOpInterface>(op)) {
      SmallVector<Type> ins, outs;
      for (Type t : fn.getArgumentTypes())
        ins.push_back(signless(t));
      for (Type t : fn.getResultTypes())
        outs.push_back(signless(t));
      fn.setType(FunctionType::get(op->getContext(), ins, outs));
    }
  });
}

bool isUnsignedOperand(Operation *op, unsigned i) { return flag(op, i); }

bool isUnsignedResult(Operation *op, unsigned i) {
  return flag(op, op->getNumOperands() + i);
}

} // namespace autodist::nn
