//===- SynchronizePS.h - parameter-server synchronization -------*- C++ -*-===//
//
// The parameter-server half of dist-synchronize (Synchronize.cpp carries out
// all-reduce and calls into this for every parameter that is, wholly or in
// part, on a parameter server).
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_TRANSFORMS_SYNCHRONIZEPS_H
#define AUTODIST_TRANSFORMS_SYNCHRONIZEPS_H

#include "dist/DistOps.h"
#include "nn/NNOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <map>

namespace autodist {

/// Whether `node` or one of its shards is synchronized by a parameter server.
bool usesParameterServer(dist::NodeConfigAttr node);

/// Synchronous parameter servers in `@train_step`. For every parameter (or
/// shard) on server `S`: its gradient joins S's bucket of a
/// `dist.reduce mean` to S, every rank runs the optimizer update (only S's
/// result is meaningful, and so only S's optimizer state), and the updated
/// value joins S's bucket of a `dist.broadcast` from S, which replaces it.
/// A partitioned parameter comes split by dist-partition into one update
/// per shard, each synchronized as its shard's config says.
/// Optimizer state of server-held parameters is tagged `dist.owners` for the
/// manifest, so that checkpoints can gather it from its owners.
class ParameterServerSync {
public:
  /// Called for the gradient of an all-reduce shard of a mixed partitioned
  /// parameter: `use` must join the all-reduce bucket of `sync` (an
  /// #dist.allreduce) of shard `shardName`.
  using AllReduceFn = llvm::function_ref<mlir::LogicalResult(
      mlir::Operation *update, llvm::StringRef shardName, mlir::Attribute sync,
      mlir::OpOperand &use)>;

  explicit ParameterServerSync(mlir::func::FuncOp step) : step(step) {}

  /// Synchronizes `update` of the whole parameter `name` on its server
  /// (`node`, not partitioned).
  mlir::LogicalResult add(nn::OptimizerUpdateOpInterface update,
                          llvm::StringRef name, dist::NodeConfigAttr node);
  /// Synchronizes `update`, the update of shard `part` (at `piece`: axis,
  /// offset, size) of parameter `name`, on its server or, for an all-reduce
  /// shard, through `allReduce`.
  mlir::LogicalResult addShard(nn::OptimizerUpdateOpInterface update,
                               llvm::StringRef name, dist::NodeConfigAttr part,
                               mlir::DictionaryAttr piece,
                               AllReduceFn allReduce);
  /// Whether any parameter is on a parameter server.
  bool empty() const { return buckets.empty(); }
  /// Lets the loss (`use`, a return operand) ride in the first bucket: mean
  /// over the ranks by the reduce, back to every rank by the broadcast.
  void addLoss(mlir::OpOperand &use);
  /// Creates the bucketed collectives.
  void finish();

private:
  /// One server's (and replication mode's) traffic.
  struct Bucket {
    /// Gradient uses to reduce (and the loss's, when it rides along).
    llvm::SmallVector<mlir::OpOperand *> pushes;
    /// Updated values to broadcast: every use of each is replaced.
    llvm::SmallVector<mlir::Value> pulls;
    /// The return operand of the loss, when it rides in this bucket.
    mlir::OpOperand *loss = nullptr;
  };
  using Key = std::pair<std::string, bool>; // server, local replication

  Bucket &bucketOf(dist::PSSynchronizerAttr ps);

  mlir::func::FuncOp step;
  std::map<Key, Bucket> buckets;
};

} // namespace autodist

#endif // AUTODIST_TRANSFORMS_SYNCHRONIZEPS_H
