//===- Builders.h - AutoDist's strategy builders ----------------*- C++ -*-===//
//
// The eight strategy builders of AutoDist (reference/autodist.md §2), each a
// function from the trainable variables and the cluster to a strategy.
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_STRATEGY_BUILDERS_H
#define AUTODIST_STRATEGY_BUILDERS_H

#include "dist/DistAttrs.h"

#include "mlir/IR/BuiltinTypes.h"

#include <string>

namespace autodist {

/// A trainable variable as the builders see it.
struct Variable {
  std::string name;
  mlir::RankedTensorType type;
  /// Its gradient is sparse (rows gathered by an embedding lookup).
  bool sparse = false;

  int64_t bytes() const;
};

/// How the parameter-server builders place variables (and shards).
enum class Placement {
  /// AutoDist's PSLoadBalancing / PartitionedPS: in program order, each on
  /// the server(s) with the fewest bytes so far.
  Bytes,
  /// Bandwidth-proportional (AutoDist's sorted_christy target, made
  /// deterministic): largest first, each on the server with the smallest
  /// (load + bytes) / bandwidth, a node's bandwidth shared by its servers.
  Bandwidth,
};

/// The knobs AutoDist's builders take.
struct BuilderOptions {
  int64_t chunkSize = 128;
  /// Null: the builder's own default (NCCL for AllReduce, AUTO for the
  /// partitioned all-reduce builders).
  std::optional<dist::AllReduceSpec> spec;
  dist::Compressor compressor = dist::Compressor::None;
  int64_t powersgdRank = 0;
  bool localProxy = false;
  bool sync = true;
  int64_t staleness = 0;
  uint64_t seed = 0;
  Placement placement = Placement::Bytes;
};

/// Parses a placement name (`bytes`, `bandwidth`).
std::optional<Placement> parsePlacement(llvm::StringRef name);

/// The builder names, as `--strategy=` takes them.
llvm::ArrayRef<llvm::StringLiteral> builderNames();

/// Runs builder `name`; an unknown name or options the builder rejects are
/// an error diagnostic at `loc`.
mlir::FailureOr<dist::StrategyAttr>
buildStrategy(llvm::StringRef name, llvm::ArrayRef<Variable> variables,
              dist::ClusterAttr cluster, const BuilderOptions &options,
              mlir::Location loc);

/// AutoDist's shard count for axis size `n`: the smallest divisor >= 2, or
/// `n` itself when prime; 1 when `n` <= 1.
int64_t smallestDivisorShards(int64_t n);

/// UnevenPartitionedPS's shard count: the smallest `i` >= 2 that does not
/// divide `n`, or `n` when there is none; 1 when `n` <= 1.
int64_t smallestNonDivisorShards(int64_t n);

} // namespace autodist

#endif // AUTODIST_STRATEGY_BUILDERS_H
