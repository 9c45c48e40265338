//===- StepArenaTest.cpp - replayed memory plan of the compiled step ------===//

#include "autodist/runtime/StepArena.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace autodist::rt;

namespace {

/// What a compiled step does: allocations and frees in a fixed order.
/// `late` keeps `a` live past the allocation of `c` (a departure from a
/// plan recorded without it); `cSize` varies the last size.
struct FakeStep {
  size_t cSize = 300;
  bool late = false;
  void *a = nullptr, *b = nullptr, *c = nullptr;

  void run() {
    a = _mlir_memref_to_llvm_alloc(100);
    std::memset(a, 1, 100);
    b = _mlir_memref_to_llvm_alloc(100);
    std::memset(b, 2, 100);
    if (!late)
      _mlir_memref_to_llvm_free(a);
    c = _mlir_memref_to_llvm_alloc(cSize);
    std::memset(c, 3, cSize);
    if (late) {
      // a must still hold its bytes: c may not have been put over it.
      for (int i = 0; i < 100; ++i)
        ASSERT_EQ(static_cast<unsigned char *>(a)[i], 1);
      _mlir_memref_to_llvm_free(a);
    }
    for (int i = 0; i < 100; ++i)
      ASSERT_EQ(static_cast<unsigned char *>(b)[i], 2);
    _mlir_memref_to_llvm_free(b);
    _mlir_memref_to_llvm_free(c);
  }
  void call() {
    arena::CallScope scope(arena::Entry::TrainStep);
    run();
  }
};

class StepArena : public ::testing::Test {
protected:
  void SetUp() override { arena::reset(); }
  void TearDown() override { arena::reset(); }
};

} // namespace

TEST(ArenaPlan, LifetimesShareBytes) {
  // a [0,2) and b [1,3) overlap in time; c [3,4) overlaps neither.
  std::vector<ArenaBuffer> buffers = {{100, 0, 2}, {100, 1, 3}, {200, 3, 4}};
  ArenaPlan plan = planArena(buffers);
  EXPECT_NE(plan.offsets[0], plan.offsets[1]);
  EXPECT_EQ(plan.offsets[2], 0); // the largest, placed first
  EXPECT_EQ(plan.bytes, 256u);   // 64-byte granules: 2 x 128 = 256
  EXPECT_EQ(plan.offsets[0] % 64, 0);
  EXPECT_EQ(plan.offsets[1] % 64, 0);
}

TEST(ArenaPlan, BuffersThatOutliveTheCallStayOnTheHeap) {
  ArenaPlan plan = planArena({{64, 0, -1}, {64, 1, 2}});
  EXPECT_EQ(plan.offsets[0], -1);
  EXPECT_EQ(plan.offsets[1], 0);
  EXPECT_EQ(plan.bytes, 64u);
}

TEST_F(StepArena, SteadyStateCallsAllocateNothing) {
  FakeStep step;
  step.call(); // recorded: 3 heap allocations
  EXPECT_EQ(arena::stats().heapAllocations, 3);
  for (int i = 0; i < 5; ++i)
    step.call();
  EXPECT_EQ(arena::stats().heapAllocations, 3);
  EXPECT_EQ(arena::stats().replayedCalls, 5);
  // c reuses a's bytes (a is freed first); b has its own.
  EXPECT_EQ(step.c, step.a);
  EXPECT_NE(step.b, step.a);
  EXPECT_GE(arena::stats().arenaBytes, 128u + 320u);
}

TEST_F(StepArena, ALiveBufferIsNeverReused) {
  FakeStep step;
  step.call();
  step.call();
  step.late = true; // a outlives the point where the plan reuses it
  step.call();      // asserts inside: a and b keep their bytes
  EXPECT_NE(step.c, step.a);
  EXPECT_EQ(arena::stats().replayedCalls, 1);
  // The departure is recorded afresh and replayed from then on.
  step.call();
  step.call();
  EXPECT_EQ(arena::stats().replayedCalls, 2);
}

TEST_F(StepArena, ANewSizeIsRecordedAfresh) {
  FakeStep step;
  step.call();
  step.call();
  int64_t before = arena::stats().heapAllocations;
  step.cSize = 5000; // e.g. another batch size
  step.call();       // falls back for c, then records anew
  EXPECT_EQ(arena::stats().heapAllocations, before + 1);
  step.call(); // the recording
  step.call(); // replayed
  EXPECT_EQ(arena::stats().heapAllocations, before + 4);
  EXPECT_EQ(arena::stats().replayedCalls, 2);
}

TEST_F(StepArena, OutsideCallsUseTheHeap) {
  void *p = _mlir_memref_to_llvm_alloc(10);
  ASSERT_NE(p, nullptr);
  _mlir_memref_to_llvm_free(p);
  void *q = _mlir_memref_to_llvm_aligned_alloc(256, 10);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(q) % 256, 0u);
  _mlir_memref_to_llvm_free(q);
  EXPECT_EQ(arena::stats().heapAllocations, 0);
}

TEST_F(StepArena, ACallWithoutAllocationsIsPlannedToo) {
  for (int i = 0; i < 3; ++i) {
    arena::CallScope scope(arena::Entry::Forward);
  }
  EXPECT_EQ(arena::stats().replayedCalls, 2);
  EXPECT_EQ(arena::stats().arenaBytes, 0u);
}
