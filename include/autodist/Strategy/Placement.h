//===- Placement.h - choosing the parameter servers' devices ----*- C++ -*-===//
//
// dist-place's decision as a pure function: the server of every
// parameter-server synchronizer of a strategy that has none yet.
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_STRATEGY_PLACEMENT_H
#define AUTODIST_STRATEGY_PLACEMENT_H

#include "autodist/Strategy/Variables.h"
#include "dist/DistAttrs.h"

#include <optional>

namespace autodist {

/// How variables (and shards) are placed on the parameter servers.
enum class Placement {
  /// AutoDist's PSLoadBalancing / PartitionedPS: in program order, each on
  /// the server(s) with the fewest bytes so far.
  Bytes,
  /// Bandwidth-proportional (AutoDist's sorted_christy target, made
  /// deterministic): largest first, each on the server with the smallest
  /// (load + bytes) / bandwidth, a node's bandwidth shared by its servers.
  Bandwidth,
};

/// Parses a placement name (`bytes`, `bandwidth`).
std::optional<Placement> parsePlacement(llvm::StringRef name);

/// `strategy` with a server for every parameter-server synchronizer that
/// has none, chosen among the CPU devices of `cluster` as `policy` says.
/// A variable of `bytes` bytes in n shards weighs bytes / n per shard;
/// servers start with the weight of what is already placed on them. An
/// error at `loc` when something is to be placed and the cluster has no
/// CPU device, or a node names no variable of `variables`.
mlir::FailureOr<dist::StrategyAttr>
placeServers(dist::StrategyAttr strategy, llvm::ArrayRef<Variable> variables,
             dist::ClusterAttr cluster, Placement policy, mlir::Location loc);

} // namespace autodist

#endif // AUTODIST_STRATEGY_PLACEMENT_H
