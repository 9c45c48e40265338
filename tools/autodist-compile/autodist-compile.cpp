//===- autodist-compile.cpp - ONNX model to a training executable ---------===//
//
// import → train-step (autodiff, loss, optimizer) → strategy →
// synchronization → lowering → object file → link with the runtime.
// Errors are one line each; no output file is left behind on failure.
//
//===----------------------------------------------------------------------===//

#include "autodist/Driver/OutputFile.h"
#include "autodist/Driver/Pipeline.h"
#include "autodist/Import/OnnxImporter.h"
#include "autodist/Passes.h"
#include "autodist/Strategy/Builders.h"
#include "autodist/Strategy/ResourceSpec.h"
#include "autodist/Strategy/StrategyFile.h"
#include "dist/DistAttrs.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;
namespace cl = llvm::cl;

namespace {
cl::OptionCategory category("autodist-compile options");

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model.onnx>"),
                               cl::Required, cl::cat(category));
cl::opt<std::string> outputFile("o", cl::desc("Output file"), cl::Required,
                                cl::value_desc("file"), cl::cat(category));
cl::opt<bool> train("train", cl::desc("Build a training executable"),
                    cl::cat(category));
cl::opt<std::string>
    loss("loss",
         cl::desc("Loss on the first output: cross_entropy (class indices), "
                  "mse (target array), output (the output is the loss)"),
         cl::init("cross_entropy"), cl::cat(category));
cl::opt<std::string> label("label", cl::desc("Name of the labels array"),
                           cl::init("labels"), cl::cat(category));
cl::opt<std::string>
    optimizer("optimizer", cl::desc("Optimizer: sgd, momentum, adam, adamw"),
              cl::init("sgd"), cl::cat(category));
cl::opt<double> momentum("momentum", cl::desc("Momentum factor"), cl::init(0.9),
                         cl::cat(category));
cl::opt<bool> nesterov("nesterov", cl::desc("Nesterov momentum"),
                       cl::cat(category));
cl::opt<double> weightDecay("weight-decay",
                            cl::desc("Weight decay (decoupled for adamw)"),
                            cl::init(0.0), cl::cat(category));
cl::opt<double> beta1("beta1", cl::desc("Adam beta1"), cl::init(0.9),
                      cl::cat(category));
cl::opt<double> beta2("beta2", cl::desc("Adam beta2"), cl::init(0.999),
                      cl::cat(category));
cl::opt<double> epsilon("eps", cl::desc("Adam epsilon"), cl::init(1e-8),
                        cl::cat(category));
cl::opt<double> clipNorm("clip-norm",
                         cl::desc("Clip gradients to this global L2 norm"),
                         cl::init(0.0), cl::cat(category));
cl::list<std::string> freeze("freeze", cl::desc("Parameters not to train"),
                             cl::CommaSeparated, cl::value_desc("NAME,..."),
                             cl::cat(category));
cl::opt<std::string> lrSchedule("lr-schedule",
                                cl::desc("constant, cosine or step"),
                                cl::init("constant"), cl::cat(category));
cl::opt<int64_t> warmupSteps("warmup-steps",
                             cl::desc("cosine: linear warmup steps"),
                             cl::init(0), cl::cat(category));
cl::opt<int64_t> totalSteps("total-steps",
                            cl::desc("cosine: step reaching --min-lr"),
                            cl::init(0), cl::cat(category));
cl::opt<double> minLr("min-lr", cl::desc("cosine: final lr"), cl::init(0.0),
                      cl::cat(category));
cl::opt<int64_t> stepSize("step-size", cl::desc("step: steps between decays"),
                          cl::init(0), cl::cat(category));
cl::opt<double> decayGamma("gamma", cl::desc("step: decay factor"),
                           cl::init(0.1), cl::cat(category));
cl::opt<double>
    lr("lr",
       cl::desc("Default learning rate (the runtime's --lr overrides it)"),
       cl::init(0.01), cl::cat(category));
cl::opt<std::string>
    strategy("strategy",
             cl::desc("Strategy builder: ps, ps-lb, partitioned-ps, uneven-ps, "
                      "allreduce, partitioned-ar, random-axis-ar, parallax"),
             cl::init("allreduce"), cl::cat(category));
cl::opt<std::string>
    strategyFile("strategy-file",
                 cl::desc("Read the strategy from an AutoDist JSON file"),
                 cl::value_desc("S.json"), cl::cat(category));
cl::opt<std::string>
    cluster("cluster",
            cl::desc("AutoDist resource spec (YAML) to build the strategy for"),
            cl::value_desc("C.yaml"), cl::cat(category));
cl::opt<std::string>
    dumpStrategy("dump-strategy",
                 cl::desc("Also write the strategy as AutoDist JSON"),
                 cl::value_desc("S.json"), cl::cat(category));
cl::opt<std::string>
    writeHostfile("write-hostfile",
                  cl::desc("Also write an MPI hostfile for --cluster"),
                  cl::value_desc("hosts"), cl::cat(category));
cl::opt<bool> explain("explain",
                      cl::desc("Print the strategy as a table (stdout)"),
                      cl::cat(category));
cl::opt<int64_t> staleness(
    "staleness",
    cl::desc("Apply each stale gradient this many steps late, its all-reduce "
             "overlapping the next step (SAPipe; only 1)"),
    cl::init(0), cl::cat(category));
cl::opt<std::string>
    stale("stale",
          cl::desc("Stale parameters: all, auto (those whose all-reduce "
                   "cannot hide behind the backward pass), or NAME,..."),
          cl::init("all"), cl::cat(category));
cl::opt<std::string> compensation(
    "compensation",
    cl::desc("Compensation of stale gradients: none, weight_prediction, "
             "delay_compensation"),
    cl::init("none"), cl::cat(category));
cl::opt<std::string>
    wpEstimator("wp-estimator",
                cl::desc("Weight prediction's estimate of the gradient in "
                         "flight: local, prev_sync, local_prev_sync"),
                cl::init("local"), cl::cat(category));
cl::opt<std::string> dcVariant("dc-variant",
                               cl::desc("Delay compensation: dc, dc_adaptive"),
                               cl::init("dc"), cl::cat(category));
cl::opt<double> dcLambda("dc-lambda", cl::desc("Delay compensation's lambda"),
                         cl::init(0.5), cl::cat(category));
cl::opt<int64_t> staleWarmup(
    "stale-warmup",
    cl::desc("Synchronous steps before the pipeline starts (default: 1 with "
             "weight prediction, else 0)"),
    cl::init(-1), cl::cat(category));
cl::opt<int64_t> chunkSize("chunk-size",
                           cl::desc("Parameters per all-reduce group (bucket)"),
                           cl::init(128), cl::cat(category));
cl::opt<std::string> psPlacement(
    "ps-placement",
    cl::desc("Parameter-server placement of ps-lb, partitioned-ps, uneven-ps "
             "and parallax: bytes (greedy by bytes, AutoDist's) or bandwidth "
             "(proportional to the --cluster nodes' network_bandwidth)"),
    cl::init("bytes"), cl::cat(category));
cl::opt<int64_t> bucketBytes(
    "bucket-bytes",
    cl::desc("Largest all-reduce bucket in bytes: larger groups are split, in "
             "reverse order of computation, so that the first buckets' "
             "collectives overlap the rest of the backward pass (0: one "
             "collective per group)"),
    cl::init(1 << 20), cl::cat(category));
cl::opt<uint64_t>
    seed("seed",
         cl::desc("Seed of the random-axis-ar builder and of dropout's masks "
                  "(the executable's --seed overrides the latter)"),
         cl::init(0), cl::cat(category));
cl::opt<bool> syncBatchNorm(
    "sync-batchnorm",
    cl::desc("BatchNormalization statistics over the global batch (all "
             "ranks, as torch's SyncBatchNorm); default: each rank's batch"),
    cl::cat(category));
cl::opt<std::string> target("target", cl::desc("Target: cpu"), cl::init("cpu"),
                            cl::cat(category));
cl::list<std::string> inputShapes(
    "input-shape",
    cl::desc("Input shape NAME:D0xD1... (a leading symbolic dim left out "
             "stays dynamic: the per-rank batch)"),
    cl::cat(category));
cl::list<std::string> boundInputs(
    "bind-input",
    cl::desc("Bind an int64/bool graph input (shapes, axes) to constant "
             "values NAME=V0,V1,...; it is no longer an input"),
    cl::cat(category));
cl::opt<unsigned> optLevel(
    "O",
    cl::desc("LLVM optimization level of the compiled code, 0-3 (default 3)"),
    cl::Prefix, cl::init(3), cl::cat(category));
cl::opt<unsigned>
    jobs("jobs",
         cl::desc("Threads for LLVM code generation (default 0: one per core)"),
         cl::init(0), cl::cat(category));
cl::alias jobsShort("j", cl::desc("Alias for --jobs"), cl::aliasopt(jobs),
                    cl::Prefix);
enum class Emit { Strategy, MLIR, LLVM, Obj, Exe };
cl::opt<Emit>
    emit("emit", cl::desc("What to write"), cl::init(Emit::Exe),
         cl::values(clEnumValN(Emit::Strategy, "strategy",
                               "the strategy as AutoDist JSON"),
                    clEnumValN(Emit::MLIR, "mlir",
                               "MLIR after training and distribution"),
                    clEnumValN(Emit::LLVM, "llvm", "LLVM IR"),
                    clEnumValN(Emit::Obj, "obj", "object file"),
                    clEnumValN(Emit::Exe, "exe", "executable")),
         cl::cat(category));
cl::opt<bool> quiet("quiet", cl::desc("No progress output"), cl::cat(category));
cl::opt<std::string> convBackend(
    "conv-backend",
    cl::desc("Group-1 convolutions: im2col (im2col + sgemm), onednn (the "
             "runtime's oneDNN convolutions) or auto (oneDNN where it was "
             "measured faster: outputs of >= 16 positions per sample)"),
    cl::init("auto"), cl::cat(category));

/// Prints diagnostics as one line each: `error: <file>: <message>`.
void printDiagnostic(Diagnostic &diag) {
  const char *kind = diag.getSeverity() == DiagnosticSeverity::Error ? "error"
                     : diag.getSeverity() == DiagnosticSeverity::Warning
                         ? "warning"
                         : "note";
  std::string where;
  if (auto fl = diag.getLocation()->findInstanceOf<FileLineColLoc>())
    where = fl.getFilename().str() + ": ";
  std::string msg = diag.str();
  std::replace(msg.begin(), msg.end(), '\n', ' ');
  llvm::errs() << "autodist-compile: " << kind << ": " << where << msg << "\n";
}

/// When the compiler started, for the elapsed times of the progress lines.
const auto startTime = std::chrono::steady_clock::now();

/// A progress line, with the seconds since the start (where time goes on
/// large models).
void progress(const llvm::Twine &msg) {
  if (quiet)
    return;
  std::chrono::duration<double> elapsed =
      std::chrono::steady_clock::now() - startTime;
  llvm::errs() << "autodist-compile: " << msg << " ["
               << llvm::format("%.2f", elapsed.count()) << " s]\n";
}

int fail(const llvm::Twine &msg) {
  llvm::errs() << "autodist-compile: error: " << msg << "\n";
  return 1;
}

/// The files -o, --dump-strategy and --write-hostfile replace (a symlink's
/// target), checked before any work.
std::string outputTarget, dumpStrategyTarget, hostfileTarget;

/// Writes `write`'s output to the -o target atomically (OutputFile.h).
int writeAtomically(
    llvm::function_ref<LogicalResult(llvm::StringRef tmp, std::string &err)>
        write) {
  std::string err;
  if (failed(autodist::writeOutputFile(outputTarget, write, err)))
    return err.empty() ? 1 : fail(err);
  return 0;
}

/// Writes `print`'s text to the temporary file `tmp`.
LogicalResult writeText(llvm::StringRef tmp, std::string &err,
                        llvm::function_ref<void(llvm::raw_ostream &)> print) {
  std::error_code ec;
  llvm::raw_fd_ostream os(tmp, ec);
  if (ec) {
    err = "cannot write '" + outputTarget + "': " + ec.message();
    return failure();
  }
  print(os);
  os.close();
  if (os.has_error()) {
    err = "cannot write '" + outputTarget + "': " + os.error().message();
    os.clear_error();
    return failure();
  }
  return success();
}

/// Checks `path`, the value of the output flag `flag`, and sets `target`
/// to the file to replace.
int checkOutput(llvm::StringRef flag, llvm::StringRef path,
                llvm::ArrayRef<std::string> inputs, std::string &target) {
  std::string err;
  FailureOr<autodist::OutputPath> out = autodist::checkOutputPath(
      flag, path, inputs, /*allowStreams=*/false, err);
  if (failed(out))
    return fail(err);
  target = out->target;
  return 0;
}

/// Checks every output path before any work: none may be a special file,
/// an input, or another output.
int checkOutputs() {
  std::vector<std::string> inputs = {inputFile};
  for (const std::string &in : {strategyFile.getValue(), cluster.getValue()})
    if (!in.empty())
      inputs.push_back(in);
  if (int rc = checkOutput("-o", outputFile, inputs, outputTarget))
    return rc;
  // Each output is an input of the others' checks: two flags naming one
  // file would silently keep only the last one written.
  inputs.push_back(outputFile);
  if (!dumpStrategy.empty())
    if (int rc = checkOutput("--dump-strategy", dumpStrategy, inputs,
                             dumpStrategyTarget))
      return rc;
  inputs.push_back(dumpStrategy);
  if (!writeHostfile.empty())
    if (int rc = checkOutput("--write-hostfile", writeHostfile, inputs,
                             hostfileTarget))
      return rc;
  return 0;
}

/// Flags that only mean something with another setting: given without it,
/// they were silently ignored. Checked before any work.
int checkFlagCombinations() {
  bool adam = optimizer == "adam" || optimizer == "adamw";
  bool training = train;
  bool strategies = train || emit == Emit::Strategy;
  struct Rule {
    const cl::Option &flag;
    bool meaningful;
    const char *needs;
  };
  const Rule rules[] = {
      {strategy, strategyFile.empty(),
       "conflicts with --strategy-file (both give the strategy): give one"},
      {chunkSize, strategyFile.empty(),
       "has no effect with --strategy-file (the file gives the groups)"},
      {psPlacement, strategyFile.empty(),
       "has no effect with --strategy-file (the file places the servers)"},
      {nesterov, optimizer == "momentum", "needs --optimizer=momentum"},
      {momentum, optimizer == "momentum", "needs --optimizer=momentum"},
      {beta1, adam, "needs --optimizer=adam or adamw"},
      {beta2, adam, "needs --optimizer=adam or adamw"},
      {epsilon, adam, "needs --optimizer=adam or adamw"},
      {warmupSteps, lrSchedule == "cosine", "needs --lr-schedule=cosine"},
      {totalSteps, lrSchedule == "cosine", "needs --lr-schedule=cosine"},
      {minLr, lrSchedule == "cosine", "needs --lr-schedule=cosine"},
      {stepSize, lrSchedule == "step", "needs --lr-schedule=step"},
      {decayGamma, lrSchedule == "step", "needs --lr-schedule=step"},
      {writeHostfile, !cluster.empty(), "needs --cluster"},
      {loss, training, "needs --train"},
      {label, training, "needs --train"},
      {optimizer, training, "needs --train"},
      {lr, training, "needs --train"},
      {weightDecay, training, "needs --train"},
      {clipNorm, training, "needs --train"},
      {freeze, training, "needs --train"},
      {lrSchedule, training, "needs --train"},
      {syncBatchNorm, training, "needs --train"},
      {bucketBytes, training, "needs --train"},
      {strategy, strategies, "needs --train (or --emit=strategy)"},
      {staleness, training, "needs --train"},
      {stale, staleness > 0, "needs --staleness"},
      {compensation, staleness > 0, "needs --staleness"},
      {wpEstimator, compensation == "weight_prediction",
       "needs --compensation=weight_prediction"},
      {dcVariant, compensation == "delay_compensation",
       "needs --compensation=delay_compensation"},
      {dcLambda, compensation == "delay_compensation",
       "needs --compensation=delay_compensation"},
      {staleWarmup, staleness > 0, "needs --staleness"},
      {cluster, strategies, "needs --train (or --emit=strategy)"},
  };
  for (const Rule &r : rules)
    if (r.flag.getNumOccurrences() && !r.meaningful)
      return fail("--" + r.flag.ArgStr + " " + r.needs);
  return 0;
}

autodist::dist::StrategyAttr strategyOf(ModuleOp module) {
  return module->getAttrOfType<autodist::dist::StrategyAttr>("dist.strategy");
}

/// --explain, --dump-strategy and --write-hostfile, once the strategy is
/// attached.
int writeStrategyOutputs(ModuleOp module) {
  if (explain) {
    PassManager pm(module.getContext());
    pm.addPass(autodist::createExplainStrategy());
    if (failed(pm.run(module)))
      return 1;
  }
  std::string err;
  if (!dumpStrategy.empty() &&
      failed(autodist::writeFileAtomically(
          dumpStrategyTarget, autodist::printStrategyJSON(strategyOf(module)),
          err)))
    return fail(err);
  if (!writeHostfile.empty()) {
    auto c = module->getAttrOfType<autodist::dist::ClusterAttr>("dist.cluster");
    if (!c)
      return fail("--write-hostfile needs --cluster");
    if (failed(autodist::writeFileAtomically(hostfileTarget,
                                             autodist::mpiHostfile(c), err)))
      return fail(err);
  }
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  autodist::installSignalHandlers(); // before InitLLVM's handlers
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  std::string clErrors;
  llvm::raw_string_ostream clErrStream(clErrors);
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "AutoDist-MLIR: compile an ONNX model into "
                                   "a distributed training executable\n",
                                   &clErrStream)) {
    llvm::StringRef first = llvm::StringRef(clErrors).split('\n').first;
    llvm::errs() << first.trim() << "\n";
    return 2;
  }
  if (target != "cpu")
    return fail("--target=" + target +
                " is not supported yet (supported: cpu)");
  if (optLevel > 3)
    return fail("-O" + llvm::Twine(optLevel.getValue()) +
                ": the optimization level must be 0, 1, 2 or 3");

  autodist::OnnxImportOptions importOptions;
  std::string shapeError =
      autodist::parseInputShapes(inputShapes, importOptions);
  if (shapeError.empty())
    shapeError = autodist::parseBoundInputs(boundInputs, importOptions);
  if (!shapeError.empty())
    return fail(shapeError);
  importOptions.outputs = {{"-o", outputFile},
                           {"--dump-strategy", dumpStrategy},
                           {"--write-hostfile", writeHostfile}};
  if (convBackend != "auto" && convBackend != "im2col" &&
      convBackend != "onednn")
    return fail("unknown --conv-backend '" + convBackend +
                "' (expected auto, im2col or onednn)");

  if (int rc = checkFlagCombinations())
    return rc;
  if (int rc = checkOutputs())
    return rc;
  if (int fd;
      std::error_code ec = llvm::sys::fs::openFileForRead(inputFile, fd))
    return fail("cannot read '" + inputFile + "': " + ec.message());
  else
    llvm::sys::Process::SafelyCloseFileDescriptor(fd);

  autodist::registerAllPassesAndPipelines();
  DialectRegistry registry;
  autodist::registerAllDialects(registry);
  MLIRContext context(registry);
  context.getDiagEngine().registerHandler(printDiagnostic);

  progress("importing " + inputFile);
  OwningOpRef<ModuleOp> module =
      autodist::importOnnxFile(&context, inputFile, importOptions);
  if (!module)
    return 1;
  if (auto dir =
          (*module)->getAttrOfType<StringAttr>("autodist.external_data_dir"))
    progress("the weights stay in their external data files in " +
             dir.getValue() +
             ", which the executable reads at start (--external-data=DIR "
             "if they move)");
  if (!train && emit != Emit::Strategy &&
      (explain || !dumpStrategy.empty() || !strategyFile.empty()))
    return fail("strategies distribute training: add --train (or "
                "--emit=strategy to only build the strategy)");
  if (train || emit == Emit::Strategy) {
    autodist::TrainOptions o;
    o.loss = loss;
    o.optimizer = optimizer;
    o.label = label;
    o.lr = lr;
    o.momentum = momentum;
    o.nesterov = nesterov;
    o.weightDecay = weightDecay;
    o.beta1 = beta1;
    o.beta2 = beta2;
    o.epsilon = epsilon;
    o.clipNorm = clipNorm;
    o.freeze.assign(freeze.begin(), freeze.end());
    o.schedule = lrSchedule;
    o.warmupSteps = warmupSteps;
    o.totalSteps = totalSteps;
    o.minLr = minLr;
    o.stepSize = stepSize;
    o.gamma = decayGamma;
    o.strategy = strategy;
    o.strategyFile = strategyFile;
    o.clusterFile = cluster;
    o.chunkSize = chunkSize;
    o.placement = psPlacement;
    o.seed = seed;
    o.syncBatchNorm = syncBatchNorm;
    o.staleness = staleness;
    o.stale = stale;
    o.compensation = compensation;
    o.wpEstimator = wpEstimator;
    o.dcVariant = dcVariant;
    o.dcLambda = dcLambda;
    o.staleWarmup = staleWarmup;
    o.withTrainStep = train;
    progress((train ? "building the training step (" + loss + ", " + optimizer +
                          ") and the "
                    : std::string("building the ")) +
             (strategyFile.empty() ? "'" + strategy + "' strategy"
                                   : "strategy of " + strategyFile));
    if (failed(autodist::buildTrainingStep(*module, o)))
      return 1;
    if (int rc = writeStrategyOutputs(*module))
      return rc;
    if (emit == Emit::Strategy)
      return writeAtomically([&](llvm::StringRef tmp, std::string &err) {
        return writeText(tmp, err, [&](llvm::raw_ostream &os) {
          os << autodist::printStrategyJSON(strategyOf(*module));
        });
      });
    if (failed(autodist::synchronize(*module, bucketBytes)))
      return 1;
  }
  if (failed(autodist::runPipeline(
          *module, "autodist-select-conv-backend{backend=" + convBackend + "}",
          false)))
    return 1;
  if (emit == Emit::MLIR)
    return writeAtomically([&](llvm::StringRef tmp, std::string &err) {
      return writeText(tmp, err,
                       [&](llvm::raw_ostream &os) { module->print(os); });
    });

  progress("lowering to LLVM");
  if (failed(
          autodist::runPipeline(*module, autodist::loweringPipeline(), false)))
    return 1;
  if (emit == Emit::LLVM)
    return writeAtomically([&](llvm::StringRef tmp, std::string &err) {
      llvm::LLVMContext llvmContext;
      auto llvmModule = translateModuleToLLVMIR(*module, llvmContext);
      if (!llvmModule) {
        err = "translation to LLVM IR failed";
        return failure();
      }
      return writeText(tmp, err, [&](llvm::raw_ostream &os) {
        llvmModule->print(os, nullptr);
      });
    });

  if (emit == Emit::Obj) {
    progress("emitting " + outputFile);
    return writeAtomically([&](llvm::StringRef tmp, std::string &err) {
      return autodist::emitObjectFile(*module, inputFile, optLevel, jobs, tmp,
                                      err);
    });
  }
  progress("emitting the object file");
  int rc = writeAtomically([&](llvm::StringRef tmp, std::string &err) {
    std::vector<std::string> objects;
    LogicalResult r = autodist::emitObjectFiles(*module, inputFile, optLevel,
                                                jobs, tmp, objects, err);
    if (succeeded(r)) {
      progress("linking");
      r = autodist::linkExecutable(objects, tmp, err);
    }
    autodist::removeFiles(objects);
    return r;
  });
  if (rc == 0)
    progress("wrote " + outputFile);
  return rc;
}
