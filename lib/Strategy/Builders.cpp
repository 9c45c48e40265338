//===- Builders.cpp - AutoDist's eight strategy builders ------------------===//
//
// Each builder decides exactly as AutoDist's (autodist/strategy/*.py, see
// reference/autodist.md §2): variables are visited in program order,
// parameter servers are the cluster's CPU devices, replicas its GPUs plus
// the CPUs of nodes without GPUs. The load-balancing builders leave the
// choice of each server to dist-place (Placement.cpp).
//
//===----------------------------------------------------------------------===//

#include "autodist/Strategy/Builders.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"

#include <random>

using namespace mlir;
using namespace autodist;
using namespace autodist::dist;

int64_t autodist::smallestDivisorShards(int64_t n) {
  if (n <= 1)
    return 1;
  for (int64_t i = 2; i < n; ++i)
    if (n % i == 0)
      return i;
  return n;
}

int64_t autodist::smallestNonDivisorShards(int64_t n) {
  if (n <= 1)
    return 1;
  for (int64_t i = 2; i < n; ++i)
    if (n % i != 0)
      return i;
  return n;
}

namespace {

/// State shared by the builders while they visit the variables.
class StrategyBuilder {
public:
  StrategyBuilder(MLIRContext *ctx, ClusterAttr cluster,
                  const BuilderOptions &o)
      : ctx(ctx), b(ctx), options(o) {
    for (const std::string &d : cluster.cpuDevices())
      servers.push_back(d);
    for (const std::string &d : cluster.replicaDevices())
      replicas.push_back(b.getStringAttr(d));
  }

  StrategyAttr finish(StringRef id) {
    return StrategyAttr::get(ctx, id, b.getArrayAttr(replicas),
                             b.getArrayAttr(nodes), PipelineAttr());
  }

  /// A parameter-server synchronizer on `server` (empty: on the server
  /// dist-place chooses).
  PSSynchronizerAttr ps(StringRef server, bool proxy) const {
    return PSSynchronizerAttr::get(ctx, server, proxy, options.sync,
                                   options.staleness);
  }

  AllReduceSynchronizerAttr allReduce(int64_t group,
                                      AllReduceSpec defaultSpec) const {
    return AllReduceSynchronizerAttr::get(
        ctx, options.spec.value_or(defaultSpec), options.compressor,
        options.compressor == Compressor::PowerSGD ? options.powersgdRank : 0,
        group);
  }

  /// A node partitioned along `axis` into `n` shards, shard i synchronized
  /// by `syncOf(i)`.
  template <typename Fn>
  void addPartitioned(const Variable &v, int64_t axis, int64_t n, Fn syncOf) {
    SmallVector<int64_t> shards(v.type.getRank(), 1);
    shards[axis] = n;
    SmallVector<Attribute> parts;
    for (int64_t i = 0; i < n; ++i)
      parts.push_back(
          NodeConfigAttr::get(ctx, (v.name + "/part_" + Twine(i)).str(),
                              syncOf(i), PartitionAttr(), ArrayAttr()));
    nodes.push_back(NodeConfigAttr::get(ctx, v.name, Attribute(),
                                        PartitionAttr::get(ctx, shards, {}),
                                        b.getArrayAttr(parts)));
  }

  void add(const Variable &v, Attribute sync) {
    nodes.push_back(
        NodeConfigAttr::get(ctx, v.name, sync, PartitionAttr(), ArrayAttr()));
  }

  MLIRContext *ctx;
  Builder b;
  const BuilderOptions &options;
  SmallVector<std::string> servers;
  SmallVector<Attribute> replicas, nodes;
};

int64_t dim0(const Variable &v) {
  return v.type.getRank() == 0 ? 1 : v.type.getDimSize(0);
}

/// PS: every variable on the first CPU device's server; PSLoadBalancing:
/// each on a server dist-place chooses.
void buildPS(StrategyBuilder &s, ArrayRef<Variable> vars, bool firstOnly) {
  StringRef server = firstOnly ? StringRef(s.servers.front()) : StringRef();
  for (const Variable &v : vars)
    s.add(v, s.ps(server, s.options.localProxy));
}

/// PartitionedPS / UnevenPartitionedPS: axis 0 into `shardsOf(dim 0)`, each
/// shard on a server dist-place chooses.
void buildPartitionedPS(StrategyBuilder &s, ArrayRef<Variable> vars,
                        int64_t (*shardsOf)(int64_t)) {
  for (const Variable &v : vars) {
    int64_t n = shardsOf(dim0(v));
    if (n == 1) {
      s.add(v, s.ps("", s.options.localProxy));
      continue;
    }
    s.addPartitioned(v, 0, n, [&](int64_t) -> Attribute {
      return s.ps("", s.options.localProxy);
    });
  }
}

/// AllReduce: group = index / chunk size.
void buildAllReduce(StrategyBuilder &s, ArrayRef<Variable> vars) {
  for (auto [i, v] : llvm::enumerate(vars))
    s.add(v, s.allReduce(i / s.options.chunkSize, AllReduceSpec::NCCL));
}

/// PartitionedAR / RandomAxisPartitionAR: split `axisOf(v)` by its smallest
/// divisor; the group counter advances per shard.
template <typename AxisFn>
void buildPartitionedAR(StrategyBuilder &s, ArrayRef<Variable> vars,
                        AxisFn axisOf) {
  int64_t counter = 0;
  int64_t chunk = s.options.chunkSize;
  for (const Variable &v : vars) {
    std::optional<int64_t> axis = axisOf(v);
    int64_t n = axis ? smallestDivisorShards(v.type.getDimSize(*axis)) : 1;
    if (n == 1) {
      s.add(v, s.allReduce(counter / chunk, AllReduceSpec::Auto));
      ++counter;
      continue;
    }
    s.addPartitioned(v, *axis, n, [&](int64_t i) -> Attribute {
      return s.allReduce((counter + i) / chunk, AllReduceSpec::Auto);
    });
    counter += n;
  }
}

/// Parallax: dense variables all-reduced (grouped by chunks of dense
/// variables), sparse ones on servers without proxies (dist-place chooses
/// them).
void buildParallax(StrategyBuilder &s, ArrayRef<Variable> vars) {
  int64_t dense = 0;
  for (const Variable &v : vars) {
    if (v.sparse) {
      s.add(v, s.ps("", /*proxy=*/false));
      continue;
    }
    s.add(v, s.allReduce(dense++ / s.options.chunkSize, AllReduceSpec::NCCL));
  }
}

} // namespace

ArrayRef<StringLiteral> autodist::builderNames() {
  static const StringLiteral names[] = {
      "ps",        "ps-lb",          "partitioned-ps", "uneven-ps",
      "allreduce", "partitioned-ar", "random-axis-ar", "parallax"};
  return names;
}

FailureOr<StrategyAttr> autodist::buildStrategy(StringRef name,
                                                ArrayRef<Variable> vars,
                                                ClusterAttr cluster,
                                                const BuilderOptions &options,
                                                Location loc) {
  if (options.chunkSize < 1)
    return emitError(loc) << "chunk size must be >= 1, got " +
                                 std::to_string(options.chunkSize);

  if (options.compressor == Compressor::PowerSGD && options.powersgdRank < 1)
    return emitError(loc) << "compressor powersgd needs a rank >= 1";

  if (options.staleness < 0 || (options.staleness > 0 && !options.sync))
    return emitError(loc) << "staleness must be >= 0 and needs sync";

  StrategyBuilder s(cluster.getContext(), cluster, options);
  if (s.servers.empty() && name != "allreduce" && name != "partitioned-ar" &&
      name != "random-axis-ar")
    return emitError(loc)
           << "the cluster has no CPU device to act as parameter server";

  if (name == "ps")
    buildPS(s, vars, /*firstOnly=*/true);
  else if (name == "ps-lb")
    buildPS(s, vars, /*firstOnly=*/false);
  else if (name == "partitioned-ps")
    buildPartitionedPS(s, vars, smallestDivisorShards);
  else if (name == "uneven-ps")
    buildPartitionedPS(s, vars, smallestNonDivisorShards);
  else if (name == "allreduce")
    buildAllReduce(s, vars);
  else if (name == "partitioned-ar")
    buildPartitionedAR(s, vars,
                       [](const Variable &v) -> std::optional<int64_t> {
                         if (v.type.getRank() == 0)
                           return std::nullopt;
                         return 0;
                       });
  else if (name == "random-axis-ar") {
    std::mt19937_64 rng(options.seed);
    buildPartitionedAR(s, vars,
                       [&](const Variable &v) -> std::optional<int64_t> {
                         if (v.sparse && v.type.getRank() > 0)
                           return 0;
                         SmallVector<int64_t> axes;
                         for (int64_t d = 0; d < v.type.getRank(); ++d)
                           if (v.type.getDimSize(d) > 1)
                             axes.push_back(d);
                         if (axes.empty())
                           return std::nullopt;
                         return axes[std::uniform_int_distribution<size_t>(
                             0, axes.size() - 1)(rng)];
                       });
  } else if (name == "parallax")
    buildParallax(s, vars);
  else
    return emitError(loc) << ("unknown strategy builder '" + name +
                              "' (supported: " +
                              llvm::join(builderNames(), ", ") + ")")
                                 .str();

  return s.finish(name);
}
