//===- ExplainStrategy.cpp - the strategy as a table ----------------------===//

#include "autodist/Passes.h"
#include "autodist/Strategy/StaleSetModel.h"
#include "dist/DistOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

#include <map>

namespace autodist {
#define GEN_PASS_DEF_EXPLAINSTRATEGY
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;
using namespace autodist;
using namespace autodist::dist;

namespace {

struct Row {
  std::string name, shape, sync, placement, group;
  int64_t bytes = 0, shards = 1;
  /// The shape as numbers (empty when unknown, shape "?").
  SmallVector<int64_t> dims;
  bool shard = false;
};

/// The table's contents, printed as text or JSON.
struct Table {
  std::vector<Row> rows;
  std::map<std::string, int64_t> perServer;
  std::map<int64_t, int64_t> perGroup;
  int64_t total = 0;
};

std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shape, os);
  os << "]";
  return s;
}

/// Fills the synchronizer columns of `row` and charges its bytes to the
/// server or group totals.
void describeSync(Attribute sync, Row &row,
                  std::map<std::string, int64_t> &perServer,
                  std::map<int64_t, int64_t> &perGroup) {
  auto s = dyn_cast_or_null<SynchronizerAttrInterface>(sync);
  if (!s) {
    row.sync = "-";
    row.placement = "(shards)";
    return;
  }
  row.sync = s.getExplainLabel();
  row.placement = "all ranks";
  if (std::optional<StringRef> server = s.getServerDevice()) {
    row.placement = server->empty() ? "(not placed)" : server->str();
    if (!server->empty())
      perServer[row.placement] += row.bytes;
  }
  if (std::optional<int64_t> group = s.getAllReduceGroup()) {
    row.group = std::to_string(*group);
    perGroup[*group] += row.bytes;
  }
}

struct ExplainStrategyPass
    : public autodist::impl::ExplainStrategyBase<ExplainStrategyPass> {
  using ExplainStrategyBase::ExplainStrategyBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto strategy = module->getAttrOfType<StrategyAttr>("dist.strategy");
    if (!strategy) {
      module.emitError("no dist.strategy to explain (run dist-strategy first)");
      return signalPassFailure();
    }
    llvm::StringMap<RankedTensorType> types;
    for (StringRef fn : {"train_step", "forward"})
      if (auto f = module.lookupSymbol<func::FuncOp>(fn))
        for (unsigned i = 0; i < f.getNumArguments(); ++i)
          if (auto n = f.getArgAttrOfType<StringAttr>(i, "nn.param"))
            types[n.getValue()] =
                cast<RankedTensorType>(f.getArgument(i).getType());
    std::string error;
    auto out = openOutputFile(output, &error);
    if (!out) {
      module.emitError(error);
      return signalPassFailure();
    }
    if (format != "text" && format != "json") {
      module.emitError("dist-explain: unknown format '")
          << format << "' (expected text or json)";
      return signalPassFailure();
    }
    Table table = tabulate(strategy, types);
    if (format == "json") {
      printJSON(out->os(), strategy, table);
    } else {
      print(out->os(), strategy, table);
      if (failed(printPipeline(out->os(), module, strategy)))
        return signalPassFailure();
    }
    out->keep();
  }

  /// The staleness pipeline: its settings and the stale set, with the cost
  /// model's reasons when it chose the set.
  LogicalResult printPipeline(raw_ostream &os, ModuleOp module,
                              StrategyAttr strategy) {
    PipelineAttr p = strategy.getPipeline();
    if (!p || p.getDepth() == 0)
      return success();
    os << llvm::formatv("staleness pipeline: depth {0}, compensation {1}",
                        p.getDepth(),
                        stringifyCompensation(p.getCompensation()));
    if (p.getCompensation() == Compensation::WeightPrediction)
      os << " (estimator " << stringifyWPEstimator(p.getEstimator()) << ")";
    if (p.getCompensation() == Compensation::DelayCompensation)
      os << llvm::formatv(" ({0}, lambda {1})",
                          stringifyDCVariant(p.getDcVariant()),
                          p.getLambda().getValueAsDouble());
    os << ", warm-up " << p.getWarmup() << " step(s)\n";
    if (!p.getAutoStale()) {
      os << "stale (listed):";
      for (Attribute a : p.getStale())
        os << " " << cast<StringAttr>(a).getValue();
      os << "\n";
      return success();
    }
    auto step = module.lookupSymbol<func::FuncOp>("train_step");
    if (!step) {
      os << "stale: chosen automatically once the training step exists\n";
      return success();
    }
    FailureOr<StaleSetChoice> c = chooseStaleSet(module, step);
    if (failed(c))
      return failure();
    os << llvm::formatv(
        "stale (auto): step computation {0:f2} ms ({4}), link {1} "
        "Gbit/s; communication past the backward pass: {2:f2} ms all "
        "synchronous, {3:f2} ms with this stale set\n",
        c->computeS * 1e3, c->bandwidthGbit, c->exposedAllSyncS * 1e3,
        c->exposedS * 1e3, c->measured ? "measured" : "nominal");
    os << llvm::formatv("{0,-28} {1,12} {2,12} {3}\n", "parameter",
                        "ready (ms)", "comm (ms)", "stale");
    for (const StaleCandidate &s : c->params)
      os << llvm::formatv("{0,-28} {1,12:f3} {2,12:f3} {3}\n", s.name,
                          s.readyS * 1e3, s.commS * 1e3,
                          s.stale ? "yes" : "no");
    return success();
  }

  Table tabulate(StrategyAttr strategy,
                 const llvm::StringMap<RankedTensorType> &types) {
    Table table;
    std::vector<Row> &rows = table.rows;
    std::map<std::string, int64_t> &perServer = table.perServer;
    std::map<int64_t, int64_t> &perGroup = table.perGroup;
    int64_t &total = table.total;
    for (Attribute a : strategy.getNodes()) {
      auto node = cast<NodeConfigAttr>(a);
      RankedTensorType t = types.lookup(node.getVarName());
      SmallVector<int64_t> shape(t ? t.getShape() : ArrayRef<int64_t>{});
      int64_t elemBytes = t ? t.getElementTypeBitWidth() / 8 : 0;
      Row row{node.getVarName().str(), t ? shapeString(shape) : "?"};
      if (t)
        row.dims = shape;
      row.bytes = t ? t.getNumElements() * elemBytes : 0;
      total += row.bytes;
      PartitionAttr p = node.getPartition();
      row.shards = p ? p.getNumShards() : 1;
      describeSync(p ? Attribute() : node.getSynchronizer(), row, perServer,
                   perGroup);
      rows.push_back(row);
      if (!p)
        continue;
      int64_t axis = p.getAxis();
      SmallVector<int64_t> sizes =
          p.shardSizes(t && axis < t.getRank() ? shape[axis] : 0);
      for (auto [i, part] : llvm::enumerate(node.getParts())) {
        auto pn = cast<NodeConfigAttr>(part);
        SmallVector<int64_t> s = shape;
        if (axis < (int64_t)s.size())
          s[axis] = sizes[i];
        int64_t n = 1;
        for (int64_t d : s)
          n *= d;
        Row r{pn.getVarName().str(), t ? shapeString(s) : "?"};
        r.shard = true;
        if (t)
          r.dims = s;
        r.bytes = t ? n * elemBytes : 0;
        describeSync(pn.getSynchronizer(), r, perServer, perGroup);
        rows.push_back(r);
      }
    }
    return table;
  }

  void printJSON(raw_ostream &os, StrategyAttr strategy, const Table &table) {
    llvm::json::Array rows;
    for (const Row &r : table.rows) {
      llvm::json::Object row{{"parameter", r.name},      {"bytes", r.bytes},
                             {"synchronizer", r.sync},   {"shards", r.shards},
                             {"placement", r.placement}, {"shard", r.shard}};
      row["shape"] = r.shape == "?" ? llvm::json::Value(nullptr)
                                    : llvm::json::Value(llvm::json::Array(
                                          llvm::ArrayRef<int64_t>(r.dims)));
      row["group"] = r.group.empty() ? llvm::json::Value(nullptr)
                                     : llvm::json::Value(std::stoll(r.group));
      rows.push_back(std::move(row));
    }
    llvm::json::Object servers, groups;
    for (auto &[server, bytes] : table.perServer)
      servers[server] = bytes;
    for (auto &[group, bytes] : table.perGroup)
      groups[std::to_string(group)] = bytes;
    llvm::json::Object top{
        {"strategy", strategy.getId()},
        {"replicas", static_cast<int64_t>(strategy.getReplicas().size())},
        {"rows", std::move(rows)},
        {"servers", std::move(servers)},
        {"groups", std::move(groups)},
        {"total_bytes", table.total}};
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(top))) << "\n";
  }

  void print(raw_ostream &os, StrategyAttr strategy, const Table &table) {
    const std::vector<Row> &rows = table.rows;
    os << "strategy '" << strategy.getId() << "', "
       << strategy.getReplicas().size() << " replica device(s)\n";
    os << llvm::formatv("{0,-28} {1,-14} {2,12} {3,-22} {4,6} {5,-20} {6,5}\n",
                        "parameter", "shape", "bytes", "synchronizer", "shards",
                        "placement", "group");
    for (const Row &r : rows)
      os << llvm::formatv(
          "{0,-28} {1,-14} {2,12} {3,-22} {4,6} {5,-20} {6,5}\n",
          (r.shard ? "  " : "") + r.name, r.shape, r.bytes, r.sync, r.shards,
          r.placement, r.group);
    os << llvm::formatv("total: {0} parameters, {1} bytes\n",
                        strategy.getNodes().size(), table.total);
    for (auto &[server, bytes] : table.perServer)
      os << llvm::formatv("server {0}: {1} bytes\n", server, bytes);
    for (auto &[group, bytes] : table.perGroup)
      os << llvm::formatv("all-reduce group {0}: {1} bytes\n", group, bytes);
  }
};

} // namespace
