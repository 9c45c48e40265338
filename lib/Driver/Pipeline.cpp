//===- Pipeline.cpp - the compile pipelines -------------------------------===//

#include "autodist/Driver/Pipeline.h"
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
  return pm.run(module);
}

std::string loweringPipeline() {
  return "autodist-export-manifest,"
         "convert-nn-to-linalg,"
         // Which collectives overlap the computation: in the dist IR, once
         // the computation is lowered (its ops are the work to hide behind).
         "dist-overlap-collectives,"
         "convert-dist-to-runtime,"
         "canonicalize,cse,"
         "autodist-fuse-elementwise,"
         "autodist-untie-empty-tensors,"
         "one-shot-bufferize{bufferize-function-boundaries "
         "function-boundary-type-conversion=identity-layout-map},"
         "buffer-results-to-out-params{modify-public-functions "
         "hoist-static-allocs},"
         "convert-linalg-to-blas,"
         "autodist-deallocate-buffers,"
         "autodist-strided-copies-to-linalg,"
         "autodist-collapse-loop-dims,"
         "convert-linalg-to-loops,"
         "autodist-outline-loops,"
         // Names the compiled time in --trace after the ONNX nodes.
         "autodist-trace-loop-calls,"
         "canonicalize,cse,"
         // Equal shapes give equal loop nests: the blocks of a Transformer
         // then share their outlined functions, so LLVM sees each once.
         "duplicate-function-elimination,"
         "expand-strided-metadata,lower-affine,"
         // Allocations go through the runtime's step arena (docs/abi.md).
         "finalize-memref-to-llvm{use-generic-functions},"
         "convert-scf-to-cf,"
         // Dialect conversion is superlinear in the size of a block.
         "autodist-bound-block-size,"
         "convert-to-llvm,"
         "reconcile-unrealized-casts,"
         "autodist-emit-abi";
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

void registerAllPassesAndPipelines() {
  static bool once = [] {
    mlir::registerAllPasses();
    registerAutodistPasses();
    PassPipelineRegistration<>(
        "autodist-lower-to-llvm",
        "Lower nn/dist on tensors to the LLVM dialect with the runtime ABI",
        [](OpPassManager &pm) {
          if (failed(parsePassPipeline(loweringPipeline(), pm)))
            llvm::report_fatal_error("invalid built-in lowering pipeline");
        });
    return true;
  }();
  (void)once;
}

} // namespace autodist
