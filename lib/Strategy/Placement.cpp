//===- Placement.cpp - choosing the parameter servers' devices ------------===//
//
// The load-balancing placements of AutoDist's PS builders (reference/
// autodist.md §2), applied to whatever a strategy leaves unplaced.
//
//===----------------------------------------------------------------------===//

#include "autodist/Strategy/Placement.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringSwitch.h"

#include <map>
#include <numeric>

using namespace mlir;
using namespace autodist;
using namespace autodist::dist;

std::optional<Placement> autodist::parsePlacement(StringRef name) {
  return llvm::StringSwitch<std::optional<Placement>>(name)
      .Case("bytes", Placement::Bytes)
      .Case("bandwidth", Placement::Bandwidth)
      .Default(std::nullopt);
}

namespace {

/// A synchronizer to place: part `part` (-1: the whole variable) of node
/// `node`, weighing `bytes`.
struct Unit {
  size_t node;
  int64_t part;
  double bytes;
};

/// The candidate servers and what they carry.
class Servers {
public:
  explicit Servers(ClusterAttr cluster) {
    for (const std::string &d : cluster.cpuDevices())
      devices.push_back(d);
    // cpuDevices() lists every node's CPUs in node order.
    for (Attribute a : cluster.getNodes()) {
      auto n = cast<ClusterNodeAttr>(a);
      for (size_t c = 0; c < n.getCpus().size(); ++c)
        bandwidths.push_back(n.getBandwidth().getValueAsDouble() /
                             n.getCpus().size());
    }
    loads.assign(devices.size(), 0.0);
  }

  bool empty() const { return devices.empty(); }

  /// Charges `bytes` to `device`, if it is a candidate.
  void charge(StringRef device, double bytes) {
    for (auto [d, load] : llvm::zip(devices, loads))
      if (d == device)
        load += bytes;
  }

  /// The candidates in load order (stable).
  SmallVector<size_t> byLoad() const {
    SmallVector<size_t> order(devices.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t x, size_t y) { return loads[x] < loads[y]; });
    return order;
  }

  /// The server that would finish soonest with `bytes` more: the smallest
  /// (load + bytes) / bandwidth, the first one on ties; charged `bytes`.
  size_t fastestToFinish(double bytes) {
    size_t best = 0;
    for (size_t j = 1; j < loads.size(); ++j)
      if ((loads[j] + bytes) / bandwidths[j] <
          (loads[best] + bytes) / bandwidths[best])
        best = j;
    loads[best] += bytes;
    return best;
  }

  SmallVector<std::string> devices;
  SmallVector<double> bandwidths, loads;
};

/// The parameter-server synchronizer `sync`, if it is one.
PSSynchronizerAttr psOf(Attribute sync) {
  return dyn_cast_or_null<PSSynchronizerAttr>(sync);
}

/// `node` with the servers `chosen` gives its unplaced synchronizers (by
/// part, -1 for the whole node).
NodeConfigAttr withServers(NodeConfigAttr node,
                           const std::map<int64_t, std::string> &chosen) {
  MLIRContext *ctx = node.getContext();
  auto place = [&](Attribute sync, int64_t part) -> Attribute {
    auto it = chosen.find(part);
    if (it == chosen.end())
      return sync;
    PSSynchronizerAttr ps = psOf(sync);
    return PSSynchronizerAttr::get(ctx, it->second, ps.getLocalReplication(),
                                   ps.getSync(), ps.getStaleness());
  };
  ArrayAttr parts = node.getParts();
  if (parts) {
    SmallVector<Attribute> placed;
    for (auto [k, a] : llvm::enumerate(parts)) {
      auto p = cast<NodeConfigAttr>(a);
      placed.push_back(NodeConfigAttr::get(ctx, p.getVarName(),
                                           place(p.getSynchronizer(), k),
                                           p.getPartition(), p.getParts()));
    }
    parts = ArrayAttr::get(ctx, placed);
  }
  return NodeConfigAttr::get(ctx, node.getVarName(),
                             place(node.getSynchronizer(), -1),
                             node.getPartition(), parts);
}

} // namespace

FailureOr<StrategyAttr> autodist::placeServers(StrategyAttr strategy,
                                               ArrayRef<Variable> variables,
                                               ClusterAttr cluster,
                                               Placement policy, Location loc) {
  Servers servers(cluster);
  SmallVector<NodeConfigAttr> nodes;
  SmallVector<Unit> units;
  for (Attribute a : strategy.getNodes()) {
    auto node = cast<NodeConfigAttr>(a);
    size_t index = nodes.size();
    nodes.push_back(node);
    const Variable *var = llvm::find_if(variables, [&](const Variable &v) {
      return v.name == node.getVarName();
    });
    if (var == variables.end())
      return emitError(loc)
             << "dist-place: the strategy's parameter '" << node.getVarName()
             << "' is not a parameter of the program";
    // A shard weighs its share of the variable, as AutoDist's builders
    // count it (uneven shards too).
    auto visit = [&](Attribute sync, int64_t part, int64_t shards) {
      PSSynchronizerAttr ps = psOf(sync);
      if (!ps)
        return;
      double bytes = double(var->bytes()) / shards;
      if (ps.getServer().empty())
        units.push_back({index, part, bytes});
      else
        servers.charge(ps.getServer(), bytes);
    };
    if (ArrayAttr parts = node.getParts())
      for (auto [k, p] : llvm::enumerate(parts))
        visit(cast<NodeConfigAttr>(p).getSynchronizer(), k, parts.size());
    else
      visit(node.getSynchronizer(), -1, 1);
  }
  if (units.empty())
    return strategy;
  if (servers.empty())
    return emitError(loc) << "dist-place: the cluster has no CPU device to "
                             "act as parameter server";

  std::vector<std::map<int64_t, std::string>> chosen(nodes.size());
  if (policy == Placement::Bytes) {
    // Program order; a variable's shards go to the least-loaded servers as
    // they were before it, round-robin when there are fewer servers.
    for (size_t u = 0; u < units.size();) {
      SmallVector<size_t> order = servers.byLoad();
      size_t node = units[u].node;
      for (size_t k = 0; u < units.size() && units[u].node == node; ++u, ++k) {
        size_t s = order[k % order.size()];
        servers.loads[s] += units[u].bytes;
        chosen[node][units[u].part] = servers.devices[s];
      }
    }
  } else {
    // Largest first; ties in program order.
    SmallVector<Unit> sorted(units);
    std::stable_sort(
        sorted.begin(), sorted.end(),
        [](const Unit &x, const Unit &y) { return x.bytes > y.bytes; });
    for (const Unit &u : sorted)
      chosen[u.node][u.part] =
          servers.devices[servers.fastestToFinish(u.bytes)];
  }

  SmallVector<Attribute> placed;
  for (auto [node, c] : llvm::zip(nodes, chosen))
    placed.push_back(c.empty() ? node : withServers(node, c));
  return StrategyAttr::get(
      strategy.getContext(), strategy.getId(), strategy.getReplicas(),
      ArrayAttr::get(strategy.getContext(), placed), strategy.getPipeline());
}
