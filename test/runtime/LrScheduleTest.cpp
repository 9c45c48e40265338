//===- LrScheduleTest.cpp - Learning rate schedules -----------------------===//

#include "autodist/runtime/LrSchedule.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace autodist::rt;

TEST(LrSchedule, ConstantIsTheBaseRate) {
  LrSchedule s;
  for (int64_t t : {1, 2, 1000})
    EXPECT_EQ(s.at(0.25, t), 0.25);
}

TEST(LrSchedule, CosineWarmsUpThenDecaysToMinLr) {
  LrSchedule s;
  s.kind = LrSchedule::Kind::Cosine;
  s.warmupSteps = 4;
  s.totalSteps = 12;
  s.minLr = 0.1;
  // Warmup: lr * t / warmup, reaching lr at t = warmup.
  EXPECT_DOUBLE_EQ(s.at(1.0, 1), 0.25);
  EXPECT_DOUBLE_EQ(s.at(1.0, 2), 0.5);
  EXPECT_DOUBLE_EQ(s.at(1.0, 4), 1.0);
  // Decay over (warmup, total]: half way is the mean of lr and min_lr.
  EXPECT_DOUBLE_EQ(s.at(1.0, 8), 0.55);
  EXPECT_DOUBLE_EQ(s.at(1.0, 5),
                   0.1 + 0.9 * 0.5 * (1 + std::cos(M_PI * 1 / 8)));
  EXPECT_DOUBLE_EQ(s.at(1.0, 12), 0.1);
  EXPECT_DOUBLE_EQ(s.at(1.0, 13), 0.1); // constant after total_steps
  EXPECT_DOUBLE_EQ(s.at(1.0, 1000), 0.1);
  for (int64_t t = 5; t < 12; ++t) // strictly decreasing
    EXPECT_GT(s.at(1.0, t), s.at(1.0, t + 1)) << t;
  // The base rate (--lr) scales the curve; min_lr stays.
  EXPECT_DOUBLE_EQ(s.at(2.0, 2), 1.0);
  EXPECT_DOUBLE_EQ(s.at(2.0, 8), 1.05);
}

TEST(LrSchedule, CosineWithoutWarmup) {
  LrSchedule s;
  s.kind = LrSchedule::Kind::Cosine;
  s.totalSteps = 2;
  EXPECT_DOUBLE_EQ(s.at(1.0, 1), 0.5);
  EXPECT_DOUBLE_EQ(s.at(1.0, 2), 0.0);
  s.warmupSteps = s.totalSteps = 3; // all warmup, then min_lr
  EXPECT_DOUBLE_EQ(s.at(0.3, 3), 0.3);
  EXPECT_DOUBLE_EQ(s.at(0.3, 4), 0.0);
}

TEST(LrSchedule, StepDecaysEveryStepSizeSteps) {
  LrSchedule s;
  s.kind = LrSchedule::Kind::Step;
  s.stepSize = 3;
  s.gamma = 0.5;
  // lr * gamma^floor((t - 1) / step_size)
  for (int64_t t : {1, 2, 3})
    EXPECT_DOUBLE_EQ(s.at(0.8, t), 0.8) << t;
  for (int64_t t : {4, 5, 6})
    EXPECT_DOUBLE_EQ(s.at(0.8, t), 0.4) << t;
  EXPECT_DOUBLE_EQ(s.at(0.8, 7), 0.2);
  EXPECT_DOUBLE_EQ(s.at(0.8, 31), 0.8 * std::pow(0.5, 10));
}
