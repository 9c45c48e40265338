//===- StalenessPipeline.cpp - stale gradients a step late (SAPipe) -------===//
//
// Carries out the strategy's #dist.pipeline on @train_step as
// dist-synchronize left it: the stale parameters' gradients leave their
// synchronous all-reduce buckets for an all-reduce started in this step and
// waited for in the next one, through a future that is an argument and a
// result of the step (state that crosses steps, tagged `dist.inflight`).
// Warm-up, the step with nothing in flight, and compensation (weight
// prediction, delay compensation) are ops of the step too, with the caches
// they need as optimizer-like state (`nn.state`). The stale set is the
// strategy's list or, with auto_stale, the choice of StaleSetModel.
//
//===----------------------------------------------------------------------===//

#include "BucketPlacement.h"
#include "StepState.h"
#include "autodist/Passes.h"
#include "autodist/Strategy/StaleSetModel.h"
#include "dist/DistOps.h"
#include "nn/NNOps.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"

namespace autodist {
#define GEN_PASS_DEF_STALENESSPIPELINE
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;
using namespace autodist;

namespace {

/// A stale parameter: its argument, its update and where its gradient is
/// reduced today.
struct StaleParam {
  StringAttr name;
  BlockArgument arg;
  nn::OptimizerUpdateOpInterface update;
  dist::AllReduceOp bucket;
  unsigned resultNo; // of `bucket`: the reduced gradient
  Value local;       // this rank's gradient (the bucket's input)
  Value hold;        // the update's own hold condition (fp16), if any
};

/// Scalar conditions on the step number (the `nn.step` argument, 1-based):
/// `warm` for steps 1..W, `idle` for step W+1 (nothing in flight).
struct StepConditions {
  Value stepNo;                 // the `nn.step` argument
  Value warm, idle;             // i1 scalars (warm only when W > 0)
  Value warmTensor, idleTensor; // the same as tensor<i1>
};

class StalenessRewriter {
public:
  StalenessRewriter(func::FuncOp step, dist::PipelineAttr pipe)
      : step(step), pipe(pipe), b(step.getContext()) {}

  LogicalResult run(ArrayRef<StringRef> staleNames);

private:
  LogicalResult collect(ArrayRef<StringRef> staleNames);
  void buildConditions();
  /// A new state argument `nn.state = name` (per rank: `dist.per_rank`;
  /// starting as parameter `initParam`: `dist.init_param`); its result is
  /// added with setStateOut.
  BlockArgument addState(StringRef name, Type type, bool perRank = false,
                         StringRef initParam = {});
  BlockArgument addInflight(StringRef name, Type type,
                            ArrayRef<StringRef> params);
  /// Appends `v` as the result of state `name`.
  void setStateOut(StringRef name, Value v);
  LogicalResult predictWeights(StaleParam &p);
  /// The number of ranks (`dist.ranks`) and the next step's learning rate
  /// (`nn.next_lr`): f32 arguments of the step the runtime passes last, in
  /// that order (docs/abi.md); added on first use.
  Value rankCount();
  Value nextLearningRate();
  BlockArgument addTrailingScalar(StringRef tag, bool beforeNextLr);
  Value compensateDelay(StaleParam &p, Value grad);
  void rewriteBucket(dist::AllReduceOp bucket, ArrayRef<StaleParam *> stale,
                     unsigned index);
  void holdWhileIdle();

  Value where(Location loc, Value cond, Value x, Value y) {
    return nn::WhereOp::create(b, loc, x.getType(), cond, x, y);
  }
  /// `hold` (tensor<i1>) or `c` (i1), as a tensor<i1> at b's point.
  Value orHold(Location loc, Value hold, Value c) {
    Value either = arith::OrIOp::create(
        b, loc, tensor::ExtractOp::create(b, loc, hold, ValueRange{}), c);
    return tensor::FromElementsOp::create(b, loc, hold.getType(), either);
  }

  func::FuncOp step;
  dist::PipelineAttr pipe;
  OpBuilder b;
  SmallVector<StaleParam> params;
  StepConditions cond;
  // New state and in-flight arguments, in order, with their results.
  SmallVector<std::pair<StringAttr, Value>> stateOut, inflightOut;
  Value ranks, nextLr;
};

BlockArgument StalenessRewriter::addTrailingScalar(StringRef tag,
                                                   bool beforeNextLr) {
  unsigned at = step.getNumArguments();
  if (beforeNextLr && nextLr)
    at = cast<BlockArgument>(nextLr).getArgNumber();
  auto attrs = b.getDictionaryAttr(b.getNamedAttr(tag, b.getUnitAttr()));
  (void)step.insertArgument(at, RankedTensorType::get({}, b.getF32Type()),
                            attrs, step.getLoc());
  return step.getArgument(at);
}

Value StalenessRewriter::rankCount() {
  if (!ranks)
    ranks = addTrailingScalar("dist.ranks", /*beforeNextLr=*/true);
  return ranks;
}

Value StalenessRewriter::nextLearningRate() {
  if (!nextLr)
    nextLr = addTrailingScalar("nn.next_lr", /*beforeNextLr=*/false);
  return nextLr;
}

/// The argument of `step` tagged `tag = name`, if any.
BlockArgument taggedArg(func::FuncOp step, StringRef tag, StringRef name) {
  for (unsigned i = 0; i < step.getNumArguments(); ++i)
    if (auto n = step.getArgAttrOfType<StringAttr>(i, tag);
        n && n.getValue() == name)
      return step.getArgument(i);
  return {};
}

LogicalResult StalenessRewriter::collect(ArrayRef<StringRef> staleNames) {
  auto strategy =
      step->getParentOfType<ModuleOp>()->getAttrOfType<dist::StrategyAttr>(
          "dist.strategy");
  DenseMap<Value, nn::OptimizerUpdateOpInterface> updates;
  step.walk([&](nn::OptimizerUpdateOpInterface u) {
    updates[u.getUpdatedParam()] = u;
  });
  for (StringRef name : staleNames) {
    BlockArgument arg = taggedArg(step, "nn.param", name);
    if (!arg)
      return step.emitOpError("the pipeline marks '")
             << name << "' stale, which is not a parameter of the model";
    auto update = updates.lookup(arg);
    if (!update)
      return step.emitOpError("the pipeline marks '")
             << name << "' stale, which is not trained (frozen, or it does "
             << "not affect the loss)";
    dist::NodeConfigAttr node = strategy.lookup(name);
    auto ar = node ? dyn_cast_or_null<dist::AllReduceSynchronizerAttr>(
                         node.getSynchronizer())
                   : dist::AllReduceSynchronizerAttr();
    if (!ar || (node && node.getPartition()))
      return update->emitOpError("parameter '")
             << name << "' is stale but "
             << (node && node.getPartition() ? "partitioned"
                                             : "not synchronized by all-reduce")
             << "; a stale gradient needs an unpartitioned all-reduce "
                "(parameter servers cannot carry staleness yet)";
    if (ar.getCompressor() != dist::Compressor::None)
      return update->emitOpError("parameter '")
             << name << "' is stale but its all-reduce is compressed ("
             << dist::stringifyCompressor(ar.getCompressor())
             << "); stale gradients travel uncompressed";
    Value g = update.getGradOperand().get();
    auto bucket = g.getDefiningOp<dist::AllReduceOp>();
    if (!bucket)
      return update->emitOpError("parameter '")
             << name << "' is stale but its gradient is transformed after "
             << "the all-reduce (--clip-norm cannot be combined with "
             << "staleness)";
    // (The hold condition is this step's, and weight prediction drops it.)
    for (OpOperand &use : update->getOpOperands())
      if (&use != &update.getGradOperand() &&
          use.get() != update.getHoldCondition() &&
          !isa<BlockArgument>(use.get()) &&
          !use.get().getDefiningOp<arith::ConstantOp>())
        return update->emitOpError("parameter '")
               << name << "': its update reads a computed value other than "
               << "the gradient, which a stale update cannot carry";
    unsigned resultNo = cast<OpResult>(g).getResultNumber();
    params.push_back({StringAttr::get(step.getContext(), name), arg, update,
                      bucket, resultNo, bucket.getInputs()[resultNo],
                      update.getHoldCondition()});
  }
  return success();
}

void StalenessRewriter::buildConditions() {
  Location loc = step.getLoc();
  b.setInsertionPointToStart(&step.getBody().front());
  for (unsigned i = 0; i < step.getNumArguments(); ++i)
    if (step.getArgAttr(i, "nn.step"))
      cond.stepNo = step.getArgument(i);
  Value s = tensor::ExtractOp::create(b, loc, cond.stepNo, ValueRange{});
  auto f32 = [&](double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  };
  int64_t w = pipe.getWarmup();
  auto scalar = RankedTensorType::get({}, b.getI1Type());
  auto asTensor = [&](Value c) {
    return tensor::FromElementsOp::create(b, loc, scalar, c).getResult();
  };
  // Step numbers are exact integers in f32 (the runtime's 1-based count).
  if (w > 0) {
    cond.warm = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, s,
                                      f32(w + 0.5));
    cond.warmTensor = asTensor(cond.warm);
  }
  cond.idle =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, s, f32(w + 1));
  cond.idleTensor = asTensor(cond.idle);
}

BlockArgument StalenessRewriter::addState(StringRef name, Type type,
                                          bool perRank, StringRef initParam) {
  SmallVector<NamedAttribute> list = {
      b.getNamedAttr("nn.state", b.getStringAttr(name))};
  if (perRank) // this rank's own value (checkpointed per rank)
    list.push_back(b.getNamedAttr("dist.per_rank", b.getUnitAttr()));
  if (!initParam.empty()) // starts as that parameter's initial value
    list.push_back(
        b.getNamedAttr("dist.init_param", b.getStringAttr(initParam)));
  return addStepStateArgument(step, type, b.getDictionaryAttr(list));
}

BlockArgument StalenessRewriter::addInflight(StringRef name, Type type,
                                             ArrayRef<StringRef> names) {
  unsigned at = 0;
  for (unsigned i = 0; i < step.getNumArguments(); ++i)
    if (step.getArgAttr(i, "nn.state") || step.getArgAttr(i, "nn.param") ||
        step.getArgAttr(i, "dist.inflight"))
      at = i + 1;
  SmallVector<Attribute> list;
  for (StringRef n : names)
    list.push_back(b.getStringAttr(n));
  auto attrs = b.getDictionaryAttr(
      {b.getNamedAttr("dist.inflight", b.getStringAttr(name)),
       b.getNamedAttr("dist.inflight_params", b.getArrayAttr(list))});
  (void)step.insertArgument(at, type, attrs, step.getLoc());
  return step.getArgument(at);
}

void StalenessRewriter::setStateOut(StringRef name, Value v) {
  stateOut.push_back({b.getStringAttr(name), v});
}

/// The value @train_step returns for the result tagged `tag = name`.
static Value returnedValue(func::FuncOp step, StringRef tag, StringRef name) {
  Operation *ret = step.getBody().front().getTerminator();
  for (unsigned i = 0; i < step.getNumResults(); ++i)
    if (auto n = step.getResultAttrOfType<StringAttr>(i, tag);
        n && n.getValue() == name)
      return ret->getOperand(i);
  return {};
}

/// Weight prediction: every use of w_t but its own update reads
/// ŵ_t = Opt(w_t, ĝ_t), the update with the estimate ĝ_t and its new
/// optimizer state dropped, from the first step after the idle one (before
/// it, ŵ_t = w_t). Step t - 1 computes ŵ_t right after its own update, from
/// that update's results, the step number t and the next step's learning
/// rate (`nn.next_lr`), and passes it on as state (`<param>/wp_weight`,
/// which starts as the parameter): the prediction then shares the update's
/// loop (autodist-fuse-elementwise) instead of reading the parameter and its
/// moments again in a pass of its own. Runs after the stale updates are
/// rewired to their stale gradients (rewriteBucket) and hold while idle.
LogicalResult StalenessRewriter::predictWeights(StaleParam &p) {
  Location loc = NameLoc::get(
      b.getStringAttr("weight prediction " + p.name.getValue().str()),
      step.getLoc());
  Type type = p.arg.getType();
  std::string base = p.name.getValue().str();
  dist::WPEstimator est = pipe.getEstimator();
  // ŵ_t: per rank when the estimate holds this rank's own gradient.
  BlockArgument predicted =
      addState(base + "/wp_weight", type,
               /*perRank=*/est != dist::WPEstimator::PrevSync, base);
  for (OpOperand &use : llvm::make_early_inc_range(p.arg.getUses()))
    if (use.getOwner() != p.update.getOperation())
      use.set(predicted);

  b.setInsertionPointAfter(p.update);
  // ĝ_{t+1}, the estimate of the gradient step t + 1 will apply.
  Value estimate;
  Value applied = p.update.getGradOperand().get();
  auto lastApplied = [&] {
    // The gradient this step applied (the synchronized one of the step
    // before), kept through the idle step, which applies none.
    Value prev = addState(base + "/wp_prev_sync", type);
    Value kept = where(loc, cond.idleTensor, prev, applied);
    setStateOut(base + "/wp_prev_sync", kept);
    return kept;
  };
  switch (est) {
  case dist::WPEstimator::Local:
    estimate = p.local; // this rank's own gradient of this step
    break;
  case dist::WPEstimator::PrevSync:
    estimate = lastApplied();
    break;
  case dist::WPEstimator::LocalPrevSync: {
    // The last gradient applied with this rank's share of it replaced by
    // its newer gradient: ḡ_{t-1} - g_{t-1}/n + g_t/n.
    Value prevSync = lastApplied();
    Value localPrev = addState(base + "/wp_local_grad", type, /*perRank=*/true);
    setStateOut(base + "/wp_local_grad", p.local);
    Value diff = nn::SubOp::create(b, loc, type, p.local, localPrev);
    Value share = nn::DivOp::create(b, loc, type, diff, rankCount());
    estimate = nn::AddOp::create(b, loc, type, prevSync, share);
    break;
  }
  }

  // The update of step t + 1, with what it would read: the values this
  // step returns for the parameter and its state, the step number t + 1 and
  // the next step's learning rate.
  IRMapping next;
  for (OpOperand &use : p.update->getOpOperands()) {
    Value v = use.get();
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg)
      continue;
    unsigned i = arg.getArgNumber();
    Value nextValue;
    if (v == p.arg) {
      nextValue = returnedValue(step, "nn.param_out", base);
    } else if (auto name = step.getArgAttrOfType<StringAttr>(i, "nn.state")) {
      nextValue = returnedValue(step, "nn.state_out", name.getValue());
    } else if (step.getArgAttr(i, "nn.lr")) {
      nextValue = nextLearningRate();
    } else if (v == cond.stepNo) {
      auto type = cast<RankedTensorType>(v.getType());
      nextValue =
          nn::AddOp::create(b, loc, type, v,
                            arith::ConstantOp::create(
                                b, loc, DenseElementsAttr::get(type, 1.0f)));
    } else {
      continue;
    }
    if (!nextValue)
      return p.update->emitOpError("parameter '")
             << base << "': @train_step returns no new value of operand #"
             << use.getOperandNumber()
             << " of its update, which weight prediction reads";
    next.map(v, nextValue);
  }
  Operation *clone = b.clone(*p.update.getOperation(), next);
  clone->setLoc(loc);
  auto predict = cast<nn::OptimizerUpdateOpInterface>(clone);
  predict.getGradOperand().set(estimate);
  // No prediction for a warm-up step (ŵ = w), nor past a step the update
  // itself skipped (fp16's non-finite gradients: the estimate is one).
  predict.setHoldCondition(p.hold ? orHold(loc, p.hold, cond.warm)
                                  : cond.warmTensor);
  setStateOut(base + "/wp_weight", clone->getResult(0));
  return success();
}

/// Delay compensation of the stale gradient `g` of `p`, with the weights of
/// the previous step from a cache (Δw = w_t − w_{t−1}, not the published
/// code's stale slot).
Value StalenessRewriter::compensateDelay(StaleParam &p, Value g) {
  Location loc = NameLoc::get(
      b.getStringAttr("delay compensation " + p.name.getValue().str()),
      step.getLoc());
  Type type = g.getType();
  OpBuilder::InsertionGuard guard(b);
  BlockArgument prevW =
      addState(p.name.getValue().str() + "/dc_prev_weight", p.arg.getType());
  setStateOut(p.name.getValue().str() + "/dc_prev_weight", p.arg);
  auto splat = [&](double v) -> Value {
    return arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(cast<RankedTensorType>(type),
                               static_cast<float>(v)));
  };
  Value dw = nn::SubOp::create(b, loc, type, p.arg, prevW);
  Value gg = nn::MulOp::create(b, loc, type, g, g);
  Value term = nn::MulOp::create(b, loc, type, gg, dw);
  if (pipe.getDcVariant() == dist::DCVariant::DCAdaptive) {
    Value denom = nn::SqrtOp::create(
        b, loc, type, nn::AddOp::create(b, loc, type, gg, splat(1e-7)));
    term = nn::DivOp::create(b, loc, type, term, denom);
  }
  term = nn::MulOp::create(b, loc, type,
                           splat(pipe.getLambda().getValueAsDouble()), term);
  return nn::AddOp::create(b, loc, type, g, term);
}

void StalenessRewriter::rewriteBucket(dist::AllReduceOp bucket,
                                      ArrayRef<StaleParam *> stale,
                                      unsigned index) {
  Location loc = bucket.getLoc();
  DenseSet<unsigned> staleResults;
  SmallVector<Value> grads;
  SmallVector<StringRef> names;
  for (StaleParam *p : stale) {
    staleResults.insert(p->resultNo);
    grads.push_back(bucket.getInputs()[p->resultNo]);
    names.push_back(p->name.getValue());
  }
  auto futureType = dist::FutureType::get(
      b.getContext(), llvm::to_vector(ValueRange(grads).getTypes()));
  std::string name = "inflight." + std::to_string(index);
  BlockArgument in = addInflight(name, futureType, names);

  // At the end of the step: the previous step's gradients are waited for as
  // late as possible (they had the whole step to travel), right before this
  // step's start reuses their buffer; and the start comes after the
  // synchronous collectives have started, whose bytes then go first on the
  // wire (a rank pair's messages travel in order: the loss all-reduce of a
  // step would otherwise queue behind the stale bucket).
  b.setInsertionPoint(step.getBody().front().getTerminator());
  // Warm-up steps start their gradients too, at no extra pass over them:
  // what they start is never applied (the next warm-up step reduces its own
  // synchronously, and the idle step after the last holds).
  auto wait = dist::WaitOp::create(b, loc, in);
  auto start = dist::AllReduceStartOp::create(
      b, loc, futureType, grads, dist::ReductionKind::Mean, bucket.getGroup());
  inflightOut.push_back({b.getStringAttr(name), start.getFuture()});

  // The gradient each stale update applies.
  SmallVector<Value> applied;
  for (auto [i, p] : llvm::enumerate(stale)) {
    Value g = wait.getResult(i);
    if (pipe.getCompensation() == dist::Compensation::DelayCompensation)
      g = compensateDelay(*p, g);
    applied.push_back(g);
  }
  if (cond.warm) {
    // Warm-up: this step's own gradients, reduced synchronously.
    auto ifOp = scf::IfOp::create(b, loc, ValueRange(grads).getTypes(),
                                  cond.warm, /*addThenBlock=*/true,
                                  /*addElseBlock=*/true);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    auto sync =
        dist::AllReduceOp::create(b, loc, grads, ValueRange{},
                                  dist::ReductionKind::Mean, bucket.getGroup());
    scf::YieldOp::create(b, loc, sync.getResults());
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    scf::YieldOp::create(b, loc, applied);
    applied.assign(ifOp.getResults().begin(), ifOp.getResults().end());
    b.setInsertionPointAfter(ifOp);
  }
  for (auto [p, g] : llvm::zip(stale, applied))
    p->update.getGradOperand().set(g);

  // What stays synchronous (e.g. the loss) keeps a bucket of its own, right
  // after the last of its values is computed, as dist-split-buckets places
  // its buckets: the stale gradients, computed last, no longer hold it back,
  // and dist-overlap-collectives can then hide it behind the rest of the
  // backward pass (StaleSetModel assumes it does).
  SmallVector<Value> rest;
  SmallVector<unsigned> restIdx;
  for (auto [i, v] : llvm::enumerate(bucket.getInputs()))
    if (!staleResults.contains(i)) {
      rest.push_back(v);
      restIdx.push_back(i);
    }
  if (!rest.empty()) {
    if (Operation *lastDef = lastComputedIn(bucket->getBlock(), rest))
      b.setInsertionPointAfter(lastDef);
    else
      b.setInsertionPoint(bucket);
    auto kept = dist::AllReduceOp::create(b, loc, rest, ValueRange{},
                                          bucket.getKind(), bucket.getGroup());
    for (auto [i, r] : llvm::zip(restIdx, kept.getResults()))
      bucket.getResult(i).replaceAllUsesWith(r);
  }
  bucket.erase();
}

/// The step with nothing in flight leaves the stale parameters and their
/// optimizer state as they were (Opt with a zero gradient would still move
/// them through momentum or weight decay): their updates hold, in their own
/// loop; a select keeps any other state of theirs.
void StalenessRewriter::holdWhileIdle() {
  DenseSet<Value> held;
  for (StaleParam &p : params) {
    Value hold = cond.idleTensor;
    if (Value other = p.update.getHoldCondition()) {
      b.setInsertionPoint(p.update);
      hold = orHold(p.update->getLoc(), other, cond.idle);
    }
    p.update.setHoldCondition(hold);
    held.insert(p.update->result_begin(), p.update->result_end());
  }
  Operation *ret = step.getBody().front().getTerminator();
  b.setInsertionPoint(ret);
  for (unsigned i = 0; i < step.getNumResults(); ++i) {
    if (held.contains(ret->getOperand(i)))
      continue;
    auto out = step.getResultAttrOfType<StringAttr>(i, "nn.param_out");
    auto state = step.getResultAttrOfType<StringAttr>(i, "nn.state_out");
    Value old;
    for (const StaleParam &p : params) {
      if (out && out == p.name)
        old = p.arg;
      if (state && state.getValue().starts_with(p.name.getValue().str() + "/"))
        old = taggedArg(step, "nn.state", state.getValue());
    }
    if (old)
      ret->setOperand(
          i, where(ret->getLoc(), cond.idleTensor, old, ret->getOperand(i)));
  }
}

LogicalResult StalenessRewriter::run(ArrayRef<StringRef> staleNames) {
  if (failed(collect(staleNames)))
    return failure();
  buildConditions();
  llvm::MapVector<Operation *, SmallVector<StaleParam *>> byBucket;
  for (StaleParam &p : params)
    byBucket[p.bucket].push_back(&p);
  holdWhileIdle(); // before the new state results join the return
  unsigned index = 0;
  for (auto &[bucket, stale] : byBucket)
    rewriteBucket(cast<dist::AllReduceOp>(bucket), stale, index++);
  if (pipe.getCompensation() == dist::Compensation::WeightPrediction)
    for (StaleParam &p : params)
      if (failed(predictWeights(p)))
        return failure();

  // The new results: state after the existing state, futures after it.
  Operation *ret = step.getBody().front().getTerminator();
  auto insertResult = [&](unsigned at, StringRef tag, StringAttr name,
                          Value v) {
    (void)step.insertResult(at, v.getType(),
                            b.getDictionaryAttr(b.getNamedAttr(tag, name)));
    ret->insertOperands(at, v);
  };
  auto endOf = [&](ArrayRef<StringRef> tags) {
    unsigned at = 0;
    for (unsigned i = 0; i < step.getNumResults(); ++i)
      for (StringRef t : tags)
        if (step.getResultAttr(i, t))
          at = i + 1;
    return at;
  };
  // docs/abi.md pairs new_state with state by position: the new results
  // follow the order of their arguments.
  auto argIndex = [&](StringAttr name) {
    return taggedArg(step, "nn.state", name.getValue()).getArgNumber();
  };
  llvm::stable_sort(stateOut, [&](const auto &x, const auto &y) {
    return argIndex(x.first) < argIndex(y.first);
  });
  for (auto &[name, v] : stateOut)
    addStepStateResult(step, name, v);
  for (auto &[name, v] : inflightOut)
    insertResult(
        endOf({"nn.loss", "nn.param_out", "nn.state_out", "dist.inflight"}),
        "dist.inflight", name, v);
  if (!sortTopologically(&step.getBody().front()))
    return step.emitOpError("staleness left a cycle in the step (internal)");
  return success();
}

struct StalenessPipelinePass
    : public autodist::impl::StalenessPipelineBase<StalenessPipelinePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto strategy = module->getAttrOfType<dist::StrategyAttr>("dist.strategy");
    dist::PipelineAttr pipe = strategy ? strategy.getPipeline() : nullptr;
    if (!pipe || pipe.getDepth() == 0)
      return;
    auto step = module.lookupSymbol<func::FuncOp>("train_step");
    if (!step) {
      module.emitError("the strategy has a staleness pipeline but the "
                       "module has no @train_step");
      return signalPassFailure();
    }
    if (pipe.getDepth() != 1) {
      module.emitError("staleness depth ")
          << pipe.getDepth() << " is not supported (only 1, as SAPipe)";
      return signalPassFailure();
    }
    SmallVector<StringRef> names;
    SmallVector<std::string> chosen;
    if (pipe.getAutoStale()) {
      FailureOr<StaleSetChoice> choice = chooseStaleSet(module, step);
      if (failed(choice))
        return signalPassFailure();
      for (StringRef n : choice->staleNames())
        chosen.push_back(n.str());
      for (const std::string &n : chosen)
        names.push_back(n);
    } else {
      for (Attribute a : pipe.getStale())
        names.push_back(cast<StringAttr>(a).getValue());
    }
    if (names.empty())
      return;
    if (failed(StalenessRewriter(step, pipe).run(names)))
      return signalPassFailure();
  }
};

} // namespace
