//===- BatchPlan.h - Which samples each rank sees ---------------*- C++ -*-===//
//
// Data-parallel batching in file order. With B samples per rank and N ranks a
// global batch is B*N consecutive samples: global batch g covers
// [g*B*N, (g+1)*B*N) and rank r takes its r-th slice of B. Step s uses global
// batch s mod floor(samples / (B*N)), so N ranks with batch B see exactly the
// samples one rank with batch B*N sees; a trailing partial batch is unused.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_BATCHPLAN_H
#define AUTODIST_RUNTIME_BATCHPLAN_H

#include <cstdint>

namespace autodist::rt {

class BatchPlan {
public:
  /// Requires numSamples >= batchPerRank * numRanks (checked by the caller,
  /// who can name the file).
  BatchPlan(int64_t numSamples, int64_t batchPerRank, int64_t numRanks)
      : batch_(batchPerRank), ranks_(numRanks),
        globalBatches_(numSamples / (batchPerRank * numRanks)) {}

  int64_t globalBatchSize() const { return batch_ * ranks_; }
  int64_t numGlobalBatches() const { return globalBatches_; }
  /// First sample of `rank`'s slice at 0-based `step`.
  int64_t firstSample(int64_t step, int64_t rank) const {
    return step % globalBatches_ * globalBatchSize() + rank * batch_;
  }

private:
  int64_t batch_, ranks_, globalBatches_;
};

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_BATCHPLAN_H
