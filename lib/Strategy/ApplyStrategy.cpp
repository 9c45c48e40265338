//===- ApplyStrategy.cpp - attach a strategy from a builder or a file -----===//

#include "autodist/Passes.h"
#include "autodist/Strategy/Builders.h"
#include "autodist/Strategy/ResourceSpec.h"
#include "autodist/Strategy/StepProfile.h"
#include "autodist/Strategy/StrategyFile.h"
#include "autodist/Strategy/Variables.h"
#include "dist/DistOps.h"
#include "nn/NNOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace autodist {
#define GEN_PASS_DEF_APPLYSTRATEGY
#include "autodist/Passes.h.inc"
} // namespace autodist

using namespace mlir;
using namespace autodist;

namespace {

struct ApplyStrategyPass
    : public autodist::impl::ApplyStrategyBase<ApplyStrategyPass> {
  using ApplyStrategyBase::ApplyStrategyBase;

  void runOnOperation() override;

private:
  FailureOr<BuilderOptions> builderOptions(ModuleOp module);
  FailureOr<dist::ClusterAttr> cluster(ModuleOp module);
  /// The pipeline the options ask for (pipeline-depth > 0).
  FailureOr<dist::PipelineAttr> pipelineFromOptions(ModuleOp module,
                                                    func::FuncOp func);
};

FailureOr<dist::PipelineAttr>
ApplyStrategyPass::pipelineFromOptions(ModuleOp module, func::FuncOp func) {
  auto comp = dist::symbolizeCompensation(compensation);
  if (!comp)
    return module.emitError("dist-strategy: unknown compensation '")
           << compensation
           << "' (supported: none, weight_prediction, delay_compensation)";
  auto est = dist::symbolizeWPEstimator(wpEstimator);
  if (!est)
    return module.emitError("dist-strategy: unknown weight-prediction "
                            "estimator '")
           << wpEstimator << "' (supported: local, prev_sync, "
           << "local_prev_sync)";
  auto dc = dist::symbolizeDCVariant(dcVariant);
  if (!dc)
    return module.emitError("dist-strategy: unknown delay-compensation "
                            "variant '")
           << dcVariant << "' (supported: dc, dc_adaptive)";
  Builder b(&getContext());
  SmallVector<Attribute> names;
  bool autoStale = stale == "auto";
  if (stale == "all") { // every trained parameter
    func.walk([&](nn::OptimizerUpdateOpInterface u) {
      if (auto arg = dyn_cast<BlockArgument>(u.getUpdatedParam()))
        if (auto n = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                       "nn.param"))
          names.push_back(n);
    });
  } else if (!autoStale) {
    SmallVector<StringRef> parts;
    StringRef(stale).split(parts, ',', -1, /*KeepEmpty=*/false);
    for (StringRef n : parts)
      names.push_back(b.getStringAttr(n.trim()));
    if (names.empty())
      return module.emitError("dist-strategy: --stale is empty (give all, "
                              "auto or parameter names)");
  }
  int64_t warmup = staleWarmup >= 0                                ? staleWarmup
                   : *comp == dist::Compensation::WeightPrediction ? 1
                                                                   : 0;
  auto emit = [&] { return module.emitError(); };
  if (failed(dist::PipelineAttr::verify(
          emit, pipelineDepth, b.getArrayAttr(names), *comp,
          b.getF64FloatAttr(dcLambda), autoStale, warmup, *est, *dc)))
    return failure();
  return dist::PipelineAttr::get(
      &getContext(), pipelineDepth, b.getArrayAttr(names), *comp,
      b.getF64FloatAttr(dcLambda), autoStale, warmup, *est, *dc);
}

FailureOr<BuilderOptions> ApplyStrategyPass::builderOptions(ModuleOp module) {
  BuilderOptions o;
  o.chunkSize = chunkSize;
  if (!spec.empty()) {
    auto s = dist::symbolizeAllReduceSpec(spec);
    if (!s)
      return module.emitError("dist-strategy: unknown spec '")
             << spec << "' (supported: auto, nccl, ring)";
    o.spec = *s;
  }
  auto c = dist::symbolizeCompressor(compressor);
  if (!c)
    return module.emitError("dist-strategy: unknown compressor '")
           << compressor << "' (supported: none, fp16, fp16_ef, powersgd)";
  o.compressor = *c;
  o.powersgdRank = powersgdRank;
  o.localProxy = localProxy;
  o.sync = sync;
  o.staleness = staleness;
  o.seed = seed;
  return o;
}

FailureOr<dist::ClusterAttr> ApplyStrategyPass::cluster(ModuleOp module) {
  if (!clusterFile.empty()) {
    FailureOr<dist::ClusterAttr> c =
        readResourceSpec(clusterFile, module.getLoc());
    if (failed(c))
      return failure();
    module->setAttr("dist.cluster", *c);
    return c;
  }
  if (auto c = module->getAttrOfType<dist::ClusterAttr>("dist.cluster"))
    return c;
  return dist::ClusterAttr::getLocal(&getContext());
}

void ApplyStrategyPass::runOnOperation() {
  ModuleOp module = getOperation();
  func::FuncOp func = distributedFunction(module);
  if (!func) {
    module.emitError("no @train_step or @forward to distribute");
    return signalPassFailure();
  }
  FailureOr<dist::ClusterAttr> c = cluster(module);
  if (failed(c))
    return signalPassFailure();
  if (!stepProfile.empty()) {
    FailureOr<double> t = readStepProfile(stepProfile, module.getLoc());
    if (failed(t))
      return signalPassFailure();
    module->setAttr(kStepTimeAttrName,
                    FloatAttr::get(Float64Type::get(&getContext()), *t));
  }
  FailureOr<dist::StrategyAttr> strategy = failure();
  if (!strategyFile.empty()) {
    strategy = readStrategyFile(strategyFile, module.getLoc());
  } else {
    FailureOr<BuilderOptions> o = builderOptions(module);
    if (failed(o))
      return signalPassFailure();
    strategy = buildStrategy(builder, variables(func), *c, *o, module.getLoc());
  }
  if (failed(strategy)) {
    return signalPassFailure();
  }
  if (pipelineDepth > 0) {
    if (strategy->getPipeline() && !strategyFile.empty()) {
      module.emitError("the strategy file has a pipeline and the options "
                       "ask for one (--staleness): give one");
      return signalPassFailure();
    }
    FailureOr<dist::PipelineAttr> pipe = pipelineFromOptions(module, func);
    if (failed(pipe))
      return signalPassFailure();
    auto withPipe = dist::StrategyAttr::getChecked(
        [&] { return module.emitError(); }, &getContext(), strategy->getId(),
        strategy->getReplicas(), strategy->getNodes(), *pipe);
    if (!withPipe)
      return signalPassFailure();
    strategy = withPipe;
  }
  module->setAttr("dist.strategy", *strategy);
  // The strategy must fit the program and the cluster (a file may not).
  if (failed(strategy->getDialect().verifyOperationAttribute(
          module,
          NamedAttribute(StringAttr::get(&getContext(), "dist.strategy"),
                         *strategy))))
    return signalPassFailure();
}

} // namespace
