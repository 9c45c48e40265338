//===- BuildTrainStep.cpp - loss, reverse-mode autodiff, optimizer --------===//
//
// Builds @train_step from @forward. The pass only orchestrates: each op
// supplies its own vector-Jacobian product (DifferentiableOpInterface), each
// loss and optimizer is an op, and gradient clipping is an op that
// synchronization can see through (GradientTransformOpInterface). Ops with
// a training form take it: batch normalization (StatefulOpInterface) and
// dropout (StochasticOpInterface).
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"
#include "dist/DistOps.h"
#include "nn/NNOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>
#include <limits>

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

/// `loc` of an op of the backward pass: an importer's node location
/// `"name"` becomes `"grad name"`, so that a trace (autodist-trace-loop-calls)
/// tells a node's gradient from its forward computation.
Location gradientLoc(Location loc) {
  auto name = dyn_cast<NameLoc>(loc);
  if (!name || name.getName().getValue().starts_with("grad "))
    return loc;
  return NameLoc::get(
      StringAttr::get(loc.getContext(), "grad " + name.getName().str()),
      name.getChildLoc());
}

/// Reverse-mode autodiff over the ops of `body` that precede `loss`: walks
/// them backwards, asking each for its VJP. Ops no gradient flows through
/// (or that have no operands) are skipped; integer values get no gradient;
/// an op a gradient must cross but that cannot be differentiated is an
/// error. The loss's own gradient is `seed` (the loss scale), or 1 when
/// null. Only f32 is differentiated: a gradient that would have to cross a
/// value of another float type depending on one of `params` is an error,
/// not a gradient silently cut (the VJPs build f32 arithmetic).
FailureOr<GradMap> backpropagate(OpBuilder &b, Block &body, Value loss,
                                 ArrayRef<Value> params, Value seed) {
  GradMap grads;
  DenseSet<Value> active(params.begin(), params.end());
  for (Operation &op : body)
    if (llvm::any_of(op.getOperands(),
                     [&](Value v) { return active.contains(v); }))
      active.insert(op.result_begin(), op.result_end());
  auto narrowFloat = [&](Value v) {
    Type e = getElementTypeOrSelf(v.getType());
    return isa<FloatType>(e) && !e.isF32() && active.contains(v);
  };
  auto scalar = RankedTensorType::get({}, b.getF32Type());
  grads[loss] =
      seed ? seed
           : arith::ConstantOp::create(b, loss.getLoc(),
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
    if (auto it = llvm::find_if(op->getOperands(), narrowFloat);
        it != op->operand_end()) {
      Type e = getElementTypeOrSelf((*it).getType());
      return op->emitOpError("would pass the gradient through a ")
             << (e.isF64()   ? "float64"
                 : e.isF16() ? "float16"
                             : "bfloat16")
             << " value computed from the parameters; only float32 values "
                "are differentiated (cast to float32 before this op)";
    }
    auto diff = dyn_cast<nn::DifferentiableOpInterface>(op);
    if (!diff)
      return op->emitOpError("has no gradient (it does not implement "
                             "DifferentiableOpInterface)");
    SmallVector<Value> operandGrads;
    Block *block = b.getInsertionBlock();
    Operation *last = block->empty() ? nullptr : &block->back();
    if (failed(diff.buildVJP(b, resultGrads, operandGrads)))
      return failure();
    for (Operation &made : llvm::make_range(
             last ? std::next(last->getIterator()) : block->begin(),
             block->end()))
      made.setLoc(gradientLoc(made.getLoc()));
    for (auto [v, g] : llvm::zip(op->getOperands(), operandGrads))
      if (g && isa<FloatType>(getElementTypeOrSelf(v.getType())))
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

/// The state of fp16 dynamic loss scaling (docs/precision.md).
constexpr const char *kLossScaleState = "amp/loss_scale";
constexpr const char *kGrowthTrackerState = "amp/growth_tracker";
constexpr const char *kOptimizerStepsState = "amp/optimizer_steps";

/// A trainable parameter and where its pieces live in @train_step.
struct Trainable {
  unsigned fwdArg;
  StringAttr name;
  SmallVector<std::string> stateNames;
  SmallVector<unsigned> stateArgs;
};

struct BuildTrainStepPass
    : public autodist::impl::BuildTrainStepBase<BuildTrainStepPass> {
  using BuildTrainStepBase::BuildTrainStepBase;

  void runOnOperation() override;

private:
  LogicalResult checkOptions(ModuleOp module);
  /// Names of the optimizer state tensors one parameter needs.
  SmallVector<std::string> stateSuffixes() const;
  /// The labels argument type, or null when the loss takes no labels.
  FailureOr<Type> labelType(func::FuncOp forward);
  FailureOr<Value> buildLoss(OpBuilder &b, Location loc, Value output,
                             Value labels);
  FailureOr<Value> applyOptimizer(OpBuilder &b, Location loc, Value param,
                                  Value grad, ValueRange state, Value lr,
                                  Value step, Value hold,
                                  SmallVectorImpl<Value> &newState);
  FailureOr<func::FuncOp> buildTrainStep(func::FuncOp forward);
  /// The training settings the manifest records (`seed` when the step
  /// takes the generator's key).
  DictionaryAttr trainAttr(Builder &b, bool withSeed);
};

LogicalResult BuildTrainStepPass::checkOptions(ModuleOp module) {
  if (loss != "cross_entropy" && loss != "mse" && loss != "output")
    return module.emitError("unsupported loss '")
           << loss << "' (supported: cross_entropy, mse, output)";
  if (optimizer != "sgd" && optimizer != "momentum" && optimizer != "adam" &&
      optimizer != "adamw")
    return module.emitError("unsupported optimizer '")
           << optimizer << "' (supported: sgd, momentum, adam, adamw)";
  // Each float setting is an f32 in the IR and a number in the manifest: an
  // infinite or NaN one (or one past f32's range) made an executable that
  // refused its own manifest at start.
  std::pair<const char *, double> floats[] = {{"lr", lr},
                                              {"momentum", momentum},
                                              {"weight-decay", weightDecay},
                                              {"beta1", beta1},
                                              {"beta2", beta2},
                                              {"epsilon", epsilon},
                                              {"clip-norm", clipNorm},
                                              {"min-lr", minLr},
                                              {"gamma", gamma}};
  for (auto [name, value] : floats) {
    if (std::isnan(value))
      return module.emitError(name) << " must be a finite number, got nan";
    if (std::isinf(value))
      return module.emitError(name) << " must be a finite number, got "
                                    << (value > 0 ? "inf" : "-inf");
    if (std::abs(value) > std::numeric_limits<float>::max())
      return module.emitError(name)
             << " must be a finite number as f32, got " << value;
  }
  if (!(lr > 0.0))
    return module.emitError("learning rate must be > 0, got ")
           << static_cast<double>(lr);
  if (weightDecay < 0.0 || momentum < 0.0 || clipNorm < 0.0)
    return module.emitError(
        "weight-decay, momentum and clip-norm must be >= 0");
  if (!(beta1 >= 0.0 && beta1 < 1.0 && beta2 >= 0.0 && beta2 < 1.0 &&
        epsilon > 0.0))
    return module.emitError("Adam needs 0 <= beta1, beta2 < 1 and epsilon > 0");
  if (lossScale != "none" && lossScale != "dynamic")
    return module.emitError("unsupported loss-scale '")
           << lossScale << "' (supported: none, dynamic)";
  if (lossScale == "dynamic" &&
      !(lossScaleInit > 0.0 &&
        lossScaleInit <= std::numeric_limits<float>::max()))
    return module.emitError("the loss scale must be a finite number > 0, got ")
           << static_cast<double>(lossScaleInit);
  if (lossScaleGrowthInterval < 1)
    return module.emitError("the loss scale's growth interval must be >= 1, "
                            "got ")
           << static_cast<int64_t>(lossScaleGrowthInterval);
  if (schedule != "constant" && schedule != "cosine" && schedule != "step")
    return module.emitError("unsupported lr schedule '")
           << schedule << "' (supported: constant, cosine, step)";
  if (schedule == "cosine" &&
      (totalSteps <= warmupSteps || warmupSteps < 0 || minLr < 0.0))
    return module.emitError("the cosine schedule needs 0 <= warmup-steps < "
                            "total-steps and min-lr >= 0");
  if (schedule == "step" && (stepSize < 1 || gamma <= 0.0))
    return module.emitError(
        "the step schedule needs step-size >= 1 and gamma > 0");
  return success();
}

SmallVector<std::string> BuildTrainStepPass::stateSuffixes() const {
  if (optimizer == "momentum")
    return {"momentum_buffer"};
  if (optimizer == "adam" || optimizer == "adamw")
    return {"adam_m", "adam_v"};
  return {};
}

FailureOr<Type> BuildTrainStepPass::labelType(func::FuncOp forward) {
  Type out = forward.getFunctionType().getResult(0);
  auto t = dyn_cast<RankedTensorType>(out);
  if (loss == "output") {
    if (!t || !t.hasStaticShape() || t.getNumElements() != 1 ||
        !t.getElementType().isF32())
      return forward.emitError("loss 'output' needs the first output to be a "
                               "scalar f32 loss, got ")
             << out;
    return Type();
  }
  if (loss == "mse") {
    if (!t || !t.getElementType().isF32())
      return forward.emitError("mse loss needs an f32 first output, got ")
             << out;
    return Type(t);
  }
  if (!t || t.getRank() < 2 || !t.getElementType().isF32())
    return forward.emitError("cross_entropy loss needs f32 logits [N..., C] "
                             "as the first output, got ")
           << out;
  OpBuilder b(forward);
  return Type(RankedTensorType::get(t.getShape().drop_back(), b.getI64Type()));
}

FailureOr<Value> BuildTrainStepPass::buildLoss(OpBuilder &b, Location loc,
                                               Value output, Value labels) {
  if (loss == "cross_entropy")
    return nn::SoftmaxCrossEntropyLossOp::create(b, loc, output, labels)
        .getResult();
  if (loss == "mse")
    return nn::MseLossOp::create(b, loc, output, labels).getResult();
  auto t = cast<RankedTensorType>(output.getType());
  if (t.getRank() == 0)
    return output;
  return nn::ReshapeOp::create(b, loc, output, Value(),
                               b.getDenseI64ArrayAttr({}))
      .getResult();
}

FailureOr<Value> BuildTrainStepPass::applyOptimizer(
    OpBuilder &b, Location loc, Value param, Value grad, ValueRange state,
    Value lr, Value step, Value hold, SmallVectorImpl<Value> &newState) {
  auto f32 = [&](double v) { return b.getF32FloatAttr(v); };
  if (optimizer == "sgd")
    return nn::SgdUpdateOp::create(b, loc, param, grad, lr, hold,
                                   f32(weightDecay))
        .getResult();
  if (optimizer == "momentum") {
    auto op = nn::MomentumUpdateOp::create(
        b, loc, param, grad, state[0], lr, hold, f32(momentum),
        b.getBoolAttr(nesterov), f32(weightDecay));
    newState.push_back(op.getNewVelocity());
    return op.getNewParam();
  }
  auto op = nn::AdamUpdateOp::create(b, loc, param, grad, state[0], state[1],
                                     lr, step, hold, f32(beta1), f32(beta2),
                                     f32(epsilon), f32(weightDecay),
                                     b.getBoolAttr(optimizer == "adamw"));
  newState.push_back(op.getNewM());
  newState.push_back(op.getNewV());
  return op.getNewParam();
}

FailureOr<func::FuncOp>
BuildTrainStepPass::buildTrainStep(func::FuncOp forward) {
  OpBuilder b(forward);
  Location loc = forward.getLoc();
  FunctionType fwdType = forward.getFunctionType();
  FailureOr<Type> labels = labelType(forward);
  if (failed(labels))
    return failure();

  // Which parameters train, and the state each needs.
  llvm::StringSet<> frozen;
  for (const std::string &f : freeze)
    frozen.insert(f);
  // Running statistics (StatefulOpInterface) are not trained: their op
  // takes its training form, which updates them, unless all of them are
  // frozen (then it stays as it is, e.g. batch norm in inference form).
  DenseSet<Operation *> toTrainingForm;
  DenseSet<unsigned> stateParams;
  for (Operation &op : forward.getBody().front()) {
    auto stateful = dyn_cast<nn::StatefulOpInterface>(op);
    if (!stateful)
      continue;
    SmallVector<unsigned> argNos;
    bool allFrozen = true;
    for (unsigned i : stateful.getStateOperandIndices()) {
      auto arg = dyn_cast<BlockArgument>(op.getOperand(i));
      auto name = arg ? forward.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                             "nn.param")
                      : StringAttr();
      allFrozen &= name && frozen.contains(name.getValue());
      if (name)
        argNos.push_back(arg.getArgNumber());
    }
    if (allFrozen)
      continue;
    toTrainingForm.insert(&op);
    for (unsigned a : argNos)
      if (!stateParams.insert(a).second)
        return op.emitOpError("updates the running statistic '")
               << forward.getArgAttrOfType<StringAttr>(a, "nn.param").getValue()
               << "', which another op updates too";
  }
  SmallVector<Trainable> trainables;
  SmallVector<unsigned> params, inputs;
  for (unsigned i = 0; i < fwdType.getNumInputs(); ++i) {
    auto name = forward.getArgAttrOfType<StringAttr>(i, "nn.param");
    if (!name) {
      inputs.push_back(i);
      continue;
    }
    params.push_back(i);
    if (frozen.erase(name.getValue()) || stateParams.contains(i))
      continue;
    Trainable t{i, name, {}, {}};
    for (const std::string &s : stateSuffixes())
      t.stateNames.push_back((name.getValue() + "/" + s).str());
    trainables.push_back(std::move(t));
  }
  if (!frozen.empty())
    return forward.emitError("--freeze names '")
           << frozen.begin()->getKey() << "', which is not a parameter";

  // Stochastic ops (dropout) need the generator's key.
  bool stochastic = llvm::any_of(forward.getBody().front(), [](Operation &op) {
    return isa<nn::StochasticOpInterface>(op);
  });

  // Signature: params, optimizer state, inputs, [labels], lr, step,
  // [seed, rank].
  SmallVector<Type> argTypes;
  SmallVector<DictionaryAttr> argAttrs;
  DenseMap<unsigned, unsigned> fwdToStep;
  for (unsigned i : params) {
    fwdToStep[i] = argTypes.size();
    argTypes.push_back(fwdType.getInput(i));
    argAttrs.push_back(forward.getArgAttrDict(i));
  }
  for (Trainable &t : trainables) {
    for (const std::string &s : t.stateNames) {
      t.stateArgs.push_back(argTypes.size());
      argTypes.push_back(fwdType.getInput(t.fwdArg));
      argAttrs.push_back(
          b.getDictionaryAttr(b.getNamedAttr("nn.state", b.getStringAttr(s))));
    }
  }
  // fp16 loss scaling: the scale and its growth tracker, after the
  // optimizer state.
  auto scalar = RankedTensorType::get({}, b.getF32Type());
  std::optional<unsigned> scaleArg;
  if (lossScale == "dynamic") {
    scaleArg = argTypes.size();
    argTypes.push_back(scalar);
    argAttrs.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("nn.state", b.getStringAttr(kLossScaleState)),
         b.getNamedAttr("nn.state_init", b.getF32FloatAttr(static_cast<float>(
                                             lossScaleInit)))}));
    argTypes.push_back(scalar);
    argAttrs.push_back(b.getDictionaryAttr(
        b.getNamedAttr("nn.state", b.getStringAttr(kGrowthTrackerState))));
    // Adam's bias correction counts the steps it took (torch.optim.Adam's
    // per-parameter `step`), not the skipped ones.
    if (optimizer == "adam" || optimizer == "adamw") {
      argTypes.push_back(scalar);
      argAttrs.push_back(b.getDictionaryAttr(
          b.getNamedAttr("nn.state", b.getStringAttr(kOptimizerStepsState))));
    }
  }
  for (unsigned i : inputs) {
    fwdToStep[i] = argTypes.size();
    argTypes.push_back(fwdType.getInput(i));
    argAttrs.push_back(forward.getArgAttrDict(i));
  }
  std::optional<unsigned> labelArg;
  if (*labels) {
    labelArg = argTypes.size();
    argTypes.push_back(*labels);
    argAttrs.push_back(b.getDictionaryAttr(
        b.getNamedAttr("nn.label", b.getStringAttr(label))));
  }
  unsigned lrArg = argTypes.size();
  argTypes.push_back(scalar);
  argAttrs.push_back(
      b.getDictionaryAttr(b.getNamedAttr("nn.lr", b.getUnitAttr())));
  unsigned stepArg = argTypes.size();
  argTypes.push_back(scalar);
  argAttrs.push_back(
      b.getDictionaryAttr(b.getNamedAttr("nn.step", b.getUnitAttr())));
  std::optional<unsigned> seedArg;
  if (stochastic) {
    auto i64Scalar = RankedTensorType::get({}, b.getI64Type());
    seedArg = argTypes.size();
    for (StringRef tag : {"nn.seed", "nn.rank"}) {
      argTypes.push_back(i64Scalar);
      argAttrs.push_back(
          b.getDictionaryAttr(b.getNamedAttr(tag, b.getUnitAttr())));
    }
  }

  auto step = func::FuncOp::create(b, loc, "train_step",
                                   b.getFunctionType(argTypes, {}));
  for (auto [i, attrs] : llvm::enumerate(argAttrs))
    step.setArgAttrs(i, attrs);

  // Forward: clone the body.
  Block *entry = step.addEntryBlock();
  IRMapping map;
  for (auto [fwd, idx] : fwdToStep)
    map.map(forward.getArgument(fwd), entry->getArgument(idx));
  b.setInsertionPointToEnd(entry);
  Value output;
  SmallVector<Operation *> stateful, random;
  for (Operation &op : forward.getBody().front()) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      output = map.lookup(ret.getOperand(0));
      break;
    }
    Operation *clone = b.clone(op, map);
    if (toTrainingForm.contains(&op))
      stateful.push_back(clone);
    if (isa<nn::StochasticOpInterface>(op))
      random.push_back(clone);
  }
  // Replaces `op`'s results by `replacements` (also as the model output).
  auto replace = [&](Operation *op, ValueRange replacements) {
    for (auto [from, to] : llvm::zip(op->getResults(), replacements))
      if (output == from)
        output = to;
    op->replaceAllUsesWith(replacements);
    op->erase();
  };
  // Training forms; the new running statistics become the parameters'
  // outputs.
  DenseMap<Value, Value> newStats;
  for (Operation *op : stateful) {
    auto st = cast<nn::StatefulOpInterface>(op);
    SmallVector<Value> replacements, updated;
    b.setInsertionPoint(op);
    if (failed(st.buildTrainingForm(b, replacements, updated, syncBatchNorm)))
      return failure();
    for (auto [i, v] : llvm::zip(st.getStateOperandIndices(), updated))
      newStats[op->getOperand(i)] = v;
    replace(op, replacements);
  }
  // Stochastic ops draw from streams numbered in @forward's order.
  for (auto [stream, op] : llvm::enumerate(random)) {
    SmallVector<Value> replacements;
    b.setInsertionPoint(op);
    if (failed(cast<nn::StochasticOpInterface>(op).buildTrainingForm(
            b, entry->getArgument(*seedArg), entry->getArgument(*seedArg + 1),
            entry->getArgument(stepArg), stream, replacements)))
      return failure();
    replace(op, replacements);
  }
  b.setInsertionPointToEnd(entry);
  FailureOr<Value> lossValue = buildLoss(
      b, loc, output, labelArg ? entry->getArgument(*labelArg) : Value());
  if (failed(lossValue))
    return failure();

  // Backward.
  SmallVector<Value> paramValues;
  for (Trainable &t : trainables)
    paramValues.push_back(entry->getArgument(fwdToStep[t.fwdArg]));
  Value scale = scaleArg ? entry->getArgument(*scaleArg) : Value();
  FailureOr<GradMap> grads =
      backpropagate(b, *entry, *lossValue, paramValues, scale);
  if (failed(grads))
    return failure();
  SmallVector<Value> gradients;
  for (Trainable &t : trainables) {
    Value g = grads->lookup(entry->getArgument(fwdToStep[t.fwdArg]));
    if (!g)
      emitWarning(loc) << "parameter '" << t.name.getValue()
                       << "' does not affect the loss; it is not trained";
    gradients.push_back(g); // null: left unchanged, as torch.optim does
  }
  SmallVector<Value> present;
  for (Value g : gradients)
    if (g)
      present.push_back(g);
  // Unscaled before clipping, as GradScaler.unscale_ before
  // clip_grad_norm_.
  Value foundInf;
  if (scale && !present.empty()) {
    auto unscale =
        nn::UnscaleGradientsOp::create(b, loc, scale, ValueRange(present));
    auto unscaled = unscale.getResults().begin();
    for (Value &g : gradients)
      if (g)
        g = *unscaled++;
    present.assign(unscale.getResults().begin(), unscale.getResults().end());
    foundInf = unscale.getFoundInf();
  }
  if (clipNorm > 0.0 && !present.empty()) {
    auto clip =
        nn::ClipByGlobalNormOp::create(b, loc, ValueRange(present).getTypes(),
                                       present, b.getF32FloatAttr(clipNorm));
    auto clipped = clip.getResults().begin();
    for (Value &g : gradients)
      if (g)
        g = *clipped++;
  }

  // Optimizer.
  Value lr = entry->getArgument(lrArg), stepNo = entry->getArgument(stepArg);
  bool countsSteps = scale && (optimizer == "adam" || optimizer == "adamw");
  Value stepsTaken;
  if (countsSteps) {
    stepsTaken = entry->getArgument(*scaleArg + 2);
    stepNo =
        nn::AddOp::create(b, loc, stepsTaken,
                          arith::ConstantOp::create(
                              b, loc, DenseElementsAttr::get(scalar, 1.0f)));
  }
  DenseMap<unsigned, Value> newParams;
  SmallVector<Value> newStates;
  for (auto [t, g] : llvm::zip(trainables, gradients)) {
    SmallVector<Value> state;
    for (unsigned a : t.stateArgs)
      state.push_back(entry->getArgument(a));
    if (!g) {
      llvm::append_range(newStates, state);
      continue;
    }
    Value param = entry->getArgument(fwdToStep[t.fwdArg]);
    // A step with a non-finite gradient changes nothing (GradScaler.step):
    // the update holds.
    FailureOr<Value> p = applyOptimizer(b, loc, param, g, state, lr, stepNo,
                                        foundInf, newStates);
    if (failed(p))
      return failure();
    newParams[t.fwdArg] = *p;
  }
  SmallVector<std::string> extraStateNames;
  if (scale) {
    Value tracker = entry->getArgument(*scaleArg + 1);
    if (foundInf) {
      auto update = nn::UpdateLossScaleOp::create(
          b, loc, scale, tracker, foundInf, b.getF32FloatAttr(2.0f),
          b.getF32FloatAttr(0.5f),
          b.getI64IntegerAttr(lossScaleGrowthInterval));
      newStates.push_back(update.getNewScale());
      newStates.push_back(update.getNewGrowthTracker());
      if (countsSteps)
        newStates.push_back(
            nn::WhereOp::create(b, loc, foundInf, stepsTaken, stepNo));
    } else { // nothing is trained: the scale never changes
      newStates.push_back(scale);
      newStates.push_back(tracker);
      if (countsSteps)
        newStates.push_back(stepsTaken);
    }
    extraStateNames = {kLossScaleState, kGrowthTrackerState};
    if (countsSteps)
      extraStateNames.push_back(kOptimizerStepsState);
  }
  SmallVector<Value> results = {*lossValue};
  SmallVector<StringAttr> outNames;
  for (unsigned i : params) {
    Value arg = entry->getArgument(fwdToStep[i]);
    Value p = newParams.lookup(i);
    if (!p)
      p = newStats.lookup(arg);
    results.push_back(p ? p : arg);
    outNames.push_back(forward.getArgAttrOfType<StringAttr>(i, "nn.param"));
  }
  llvm::append_range(results, newStates);
  func::ReturnOp::create(b, loc, results);
  step.setType(b.getFunctionType(argTypes, ValueRange(results).getTypes()));
  step.setResultAttr(0, "nn.loss", b.getUnitAttr());
  for (auto [i, name] : llvm::enumerate(outNames))
    step.setResultAttr(i + 1, "nn.param_out", name);
  unsigned r = 1 + outNames.size();
  for (const Trainable &t : trainables)
    for (const std::string &s : t.stateNames)
      step.setResultAttr(r++, "nn.state_out", b.getStringAttr(s));
  for (const std::string &s : extraStateNames)
    step.setResultAttr(r++, "nn.state_out", b.getStringAttr(s));
  eraseDeadOps(*entry);
  return step;
}

/// Whether `step` takes the generator's key (seed, rank).
bool takesSeed(func::FuncOp step) {
  for (unsigned i = 0; i < step.getNumArguments(); ++i)
    if (step.getArgAttr(i, "nn.seed"))
      return true;
  return false;
}

DictionaryAttr BuildTrainStepPass::trainAttr(Builder &b, bool withSeed) {
  SmallVector<NamedAttribute> attrs = {
      b.getNamedAttr("loss", b.getStringAttr(loss)),
      b.getNamedAttr("optimizer", b.getStringAttr(optimizer)),
      b.getNamedAttr("lr", b.getF64FloatAttr(lr)),
      b.getNamedAttr("label", b.getStringAttr(label)),
      b.getNamedAttr("schedule", b.getStringAttr(schedule)),
  };
  if (schedule == "cosine") {
    attrs.push_back(
        b.getNamedAttr("warmup_steps", b.getI64IntegerAttr(warmupSteps)));
    attrs.push_back(
        b.getNamedAttr("total_steps", b.getI64IntegerAttr(totalSteps)));
    attrs.push_back(b.getNamedAttr("min_lr", b.getF64FloatAttr(minLr)));
  } else if (schedule == "step") {
    attrs.push_back(b.getNamedAttr("step_size", b.getI64IntegerAttr(stepSize)));
    attrs.push_back(b.getNamedAttr("gamma", b.getF64FloatAttr(gamma)));
  }
  if (withSeed)
    attrs.push_back(b.getNamedAttr(
        "seed", b.getI64IntegerAttr(static_cast<int64_t>(uint64_t(seed)))));
  return b.getDictionaryAttr(attrs);
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
  FailureOr<func::FuncOp> step;
  if (failed(checkOptions(module)) || failed(step = buildTrainStep(forward)))
    return signalPassFailure();
  Builder b(module.getContext());
  module->setAttr("autodist.train", trainAttr(b, takesSeed(*step)));
}

} // namespace
