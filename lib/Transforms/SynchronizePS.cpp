//===- SynchronizePS.cpp - synchronous parameter servers ------------------===//
//
// Gradients go to their parameter's server by a bucketed dist.reduce, the
// optimizer update runs, and the server's updated value comes back to every
// rank by a bucketed dist.broadcast (SynchronizePS.h).
//
//===----------------------------------------------------------------------===//

#include "SynchronizePS.h"
#include "Partition.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace autodist;

namespace {

/// The PS synchronizer of a config, if it is one this pass can carry out
/// (synchronous, no staleness); null with an error otherwise.
FailureOr<dist::PSSynchronizerAttr>
synchronousServer(Operation *update, StringRef var, Attribute sync) {
  auto ps = cast<dist::PSSynchronizerAttr>(sync);
  if (ps.getServer().empty())
    return update->emitOpError("parameter '")
           << var
           << "' is on a parameter server that is not placed yet (run "
              "dist-place first)";
  if (!ps.getSync())
    return update->emitOpError("parameter '")
           << var
           << "' uses an asynchronous parameter server (sync = false), which "
              "is not implemented; use sync = true";
  if (ps.getStaleness() != 0)
    return update->emitOpError("parameter '")
           << var << "' uses a parameter server with staleness "
           << ps.getStaleness()
           << ", which is not implemented; use staleness = 0";
  return ps;
}

/// Fails when the gradient `grad` of `update` was transformed on its way (e.g.
/// clipped by the global norm): the transform needs every reduced gradient
/// on every rank, and a parameter server delivers each only to its owner.
LogicalResult checkRawGradient(Operation *update, Value grad, StringRef var) {
  Operation *def = grad.getDefiningOp();
  if (!isa_and_nonnull<nn::GradientTransformOpInterface>(def))
    return success();
  return update->emitOpError("parameter '")
         << var << "' uses a parameter server, but its gradient goes through '"
         << def->getName()
         << "', which needs every synchronized gradient on every rank "
            "(e.g. clipping by global norm); use all-reduce for it";
}

/// The result of `update` that `@train_step` returns as the new value of
/// parameter `var` (result tagged `nn.param_out`), directly or, for a
/// shard's update, as an operand of the tensor.concat of the shards.
FailureOr<unsigned> newParamResult(func::FuncOp step, Operation *update,
                                   StringRef var, bool shard) {
  Operation *ret = step.getBody().front().getTerminator();
  for (OpOperand &o : ret->getOpOperands()) {
    auto tag = step.getResultAttrOfType<StringAttr>(o.getOperandNumber(),
                                                    "nn.param_out");
    if (!tag || tag.getValue() != var)
      continue;
    if (o.get().getDefiningOp() == update)
      return cast<OpResult>(o.get()).getResultNumber();
    if (auto concat = o.get().getDefiningOp<tensor::ConcatOp>();
        shard && concat)
      for (Value v : concat.getInputs())
        if (v.getDefiningOp() == update)
          return cast<OpResult>(v).getResultNumber();
  }
  return update->emitOpError("the new value of parameter '")
         << var << "' is not returned by @train_step as its 'nn.param_out'";
}

/// Records that the part `piece` of every optimizer-state operand of
/// `update` (a slice of it, for a shard's update) is meaningful only on the
/// owner of the piece's device: appended to the state argument's `dist.owners`.
void tagStateOwners(func::FuncOp step, Operation *update, DictionaryAttr piece,
                    bool shard) {
  for (Value v : update->getOperands()) {
    auto arg = dyn_cast<BlockArgument>(shard ? throughSlice(v) : v);
    if (!arg || arg.getOwner() != &step.getBody().front() ||
        !step.getArgAttr(arg.getArgNumber(), "nn.state"))
      continue;
    SmallVector<Attribute> owners;
    if (auto old =
            step.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), "dist.owners"))
      llvm::append_range(owners, old);
    owners.push_back(piece);
    step.setArgAttr(arg.getArgNumber(), "dist.owners",
                    ArrayAttr::get(step.getContext(), owners));
  }
}

/// The `dist.owners` entry of a shard: `device`, and unless it is the whole
/// tensor, its `axis`, `offset` and `size`.
DictionaryAttr ownerPiece(Builder &b, StringRef device,
                          std::optional<std::array<int64_t, 3>> part) {
  SmallVector<NamedAttribute> fields = {
      b.getNamedAttr("device", b.getStringAttr(device))};
  if (part) {
    fields.push_back(b.getNamedAttr("axis", b.getI64IntegerAttr((*part)[0])));
    fields.push_back(b.getNamedAttr("offset", b.getI64IntegerAttr((*part)[1])));
    fields.push_back(b.getNamedAttr("size", b.getI64IntegerAttr((*part)[2])));
  }
  return b.getDictionaryAttr(fields);
}

/// Sets the insertion point of `b` after the last op of `block` defining one
/// of `values` (the block's start when all are arguments).
void setInsertionAfterLastDef(OpBuilder &b, Block &block, ValueRange values) {
  Operation *last = nullptr;
  for (Value v : values)
    if (Operation *def = v.getDefiningOp())
      if (!last || last->isBeforeInBlock(def))
        last = def;
  if (last)
    b.setInsertionPointAfter(last);
  else
    b.setInsertionPointToStart(&block);
}

} // namespace

/// Whether `sync` keeps the value on a server.
static bool onServer(Attribute sync) {
  auto s = dyn_cast_or_null<dist::SynchronizerAttrInterface>(sync);
  return s && s.getServerDevice().has_value();
}

bool autodist::usesParameterServer(dist::NodeConfigAttr node) {
  if (onServer(node.getSynchronizer()))
    return true;
  if (!node.getParts())
    return false;
  return llvm::any_of(node.getParts(), [](Attribute a) {
    return onServer(cast<dist::NodeConfigAttr>(a).getSynchronizer());
  });
}

ParameterServerSync::Bucket &
ParameterServerSync::bucketOf(dist::PSSynchronizerAttr ps) {
  return buckets[{ps.getServer().str(), ps.getLocalReplication()}];
}

LogicalResult ParameterServerSync::add(nn::OptimizerUpdateOpInterface update,
                                       StringRef name,
                                       dist::NodeConfigAttr node) {
  if (failed(checkRawGradient(update, update.getGradOperand().get(), name)))
    return failure();
  FailureOr<dist::PSSynchronizerAttr> ps =
      synchronousServer(update, name, node.getSynchronizer());
  if (failed(ps))
    return failure();
  FailureOr<unsigned> out = newParamResult(step, update, name, false);
  if (failed(out))
    return failure();
  Bucket &bucket = bucketOf(*ps);
  bucket.pushes.push_back(&update.getGradOperand());
  bucket.pulls.push_back(update->getResult(*out));
  Builder b(step.getContext());
  tagStateOwners(step, update, ownerPiece(b, ps->getServer(), std::nullopt),
                 /*shard=*/false);
  return success();
}

LogicalResult
ParameterServerSync::addShard(nn::OptimizerUpdateOpInterface update,
                              StringRef name, dist::NodeConfigAttr part,
                              DictionaryAttr piece, AllReduceFn allReduce) {
  Operation *op = update;
  OpOperand &grad = update.getGradOperand();
  if (failed(checkRawGradient(op, throughSlice(grad.get()), name)))
    return failure();
  FailureOr<unsigned> out = newParamResult(step, op, name, /*shard=*/true);
  if (failed(out))
    return failure();
  if (!onServer(part.getSynchronizer()))
    return allReduce(op, part.getVarName(), part.getSynchronizer(), grad);
  FailureOr<dist::PSSynchronizerAttr> ps =
      synchronousServer(op, part.getVarName(), part.getSynchronizer());
  if (failed(ps))
    return failure();
  Bucket &bucket = bucketOf(*ps);
  bucket.pushes.push_back(&grad);
  bucket.pulls.push_back(op->getResult(*out));
  auto field = [&](StringRef f) {
    return cast<IntegerAttr>(piece.get(f)).getInt();
  };
  Builder b(step.getContext());
  tagStateOwners(step, op,
                 ownerPiece(b, ps->getServer(),
                            std::array<int64_t, 3>{
                                field("axis"), field("offset"), field("size")}),
                 /*shard=*/true);
  return success();
}

void ParameterServerSync::addLoss(OpOperand &use) {
  Bucket &first = buckets.begin()->second;
  first.pushes.push_back(&use);
  first.loss = &use;
}

void ParameterServerSync::finish() {
  Block &body = step.getBody().front();
  OpBuilder b(step.getContext());
  for (auto &[key, bucket] : buckets) {
    const auto &[server, localReplication] = key;
    SmallVector<Value> grads;
    for (OpOperand *use : bucket.pushes)
      grads.push_back(use->get());
    setInsertionAfterLastDef(b, body, grads);
    auto reduce = dist::ReduceOp::create(b, grads.front().getLoc(), grads,
                                         dist::ReductionKind::Mean, server,
                                         localReplication);
    for (auto [use, reduced] : llvm::zip(bucket.pushes, reduce.getResults()))
      use->set(reduced);
    if (bucket.loss)
      bucket.pulls.push_back(bucket.loss->get());

    SmallVector<Value> after(bucket.pulls);
    llvm::append_range(after, reduce.getResults());
    setInsertionAfterLastDef(b, body, after);
    auto bcast =
        dist::BroadcastOp::create(b, bucket.pulls.front().getLoc(),
                                  bucket.pulls, server, localReplication);
    for (auto [v, pulled] : llvm::zip(bucket.pulls, bcast.getResults()))
      v.replaceAllUsesExcept(pulled, bcast);
  }
}
