//===- Synchronize.cpp - insert the communication a strategy asks for -----===//
//
// Finds every gradient through the optimizer update ops
// (OptimizerUpdateOpInterface) and synchronizes it as the parameter's node
// config in #dist.strategy says. All-reduce gradients of one group become a
// single bucketed dist.all_reduce; parameters (or shards) on parameter
// servers are handed to ParameterServerSync (SynchronizePS.cpp).
//
//===----------------------------------------------------------------------===//

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

/// The ONNX name of the parameter `v`, if it is a tagged argument of `func`.
StringAttr paramName(func::FuncOp func, Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || arg.getOwner() != &func.getBody().front())
    return {};
  return func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "nn.param");
}

/// The bucket of an all-reduce synchronizer.
BucketKey bucketOf(Attribute sync) {
  auto ar = cast<dist::AllReduceSynchronizerAttr>(sync);
  return BucketKey{ar.getGroup(), ar.getCompressor(), ar.getRank()};
}

/// A partitioned gradient: sliced into its shards along the partition axis
/// and put back together by a tensor.concat whose operands (the shards) join
/// their own groups' buckets, so each shard is reduced with its group.
void splitIntoShards(Operation *update, dist::NodeConfigAttr node,
                     OpOperand &use, std::map<BucketKey, Bucket> &buckets) {
  dist::PartitionAttr p = node.getPartition();
  Value grad = use.get();
  auto type = cast<RankedTensorType>(grad.getType());
  int64_t axis = p.getAxis();
  SmallVector<int64_t> sizes = p.shardSizes(type.getDimSize(axis));
  SmallVector<BucketKey> groups;
  for (Attribute part : node.getParts())
    groups.push_back(
        bucketOf(cast<dist::NodeConfigAttr>(part).getSynchronizer()));
  OpBuilder b(update->getContext());
  if (Operation *def = grad.getDefiningOp())
    b.setInsertionPointAfter(def);
  else
    b.setInsertionPoint(update);
  Location loc = update->getLoc();
  SmallVector<Value> shards;
  int64_t offset = 0;
  for (int64_t size : sizes) {
    SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
    SmallVector<OpFoldResult> extents,
        strides(type.getRank(), b.getIndexAttr(1));
    for (int64_t d = 0; d < type.getRank(); ++d)
      extents.push_back(b.getIndexAttr(d == axis ? size : type.getDimSize(d)));
    offsets[axis] = b.getIndexAttr(offset);
    shards.push_back(tensor::ExtractSliceOp::create(b, loc, grad, offsets,
                                                    extents, strides));
    offset += size;
  }
  auto whole = tensor::ConcatOp::create(b, loc, axis, shards);
  use.set(whole);
  for (auto [i, g] : llvm::enumerate(groups))
    buckets[g].uses.push_back(&whole->getOpOperand(i));
}

/// Groups every all-reduce gradient of `step` into buckets by its group and
/// compressor; hands parameters on parameter servers to `ps`.
LogicalResult collectBuckets(func::FuncOp step, dist::StrategyAttr strategy,
                             std::map<BucketKey, Bucket> &buckets,
                             ParameterServerSync &ps) {
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
    if (usesParameterServer(node)) {
      auto allReduceShard = [&](Operation *, StringRef, Attribute sync,
                                OpOperand &use) -> LogicalResult {
        buckets[bucketOf(sync)].uses.push_back(&use);
        return success();
      };
      if (failed(ps.add(update, name.getValue(), node, allReduceShard)))
        return WalkResult::interrupt();
      return WalkResult::advance(); // the walk survives erasing `update`
    }
    // Reduce raw gradients, before any transform (e.g. clipping) that
    // needs the global values.
    OpOperand *use = &update.getGradOperand();
    while (auto t = dyn_cast_or_null<nn::GradientTransformOpInterface>(
               use->get().getDefiningOp()))
      use = &t.getSourceGradient(cast<OpResult>(use->get()).getResultNumber());
    if (!node.getPartition()) {
      buckets[bucketOf(node.getSynchronizer())].uses.push_back(use);
      return WalkResult::advance();
    }
    splitIntoShards(update, node, *use, buckets);
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
                                      dist::ReductionKind::Mean, key.group);
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
