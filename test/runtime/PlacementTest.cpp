//===- PlacementTest.cpp - Devices and nodes of the cluster as ranks ------===//

#include "autodist/runtime/Placement.h"

#include "TestUtil.h"

using namespace autodist::rt;
using autodist::rt::test::errorOf;

namespace {
std::vector<int> ranksOfDevices(const Placement &p) {
  std::vector<int> out;
  for (int64_t d = 0; d < p.numDevices(); ++d)
    out.push_back(p.rankOfDevice(d));
  return out;
}

std::vector<int> nodesOfRanks(const Placement &p) {
  std::vector<int> out;
  for (int r = 0; r < p.worldSize(); ++r)
    out.push_back(p.nodeOfRank(r));
  return out;
}
} // namespace

// Without a cluster: one node of all ranks, device j on rank j mod W.
TEST(Placement, OneNodeWrapsDevices) {
  Placement p({}, 3);
  EXPECT_EQ(p.numNodes(), 1);
  EXPECT_EQ(p.rankOfDevice(0), 0);
  EXPECT_EQ(p.rankOfDevice(4), 1);
  EXPECT_EQ(nodesOfRanks(p), (std::vector<int>{0, 0, 0}));
}

// Two nodes of two CPUs each (test/e2e/Inputs/cluster-2x2.yaml): one rank
// per replica on 4 ranks; with 2 ranks each node is one rank; with 1 rank
// everything is rank 0.
TEST(Placement, NodesAreContiguousBlocksByReplicas) {
  std::vector<ClusterNode> nodes = {{"a", 2, 2}, {"b", 2, 2}};
  Placement four(nodes, 4);
  EXPECT_EQ(ranksOfDevices(four), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(nodesOfRanks(four), (std::vector<int>{0, 0, 1, 1}));
  Placement two(nodes, 2);
  EXPECT_EQ(ranksOfDevices(two), (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(nodesOfRanks(two), (std::vector<int>{0, 1}));
  EXPECT_EQ(ranksOfDevices(Placement(nodes, 1)),
            (std::vector<int>{0, 0, 0, 0}));
  Placement three(nodes, 3); // node a: [0, 1), node b: [1, 3)
  EXPECT_EQ(ranksOfDevices(three), (std::vector<int>{0, 0, 1, 2}));
}

// Node blocks follow replica counts, not device counts (a node with a CPU
// and two GPUs has two replicas); a node left without ranks maps its
// devices by their global index.
TEST(Placement, UnevenNodesAndEmptyBlocks) {
  std::vector<ClusterNode> nodes = {{"a", 3, 2}, {"b", 1, 1}};
  Placement three(nodes, 3); // a: ranks 0-1, b: rank 2
  EXPECT_EQ(ranksOfDevices(three), (std::vector<int>{0, 1, 0, 2}));
  EXPECT_EQ(three.firstRank(1), 2);
  Placement one({{"a", 1, 1}, {"b", 1, 1}, {"c", 2, 2}}, 2);
  // a: [0, 0) is empty, b: [0, 1), c: [1, 2)
  EXPECT_EQ(one.endRank(0) - one.firstRank(0), 0);
  EXPECT_EQ(ranksOfDevices(one), (std::vector<int>{0, 0, 1, 1}));
}

TEST(Placement, Errors) {
  Placement p({{"a", 2, 1}}, 2);
  EXPECT_EQ(errorOf([&] { p.rankOfDevice(2); }),
            "device 2 is not a device of the cluster (it has 2)");
  EXPECT_EQ(errorOf([&] { p.nodeOfRank(2); }), "rank 2 is outside the 2 ranks");
  EXPECT_EQ(errorOf([] {
              Placement({{"a", 1, 0}}, 2);
            }),
            "cluster node 'a' needs at least one device and one replica");
}
