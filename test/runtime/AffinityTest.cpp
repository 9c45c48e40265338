//===- AffinityTest.cpp - --pin's CPU blocks ------------------------------===//

#include "autodist/runtime/Affinity.h"

#include <gtest/gtest.h>

using namespace autodist::rt;

namespace {
using Cpus = std::vector<int>;

/// Every rank's block for `ranks` ranks on `allowed`.
std::vector<Cpus> blocks(const Cpus &allowed, int ranks) {
  std::vector<Cpus> out;
  for (int r = 0; r < ranks; ++r)
    out.push_back(cpuBlock(allowed, r, ranks));
  return out;
}
} // namespace

TEST(Affinity, BlocksSplitTheCpusContiguously) {
  EXPECT_EQ(blocks({0, 1}, 2), (std::vector<Cpus>{{0}, {1}}));
  EXPECT_EQ(blocks({0, 1, 2, 3, 4, 5, 6, 7}, 2),
            (std::vector<Cpus>{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(blocks({0, 1}, 1), (std::vector<Cpus>{{0, 1}}));
  // Uneven: [r*C/n, (r+1)*C/n) of C = 5 CPUs for 2 and 3 ranks.
  EXPECT_EQ(blocks({0, 1, 2, 3, 4}, 2), (std::vector<Cpus>{{0, 1}, {2, 3, 4}}));
  EXPECT_EQ(blocks({0, 1, 2, 3, 4}, 3),
            (std::vector<Cpus>{{0}, {1, 2}, {3, 4}}));
}

TEST(Affinity, BlocksFollowTheAllowedCpus) {
  // Not 0..C-1: a cpuset or a launcher's restriction.
  EXPECT_EQ(blocks({2, 3, 6, 7}, 2), (std::vector<Cpus>{{2, 3}, {6, 7}}));
  EXPECT_EQ(blocks({5}, 1), (std::vector<Cpus>{{5}}));
}

TEST(Affinity, MoreRanksThanCpusWrapAround) {
  EXPECT_EQ(blocks({0, 1}, 5), (std::vector<Cpus>{{0}, {1}, {0}, {1}, {0}}));
  EXPECT_EQ(blocks({4}, 2), (std::vector<Cpus>{{4}, {4}}));
}

TEST(Affinity, EveryCpuIsUsedOnceWhenRanksFit) {
  Cpus allowed;
  for (int c = 0; c < 13; ++c)
    allowed.push_back(c);
  for (int ranks = 1; ranks <= 13; ++ranks) {
    Cpus all;
    for (const Cpus &b : blocks(allowed, ranks)) {
      EXPECT_FALSE(b.empty()) << ranks;
      all.insert(all.end(), b.begin(), b.end());
    }
    EXPECT_EQ(all, allowed) << ranks;
  }
}

TEST(Affinity, CoresBlockSplitsSharedMasks) {
  // Unbound (or one cpuset for all): like cpuBlock on the common mask.
  std::vector<Cpus> same = {{0, 1, 2, 3}, {0, 1, 2, 3}};
  EXPECT_EQ(coresBlock(same, 0), (Cpus{0, 1}));
  EXPECT_EQ(coresBlock(same, 1), (Cpus{2, 3}));
  // Bound to sockets, ranks alternating: each socket's ranks split it.
  std::vector<Cpus> sockets = {
      {0, 1, 2, 3}, {4, 5, 6, 7}, {0, 1, 2, 3}, {4, 5, 6, 7}};
  EXPECT_EQ(coresBlock(sockets, 0), (Cpus{0, 1}));
  EXPECT_EQ(coresBlock(sockets, 1), (Cpus{4, 5}));
  EXPECT_EQ(coresBlock(sockets, 2), (Cpus{2, 3}));
  EXPECT_EQ(coresBlock(sockets, 3), (Cpus{6, 7}));
  // Bound to single cores: kept.
  EXPECT_EQ(coresBlock({{3}, {5}}, 1), (Cpus{5}));
}

TEST(Affinity, CoresBlockOverlappingMasksSplitTheUnion) {
  std::vector<Cpus> overlap = {{0, 1, 2}, {2, 3}};
  EXPECT_EQ(coresBlock(overlap, 0), (Cpus{0, 1}));
  EXPECT_EQ(coresBlock(overlap, 1), (Cpus{2, 3}));
}

TEST(Affinity, NoCpusNoBlock) { EXPECT_TRUE(cpuBlock({}, 0, 1).empty()); }

TEST(Affinity, Disjoint) {
  EXPECT_TRUE(disjoint({{0}, {1}}));
  EXPECT_TRUE(disjoint({{0, 1}}));
  EXPECT_FALSE(disjoint({{0, 1}, {1, 2}}));
  EXPECT_FALSE(disjoint({{0, 1}, {0, 1}}));
}

TEST(Affinity, CpuListString) {
  EXPECT_EQ(cpuListString({}), "");
  EXPECT_EQ(cpuListString({3}), "3");
  EXPECT_EQ(cpuListString({0, 1, 2, 3}), "0-3");
  EXPECT_EQ(cpuListString({0, 1, 2, 3, 6, 8, 9}), "0-3,6,8-9");
}

TEST(Affinity, ParsePinMode) {
  EXPECT_EQ(parsePinMode("auto"), PinMode::Auto);
  EXPECT_EQ(parsePinMode("cores"), PinMode::Cores);
  EXPECT_EQ(parsePinMode("none"), PinMode::None);
  EXPECT_EQ(parsePinMode("bogus"), std::nullopt);
  EXPECT_EQ(parsePinMode(""), std::nullopt);
}

TEST(Affinity, Describe) {
  Pinning p;
  p.action = Pinning::Action::Pinned;
  p.cpus = {1};
  p.blasThreads = 1;
  EXPECT_EQ(p.describe(), "pinned to CPU 1 (1 BLAS thread)");
  p.action = Pinning::Action::Kept;
  p.cpus = {0, 1, 2, 3};
  p.blasThreads = 4;
  EXPECT_EQ(p.describe(),
            "kept the launcher's binding, CPUs 0-3 (4 BLAS threads)");
  p.action = Pinning::Action::Untouched;
  p.blasThreads = 2;
  EXPECT_EQ(p.describe(), "not pinned (--pin=none), CPUs 0-3 (2 BLAS threads)");
}
