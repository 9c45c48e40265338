//===- Placement.h - Devices and nodes of the cluster as ranks --*- C++ -*-===//
//
// A program is compiled for a cluster (AutoDist resource spec: nodes, each
// with CPU and GPU devices) but runs on however many ranks mpirun starts. The
// collectives of a parameter server name their root by the index of its
// device in the cluster; this is the one place that maps devices and nodes
// to ranks (docs/abi.md, "Devices and ranks"):
//
//  - Nodes are contiguous blocks of ranks, sized in proportion to their
//    replicas (AutoDist's replicas: a node's GPUs, or its CPUs when it has
//    none): with W ranks, R replicas in all and R_k on the nodes before
//    node k, node k holds ranks [floor(W*R_k/R), floor(W*R_{k+1}/R)). When
//    W = R every node gets exactly one rank per replica.
//  - The j-th device of node k (its CPUs, then its GPUs) is rank
//    first_k + j mod |node k|. When node k has no rank (W below the number
//    of nodes), device i of the cluster (i counted over all nodes) is rank
//    i mod W.
//
// So on one node (the default cluster: this machine, one CPU), device j is
// rank j mod W.
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_RUNTIME_PLACEMENT_H
#define AUTODIST_RUNTIME_PLACEMENT_H

#include <cstdint>
#include <string>
#include <vector>

namespace autodist::rt {

/// One node of the cluster a program was compiled for.
struct ClusterNode {
  std::string address;
  int64_t devices = 1;  // CPUs + GPUs
  int64_t replicas = 1; // >= 1
};

class Placement {
public:
  /// `nodes` (empty: one node of unboundedly many devices) over `worldSize`
  /// ranks.
  Placement(std::vector<ClusterNode> nodes, int worldSize);

  int worldSize() const { return world_; }
  int numNodes() const { return static_cast<int>(first_.size()) - 1; }
  /// The number of devices of the cluster (-1: unbounded).
  int64_t numDevices() const;
  /// The rank that owns device `device`; throws Error when out of range.
  int rankOfDevice(int64_t device) const;
  /// The node holding `rank`.
  int nodeOfRank(int rank) const;
  /// The ranks of node `node`: [firstRank, endRank).
  int firstRank(int node) const { return first_[node]; }
  int endRank(int node) const { return first_[node + 1]; }

private:
  std::vector<ClusterNode> nodes_;
  int world_;
  std::vector<int> first_; // node k: [first_[k], first_[k+1])
};

/// The placement the runtime's collectives use: set from the manifest by
/// the trainer; until then one node over all ranks.
const Placement &placement();
void setPlacement(const Placement &p);

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_PLACEMENT_H
