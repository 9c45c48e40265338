//===- Pipeline.cpp - the compile pipelines -------------------------------===//

#include "autodist/Driver/Pipeline.h"
#include "autodist/Driver/Target.h"
#include "autodist/Passes.h"
#include "dist/DistOps.h"
#include "nn/NNOps.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace autodist {

void registerAllDialects(DialectRegistry &registry) {
  registry.insert<nn::NNDialect, dist::DistDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
}

LogicalResult buildTrainingStep(ModuleOp module, const CompileOptions &o) {
  PassManager pm(module.getContext());
  BuildTrainStepOptions train;
  train.loss = o.loss;
  train.optimizer = o.optimizer;
  train.lr = o.lr;
  train.label = o.label;
  train.momentum = o.momentum;
  train.nesterov = o.nesterov;
  train.weightDecay = o.weightDecay;
  train.beta1 = o.beta1;
  train.beta2 = o.beta2;
  train.epsilon = o.epsilon;
  train.clipNorm = o.clipNorm;
  train.freeze.assign(o.freeze.begin(), o.freeze.end());
  train.schedule = o.lrSchedule;
  train.warmupSteps = o.warmupSteps;
  train.totalSteps = o.totalSteps;
  train.minLr = o.minLr;
  train.stepSize = o.stepSize;
  train.gamma = o.gamma;
  train.seed = o.seed;
  train.syncBatchNorm = o.syncBatchNorm;
  train.lossScale = o.precision == "fp16" ? "dynamic" : "none";
  train.lossScaleInit = o.lossScaleInit;
  train.lossScaleGrowthInterval = o.lossScaleGrowthInterval;
  if (o.train)
    pm.addPass(createBuildTrainStep(train));
  ApplyStrategyOptions strategy;
  strategy.builder = o.strategy;
  strategy.strategyFile = o.strategyFile;
  strategy.clusterFile = o.cluster;
  strategy.chunkSize = o.chunkSize;
  strategy.seed = o.seed;
  strategy.pipelineDepth = o.staleness;
  strategy.stale = o.stale;
  strategy.compensation = o.compensation;
  strategy.wpEstimator = o.wpEstimator;
  strategy.dcVariant = o.dcVariant;
  strategy.dcLambda = o.dcLambda;
  strategy.staleWarmup = o.staleWarmup;
  strategy.stepProfile = o.stepProfile;
  pm.addPass(createApplyStrategy(strategy));
  // The servers the builders (or the strategy file) left open.
  PlaceStrategyOptions place;
  place.placement = o.psPlacement;
  pm.addPass(createPlaceStrategy(place));
  return pm.run(module);
}

LogicalResult synchronize(ModuleOp module, int64_t bucketBytes) {
  PassManager pm(module.getContext());
  // Shards first: dist-synchronize gives each its own synchronizer.
  pm.addPass(createPartition());
  pm.addPass(createSynchronize());
  // Takes the stale gradients out of the buckets dist-synchronize made.
  pm.addPass(createStalenessPipeline());
  pm.addPass(createSplitPowerSGD());
  // Late: rewrites of whole buckets (e.g. compression) go before this.
  SplitBucketsOptions split;
  split.bucketBytes = bucketBytes;
  pm.addPass(createSplitBuckets(split));
  // Last: the compressed buckets are final, and their state is the step's.
  pm.addPass(createCompressorState());
  return pm.run(module);
}

LogicalResult applyPrecision(ModuleOp module, StringRef precision) {
  if (precision == "fp32")
    return success();
  if (precision == "tf32") {
    // A numerics choice of the whole program, as PyTorch's
    // set_float32_matmul_precision("high"): the runtime's libraries pick
    // TF32 algorithms; the IR's ops stay f32.
    module->setAttr("autodist.float32_matmul",
                    StringAttr::get(module.getContext(), "tf32"));
    return success();
  }
  PassManager pm(module.getContext());
  MixedPrecisionOptions mixed;
  mixed.precision = precision.str();
  pm.addPass(createMixedPrecision(mixed));
  return pm.run(module);
}

LogicalResult runPipeline(ModuleOp module, StringRef pipeline, bool verbose) {
  PassManager pm(module.getContext());
  std::string errors;
  llvm::raw_string_ostream errStream(errors);
  if (failed(parsePassPipeline(pipeline, pm, errStream))) {
    module.emitError("invalid pass pipeline: ") << errors;
    return failure();
  }
  if (verbose)
    llvm::errs() << "autodist: running " << pipeline << "\n";
  return pm.run(module);
}

namespace {
/// A pass that fails with `message`: a pipeline builder cannot fail, so a
/// bad pipeline option becomes an error when the pipeline runs.
struct ReportErrorPass
    : public PassWrapper<ReportErrorPass, OperationPass<ModuleOp>> {
  explicit ReportErrorPass(std::string message) : message(std::move(message)) {}
  StringRef getArgument() const override { return "autodist-report-error"; }
  void runOnOperation() override {
    getOperation().emitError(message);
    signalPassFailure();
  }
  std::string message;
};

/// The options of the autodist-lower-to-llvm pipeline.
struct LowerToLLVMOptions : public PassPipelineOptions<LowerToLLVMOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("the target (cpu, cuda)"),
                             llvm::cl::init("cpu")};
  Option<std::string> convBackend{
      *this, "conv-backend",
      llvm::cl::desc("the CPU target's convolutions: auto, im2col or onednn"),
      llvm::cl::init("auto")};
  Option<std::string> cudaArch{
      *this, "cuda-arch",
      llvm::cl::desc("the cuda target's GPU architecture (sm_80 or newer)"),
      llvm::cl::init("sm_90")};
  Option<std::string> cudaToolkit{
      *this, "cuda-toolkit",
      llvm::cl::desc("the CUDA toolkit (ptxas, libdevice) of the cuda target"),
      llvm::cl::init("")};
  Option<std::string> cudaFormat{
      *this, "cuda-format",
      llvm::cl::desc("how the cuda target embeds its kernels: bin (cubin) or "
                     "isa (PTX text, for tests)"),
      llvm::cl::init("bin")};
  Option<bool> cudaEmulate{
      *this, "cuda-emulate",
      llvm::cl::desc("the cuda target's kernels as loops on the host (tests)"),
      llvm::cl::init(false)};
};
} // namespace

void registerAllPassesAndPipelines() {
  static bool once = [] {
    mlir::registerAllPasses();
    registerAutodistPasses();
    PassPipelineRegistration<LowerToLLVMOptions>(
        "autodist-lower-to-llvm",
        "Lower nn/dist on tensors to the LLVM dialect with the runtime ABI "
        "(the target's lowering, autodist-compile's --target)",
        [](OpPassManager &pm, const LowerToLLVMOptions &o) {
          if (llvm::Error e = buildLoweringPipeline(
                  pm, {o.target, o.convBackend, o.cudaArch, o.cudaToolkit,
                       o.cudaFormat, o.cudaEmulate}))
            pm.addPass(std::make_unique<ReportErrorPass>(
                llvm::toString(std::move(e))));
        });
    return true;
  }();
  (void)once;
}

} // namespace autodist
