//===- StrategyFile.cpp - AutoDist JSON strategy files --------------------===//
//
// Field names are those of autodist/proto/strategy.proto and
// synchronizers.proto (the JSON of MessageToJson with
// preserving_proto_field_names). As in proto3, a missing field takes its
// default. Extensions for what AutoDist lacks are documented in
// docs/strategy-files.md.
//
//===----------------------------------------------------------------------===//

#include "autodist/Strategy/StrategyFile.h"
#include "autodist/Driver/OutputFile.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace autodist;
using namespace autodist::dist;
namespace json = llvm::json;

namespace {

/// AutoDist's enum names, in enum order.
constexpr StringLiteral kSpecNames[] = {"AUTO", "NCCL", "RING"};
constexpr StringLiteral kCompressorNames[] = {
    "NoneCompressor", "HorovodCompressor", "HorovodCompressorEF",
    "PowerSGDCompressor"};
constexpr StringLiteral kCompensationNames[] = {"none", "weight_prediction",
                                                "delay_compensation"};
constexpr StringLiteral kEstimatorNames[] = {"local", "prev_sync",
                                             "local_prev_sync"};
constexpr StringLiteral kDCVariantNames[] = {"dc", "dc_adaptive"};

/// Walks the JSON tree, naming the key path in every error.
class Reader {
public:
  Reader(MLIRContext *ctx, StringRef file) : ctx(ctx), b(ctx), file(file) {}

  FailureOr<StrategyAttr> strategy(const json::Value &root);
  std::string error;

private:
  LogicalResult fail(StringRef path, const Twine &msg) {
    error = (file + ": " + path + ": " + msg).str();
    return failure();
  }
  /// Checks that `obj` has only keys from `allowed`.
  LogicalResult onlyKeys(const json::Object &obj, StringRef path,
                         ArrayRef<StringRef> allowed);
  LogicalResult getString(const json::Object &o, StringRef key, StringRef path,
                          std::string &out);
  LogicalResult getInt(const json::Object &o, StringRef key, StringRef path,
                       int64_t &out);
  LogicalResult getBool(const json::Object &o, StringRef key, StringRef path,
                        bool &out);
  template <size_t N>
  LogicalResult getEnum(const json::Object &o, StringRef key, StringRef path,
                        const StringLiteral (&names)[N], int64_t &out);
  FailureOr<NodeConfigAttr> node(const json::Value &v, const std::string &path,
                                 bool isPart);
  FailureOr<Attribute> psSync(const json::Value &v, const std::string &path);
  FailureOr<Attribute> arSync(const json::Value &v, const std::string &path);
  FailureOr<PipelineAttr> pipeline(const json::Value &v);

  MLIRContext *ctx;
  Builder b;
  StringRef file;
};

LogicalResult Reader::onlyKeys(const json::Object &obj, StringRef path,
                               ArrayRef<StringRef> allowed) {
  for (const auto &kv : obj)
    if (!llvm::is_contained(allowed, kv.first.str()))
      return fail(path, "unknown key '" + kv.first.str() +
                            "' (expected one of: " + llvm::join(allowed, ", ") +
                            ")");
  return success();
}

LogicalResult Reader::getString(const json::Object &o, StringRef key,
                                StringRef path, std::string &out) {
  const json::Value *v = o.get(key);
  if (!v)
    return success();
  auto s = v->getAsString();
  if (!s)
    return fail((path + "." + key).str(), "expected a string");
  out = s->str();
  return success();
}

LogicalResult Reader::getInt(const json::Object &o, StringRef key,
                             StringRef path, int64_t &out) {
  const json::Value *v = o.get(key);
  if (!v)
    return success();
  // proto3 JSON writes int64 as strings; accept both.
  if (auto s = v->getAsString()) {
    if (!llvm::to_integer(*s, out, 10))
      return fail((path + "." + key).str(), "expected an integer");
    return success();
  }
  auto i = v->getAsInteger();
  if (!i)
    return fail((path + "." + key).str(), "expected an integer");
  out = *i;
  return success();
}

LogicalResult Reader::getBool(const json::Object &o, StringRef key,
                              StringRef path, bool &out) {
  const json::Value *v = o.get(key);
  if (!v)
    return success();
  auto x = v->getAsBoolean();
  if (!x)
    return fail((path + "." + key).str(), "expected true or false");
  out = *x;
  return success();
}

template <size_t N>
LogicalResult Reader::getEnum(const json::Object &o, StringRef key,
                              StringRef path, const StringLiteral (&names)[N],
                              int64_t &out) {
  const json::Value *v = o.get(key);
  if (!v)
    return success();
  if (auto i = v->getAsInteger(); i && *i >= 0 && *i < (int64_t)N) {
    out = *i;
    return success();
  }
  if (auto s = v->getAsString())
    for (size_t i = 0; i < N; ++i)
      if (*s == names[i]) {
        out = i;
        return success();
      }
  SmallVector<StringRef> all(std::begin(names), std::end(names));
  return fail((path + "." + key).str(),
              "expected one of: " + llvm::join(all, ", "));
}

FailureOr<Attribute> Reader::psSync(const json::Value &v,
                                    const std::string &path) {
  const json::Object *o = v.getAsObject();
  if (!o)
    return fail(path, "expected an object");
  std::string server;
  bool proxy = false, sync = false;
  int64_t staleness = 0;
  if (failed(onlyKeys(*o, path,
                      {"reduction_destination", "local_replication", "sync",
                       "staleness"})) ||
      failed(getString(*o, "reduction_destination", path, server)) ||
      failed(getBool(*o, "local_replication", path, proxy)) ||
      failed(getBool(*o, "sync", path, sync)) ||
      failed(getInt(*o, "staleness", path, staleness)))
    return failure();
  // Left out, the server is dist-place's to choose; given, it must be one.
  if (o->get("reduction_destination") && server.empty())
    return fail(path + ".reduction_destination",
                "is empty (leave it out for dist-place to choose a server)");
  auto attr = getVerified<PSSynchronizerAttr>(
      [&] { return emitError(UnknownLoc::get(ctx)); }, ctx, server, proxy, sync,
      staleness);
  if (!attr)
    return fail(path, "invalid parameter-server synchronizer (see the "
                      "diagnostic above)");
  return Attribute(attr);
}

FailureOr<Attribute> Reader::arSync(const json::Value &v,
                                    const std::string &path) {
  const json::Object *o = v.getAsObject();
  if (!o)
    return fail(path, "expected an object");
  int64_t spec = 0, compressor = 0, group = 0, rank = 0;
  if (failed(onlyKeys(*o, path,
                      {"spec", "compressor", "group", "powersgd_rank"})) ||
      failed(getEnum(*o, "spec", path, kSpecNames, spec)) ||
      failed(getEnum(*o, "compressor", path, kCompressorNames, compressor)) ||
      failed(getInt(*o, "group", path, group)) ||
      failed(getInt(*o, "powersgd_rank", path, rank)))
    return failure();
  if (group < 0)
    return fail(path + ".group", "must be >= 0");
  auto c = static_cast<Compressor>(compressor);
  if ((c == Compressor::PowerSGD) != (rank > 0))
    return fail(path + ".powersgd_rank",
                "must be >= 1 exactly when compressor is PowerSGDCompressor");
  return Attribute(AllReduceSynchronizerAttr::get(
      ctx, static_cast<AllReduceSpec>(spec), c, rank, group));
}

FailureOr<NodeConfigAttr> Reader::node(const json::Value &v,
                                       const std::string &path, bool isPart) {
  const json::Object *o = v.getAsObject();
  if (!o)
    return fail(path, "expected an object");
  if (failed(onlyKeys(*o, path,
                      {"var_name", "PSSynchronizer", "AllReduceSynchronizer",
                       "partitioner", "part_config", "partition_sizes"})))
    return failure();
  std::string name, partitioner;
  if (failed(getString(*o, "var_name", path, name)) ||
      failed(getString(*o, "partitioner", path, partitioner)))
    return failure();
  if (name.empty())
    return fail(path + ".var_name", "missing");
  Attribute sync;
  if (o->get("PSSynchronizer") && o->get("AllReduceSynchronizer"))
    return fail(path, "has both PSSynchronizer and AllReduceSynchronizer");
  if (const json::Value *ps = o->get("PSSynchronizer")) {
    FailureOr<Attribute> s = psSync(*ps, path + ".PSSynchronizer");
    if (failed(s))
      return failure();
    sync = *s;
  } else if (const json::Value *ar = o->get("AllReduceSynchronizer")) {
    FailureOr<Attribute> s = arSync(*ar, path + ".AllReduceSynchronizer");
    if (failed(s))
      return failure();
    sync = *s;
  }
  PartitionAttr partition;
  ArrayAttr parts;
  if (!partitioner.empty()) {
    if (isPart)
      return fail(path + ".partitioner", "a shard cannot be partitioned again");
    SmallVector<int64_t> shards;
    SmallVector<StringRef> items;
    StringRef(partitioner).split(items, ',');
    for (StringRef item : items) {
      int64_t n;
      if (item.trim().getAsInteger(10, n))
        return fail(
            path + ".partitioner",
            "expected comma-separated shard counts like \"1,2,1\", got \"" +
                partitioner + "\"");
      shards.push_back(n);
    }
    SmallVector<int64_t> sizes;
    if (const json::Value *sv = o->get("partition_sizes")) {
      const json::Array *arr = sv->getAsArray();
      if (!arr)
        return fail(path + ".partition_sizes", "expected an array");
      for (const json::Value &e : *arr) {
        auto i = e.getAsInteger();
        if (!i)
          return fail(path + ".partition_sizes", "expected integers");
        sizes.push_back(*i);
      }
    }
    partition = getVerified<PartitionAttr>(
        [&] { return emitError(UnknownLoc::get(ctx)); }, ctx, shards, sizes);
    if (!partition)
      return fail(path + ".partitioner",
                  "invalid partitioner \"" + partitioner +
                      "\" (exactly one axis must have a count above 1)");
    const json::Value *pc = o->get("part_config");
    const json::Array *arr = pc ? pc->getAsArray() : nullptr;
    if (!arr)
      return fail(path + ".part_config", "a partitioned variable needs an "
                                         "array of shard configs");
    SmallVector<Attribute> partAttrs;
    for (auto [i, p] : llvm::enumerate(*arr)) {
      FailureOr<NodeConfigAttr> part =
          node(p, path + ".part_config[" + std::to_string(i) + "]", true);
      if (failed(part))
        return failure();
      partAttrs.push_back(*part);
    }
    parts = b.getArrayAttr(partAttrs);
  } else if (o->get("part_config")) {
    return fail(path + ".part_config", "shard configs need a partitioner");
  }
  auto attr = getVerified<NodeConfigAttr>(
      [&] { return emitError(UnknownLoc::get(ctx)); }, ctx, name, sync,
      partition, parts);
  if (!attr)
    return fail(path, "invalid node config for '" + name +
                          "' (see the diagnostic above)");
  return attr;
}

FailureOr<PipelineAttr> Reader::pipeline(const json::Value &v) {
  const json::Object *o = v.getAsObject();
  if (!o)
    return fail("pipeline", "expected an object");
  int64_t depth = 0, compensation = 0, warmup = 0, estimator = 0, dc = 0;
  double lambda = 0.0;
  if (failed(onlyKeys(*o, "pipeline",
                      {"depth", "stale", "compensation", "lambda", "warmup",
                       "estimator", "dc_variant"})) ||
      failed(getInt(*o, "depth", "pipeline", depth)) ||
      failed(getInt(*o, "warmup", "pipeline", warmup)) ||
      failed(getEnum(*o, "compensation", "pipeline", kCompensationNames,
                     compensation)) ||
      failed(
          getEnum(*o, "estimator", "pipeline", kEstimatorNames, estimator)) ||
      failed(getEnum(*o, "dc_variant", "pipeline", kDCVariantNames, dc)))
    return failure();
  if (const json::Value *l = o->get("lambda")) {
    auto d = l->getAsNumber();
    if (!d)
      return fail("pipeline.lambda", "expected a number");
    lambda = *d;
  }
  // As --stale-warmup: weight prediction needs a synchronous step first.
  if (!o->get("warmup") &&
      compensation == static_cast<int64_t>(Compensation::WeightPrediction))
    warmup = 1;
  SmallVector<Attribute> stale;
  bool autoStale = false;
  if (const json::Value *s = o->get("stale")) {
    const json::Array *arr = s->getAsArray();
    autoStale = s->getAsString() == std::optional<StringRef>("auto");
    if (!arr && !autoStale)
      return fail("pipeline.stale", "expected \"auto\" or an array of names");
    for (const json::Value &e : arr ? *arr : json::Array()) {
      auto n = e.getAsString();
      if (!n)
        return fail("pipeline.stale", "expected an array of names");
      stale.push_back(b.getStringAttr(*n));
    }
  }
  auto attr = getVerified<PipelineAttr>(
      [&] { return emitError(UnknownLoc::get(ctx)); }, ctx, depth,
      b.getArrayAttr(stale), static_cast<Compensation>(compensation),
      b.getF64FloatAttr(lambda), autoStale, warmup,
      static_cast<WPEstimator>(estimator), static_cast<DCVariant>(dc));
  if (!attr)
    return fail("pipeline", "invalid pipeline (see the diagnostic above)");
  return attr;
}

FailureOr<StrategyAttr> Reader::strategy(const json::Value &root) {
  const json::Object *o = root.getAsObject();
  if (!o)
    return fail("(top level)", "expected an object");
  if (failed(
          onlyKeys(*o, "(top level)",
                   {"id", "path", "node_config", "graph_config", "pipeline"})))
    return failure();
  std::string id, path;
  if (failed(getString(*o, "id", "(top level)", id)) ||
      failed(getString(*o, "path", "(top level)", path)))
    return failure();
  SmallVector<Attribute> replicas;
  if (const json::Value *gc = o->get("graph_config")) {
    const json::Object *g = gc->getAsObject();
    if (!g)
      return fail("graph_config", "expected an object");
    if (failed(onlyKeys(*g, "graph_config", {"replicas"})))
      return failure();
    if (const json::Value *r = g->get("replicas")) {
      const json::Array *arr = r->getAsArray();
      if (!arr)
        return fail("graph_config.replicas", "expected an array");
      for (const json::Value &e : *arr) {
        auto s = e.getAsString();
        if (!s)
          return fail("graph_config.replicas", "expected device names");
        replicas.push_back(b.getStringAttr(*s));
      }
    }
  }
  SmallVector<Attribute> nodes;
  if (const json::Value *nc = o->get("node_config")) {
    const json::Array *arr = nc->getAsArray();
    if (!arr)
      return fail("node_config", "expected an array");
    for (auto [i, n] : llvm::enumerate(*arr)) {
      FailureOr<NodeConfigAttr> node =
          this->node(n, "node_config[" + std::to_string(i) + "]", false);
      if (failed(node))
        return failure();
      nodes.push_back(*node);
    }
  }
  PipelineAttr pipe;
  if (const json::Value *p = o->get("pipeline")) {
    FailureOr<PipelineAttr> pa = pipeline(*p);
    if (failed(pa))
      return failure();
    pipe = *pa;
  }
  auto attr = getVerified<StrategyAttr>(
      [&] { return emitError(UnknownLoc::get(ctx)); }, ctx, id,
      b.getArrayAttr(replicas), b.getArrayAttr(nodes), pipe);
  if (!attr)
    return fail("(top level)", "invalid strategy (see the diagnostic above)");
  return attr;
}

json::Value syncJSON(Attribute sync) {
  if (auto ps = dyn_cast<PSSynchronizerAttr>(sync)) {
    json::Object o{{"local_replication", ps.getLocalReplication()},
                   {"sync", ps.getSync()},
                   {"staleness", ps.getStaleness()}};
    if (!ps.getServer().empty()) // not placed yet otherwise
      o["reduction_destination"] = ps.getServer();
    return o;
  }
  auto ar = cast<AllReduceSynchronizerAttr>(sync);
  json::Object o{
      {"spec", kSpecNames[static_cast<int>(ar.getSpec())]},
      {"compressor", kCompressorNames[static_cast<int>(ar.getCompressor())]},
      {"group", ar.getGroup()}};
  if (ar.getCompressor() == Compressor::PowerSGD)
    o["powersgd_rank"] = ar.getRank();
  return o;
}

json::Value nodeJSON(NodeConfigAttr node) {
  json::Object o{{"var_name", node.getVarName()}};
  if (Attribute sync = node.getSynchronizer())
    o[cast<SynchronizerAttrInterface>(sync).getStrategyFileKey()] =
        syncJSON(sync);
  if (PartitionAttr p = node.getPartition()) {
    o["partitioner"] =
        llvm::join(llvm::map_range(p.getShards(),
                                   [](int64_t n) { return std::to_string(n); }),
                   ",");
    if (!p.getSizes().empty())
      o["partition_sizes"] = json::Array(p.getSizes());
    json::Array parts;
    for (Attribute part : node.getParts())
      parts.push_back(nodeJSON(cast<NodeConfigAttr>(part)));
    o["part_config"] = std::move(parts);
  }
  return o;
}

} // namespace

FailureOr<StrategyAttr>
autodist::parseStrategyJSON(StringRef text, StringRef fileName, Location loc) {
  llvm::Expected<json::Value> root = json::parse(text);
  if (!root)
    return emitError(loc) << fileName << ": invalid JSON: "
                          << llvm::toString(root.takeError());
  MLIRContext *ctx = loc.getContext();
  std::string error;
  FailureOr<StrategyAttr> s = failure();
  {
    // Attribute verifiers report through the context; keep those messages
    // for the one-line error.
    std::string diags;
    ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &d) {
      diags = d.str();
      return success();
    });
    Reader reader(ctx, fileName);
    s = reader.strategy(*root);
    if (failed(s)) {
      error = reader.error;
      size_t pos = error.find("(see the diagnostic above)");
      if (pos != std::string::npos)
        error.replace(pos, strlen("(see the diagnostic above)"),
                      "(" + diags + ")");
    }
  }
  if (failed(s))
    return emitError(loc) << error;
  return s;
}

std::string autodist::printStrategyJSON(StrategyAttr strategy) {
  json::Array nodes, replicas;
  for (Attribute n : strategy.getNodes())
    nodes.push_back(nodeJSON(cast<NodeConfigAttr>(n)));
  for (Attribute r : strategy.getReplicas())
    replicas.push_back(cast<StringAttr>(r).getValue());
  json::Object root{
      {"id", strategy.getId()},
      {"node_config", std::move(nodes)},
      {"graph_config", json::Object{{"replicas", std::move(replicas)}}}};
  if (PipelineAttr p = strategy.getPipeline()) {
    json::Array stale;
    for (Attribute a : p.getStale())
      stale.push_back(cast<StringAttr>(a).getValue());
    json::Object pipe{
        {"depth", p.getDepth()},
        {"stale", p.getAutoStale() ? json::Value("auto")
                                   : json::Value(std::move(stale))},
        {"compensation",
         kCompensationNames[static_cast<int>(p.getCompensation())]},
        {"lambda", p.getLambda().getValueAsDouble()}};
    if (p.getWarmup() != 0)
      pipe["warmup"] = p.getWarmup();
    if (p.getEstimator() != WPEstimator::Local)
      pipe["estimator"] = kEstimatorNames[static_cast<int>(p.getEstimator())];
    if (p.getDcVariant() != DCVariant::DC)
      pipe["dc_variant"] = kDCVariantNames[static_cast<int>(p.getDcVariant())];
    root["pipeline"] = std::move(pipe);
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", json::Value(std::move(root))) << "\n";
  return text;
}

FailureOr<StrategyAttr> autodist::readStrategyFile(StringRef path,
                                                   Location loc) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf)
    return emitError(loc) << "cannot read strategy file '" << path
                          << "': " << buf.getError().message();
  return parseStrategyJSON((*buf)->getBuffer(), path, loc);
}

llvm::Error autodist::writeFileAtomically(StringRef path, StringRef contents) {
  return writeOutputFile(path, [&](StringRef tmp) -> llvm::Error {
    std::error_code ec;
    llvm::raw_fd_ostream os(tmp, ec);
    if (!ec) {
      os << contents;
      os.close();
    }
    if (ec || os.has_error()) {
      os.clear_error();
      return llvm::createStringError(("cannot write '" + path + "'").str());
    }
    return llvm::Error::success();
  });
}
