//===- BatchPlanTest.cpp - Which samples each rank sees -------------------===//

#include "autodist/runtime/BatchPlan.h"

#include <gtest/gtest.h>

using autodist::rt::BatchPlan;

TEST(BatchPlan, SlicesGlobalBatchesInFileOrder) {
  BatchPlan plan(40, 4, 2);
  EXPECT_EQ(plan.globalBatchSize(), 8);
  EXPECT_EQ(plan.numGlobalBatches(), 5);
  EXPECT_EQ(plan.firstSample(0, 0), 0);
  EXPECT_EQ(plan.firstSample(0, 1), 4);
  EXPECT_EQ(plan.firstSample(1, 0), 8);
  EXPECT_EQ(plan.firstSample(4, 1), 36);
  EXPECT_EQ(plan.firstSample(5, 0), 0); // wraps around
  EXPECT_EQ(plan.firstSample(7, 1), 20);
}

TEST(BatchPlan, DropsTrailingPartialBatch) {
  BatchPlan plan(43, 4, 2);
  EXPECT_EQ(plan.numGlobalBatches(), 5);
  EXPECT_EQ(plan.firstSample(5, 0), 0);
  EXPECT_EQ(BatchPlan(8, 8, 1).numGlobalBatches(), 1);
}

// N ranks with batch B see exactly what one rank with batch B*N sees.
TEST(BatchPlan, RanksPartitionTheSingleRankBatch) {
  for (int64_t ranks : {2, 3, 4}) {
    BatchPlan many(100, 5, ranks), one(100, 5 * ranks, 1);
    for (int64_t step = 0; step < 25; ++step)
      for (int64_t r = 0; r < ranks; ++r)
        EXPECT_EQ(many.firstSample(step, r), one.firstSample(step, 0) + r * 5);
  }
}
