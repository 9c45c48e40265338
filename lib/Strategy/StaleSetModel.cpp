//===- StaleSetModel.cpp - which gradients cannot hide their traffic ------===//
//
// A timeline of one step: ops cost their floating-point work at a nominal
// rate (contractions 2·M·N·K, convolutions 2·|y|·|w|/M, everything else its
// elements touched), the link carries one all-reduce at a time at the
// slowest node's bandwidth (a ring moves 2(n−1)/n of the bytes per node),
// a synchronous bucket (all-reduce group) starts when its last gradient is
// ready, and the previous step's stale traffic holds the link at the start
// of the step. Only the ratio of the two rates matters for the choice; the
// nominal compute rate is documented in docs/strategies.md. A measured step
// time (`dist.step_time`, from --step-profile) replaces it: the timeline is
// scaled so that the step takes that long.
//
//===----------------------------------------------------------------------===//

#include "autodist/Strategy/StaleSetModel.h"
#include "autodist/Strategy/StepProfile.h"

#include "dist/DistOps.h"
#include "nn/NNOps.h"

#include <algorithm>
#include <map>
#include <vector>

using namespace mlir;
using namespace autodist;

namespace {

/// Nominal sustained rate of the step's computation on one CPU rank.
constexpr double kFlopsPerSecond = 20e9;
/// A dynamic dimension (the per-rank batch) counts as this many.
constexpr int64_t kNominalDim = 32;

double numel(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t)
    return 0;
  double n = 1;
  for (int64_t d : t.getShape())
    n *= ShapedType::isDynamic(d) ? kNominalDim : d;
  return n;
}

double dim(Value v, int64_t i) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getRank() == 0)
    return 1;
  int64_t d = t.getDimSize(i < 0 ? t.getRank() + i : i);
  return ShapedType::isDynamic(d) ? kNominalDim : d;
}

/// Floating-point work of `op`, roughly.
double flopsOf(Operation *op) {
  if (op->getNumResults() == 0)
    return 0;
  double out = numel(op->getResult(0).getType());
  if (auto g = dyn_cast<nn::GemmOp>(op))
    return 2 * out * dim(g.getA(), g.getTransA() ? 0 : -1);
  if (auto m = dyn_cast<nn::MatMulOp>(op))
    return 2 * out * dim(m.getA(), -1);
  StringRef name = op->getName().getStringRef();
  if (name.starts_with("nn.conv") && op->getNumOperands() >= 2) {
    // y = conv(x, w): per output element C·kH·kW multiply-adds; the
    // gradients do as much work.
    double w = 0;
    for (Value v : op->getOperands())
      if (cast<ShapedType>(v.getType()).getRank() == 4)
        w = std::max(w, numel(v.getType()));
    double m = dim(op->getOperand(1), 0);
    return 2 * std::max(out, numel(op->getOperand(0).getType())) * w /
           std::max(m, 1.0);
  }
  double touched = out;
  for (Value v : op->getOperands())
    touched += numel(v.getType());
  return touched;
}

/// The value whose computation makes `grad` ready: through a synchronous
/// all-reduce (after dist-synchronize) to its operand.
Value computedGradient(Value grad) {
  if (auto ar = grad.getDefiningOp<dist::AllReduceOp>())
    return ar.getInputs()[cast<OpResult>(grad).getResultNumber()];
  return grad;
}

} // namespace

SmallVector<StringRef> StaleSetChoice::staleNames() const {
  SmallVector<StringRef> out;
  for (const StaleCandidate &c : params)
    if (c.stale)
      out.push_back(c.name);
  return out;
}

/// Communication past `compute` of the synchronous candidates in `params`,
/// the stale ones' traffic first. A synchronous bucket (all-reduce group)
/// starts once its last gradient is ready; buckets go in that order.
static double exposed(ArrayRef<StaleCandidate> params, double compute) {
  double linkFree = 0;
  std::map<int64_t, std::pair<double, double>> buckets; // ready, comm
  for (const StaleCandidate &c : params) {
    if (c.stale) {
      linkFree += c.commS;
      continue;
    }
    auto &[ready, comm] = buckets[c.group];
    ready = std::max(ready, c.readyS);
    comm += c.commS;
  }
  std::vector<std::pair<double, double>> order;
  for (auto &entry : buckets)
    order.push_back(entry.second);
  llvm::sort(order);
  for (auto [ready, comm] : order)
    linkFree = std::max(linkFree, ready) + comm;
  return std::max(0.0, linkFree - compute);
}

FailureOr<StaleSetChoice> autodist::chooseStaleSet(ModuleOp module,
                                                   func::FuncOp step) {
  auto strategy = module->getAttrOfType<dist::StrategyAttr>("dist.strategy");
  auto cluster = module->getAttrOfType<dist::ClusterAttr>("dist.cluster");
  if (!cluster)
    cluster = dist::ClusterAttr::getLocal(module.getContext());
  StaleSetChoice choice;
  int64_t nodes = cluster.getNodes().size();
  double bw = 0;
  for (Attribute a : cluster.getNodes()) {
    double b = cast<dist::ClusterNodeAttr>(a).getBandwidth().getValueAsDouble();
    bw = bw == 0 ? b : std::min(bw, b);
  }
  choice.bandwidthGbit = nodes > 1 ? bw : 0;

  // Ready times: the cumulative cost at each op of the step.
  DenseMap<Operation *, double> doneAt;
  double t = 0;
  for (Operation &op : step.getBody().front()) {
    t += flopsOf(&op) / kFlopsPerSecond;
    doneAt[&op] = t;
  }
  // A measured step: the same timeline at the machine's own pace.
  double scale = 1;
  if (auto measured = module->getAttrOfType<FloatAttr>(kStepTimeAttrName);
      measured && t > 0) {
    scale = measured.getValueAsDouble() / t;
    choice.measured = true;
  }
  choice.computeS = t * scale;
  step.walk([&](nn::OptimizerUpdateOpInterface u) {
    auto arg = dyn_cast<BlockArgument>(u.getUpdatedParam());
    auto name =
        arg ? step.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "nn.param")
            : StringAttr();
    dist::NodeConfigAttr node =
        name && strategy ? strategy.lookup(name.getValue()) : nullptr;
    auto sync = node ? dyn_cast_or_null<dist::AllReduceSynchronizerAttr>(
                           node.getSynchronizer())
                     : nullptr;
    if (!sync || node.getPartition() ||
        sync.getCompressor() != dist::Compressor::None)
      return; // only plain all-reduced parameters can be stale
    Value g = computedGradient(u.getGradOperand().get());
    Operation *def = g.getDefiningOp();
    while (def && def->getBlock() != &step.getBody().front())
      def = def->getParentOp();
    StaleCandidate c;
    c.name = name.getValue().str();
    c.group = sync.getGroup();
    c.readyS = def ? doneAt.lookup(def) * scale : 0;
    double bytes = numel(g.getType()) * 4;
    c.commS = nodes > 1 ? bytes * 2 * (nodes - 1) / nodes / (bw * 1e9 / 8) : 0;
    choice.params.push_back(std::move(c));
  });
  if (choice.params.empty())
    return step.emitOpError("the pipeline asks for an automatic stale set, "
                            "but no parameter is synchronized by an "
                            "uncompressed, unpartitioned all-reduce");
  std::stable_sort(choice.params.begin(), choice.params.end(),
                   [](const StaleCandidate &a, const StaleCandidate &b) {
                     return a.readyS < b.readyS;
                   });
  choice.exposedAllSyncS = exposed(choice.params, choice.computeS);
  // From the last gradient ready (nearest the input) backwards.
  for (StaleCandidate &c : llvm::reverse(choice.params)) {
    if (exposed(choice.params, choice.computeS) <= 0.05 * choice.computeS)
      break;
    c.stale = true;
  }
  choice.exposedS = exposed(choice.params, choice.computeS);
  return choice;
}
