//===- Compile.cpp - the compile pipeline, from options to a file ---------===//

#include "autodist/Driver/Compile.h"
#include "autodist/Driver/OutputFile.h"
#include "autodist/Driver/Pipeline.h"
#include "autodist/Driver/Target.h"
#include "autodist/Import/OnnxImporter.h"
#include "autodist/Passes.h"
#include "autodist/Strategy/ResourceSpec.h"
#include "autodist/Strategy/StrategyFile.h"
#include "dist/DistAttrs.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <limits>

using namespace mlir;

namespace autodist {
namespace {

LogicalResult fail(MLIRContext &context, const llvm::Twine &msg) {
  emitError(UnknownLoc::get(&context)) << msg.str();
  return failure();
}

/// `error` as a diagnostic, unless it was reported already.
LogicalResult report(MLIRContext &context, llvm::Error error) {
  if (!error)
    return success();
  llvm::handleAllErrors(
      std::move(error), [](const ReportedError &) {},
      [&](const llvm::ErrorInfoBase &e) { (void)fail(context, e.message()); });
  return failure();
}

/// The files the outputs replace (a symlink's target), found by the checks
/// before any work.
struct OutputTargets {
  std::string output, dumpStrategy, hostfile, explainJson;
};

LogicalResult checkOutput(MLIRContext &context, llvm::StringRef flag,
                          llvm::StringRef path,
                          llvm::ArrayRef<std::string> inputs,
                          std::string &target) {
  llvm::Expected<OutputPath> out =
      checkOutputPath(flag, path, inputs, /*allowStreams=*/false);
  if (!out)
    return report(context, out.takeError());
  target = out->target;
  return success();
}

/// Checks every output path before any work: none may be a special file,
/// an input, or another output (two flags naming one file would silently
/// keep only the last one written).
LogicalResult checkOutputs(MLIRContext &context, const CompileOptions &o,
                           OutputTargets &targets) {
  std::vector<std::string> inputs = {o.input};
  for (const std::string &in : {o.strategyFile, o.cluster, o.stepProfile})
    if (!in.empty())
      inputs.push_back(in);
  if (failed(checkOutput(context, "-o", o.output, inputs, targets.output)))
    return failure();
  inputs.push_back(o.output);
  struct Side {
    const char *flag;
    const std::string &path;
    std::string &target;
  };
  for (Side s : {Side{"--dump-strategy", o.dumpStrategy, targets.dumpStrategy},
                 Side{"--write-hostfile", o.writeHostfile, targets.hostfile},
                 Side{"--explain-json", o.explainJson, targets.explainJson}}) {
    if (!s.path.empty() &&
        failed(checkOutput(context, s.flag, s.path, inputs, s.target)))
      return failure();
    inputs.push_back(s.path);
  }
  return success();
}

/// Flags that only mean something with another setting: given without it,
/// they would be silently ignored.
LogicalResult checkFlagCombinations(MLIRContext &context,
                                    const CompileOptions &o) {
  bool adam = o.optimizer == "adam" || o.optimizer == "adamw";
  bool training = o.train;
  bool strategies = o.train || o.emit == "strategy";
  struct Rule {
    const char *flag;
    bool meaningful;
    const char *needs;
  };
  const Rule rules[] = {
      {"strategy", o.strategyFile.empty(),
       "conflicts with --strategy-file (both give the strategy): give one"},
      {"chunk-size", o.strategyFile.empty(),
       "has no effect with --strategy-file (the file gives the groups)"},
      {"nesterov", o.optimizer == "momentum", "needs --optimizer=momentum"},
      {"momentum", o.optimizer == "momentum", "needs --optimizer=momentum"},
      {"beta1", adam, "needs --optimizer=adam or adamw"},
      {"beta2", adam, "needs --optimizer=adam or adamw"},
      {"eps", adam, "needs --optimizer=adam or adamw"},
      {"warmup-steps", o.lrSchedule == "cosine", "needs --lr-schedule=cosine"},
      {"total-steps", o.lrSchedule == "cosine", "needs --lr-schedule=cosine"},
      {"min-lr", o.lrSchedule == "cosine", "needs --lr-schedule=cosine"},
      {"step-size", o.lrSchedule == "step", "needs --lr-schedule=step"},
      {"gamma", o.lrSchedule == "step", "needs --lr-schedule=step"},
      {"write-hostfile", !o.cluster.empty(), "needs --cluster"},
      {"loss", training, "needs --train"},
      {"label", training, "needs --train"},
      {"optimizer", training, "needs --train"},
      {"lr", training, "needs --train"},
      {"weight-decay", training, "needs --train"},
      {"clip-norm", training, "needs --train"},
      {"freeze", training, "needs --train"},
      {"lr-schedule", training, "needs --train"},
      {"sync-batchnorm", training, "needs --train"},
      {"bucket-bytes", training, "needs --train"},
      {"strategy", strategies, "needs --train (or --emit=strategy)"},
      {"staleness", training, "needs --train"},
      {"stale", o.staleness > 0, "needs --staleness"},
      {"compensation", o.staleness > 0, "needs --staleness"},
      {"wp-estimator", o.compensation == "weight_prediction",
       "needs --compensation=weight_prediction"},
      {"dc-variant", o.compensation == "delay_compensation",
       "needs --compensation=delay_compensation"},
      {"dc-lambda", o.compensation == "delay_compensation",
       "needs --compensation=delay_compensation"},
      {"stale-warmup", o.staleness > 0, "needs --staleness"},
      {"step-profile", o.staleness > 0 && o.stale == "auto",
       "needs --staleness and --stale=auto (it only informs the automatic "
       "stale set)"},
      {"cluster", strategies, "needs --train (or --emit=strategy)"},
      {"loss-scale-init", o.precision == "fp16" && training,
       "needs --precision=fp16 and --train"},
      {"loss-scale-growth-interval", o.precision == "fp16" && training,
       "needs --precision=fp16 and --train"},
      // The stale gradients would bypass loss scaling's overflow check.
      {"staleness", o.precision != "fp16",
       "cannot be combined with --precision=fp16 yet"},
      {"cuda-arch", o.target == "cuda", "needs --target=cuda"},
      {"cuda-toolkit", o.target == "cuda", "needs --target=cuda"},
      {"cuda-emulate", o.target == "cuda", "needs --target=cuda"},
  };
  for (const Rule &r : rules)
    if (o.isGiven(r.flag) && !r.meaningful)
      return fail(context, "--" + llvm::Twine(r.flag) + " " + r.needs);
  return success();
}

/// The target's options among the compiler's.
TargetOptions targetOptions(const CompileOptions &o) {
  TargetOptions t;
  t.name = o.target;
  t.convBackend = o.convBackend;
  t.cudaArch = o.cudaArch;
  t.cudaToolkit = o.cudaToolkit;
  t.cudaEmulate = o.cudaEmulate;
  return t;
}

/// What lies between compile()'s stages: the options, the diagnostics'
/// context and the output targets.
class Compiler {
public:
  Compiler(MLIRContext &context, const CompileOptions &o,
           llvm::function_ref<void(const llvm::Twine &)> progress)
      : context(context), o(o), progressFn(progress) {}

  LogicalResult run();

private:
  void progress(const llvm::Twine &msg) {
    if (!o.quiet && progressFn)
      progressFn(msg);
  }
  LogicalResult
  writeAtomically(llvm::function_ref<llvm::Error(llvm::StringRef tmp)> write);
  llvm::Error writeText(llvm::StringRef tmp,
                        llvm::function_ref<void(llvm::raw_ostream &)> print);
  LogicalResult writeStrategyOutputs(ModuleOp module);
  LogicalResult writeExecutable(ModuleOp module);

  MLIRContext &context;
  const CompileOptions &o;
  llvm::function_ref<void(const llvm::Twine &)> progressFn;
  OutputTargets targets;
};

/// Writes `write`'s output to the -o target atomically (OutputFile.h).
LogicalResult Compiler::writeAtomically(
    llvm::function_ref<llvm::Error(llvm::StringRef tmp)> write) {
  return report(context, writeOutputFile(targets.output, write));
}

/// Writes `print`'s text to the temporary file `tmp`.
llvm::Error
Compiler::writeText(llvm::StringRef tmp,
                    llvm::function_ref<void(llvm::raw_ostream &)> print) {
  std::error_code ec;
  llvm::raw_fd_ostream os(tmp, ec);
  if (ec)
    return llvm::createStringError("cannot write '" + targets.output +
                                   "': " + ec.message());
  print(os);
  os.close();
  if (os.has_error()) {
    std::string msg = os.error().message();
    os.clear_error();
    return llvm::createStringError("cannot write '" + targets.output +
                                   "': " + msg);
  }
  return llvm::Error::success();
}

dist::StrategyAttr strategyOf(ModuleOp module) {
  return module->getAttrOfType<dist::StrategyAttr>("dist.strategy");
}

/// --explain, --explain-json, --dump-strategy and --write-hostfile, once the
/// strategy is attached.
LogicalResult Compiler::writeStrategyOutputs(ModuleOp module) {
  if (o.explain) {
    PassManager pm(&context);
    pm.addPass(createExplainStrategy());
    if (failed(pm.run(module)))
      return failure();
  }
  if (!o.explainJson.empty()) {
    auto explainJson = [&](llvm::StringRef tmp) {
      PassManager pm(&context);
      ExplainStrategyOptions explain;
      explain.output = tmp.str();
      explain.format = "json";
      pm.addPass(createExplainStrategy(explain));
      return reported(pm.run(module));
    };
    if (failed(
            report(context, writeOutputFile(targets.explainJson, explainJson))))
      return failure();
  }
  if (!o.dumpStrategy.empty() &&
      failed(report(
          context, writeFileAtomically(targets.dumpStrategy,
                                       printStrategyJSON(strategyOf(module))))))
    return failure();
  if (!o.writeHostfile.empty()) {
    auto c = module->getAttrOfType<dist::ClusterAttr>("dist.cluster");
    if (!c)
      return fail(context, "--write-hostfile needs --cluster");
    return report(context,
                  writeFileAtomically(targets.hostfile, mpiHostfile(c)));
  }
  return success();
}

LogicalResult Compiler::writeExecutable(ModuleOp module) {
  progress("emitting the object file");
  LogicalResult r = writeAtomically([&](llvm::StringRef tmp) {
    std::vector<std::string> objects;
    llvm::Error e =
        emitObjectFiles(module, o.input, o.optLevel, o.jobs, tmp, objects);
    if (!e) {
      progress("linking");
      // The emulated kernels run on the host: the CPU runtime.
      e = linkExecutable(objects, tmp, o.runtimeLinkFile,
                         o.cudaEmulate ? "cpu" : o.target);
    }
    removeFiles(objects);
    return e;
  });
  if (succeeded(r))
    progress("wrote " + o.output);
  return r;
}

LogicalResult Compiler::run() {
  OnnxImportOptions importOptions;
  if (failed(report(context, parseInputShapes(o.inputShapes, importOptions))) ||
      failed(report(context, parseBoundInputs(o.boundInputs, importOptions))))
    return failure();
  if (failed(verifyCompileOptions(context, o)) ||
      failed(checkOutputs(context, o, targets)))
    return failure();
  if (int fd; std::error_code ec = llvm::sys::fs::openFileForRead(o.input, fd))
    return fail(context, "cannot read '" + o.input + "': " + ec.message());
  else
    llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  importOptions.outputs = {{"-o", o.output},
                           {"--dump-strategy", o.dumpStrategy},
                           {"--write-hostfile", o.writeHostfile},
                           {"--explain-json", o.explainJson}};

  progress("importing " + o.input);
  OwningOpRef<ModuleOp> module =
      importOnnxFile(&context, o.input, importOptions);
  if (!module)
    return failure();
  if (auto dir =
          (*module)->getAttrOfType<StringAttr>("autodist.external_data_dir"))
    progress("the weights stay in their external data files in " +
             dir.getValue() +
             ", which the executable reads at start (--external-data=DIR "
             "if they move)");
  bool strategyOnly = o.emit == "strategy";
  if (!o.train && !strategyOnly &&
      (o.explain || !o.explainJson.empty() || !o.dumpStrategy.empty() ||
       !o.strategyFile.empty()))
    return fail(context, "strategies distribute training: add --train (or "
                         "--emit=strategy to only build the strategy)");
  if (o.train || strategyOnly) {
    progress((o.train ? "building the training step (" + o.loss + ", " +
                            o.optimizer + ") and the "
                      : std::string("building the ")) +
             (o.strategyFile.empty() ? "'" + o.strategy + "' strategy"
                                     : "strategy of " + o.strategyFile));
    if (failed(buildTrainingStep(*module, o)) ||
        failed(writeStrategyOutputs(*module)))
      return failure();
    if (strategyOnly)
      return writeAtomically([&](llvm::StringRef tmp) {
        return writeText(tmp, [&](llvm::raw_ostream &os) {
          os << printStrategyJSON(strategyOf(*module));
        });
      });
    if (failed(synchronize(*module, o.bucketBytes)))
      return failure();
  }
  if (failed(applyPrecision(*module, o.precision)))
    return failure();
  if (o.emit == "mlir")
    return writeAtomically([&](llvm::StringRef tmp) {
      return writeText(tmp, [&](llvm::raw_ostream &os) { module->print(os); });
    });

  progress("lowering to LLVM");
  {
    PassManager pm(&context);
    if (llvm::Error e = buildLoweringPipeline(pm, targetOptions(o)))
      return report(context, std::move(e));
    if (failed(pm.run(*module)))
      return failure();
  }
  if (o.emit == "llvm")
    return writeAtomically([&](llvm::StringRef tmp) -> llvm::Error {
      llvm::LLVMContext llvmContext;
      auto llvmModule = translateModuleToLLVMIR(*module, llvmContext);
      if (!llvmModule)
        return llvm::createStringError("translation to LLVM IR failed");
      return writeText(
          tmp, [&](llvm::raw_ostream &os) { llvmModule->print(os, nullptr); });
    });
  if (o.emit == "obj") {
    progress("emitting " + o.output);
    return writeAtomically([&](llvm::StringRef tmp) {
      return emitObjectFile(*module, o.input, o.optLevel, o.jobs, tmp);
    });
  }
  return writeExecutable(*module);
}

} // namespace

std::unique_ptr<MLIRContext> createCompilerContext() {
  registerAllPassesAndPipelines();
  DialectRegistry registry;
  registerAllDialects(registry);
  return std::make_unique<MLIRContext>(registry);
}

LogicalResult verifyCompileOptions(MLIRContext &context,
                                   const CompileOptions &o) {
  if (o.input.empty())
    return fail(context, "no input model given");
  if (o.output.empty())
    return fail(context, "no output file given (-o)");
  if (!llvm::is_contained(targetNames(), o.target))
    return fail(context, "--target=" + o.target +
                             " is not supported yet (supported: " +
                             llvm::join(targetNames(), ", ") + ")");
  if (o.target == "cuda") {
    std::string arch = checkCudaArch(o.cudaArch);
    if (!arch.empty())
      return fail(context, arch);
  }
  if (o.optLevel > 3)
    return fail(context, "-O" + llvm::Twine(o.optLevel) +
                             ": the optimization level must be 0, 1, 2 or 3");
  if (!llvm::is_contained({"strategy", "mlir", "llvm", "obj", "exe"}, o.emit))
    return fail(context, "unknown --emit '" + o.emit +
                             "' (expected strategy, mlir, llvm, obj or exe)");
  if (!llvm::is_contained({"fp32", "tf32", "bf16", "fp16"}, o.precision))
    return fail(context, "unknown --precision '" + o.precision +
                             "' (expected fp32, tf32, bf16 or fp16)");
  // TF32 is a tensor-core input format: the host has no such arithmetic,
  // and rounding there would not be what the GPU computes.
  if (o.precision == "tf32" && (o.target != "cuda" || o.cudaEmulate))
    return fail(context, "--precision=tf32 needs --target=cuda without "
                         "--cuda-emulate (TF32 is computed by NVIDIA tensor "
                         "cores; the host has none)");
  if (!(o.lossScaleInit > 0.0 &&
        o.lossScaleInit <= std::numeric_limits<float>::max())) {
    char value[32];
    std::snprintf(value, sizeof value, "%g", o.lossScaleInit);
    return fail(context,
                "--loss-scale-init must be a finite number > 0 (as f32), got " +
                    llvm::Twine(value));
  }
  if (o.lossScaleGrowthInterval < 1)
    return fail(context, "--loss-scale-growth-interval must be >= 1, got " +
                             llvm::Twine(o.lossScaleGrowthInterval));
  if (o.convBackend != "auto" && o.convBackend != "im2col" &&
      o.convBackend != "onednn")
    return fail(context, "unknown --conv-backend '" + o.convBackend +
                             "' (expected auto, im2col or onednn)");
  if (o.target != "cpu" && o.convBackend == "onednn")
    return fail(context, "--conv-backend=onednn needs --target=cpu (the cuda "
                         "target's library is cuDNN)");
  return checkFlagCombinations(context, o);
}

LogicalResult compile(MLIRContext &context, const CompileOptions &options,
                      llvm::function_ref<void(const llvm::Twine &)> progress) {
  return Compiler(context, options, progress).run();
}

} // namespace autodist
