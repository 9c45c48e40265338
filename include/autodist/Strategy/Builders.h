//===- Builders.h - AutoDist's strategy builders ----------------*- C++ -*-===//
//
// The eight strategy builders of AutoDist (reference/autodist.md §2), each a
// function from the trainable variables and the cluster to a strategy. The
// load-balancing ones leave their servers to dist-place (Placement.h).
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_STRATEGY_BUILDERS_H
#define AUTODIST_STRATEGY_BUILDERS_H

#include "autodist/Strategy/Variables.h"
#include "dist/DistAttrs.h"

#include "mlir/IR/BuiltinTypes.h"

#include <string>

namespace autodist {

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
};

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
