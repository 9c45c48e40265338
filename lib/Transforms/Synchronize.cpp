//===- Synchronize.cpp - insert the communication a strategy asks for -----===//
//
// Finds every gradient through the optimizer update ops
// (OptimizerUpdateOpInterface) and synchronizes it as the parameter's node
// config in #dist.strategy says. All-reduce gradients of one group become a
// single bucketed dist.all_reduce; parameters (or shards) on parameter
// servers are handed to ParameterServerSync (SynchronizePS.cpp). Partitioned
// parameters come split into shards by dist-partition (Partition.cpp).
//
//===----------------------------------------------------------------------===//

#include "Partition.h"
#include "SynchronizePS.h"

#include "autodist/Passes.h"
#include "dist/DistOps.h"
#include "nn/NNOps.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <map>
#include <tuple>

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

/// A bucket per all-reduce group, compressor and PowerSGD rank: gradients of
/// one group that ask for different compressors travel in different
/// collectives.
struct BucketKey {
  int64_t group;
  dist::Compressor compressor;
  int64_t powerSGDRank;
  bool operator<(const BucketKey &o) const {
    return std::tie(group, compressor, powerSGDRank) <
           std::tie(o.group, o.compressor, o.powerSGDRank);
  }
};

/// The bucket of an all-reduce synchronizer.
BucketKey bucketOf(Attribute sync) {
  auto ar = cast<dist::AllReduceSynchronizerAttr>(sync);
  return BucketKey{ar.getGroup(), ar.getCompressor(), ar.getRank()};
}

/// The config of shard `part` of `node`, with an error on `op` if it has
/// none.
FailureOr<dist::NodeConfigAttr>
shardConfig(Operation *op, dist::NodeConfigAttr node, Attribute part) {
  auto name = dyn_cast_or_null<StringAttr>(part);
  if (name && node.getParts())
    for (Attribute a : node.getParts())
      if (auto c = cast<dist::NodeConfigAttr>(a); c.getVarName() == name)
        return c;
  InFlightDiagnostic d = op->emitOpError("shard ");
  if (name)
    d << "'" << name.getValue() << "'";
  else
    d << part;
  return d << " of parameter '" << node.getVarName()
           << "' has no node config in the strategy";
}

/// The error for a partitioned parameter that dist-partition did not split.
LogicalResult notSplit(Operation *update, StringRef name) {
  return update->emitOpError("parameter '")
         << name
         << "' is partitioned, but its update is not split into shards "
            "(run dist-partition first)";
}

/// Groups every all-reduce gradient of `step` into buckets by its group and
/// compressor; hands parameters on parameter servers to `ps`.
LogicalResult collectBuckets(func::FuncOp step, dist::StrategyAttr strategy,
                             std::map<BucketKey, Bucket> &buckets,
                             ParameterServerSync &ps) {
  WalkResult r = step.walk([&](nn::OptimizerUpdateOpInterface update) {
    StringAttr name = updatedParamName(step, update);
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
    auto allReduceShard = [&](Operation *, StringRef, Attribute sync,
                              OpOperand &use) -> LogicalResult {
      buckets[bucketOf(sync)].uses.push_back(&use);
      return success();
    };
    // A shard's own update (dist-partition split it: a shard is on a
    // parameter server).
    if (auto shard = update->getAttrOfType<DictionaryAttr>(kShardAttrName)) {
      update->removeAttr(kShardAttrName);
      FailureOr<dist::NodeConfigAttr> part =
          shardConfig(update, node, shard.get("part"));
      if (failed(part) || failed(ps.addShard(update, name.getValue(), *part,
                                             shard, allReduceShard)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    }
    if (usesParameterServer(node)) {
      if (node.getPartition()) {
        (void)notSplit(update, name.getValue());
        return WalkResult::interrupt();
      }
      if (failed(ps.add(update, name.getValue(), node)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    }
    // Reduce raw gradients, before any transform (e.g. clipping) that
    // needs the global values.
    OpOperand *use = &rawGradientUse(update);
    if (!node.getPartition()) {
      buckets[bucketOf(node.getSynchronizer())].uses.push_back(use);
      return WalkResult::advance();
    }
    // A sliced gradient: each shard joins its own group's bucket.
    Operation *whole = use->get().getDefiningOp();
    auto names =
        whole ? whole->getAttrOfType<ArrayAttr>(kShardsAttrName) : ArrayAttr();
    if (!names) {
      (void)notSplit(update, name.getValue());
      return WalkResult::interrupt();
    }
    whole->removeAttr(kShardsAttrName);
    for (auto [i, partName] : llvm::enumerate(names)) {
      FailureOr<dist::NodeConfigAttr> part =
          shardConfig(update, node, partName);
      if (failed(part))
        return WalkResult::interrupt();
      buckets[bucketOf(part->getSynchronizer())].uses.push_back(
          &whole->getOpOperand(i));
    }
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

/// Replaces the values of `bucket` by their mean over all ranks, with one
/// dist.all_reduce placed after the last of them is computed.
void reduceBucket(OpBuilder &b, Block &body, BucketKey key,
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
                                      ValueRange{}, dist::ReductionKind::Mean,
                                      key.group);
  if (key.compressor != dist::Compressor::None)
    ar.setCompressor(key.compressor);
  if (key.compressor == dist::Compressor::PowerSGD)
    ar.setPowersgdRank(key.powerSGDRank);
  for (auto [use, reduced] : llvm::zip(bucket.uses, ar.getResults())) {
    use->set(reduced);
    Operation *user = use->getOwner();
    if (!isa<func::ReturnOp>(user) && user->isBeforeInBlock(ar))
      user->moveAfter(ar);
  }
}

/// The bucket the loss joins: the first uncompressed one, else a new
/// uncompressed one of the first group.
BucketKey lossBucket(const std::map<BucketKey, Bucket> &buckets) {
  for (const auto &entry : buckets)
    if (entry.first.compressor == dist::Compressor::None)
      return entry.first;
  return {buckets.empty() ? 0 : buckets.begin()->first.group,
          dist::Compressor::None, 0};
}

/// Sync batch norm: the results of every sum over the global batch are
/// summed over all ranks by one all-reduce right after it, which its users
/// read instead.
void allReduceGlobalBatchSums(func::FuncOp step) {
  SmallVector<Operation *> sums;
  step.walk([&](nn::GlobalBatchSumOpInterface op) {
    if (!op.isOverGlobalBatch())
      return;
    op.clearGlobalBatch(); // it is about to be all-reduced
    sums.push_back(op);
  });
  OpBuilder b(step.getContext());
  for (Operation *op : sums) {
    b.setInsertionPointAfter(op);
    auto ar =
        dist::AllReduceOp::create(b, op->getLoc(), op->getResults(),
                                  ValueRange{}, dist::ReductionKind::Sum, 0);
    for (auto [local, global] : llvm::zip(op->getResults(), ar.getResults()))
      local.replaceAllUsesExcept(global, ar);
  }
}

struct SynchronizePass
    : public autodist::impl::SynchronizeBase<SynchronizePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<StrategyAndStep> found = strategyAndStep(module, "synchronize");
    if (failed(found))
      return signalPassFailure();
    dist::StrategyAttr strategy = found->strategy;
    func::FuncOp step = found->step;
    allReduceGlobalBatchSums(step);
    std::map<BucketKey, Bucket> buckets;
    ParameterServerSync ps(step);
    if (failed(collectBuckets(step, strategy, buckets, ps)))
      return signalPassFailure();
    // The loss rides in the first uncompressed bucket (all-reduce if any,
    // else parameter server): every rank then reports the mean loss over the
    // global batch at no extra collective (one more if every bucket is
    // compressed, so the loss stays exact).
    Operation *ret = step.getBody().front().getTerminator();
    for (unsigned i = 0; i < step.getNumResults(); ++i) {
      if (!step.getResultAttr(i, "nn.loss"))
        continue;
      if (buckets.empty() && !ps.empty())
        ps.addLoss(ret->getOpOperand(i));
      else
        buckets[lossBucket(buckets)].uses.push_back(&ret->getOpOperand(i));
    }
    OpBuilder b(module.getContext());
    for (auto &[key, bucket] : buckets)
      reduceBucket(b, step.getBody().front(), key, bucket);
    ps.finish();
    // Collectives went after the last value of their bucket; put every
    // user (shard reassembly, clipping, updates, broadcasts) after what it
    // reads.
    sortTopologically(&step.getBody().front());
  }
};

} // namespace
