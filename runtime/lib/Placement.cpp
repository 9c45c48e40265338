//===- Placement.cpp - Devices and nodes of the cluster as ranks ----------===//

#include "autodist/runtime/Placement.h"
#include "autodist/runtime/Comm.h"
#include "autodist/runtime/Error.h"

#include <memory>

namespace autodist::rt {

Placement::Placement(std::vector<ClusterNode> nodes, int worldSize)
    : nodes_(std::move(nodes)), world_(worldSize) {
  if (world_ < 1)
    throw Error("placement needs at least one rank");
  int64_t total = 0;
  for (const ClusterNode &n : nodes_) {
    if (n.devices < 1 || n.replicas < 1)
      throw Error("cluster node " + inQuotes(n.address) +
                  " needs at least one device and one replica");
    total += n.replicas;
  }
  if (nodes_.empty()) {
    first_ = {0, world_};
    return;
  }
  int64_t before = 0;
  for (const ClusterNode &n : nodes_) {
    first_.push_back(static_cast<int>(world_ * before / total));
    before += n.replicas;
  }
  first_.push_back(world_);
}

int64_t Placement::numDevices() const {
  if (nodes_.empty())
    return -1;
  int64_t n = 0;
  for (const ClusterNode &node : nodes_)
    n += node.devices;
  return n;
}

int Placement::rankOfDevice(int64_t device) const {
  if (device < 0 || (numDevices() >= 0 && device >= numDevices()))
    throw Error("device " + std::to_string(device) +
                " is not a device of the cluster (it has " +
                std::to_string(numDevices()) + ")");
  if (nodes_.empty())
    return static_cast<int>(device % world_);
  int64_t j = device;
  for (int k = 0; k < numNodes(); ++k) {
    if (j < nodes_[k].devices) {
      int size = endRank(k) - firstRank(k);
      if (size == 0)
        return static_cast<int>(device % world_);
      return firstRank(k) + static_cast<int>(j % size);
    }
    j -= nodes_[k].devices;
  }
  return 0; // unreachable: device < numDevices()
}

int Placement::nodeOfRank(int rank) const {
  for (int k = 0; k < numNodes(); ++k)
    if (rank < endRank(k))
      return k;
  throw Error("rank " + std::to_string(rank) + " is outside the " +
              std::to_string(world_) + " ranks");
}

namespace {
std::unique_ptr<Placement> &current() {
  static std::unique_ptr<Placement> p;
  return p;
}
} // namespace

const Placement &placement() {
  if (!current())
    current() =
        std::make_unique<Placement>(std::vector<ClusterNode>{}, comm::size());
  return *current();
}

void setPlacement(const Placement &p) {
  current() = std::make_unique<Placement>(p);
}

} // namespace autodist::rt
