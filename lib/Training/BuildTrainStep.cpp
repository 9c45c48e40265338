//===- BuildTrainStep.cpp - loss, reverse-mode autodiff, optimizer --------===//
//
// Builds @train_step from @forward. The pass only orchestrates: each op
// supplies its own vector-Jacobian product (DifferentiableOpInterface) and
// each optimizer is an op (OptimizerUpdateOpInterface).
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"
#include "nn/NNOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

namespace autodist {
#define GEN_PASS_DEF_BUILDTRAINSTEP
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;
using namespace autodist;

namespace {

/// Gradient of every value reached backwards from the loss.
using GradMap = DenseMap<Value, Value>;

/// Adds `g` to the gradient accumulated for `v` (a value used several
/// times receives the sum of its uses' gradients).
void accumulate(OpBuilder &b, GradMap &grads, Value v, Value g) {
  auto [it, inserted] = grads.try_emplace(v, g);
  if (!inserted)
    it->second = nn::AddOp::create(b, v.getLoc(), it->second, g);
}

/// Reverse-mode autodiff over the ops of `body` that precede `loss`: walks
/// them backwards, asking each for its VJP. Ops no gradient flows through
/// are skipped; an op a gradient must cross but that cannot be
/// differentiated is an error.
FailureOr<GradMap> backpropagate(OpBuilder &b, Block &body, Value loss) {
  GradMap grads;
  auto scalar = RankedTensorType::get({}, b.getF32Type());
  grads[loss] = arith::ConstantOp::create(b, loss.getLoc(),
                                          DenseElementsAttr::get(scalar, 1.0f));
  SmallVector<Operation *> forwardOps;
  for (Operation &op : body) {
    forwardOps.push_back(&op);
    if (&op == loss.getDefiningOp())
      break;
  }
  for (Operation *op : llvm::reverse(forwardOps)) {
    SmallVector<Value> resultGrads;
    bool any = false;
    for (Value r : op->getResults()) {
      resultGrads.push_back(grads.lookup(r));
      any |= static_cast<bool>(resultGrads.back());
    }
    if (!any || op->getNumOperands() == 0)
      continue;
    auto diff = dyn_cast<nn::DifferentiableOpInterface>(op);
    if (!diff)
      return op->emitOpError("has no gradient (it does not implement "
                             "DifferentiableOpInterface)");
    SmallVector<Value> operandGrads;
    if (failed(diff.buildVJP(b, resultGrads, operandGrads)))
      return failure();
    for (auto [v, g] : llvm::zip(op->getOperands(), operandGrads))
      if (g)
        accumulate(b, grads, v, g);
  }
  return grads;
}

/// Erases pure ops whose results are unused (e.g. gradients of inputs).
void eraseDeadOps(Block &body) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body))) {
      if (isOpTriviallyDead(&op)) {
        op.erase();
        changed = true;
      }
    }
  }
}

struct BuildTrainStepPass
    : public autodist::impl::BuildTrainStepBase<BuildTrainStepPass> {
  using BuildTrainStepBase::BuildTrainStepBase;

  void runOnOperation() override;

private:
  LogicalResult checkOptions(ModuleOp module);
  FailureOr<func::FuncOp> buildTrainStep(func::FuncOp forward);
};

LogicalResult BuildTrainStepPass::checkOptions(ModuleOp module) {
  if (loss != "cross_entropy")
    return module.emitError("unsupported loss '")
           << loss << "' (supported: cross_entropy)";
  if (optimizer != "sgd")
    return module.emitError("unsupported optimizer '")
           << optimizer << "' (supported: sgd)";
  if (!(lr > 0.0))
    return module.emitError("learning rate must be > 0, got ") << lr;
  return success();
}

FailureOr<func::FuncOp>
BuildTrainStepPass::buildTrainStep(func::FuncOp forward) {
  OpBuilder b(forward);
  Location loc = forward.getLoc();
  FunctionType fwdType = forward.getFunctionType();
  auto logitsType = dyn_cast<RankedTensorType>(fwdType.getResult(0));
  if (!logitsType || logitsType.getRank() != 2)
    return forward.emitError("cross_entropy loss needs 2-D logits [N, C] as "
                             "the first output, got ")
           << fwdType.getResult(0);

  // Signature: forward's arguments, then labels and lr.
  SmallVector<Type> argTypes(fwdType.getInputs());
  argTypes.push_back(
      RankedTensorType::get({logitsType.getDimSize(0)}, b.getI64Type()));
  auto scalar = RankedTensorType::get({}, b.getF32Type());
  argTypes.push_back(scalar);
  auto step = func::FuncOp::create(b, loc, "train_step",
                                   b.getFunctionType(argTypes, {}));
  unsigned numFwdArgs = fwdType.getNumInputs();
  for (unsigned i = 0; i < numFwdArgs; ++i)
    step.setArgAttrs(i, forward.getArgAttrDict(i));
  step.setArgAttr(numFwdArgs, "nn.label", b.getStringAttr(label));
  step.setArgAttr(numFwdArgs + 1, "nn.lr", b.getUnitAttr());

  // Forward: clone the body.
  Block *entry = step.addEntryBlock();
  IRMapping map;
  for (unsigned i = 0; i < numFwdArgs; ++i)
    map.map(forward.getArgument(i), entry->getArgument(i));
  b.setInsertionPointToEnd(entry);
  Value logits;
  for (Operation &op : forward.getBody().front()) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      logits = map.lookup(ret.getOperand(0));
      break;
    }
    b.clone(op, map);
  }
  Value labels = entry->getArgument(numFwdArgs);
  Value lrArg = entry->getArgument(numFwdArgs + 1);
  Value lossValue =
      nn::SoftmaxCrossEntropyLossOp::create(b, loc, logits, labels);

  // Backward.
  FailureOr<GradMap> grads = backpropagate(b, *entry, lossValue);
  if (failed(grads))
    return failure();

  // Optimizer.
  SmallVector<Value> results = {lossValue};
  SmallVector<StringAttr> paramNames;
  for (unsigned i = 0; i < numFwdArgs; ++i) {
    auto name = forward.getArgAttrOfType<StringAttr>(i, "nn.param");
    if (!name)
      continue;
    Value param = entry->getArgument(i);
    Value g = grads->lookup(param);
    if (!g) {
      emitWarning(loc) << "parameter '" << name.getValue()
                       << "' does not affect the loss; it is not trained";
      results.push_back(param);
    } else {
      results.push_back(nn::SgdUpdateOp::create(b, loc, param, g, lrArg));
    }
    paramNames.push_back(name);
  }
  func::ReturnOp::create(b, loc, results);
  step.setType(b.getFunctionType(argTypes, ValueRange(results).getTypes()));
  step.setResultAttr(0, "nn.loss", b.getUnitAttr());
  for (auto [i, name] : llvm::enumerate(paramNames))
    step.setResultAttr(i + 1, "nn.param_out", name);
  eraseDeadOps(*entry);
  return step;
}

void BuildTrainStepPass::runOnOperation() {
  ModuleOp module = getOperation();
  auto forward = module.lookupSymbol<func::FuncOp>("forward");
  if (!forward) {
    module.emitError("no @forward function to build a training step from");
    return signalPassFailure();
  }
  if (module.lookupSymbol("train_step")) {
    module.emitError("the module already has a @train_step");
    return signalPassFailure();
  }
  if (failed(checkOptions(module)) || failed(buildTrainStep(forward)))
    return signalPassFailure();
  Builder b(module.getContext());
  module->setAttr("autodist.train",
                  b.getDictionaryAttr({
                      b.getNamedAttr("loss", b.getStringAttr(loss)),
                      b.getNamedAttr("optimizer", b.getStringAttr(optimizer)),
                      b.getNamedAttr("lr", b.getF64FloatAttr(lr)),
                      b.getNamedAttr("label", b.getStringAttr(label)),
                  }));
}

} // namespace
