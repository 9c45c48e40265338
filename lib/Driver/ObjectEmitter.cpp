//===- ObjectEmitter.cpp - LLVM dialect to a host object file -------------===//

#include "autodist/Driver/CodegenPartition.h"
#include "autodist/Driver/Pipeline.h"
#include "autodist/runtime/AbiNames.h"

#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <numeric>
#include <unistd.h>

using namespace mlir;

namespace autodist {

/// A target machine for the host CPU (the executable runs where it is built
/// or on the same kind of machine), position independent for linking. The
/// native target must be initialized (emitObjectFiles does it once, before
/// its worker threads start).
static llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
hostTargetMachine(unsigned optLevel) {
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string lookupError;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, lookupError);
  if (!target)
    return llvm::createStringError(lookupError);
  llvm::SubtargetFeatures features;
  for (const auto &[name, enabled] : llvm::sys::getHostCPUFeatures())
    features.AddFeature(name, enabled);
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, llvm::sys::getHostCPUName(), features.getString(),
      llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOpt::getLevel(optLevel).value_or(
          llvm::CodeGenOptLevel::Aggressive)));
}

/// Runs LLVM's default pipeline at `optLevel` (0-3) on `module`, as
/// `opt -O<optLevel>` does. Unlike MLIR's makeOptimizingTransformer, it
/// registers the standard instrumentations, among them the one that makes
/// the pipeline skip `optnone` functions: without it a 24-block GPT's
/// entry points were optimized anyway, and codegen then spent 8 s on them
/// instead of 1.
static void optimizeModule(llvm::Module &module, llvm::TargetMachine &tm,
                           unsigned optLevel) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassInstrumentationCallbacks pic;
  llvm::StandardInstrumentations si(module.getContext(),
                                    /*DebugLogging=*/false);
  si.registerCallbacks(pic, &mam);
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = tuning.LoopInterleaving = true;
  tuning.LoopVectorization = tuning.SLPVectorization = optLevel > 1;
  llvm::PassBuilder pb(&tm, tuning, std::nullopt, &pic);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  static const llvm::OptimizationLevel levels[] = {
      llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1,
      llvm::OptimizationLevel::O2, llvm::OptimizationLevel::O3};
  llvm::ModulePassManager mpm =
      optLevel == 0 ? pb.buildO0DefaultPipeline(levels[0])
                    : pb.buildPerModuleDefaultPipeline(levels[optLevel]);
  mpm.run(module, mam);
}

/// The section that holds the model's bytes in the object file.
static constexpr llvm::StringLiteral kModelSection = ".rodata.autodist_model";

/// Adds `autodist_model_onnx` (`size` bytes, zeros for now: the bytes are
/// written into the object file afterwards by copyModelInto) and
/// `autodist_model_onnx_size`. The zeros cost no memory: LLVM emits them as
/// a fill, never as an array of `size` bytes.
static void reserveModel(llvm::Module &module, uint64_t size) {
  llvm::LLVMContext &ctx = module.getContext();
  auto *type = llvm::ArrayType::get(llvm::Type::getInt8Ty(ctx), size);
  auto *data = new llvm::GlobalVariable(
      module, type, /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantAggregateZero::get(type), abi::kModelOnnx);
  data->setSection(kModelSection);
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  new llvm::GlobalVariable(
      module, i64, true, llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantInt::get(i64, size), abi::kModelOnnxSize);
}

/// Copies the `size` bytes of `modelPath` over the zeros reserveModel left
/// in the object file `objPath`, a chunk at a time.
static llvm::Error copyModelInto(llvm::StringRef objPath,
                                 llvm::StringRef modelPath, uint64_t size) {
  uint64_t offset = 0;
  {
    auto obj = llvm::object::ObjectFile::createObjectFile(objPath);
    if (!obj)
      return obj.takeError();
    const llvm::object::ObjectFile &file = *obj->getBinary();
    bool found = false;
    for (const llvm::object::SectionRef &sec : file.sections()) {
      llvm::Expected<llvm::StringRef> name = sec.getName();
      if (!name || *name != kModelSection)
        continue;
      llvm::Expected<llvm::StringRef> contents = sec.getContents();
      if (!contents || contents->size() != size) {
        llvm::consumeError(contents.takeError());
        break;
      }
      offset = contents->data() - file.getData().data();
      found = true;
    }
    if (!found)
      return llvm::createStringError("the object file has no " +
                                     kModelSection.str() +
                                     " section of the model's size");
  }
  int in, out;
  if (std::error_code ec = llvm::sys::fs::openFileForRead(modelPath, in))
    return llvm::createStringError("cannot read '" + modelPath.str() +
                                   "': " + ec.message());
  if (std::error_code ec = llvm::sys::fs::openFileForReadWrite(
          objPath, out, llvm::sys::fs::CD_OpenExisting,
          llvm::sys::fs::OF_None)) {
    llvm::sys::Process::SafelyCloseFileDescriptor(in);
    return llvm::createStringError("cannot write '" + objPath.str() +
                                   "': " + ec.message());
  }
  std::string error;
  std::vector<char> chunk(1 << 20);
  uint64_t done = 0;
  while (done < size) {
    ssize_t n = ::pread(in, chunk.data(),
                        std::min<uint64_t>(chunk.size(), size - done), done);
    if (n <= 0 || ::pwrite(out, chunk.data(), n, offset + done) !=
                      static_cast<ssize_t>(n)) {
      error = n <= 0 ? "'" + modelPath.str() + "' changed while compiling"
                     : "cannot write '" + objPath.str() + "'";
      break;
    }
    done += n;
  }
  llvm::sys::Process::SafelyCloseFileDescriptor(in);
  if (llvm::sys::Process::SafelyCloseFileDescriptor(out) && error.empty())
    error = "cannot write '" + objPath.str() + "'";
  if (!error.empty())
    return llvm::createStringError(error);
  return llvm::Error::success();
}

/// Compiles one partition in a context of its own: parses its bitcode,
/// optimizes it at `optLevel` unless it is the sequencer, and writes the
/// object file `path`. Runs on a worker thread.
static llvm::Error compilePartition(const CodegenPartition &part,
                                    unsigned optLevel, llvm::StringRef path) {
  // optnone functions only sequence calls: -O0 code generation (FastISel,
  // the fast register allocator) is linear in their size.
  unsigned level = part.sequencer ? 0 : optLevel;
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> machine =
      hostTargetMachine(level);
  if (!machine)
    return machine.takeError();
  std::unique_ptr<llvm::TargetMachine> tm = std::move(*machine);
  llvm::LLVMContext context;
  llvm::Expected<std::unique_ptr<llvm::Module>> module = llvm::parseBitcodeFile(
      llvm::MemoryBufferRef(
          llvm::StringRef(part.bitcode.data(), part.bitcode.size()), path),
      context);
  if (!module)
    return module.takeError();
  if (!part.sequencer)
    optimizeModule(**module, *tm, level);
  // Removed on a signal until removeFiles(), also once written (unlike a
  // kept ToolOutputFile): the objects are temporaries of the compile.
  llvm::sys::RemoveFileOnSignal(path);
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return llvm::createStringError("cannot write '" + path.str() +
                                   "': " + ec.message());
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, out, nullptr,
                              llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError("the target cannot emit object files");
  pm.run(**module);
  out.close();
  if (out.has_error()) {
    std::string msg = out.error().message();
    out.clear_error();
    return llvm::createStringError("cannot write '" + path.str() + "': " + msg);
  }
  return llvm::Error::success();
}

llvm::Error emitObjectFiles(ModuleOp module, llvm::StringRef modelPath,
                            unsigned optLevel, unsigned jobs,
                            llvm::StringRef basePath,
                            std::vector<std::string> &objects) {
  if (optLevel > 3)
    return llvm::createStringError("optimization level " +
                                   std::to_string(optLevel) +
                                   " is out of range 0-3");
  uint64_t modelSize;
  if (std::error_code ec = llvm::sys::fs::file_size(modelPath, modelSize))
    return llvm::createStringError("cannot read '" + modelPath.str() +
                                   "': " + ec.message());
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> machine =
      hostTargetMachine(optLevel);
  if (!machine)
    return machine.takeError();
  std::unique_ptr<llvm::TargetMachine> tm = std::move(*machine);
  if (jobs == 0)
    jobs = std::max(1u, llvm::hardware_concurrency().compute_thread_count());
  std::vector<CodegenPartition> parts;
  {
    llvm::LLVMContext llvmContext;
    std::unique_ptr<llvm::Module> llvmModule =
        translateModuleToLLVMIR(module, llvmContext, "autodist_model");
    if (!llvmModule)
      return llvm::createStringError("translation to LLVM IR failed");
    llvmModule->setTargetTriple(tm->getTargetTriple());
    llvmModule->setDataLayout(tm->createDataLayout());
    reserveModel(*llvmModule, modelSize);
    parts = partitionForCodegen(*llvmModule, jobs);
  }

  std::vector<std::string> errors(parts.size());
  objects.clear();
  for (size_t i = 0; i < parts.size(); ++i)
    objects.push_back((basePath + ".part" + llvm::Twine(i) + ".o").str());
  {
    llvm::StdThreadPool pool(llvm::hardware_concurrency(jobs));
    // The largest partitions first, so that the others fill in around them.
    std::vector<size_t> order(parts.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return parts[a].bitcode.size() > parts[b].bitcode.size();
    });
    for (size_t i : order)
      pool.async([&, i] {
        if (llvm::Error e = compilePartition(parts[i], optLevel, objects[i]))
          errors[i] = llvm::toString(std::move(e));
      });
    pool.wait();
  }
  for (size_t i = 0; i < parts.size(); ++i)
    if (!errors[i].empty()) {
      removeFiles(objects);
      return llvm::createStringError(errors[i]);
    }
  for (size_t i = 0; i < parts.size(); ++i)
    if (parts[i].holdsGlobals)
      if (llvm::Error e = copyModelInto(objects[i], modelPath, modelSize)) {
        removeFiles(objects);
        return e;
      }
  return llvm::Error::success();
}

llvm::Error emitObjectFile(ModuleOp module, llvm::StringRef modelPath,
                           unsigned optLevel, unsigned jobs,
                           llvm::StringRef path) {
  std::vector<std::string> objects;
  if (llvm::Error e =
          emitObjectFiles(module, modelPath, optLevel, jobs, path, objects))
    return e;
  llvm::Error merged = mergeObjects(objects, path);
  removeFiles(objects);
  return merged;
}

} // namespace autodist
