//===- Partition.cpp - split partitioned parameters into shards -----------===//
//
// Carries out each parameter's #dist.partition in @train_step, so that
// dist-synchronize sees one value per shard and gives each its shard's
// synchronizer. What it makes is tagged (Partition.h); dist-synchronize
// removes the tags.
//
//===----------------------------------------------------------------------===//

#include "Partition.h"
#include "SynchronizePS.h"

#include "autodist/Passes.h"
#include "dist/DistOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

namespace autodist {
#define GEN_PASS_DEF_PARTITION
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;
using namespace autodist;

OpOperand &autodist::rawGradientUse(nn::OptimizerUpdateOpInterface update) {
  OpOperand *use = &update.getGradOperand();
  while (auto t = dyn_cast_or_null<nn::GradientTransformOpInterface>(
             use->get().getDefiningOp()))
    use = &t.getSourceGradient(cast<OpResult>(use->get()).getResultNumber());
  return *use;
}

Value autodist::throughSlice(Value v) {
  if (auto slice = v.getDefiningOp<tensor::ExtractSliceOp>())
    return slice.getSource();
  return v;
}

StringAttr autodist::updatedParamName(func::FuncOp step,
                                      nn::OptimizerUpdateOpInterface update) {
  Value v = update.getUpdatedParam();
  if (update->hasAttr(kShardAttrName))
    v = throughSlice(v);
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || arg.getOwner() != &step.getBody().front())
    return {};
  return step.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "nn.param");
}

FailureOr<StrategyAndStep> autodist::strategyAndStep(ModuleOp module,
                                                     StringRef verb) {
  auto strategy = module->getAttrOfType<dist::StrategyAttr>("dist.strategy");
  if (!strategy)
    return module.emitError(
        "no dist.strategy attribute (run dist-strategy first)");
  auto step = module.lookupSymbol<func::FuncOp>("train_step");
  if (!step)
    return module.emitError("no @train_step to ") << verb;
  return StrategyAndStep{strategy, step};
}

namespace {

/// The extents of a shard of `type` with `size` along `axis`, and the
/// offsets and strides that slice it at `offset`.
struct ShardSlice {
  SmallVector<OpFoldResult> offsets, extents, strides;
};

ShardSlice shardSlice(Builder &b, RankedTensorType type, int64_t axis,
                      int64_t offset, int64_t size) {
  ShardSlice s;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    s.offsets.push_back(b.getIndexAttr(d == axis ? offset : 0));
    s.extents.push_back(b.getIndexAttr(d == axis ? size : type.getDimSize(d)));
    s.strides.push_back(b.getIndexAttr(1));
  }
  return s;
}

/// Every shard of an all-reduced parameter lives on every rank: the raw
/// gradient is sliced into the shards and put back together by a
/// tensor.concat, whose operands dist-synchronize reduces apart.
void sliceGradient(nn::OptimizerUpdateOpInterface update,
                   dist::NodeConfigAttr node) {
  OpOperand &use = rawGradientUse(update);
  dist::PartitionAttr p = node.getPartition();
  Value grad = use.get();
  auto type = cast<RankedTensorType>(grad.getType());
  int64_t axis = p.getAxis();
  OpBuilder b(update->getContext());
  if (Operation *def = grad.getDefiningOp())
    b.setInsertionPointAfter(def);
  else
    b.setInsertionPoint(update);
  Location loc = update->getLoc();
  SmallVector<Value> shards;
  int64_t offset = 0;
  for (int64_t size : p.shardSizes(type.getDimSize(axis))) {
    ShardSlice s = shardSlice(b, type, axis, offset, size);
    shards.push_back(tensor::ExtractSliceOp::create(b, loc, grad, s.offsets,
                                                    s.extents, s.strides));
    offset += size;
  }
  auto whole = tensor::ConcatOp::create(b, loc, axis, shards);
  SmallVector<Attribute> names;
  for (Attribute part : node.getParts())
    names.push_back(
        b.getStringAttr(cast<dist::NodeConfigAttr>(part).getVarName()));
  whole->setAttr(kShardsAttrName, b.getArrayAttr(names));
  use.set(whole);
}

/// A shard on a parameter server is updated apart from the others: one
/// update per shard on slices of every parameter-shaped operand (parameter,
/// gradient, optimizer state; scalars shared), results concatenated back.
LogicalResult splitUpdate(nn::OptimizerUpdateOpInterface update, StringRef name,
                          dist::NodeConfigAttr node) {
  Operation *op = update;
  auto type = cast<RankedTensorType>(update.getUpdatedParam().getType());
  for (Type t : op->getResultTypes())
    if (t != type)
      return op->emitOpError("cannot be split into shards of parameter '")
             << name << "': result type " << t << " is not " << type;
  dist::PartitionAttr p = node.getPartition();
  int64_t axis = p.getAxis();
  OpBuilder b(op);
  Location loc = op->getLoc();
  SmallVector<SmallVector<Value>> shardResults(op->getNumResults());
  int64_t offset = 0;
  for (auto [i, size] : llvm::enumerate(p.shardSizes(type.getDimSize(axis)))) {
    auto part = cast<dist::NodeConfigAttr>(node.getParts()[i]);
    SmallVector<int64_t> shape(type.getShape());
    shape[axis] = size;
    auto shardType = RankedTensorType::get(shape, type.getElementType());
    ShardSlice s = shardSlice(b, type, axis, offset, size);
    IRMapping map;
    for (Value v : op->getOperands())
      if (v.getType() == type && !map.contains(v))
        map.map(v, tensor::ExtractSliceOp::create(
                       b, loc, shardType, v, s.offsets, s.extents, s.strides)
                       .getResult());
    Operation *clone = b.clone(*op, map);
    for (OpResult r : clone->getResults()) {
      r.setType(shardType);
      shardResults[r.getResultNumber()].push_back(r);
    }
    clone->setAttr(
        kShardAttrName,
        b.getDictionaryAttr(
            {b.getNamedAttr("part", b.getStringAttr(part.getVarName())),
             b.getNamedAttr("axis", b.getI64IntegerAttr(axis)),
             b.getNamedAttr("offset", b.getI64IntegerAttr(offset)),
             b.getNamedAttr("size", b.getI64IntegerAttr(size))}));
    offset += size;
  }
  for (auto [r, shards] : llvm::zip(op->getResults(), shardResults))
    r.replaceAllUsesWith(
        tensor::ConcatOp::create(b, loc, axis, shards).getResult());
  op->erase();
  return success();
}

/// Whether `update` is already one shard's, or reads a sliced gradient.
bool alreadySplit(nn::OptimizerUpdateOpInterface update) {
  if (update->hasAttr(kShardAttrName))
    return true;
  Operation *def = rawGradientUse(update).get().getDefiningOp();
  return def && def->hasAttr(kShardsAttrName);
}

struct PartitionPass : public autodist::impl::PartitionBase<PartitionPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<StrategyAndStep> found = strategyAndStep(module, "partition");
    if (failed(found))
      return signalPassFailure();
    dist::StrategyAttr strategy = found->strategy;
    func::FuncOp step = found->step;
    // Parameters without a node config are dist-synchronize's to report.
    SmallVector<std::pair<nn::OptimizerUpdateOpInterface, dist::NodeConfigAttr>>
        partitioned;
    step.walk([&](nn::OptimizerUpdateOpInterface update) {
      StringAttr name = updatedParamName(step, update);
      dist::NodeConfigAttr node =
          name ? strategy.lookup(name.getValue()) : dist::NodeConfigAttr();
      if (node && node.getPartition() && !alreadySplit(update))
        partitioned.emplace_back(update, node);
    });
    for (auto [update, node] : partitioned) {
      if (!usesParameterServer(node)) {
        sliceGradient(update, node);
        continue;
      }
      if (failed(splitUpdate(update, node.getVarName(), node)))
        return signalPassFailure();
    }
  }
};

} // namespace
