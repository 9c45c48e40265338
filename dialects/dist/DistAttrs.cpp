//===- DistAttrs.cpp - strategy and cluster attribute verifiers -----------===//

#include "dist/DistAttrs.h"
#include "dist/DistDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace autodist::dist;

#include "dist/DistEnums.cpp.inc"
#include "dist/DistInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dist/DistAttrs.cpp.inc"

void DistDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dist/DistAttrs.cpp.inc"
      >();
}

using EmitFn = function_ref<InFlightDiagnostic()>;

/// Checks device indices: non-negative, no repeats.
static LogicalResult checkIndices(EmitFn emitError, StringRef address,
                                  StringRef kind, ArrayRef<int64_t> indices) {
  llvm::SmallSet<int64_t, 8> seen;
  for (int64_t i : indices)
    if (i < 0 || !seen.insert(i).second)
      return emitError() << "node '" << address << "' field '" << kind
                         << "': index " << i
                         << (i < 0 ? " is negative" : " is repeated");
  return success();
}

//===----------------------------------------------------------------------===//
// Cluster
//===----------------------------------------------------------------------===//

LogicalResult ClusterNodeAttr::verify(EmitFn emitError, StringRef address,
                                      ArrayRef<int64_t> cpus,
                                      ArrayRef<int64_t> gpus, bool,
                                      FloatAttr bandwidth) {
  if (address.empty())
    return emitError() << "cluster node has an empty address";
  if (failed(checkIndices(emitError, address, "cpus", cpus)) ||
      failed(checkIndices(emitError, address, "gpus", gpus)))
    return failure();
  if (cpus.empty() && gpus.empty())
    return emitError() << "node '" << address << "' has no devices";
  if (!bandwidth || !(bandwidth.getValueAsDouble() > 0.0))
    return emitError() << "node '" << address
                       << "' field 'network_bandwidth' must be > 0";
  return success();
}

LogicalResult ClusterAttr::verify(EmitFn emitError, ArrayAttr nodes) {
  if (nodes.empty())
    return emitError() << "cluster has no nodes";
  llvm::StringSet<> addresses;
  int chiefs = 0;
  for (Attribute a : nodes) {
    auto node = dyn_cast<ClusterNodeAttr>(a);
    if (!node)
      return emitError() << "cluster nodes must be #dist.node_spec, got " << a;
    if (!addresses.insert(node.getAddress()).second)
      return emitError() << "node '" << node.getAddress()
                         << "' appears more than once";
    if (nodes.size() > 1 && (node.getAddress() == "localhost" ||
                             node.getAddress().starts_with("127.")))
      return emitError() << "node '" << node.getAddress()
                         << "': localhost is only allowed in a single-node "
                            "cluster";
    chiefs += node.getChief();
  }
  if (nodes.size() > 1 && chiefs != 1)
    return emitError() << "a multi-node cluster needs exactly one chief, got "
                       << chiefs;
  return success();
}

/// `<address = "a" [, cpus = [..]] [, gpus = [..]], chief = B, bandwidth = F>`
Attribute ClusterNodeAttr::parse(AsmParser &parser, Type) {
  std::string address;
  SmallVector<int64_t> cpus, gpus;
  bool chief = false;
  FloatAttr bandwidth;
  auto parseList = [&](SmallVector<int64_t> &out) {
    return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                          [&]() -> ParseResult {
                                            int64_t v;
                                            if (parser.parseInteger(v))
                                              return failure();
                                            out.push_back(v);
                                            return success();
                                          });
  };
  if (parser.parseLess() || parser.parseKeyword("address") ||
      parser.parseEqual() || parser.parseString(&address))
    return {};
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    ParseResult r = success();
    if (key == "cpus")
      r = parseList(cpus);
    else if (key == "gpus")
      r = parseList(gpus);
    else if (key == "chief") {
      StringRef v;
      r = parser.parseKeyword(&v);
      chief = v == "true";
      if (succeeded(r) && v != "true" && v != "false")
        r = parser.emitError(parser.getCurrentLocation(),
                             "expected true or false");
    } else if (key == "bandwidth")
      r = parser.parseAttribute(bandwidth);
    else
      r = parser.emitError(parser.getCurrentLocation(), "unknown key '")
          << key << "' (expected cpus, gpus, chief, bandwidth)";
    if (failed(r))
      return {};
  }
  if (parser.parseGreater())
    return {};
  if (!bandwidth)
    bandwidth = Builder(parser.getContext()).getF64FloatAttr(1.0);
  return parser.getChecked<ClusterNodeAttr>(parser.getContext(), address, cpus,
                                            gpus, chief, bandwidth);
}

void ClusterNodeAttr::print(AsmPrinter &printer) const {
  printer << "<address = ";
  printer.printString(getAddress());
  if (!getCpus().empty()) {
    printer << ", cpus = [";
    llvm::interleaveComma(getCpus(), printer);
    printer << "]";
  }
  if (!getGpus().empty()) {
    printer << ", gpus = [";
    llvm::interleaveComma(getGpus(), printer);
    printer << "]";
  }
  printer << ", chief = " << (getChief() ? "true" : "false")
          << ", bandwidth = " << getBandwidth() << ">";
}

static std::string deviceName(StringRef address, StringRef kind, int64_t i) {
  return (address + ":" + kind + ":" + Twine(i)).str();
}

SmallVector<std::string> ClusterAttr::cpuDevices() const {
  SmallVector<std::string> out;
  for (Attribute a : getNodes()) {
    auto n = cast<ClusterNodeAttr>(a);
    for (int64_t c : n.getCpus())
      out.push_back(deviceName(n.getAddress(), "CPU", c));
  }
  return out;
}

SmallVector<std::string> ClusterAttr::devices() const {
  SmallVector<std::string> out;
  for (Attribute a : getNodes()) {
    auto n = cast<ClusterNodeAttr>(a);
    for (int64_t c : n.getCpus())
      out.push_back(deviceName(n.getAddress(), "CPU", c));
    for (int64_t g : n.getGpus())
      out.push_back(deviceName(n.getAddress(), "GPU", g));
  }
  return out;
}

SmallVector<std::string> ClusterAttr::replicaDevices() const {
  SmallVector<std::string> out;
  for (Attribute a : getNodes()) {
    auto n = cast<ClusterNodeAttr>(a);
    if (n.getGpus().empty())
      for (int64_t c : n.getCpus())
        out.push_back(deviceName(n.getAddress(), "CPU", c));
    for (int64_t g : n.getGpus())
      out.push_back(deviceName(n.getAddress(), "GPU", g));
  }
  return out;
}

ClusterAttr ClusterAttr::getLocal(MLIRContext *ctx) {
  Builder b(ctx);
  int64_t cpu0[] = {0};
  auto node = ClusterNodeAttr::get(ctx, "localhost", cpu0, {}, true,
                                   b.getF64FloatAttr(1.0));
  return ClusterAttr::get(ctx, b.getArrayAttr({node}));
}

//===----------------------------------------------------------------------===//
// Synchronizers
//===----------------------------------------------------------------------===//

LogicalResult PSSynchronizerAttr::verify(EmitFn emitError, StringRef server,
                                         bool, bool sync, int64_t staleness) {
  if (staleness < 0)
    return emitError() << "parameter server field 'staleness' must be >= 0, "
                          "got "
                       << staleness;
  if (staleness > 0 && !sync)
    return emitError() << "parameter server field 'staleness' = " << staleness
                       << " needs sync = true (bounded staleness is a form of "
                          "synchronous training)";
  return success();
}

LogicalResult AllReduceSynchronizerAttr::verify(EmitFn emitError, AllReduceSpec,
                                                Compressor compressor,
                                                int64_t rank, int64_t group) {
  if (group < 0)
    return emitError() << "all-reduce group must be >= 0, got " << group;
  if (compressor == Compressor::PowerSGD && rank < 1)
    return emitError() << "all-reduce compressor 'powersgd' needs rank >= 1, "
                          "got "
                       << rank;
  if (compressor != Compressor::PowerSGD && rank != 0)
    return emitError() << "all-reduce field 'rank' only applies to compressor "
                          "'powersgd', not '"
                       << stringifyCompressor(compressor) << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// Partitioning
//===----------------------------------------------------------------------===//

LogicalResult PartitionAttr::verify(EmitFn emitError, ArrayRef<int64_t> shards,
                                    ArrayRef<int64_t> sizes) {
  if (shards.empty())
    return emitError() << "partition lists no axes";
  SmallVector<int64_t> split;
  for (auto [axis, n] : llvm::enumerate(shards)) {
    if (n < 1)
      return emitError() << "partition of axis " << axis << " into " << n
                         << " shards";
    if (n > 1)
      split.push_back(axis);
  }
  if (split.empty())
    return emitError() << "partition splits no axis (every count is 1)";
  if (split.size() > 1)
    return emitError() << "partition splits a second axis (axes " << split[0]
                       << " and " << split[1]
                       << "); only one axis may be split";
  int64_t n = shards[split[0]];
  if (!sizes.empty()) {
    if ((int64_t)sizes.size() != n)
      return emitError() << "partition gives " << sizes.size()
                         << " shard sizes for " << n << " shards";
    for (int64_t s : sizes)
      if (s < 1)
        return emitError() << "partition shard size " << s << " is not >= 1";
  }
  return success();
}

int64_t PartitionAttr::getAxis() const {
  for (auto [axis, n] : llvm::enumerate(getShards()))
    if (n > 1)
      return axis;
  return 0;
}

int64_t PartitionAttr::getNumShards() const { return getShards()[getAxis()]; }

SmallVector<int64_t> PartitionAttr::shardSizes(int64_t dim) const {
  if (!getSizes().empty())
    return SmallVector<int64_t>(getSizes());
  int64_t n = getNumShards();
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < n; ++i)
    out.push_back(dim / n + (i < dim % n ? 1 : 0));
  return out;
}

//===----------------------------------------------------------------------===//
// Node configs, pipeline, strategy
//===----------------------------------------------------------------------===//

/// `<"var" [, synchronizer] [, partition = P] [, parts = [...]]>`
Attribute NodeConfigAttr::parse(AsmParser &parser, Type) {
  std::string name;
  Attribute sync;
  PartitionAttr partition;
  ArrayAttr parts;
  if (parser.parseLess() || parser.parseString(&name))
    return {};
  while (succeeded(parser.parseOptionalComma())) {
    if (succeeded(parser.parseOptionalKeyword("partition"))) {
      if (parser.parseEqual() || parser.parseAttribute(partition))
        return {};
    } else if (succeeded(parser.parseOptionalKeyword("parts"))) {
      if (parser.parseEqual() || parser.parseAttribute(parts))
        return {};
    } else if (!sync && !partition && !parts) {
      if (parser.parseAttribute(sync))
        return {};
    } else {
      parser.emitError(parser.getCurrentLocation(),
                       "expected 'partition' or 'parts'");
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<NodeConfigAttr>(parser.getContext(), name, sync,
                                           partition, parts);
}

void NodeConfigAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printer.printString(getVarName());
  if (getSynchronizer())
    printer << ", " << getSynchronizer();
  if (getPartition())
    printer << ", partition = " << getPartition();
  if (getParts())
    printer << ", parts = " << getParts();
  printer << ">";
}

LogicalResult NodeConfigAttr::verify(EmitFn emitError, StringRef varName,
                                     Attribute sync, PartitionAttr partition,
                                     ArrayAttr parts) {
  if (varName.empty())
    return emitError() << "node config needs a variable name";
  if (!sync && !partition)
    return emitError() << "parameter '" << varName
                       << "' has neither a synchronizer nor a partition";
  if (sync && !isa<SynchronizerAttrInterface>(sync))
    return emitError() << "parameter '" << varName
                       << "' field 'synchronizer' must be #dist.allreduce or "
                          "#dist.ps, got "
                       << sync;
  if (static_cast<bool>(partition) != static_cast<bool>(parts))
    return emitError() << "parameter '" << varName
                       << "' needs both 'partition' and 'parts' or neither";
  if (!partition)
    return success();
  if ((int64_t)parts.size() != partition.getNumShards())
    return emitError() << "parameter '" << varName << "' field 'parts' has "
                       << parts.size() << " configs for "
                       << partition.getNumShards() << " shards";
  for (auto [i, a] : llvm::enumerate(parts)) {
    auto part = dyn_cast<NodeConfigAttr>(a);
    std::string expected = (varName + "/part_" + Twine(i)).str();
    if (!part)
      return emitError() << "parameter '" << varName
                         << "' field 'parts' must hold #dist.node, got " << a;
    if (part.getVarName() != expected)
      return emitError() << "parameter '" << varName << "' shard " << i
                         << " must be named '" << expected << "', got '"
                         << part.getVarName() << "'";
    if (part.getPartition())
      return emitError() << "parameter '" << varName << "' shard " << i
                         << " is partitioned again";
  }
  return success();
}

LogicalResult PipelineAttr::verify(EmitFn emitError, int64_t depth,
                                   ArrayAttr stale, Compensation compensation,
                                   FloatAttr lambda, bool autoStale,
                                   int64_t warmup, WPEstimator, DCVariant) {
  if (depth < 0)
    return emitError() << "pipeline field 'depth' must be >= 0, got " << depth;
  for (Attribute a : stale)
    if (!isa<StringAttr>(a))
      return emitError() << "pipeline field 'stale' must list variable names, "
                            "got "
                         << a;
  if (depth == 0 &&
      (!stale.empty() || autoStale || compensation != Compensation::None))
    return emitError() << "pipeline with depth 0 cannot have stale variables "
                          "or compensation";
  if (autoStale && !stale.empty())
    return emitError() << "pipeline with auto_stale chooses the stale "
                          "variables itself; 'stale' must be empty";
  if (!lambda || lambda.getValueAsDouble() < 0.0)
    return emitError() << "pipeline field 'lambda' must be >= 0";
  if (warmup < 0)
    return emitError() << "pipeline field 'warmup' must be >= 0, got "
                       << warmup;
  // SAPipe forces it: the prediction steps the optimizer, whose state must
  // come from synchronous steps first.
  if (compensation == Compensation::WeightPrediction && warmup < 1)
    return emitError() << "weight prediction needs at least one synchronous "
                          "warm-up step (warmup >= 1)";
  return success();
}

LogicalResult StrategyAttr::verify(EmitFn emitError, StringRef,
                                   ArrayAttr replicas, ArrayAttr nodes,
                                   PipelineAttr pipeline) {
  for (Attribute r : replicas)
    if (!isa<StringAttr>(r))
      return emitError() << "strategy replicas must be device names, got " << r;
  llvm::StringSet<> seen;
  for (Attribute a : nodes) {
    auto node = dyn_cast<NodeConfigAttr>(a);
    if (!node)
      return emitError() << "strategy nodes must be #dist.node, got " << a;
    if (!seen.insert(node.getVarName()).second)
      return emitError() << "variable '" << node.getVarName()
                         << "' has more than one node config";
  }
  if (pipeline)
    for (Attribute a : pipeline.getStale())
      if (!seen.contains(cast<StringAttr>(a).getValue()))
        return emitError() << "pipeline marks '"
                           << cast<StringAttr>(a).getValue()
                           << "' stale, which has no node config";
  return success();
}

NodeConfigAttr StrategyAttr::lookup(StringRef varName) const {
  for (Attribute a : getNodes())
    if (auto node = cast<NodeConfigAttr>(a); node.getVarName() == varName)
      return node;
  return {};
}

//===----------------------------------------------------------------------===//
// SynchronizerAttrInterface
//===----------------------------------------------------------------------===//

StringRef PSSynchronizerAttr::getStrategyFileKey() const {
  return "PSSynchronizer";
}

std::string PSSynchronizerAttr::getExplainLabel() const {
  std::string label = getSync() ? "ps" : "ps-async";
  if (getStaleness() > 0)
    label += " stale=" + std::to_string(getStaleness());
  if (getLocalReplication())
    label += " proxy";
  return label;
}

std::optional<StringRef> PSSynchronizerAttr::getServerDevice() const {
  return getServer();
}

std::optional<int64_t> PSSynchronizerAttr::getAllReduceGroup() const {
  return std::nullopt;
}

StringRef AllReduceSynchronizerAttr::getStrategyFileKey() const {
  return "AllReduceSynchronizer";
}

std::string AllReduceSynchronizerAttr::getExplainLabel() const {
  std::string label = ("allreduce " + stringifyAllReduceSpec(getSpec())).str();
  if (getCompressor() != Compressor::None)
    label += (" " + stringifyCompressor(getCompressor())).str();
  return label;
}

std::optional<StringRef> AllReduceSynchronizerAttr::getServerDevice() const {
  return std::nullopt;
}

std::optional<int64_t> AllReduceSynchronizerAttr::getAllReduceGroup() const {
  return getGroup();
}
