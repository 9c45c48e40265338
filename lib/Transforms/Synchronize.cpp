//===- Synchronize.cpp - insert the communication a strategy asks for -----===//
//
// Finds every gradient through the optimizer update ops
// (OptimizerUpdateOpInterface) and synchronizes it as the parameter's node
// config in #dist.strategy says. All-reduce gradients of one group become a
// single bucketed dist.all_reduce.
//
//===----------------------------------------------------------------------===//

#include "autodist/Passes.h"
#include "dist/DistOps.h"
#include "nn/NNOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <map>

namespace autodist {
#define GEN_PASS_DEF_SYNCHRONIZE
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;
using namespace autodist;

namespace {

/// Values reduced together in one collective, with the uses to rewire.
struct Bucket {
  SmallVector<OpOperand *> uses;
};

/// The ONNX name of the parameter `v`, if it is a tagged argument of `func`.
StringAttr paramName(func::FuncOp func, Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || arg.getOwner() != &func.getBody().front())
    return {};
  return func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "nn.param");
}

/// Groups every gradient of `step` into buckets by its all-reduce group.
LogicalResult collectBuckets(func::FuncOp step, dist::StrategyAttr strategy,
                             std::map<int64_t, Bucket> &buckets) {
  WalkResult r = step.walk([&](nn::OptimizerUpdateOpInterface update) {
    StringAttr name = paramName(step, update.getUpdatedParam());
    if (!name) {
      update->emitOpError("updates a value that is not a tagged parameter");
      return WalkResult::interrupt();
    }
    dist::NodeConfigAttr node = strategy.lookup(name.getValue());
    if (!node) {
      update->emitOpError("parameter '")
          << name.getValue() << "' has no node config in the strategy";
      return WalkResult::interrupt();
    }
    if (node.getPartition()) {
      update->emitOpError("parameter '")
          << name.getValue()
          << "' is partitioned; partitioned synchronization is not "
             "implemented yet";
      return WalkResult::interrupt();
    }
    auto ar = dyn_cast<dist::AllReduceSynchronizerAttr>(node.getSynchronizer());
    if (!ar) {
      update->emitOpError("parameter '")
          << name.getValue()
          << "' uses a parameter server; parameter-server synchronization is "
             "not implemented yet";
      return WalkResult::interrupt();
    }
    if (ar.getCompressor() != dist::Compressor::None) {
      update->emitOpError("compressor '")
          << dist::stringifyCompressor(ar.getCompressor())
          << "' for parameter '" << name.getValue() << "' is not supported yet";
      return WalkResult::interrupt();
    }
    // Reduce raw gradients, before any transform (e.g. clipping) that
    // needs the global values.
    OpOperand *use = &update.getGradOperand();
    while (auto t = dyn_cast_or_null<nn::GradientTransformOpInterface>(
               use->get().getDefiningOp()))
      use = &t.getSourceGradient(cast<OpResult>(use->get()).getResultNumber());
    buckets[ar.getGroup()].uses.push_back(use);
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

/// Replaces the values of `bucket` by their mean over all ranks, with one
/// dist.all_reduce placed after the last of them is computed.
void reduceBucket(OpBuilder &b, Block &body, int64_t group,
                  const Bucket &bucket) {
  SmallVector<Value> values;
  Operation *last = nullptr;
  for (OpOperand *use : bucket.uses) {
    Value v = use->get();
    values.push_back(v);
    Operation *def = v.getDefiningOp();
    if (def && (!last || last->isBeforeInBlock(def)))
      last = def;
  }
  if (last)
    b.setInsertionPointAfter(last);
  else
    b.setInsertionPointToStart(&body);
  auto ar = dist::AllReduceOp::create(b, values.front().getLoc(), values,
                                      dist::ReductionKind::Mean, group);
  for (auto [use, reduced] : llvm::zip(bucket.uses, ar.getResults())) {
    use->set(reduced);
    Operation *user = use->getOwner();
    if (!isa<func::ReturnOp>(user) && user->isBeforeInBlock(ar))
      user->moveAfter(ar);
  }
}

struct SynchronizePass
    : public autodist::impl::SynchronizeBase<SynchronizePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto strategy = module->getAttrOfType<dist::StrategyAttr>("dist.strategy");
    if (!strategy) {
      module.emitError("no dist.strategy attribute (run dist-strategy first)");
      return signalPassFailure();
    }
    auto step = module.lookupSymbol<func::FuncOp>("train_step");
    if (!step) {
      module.emitError("no @train_step to synchronize");
      return signalPassFailure();
    }
    std::map<int64_t, Bucket> buckets;
    if (failed(collectBuckets(step, strategy, buckets)))
      return signalPassFailure();
    // The loss rides in the first bucket: every rank then reports the mean
    // loss over the global batch at no extra collective.
    Operation *ret = step.getBody().front().getTerminator();
    for (unsigned i = 0; i < step.getNumResults(); ++i)
      if (step.getResultAttr(i, "nn.loss"))
        buckets[buckets.empty() ? 0 : buckets.begin()->first].uses.push_back(
            &ret->getOpOperand(i));
    OpBuilder b(module.getContext());
    for (auto &[group, bucket] : buckets)
      reduceBucket(b, step.getBody().front(), group, bucket);
  }
};

} // namespace
