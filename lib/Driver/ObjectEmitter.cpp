//===- ObjectEmitter.cpp - LLVM dialect to a host object file -------------===//

#include "autodist/Driver/Pipeline.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

using namespace mlir;

namespace autodist {

/// A target machine for the host CPU (the executable runs where it is built
/// or on the same kind of machine), position independent for linking.
static std::unique_ptr<llvm::TargetMachine>
hostTargetMachine(unsigned optLevel, std::string &error) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  llvm::SubtargetFeatures features;
  for (const auto &[name, enabled] : llvm::sys::getHostCPUFeatures())
    features.AddFeature(name, enabled);
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, llvm::sys::getHostCPUName(), features.getString(),
      llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOpt::getLevel(optLevel).value_or(
          llvm::CodeGenOptLevel::Aggressive)));
}

/// Adds the model bytes and their size as external constants.
static void embedModel(llvm::Module &module, llvm::StringRef bytes) {
  llvm::LLVMContext &ctx = module.getContext();
  llvm::Constant *data = llvm::ConstantDataArray::get(
      ctx, llvm::ArrayRef<uint8_t>(
               reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
  new llvm::GlobalVariable(module, data->getType(), /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage, data,
                           "autodist_model_onnx");
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  new llvm::GlobalVariable(
      module, i64, true, llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantInt::get(i64, bytes.size()), "autodist_model_onnx_size");
}

LogicalResult emitObjectFile(ModuleOp module, llvm::StringRef modelBytes,
                             unsigned optLevel, llvm::StringRef path,
                             std::string &error) {
  if (optLevel > 3) {
    error = "optimization level " + std::to_string(optLevel) +
            " is out of range 0-3";
    return failure();
  }
  std::unique_ptr<llvm::TargetMachine> tm = hostTargetMachine(optLevel, error);
  if (!tm)
    return failure();
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "autodist_model");
  if (!llvmModule) {
    error = "translation to LLVM IR failed";
    return failure();
  }
  llvmModule->setTargetTriple(tm->getTargetTriple());
  llvmModule->setDataLayout(tm->createDataLayout());
  embedModel(*llvmModule, modelBytes);
  if (llvm::Error e =
          makeOptimizingTransformer(optLevel, 0, tm.get())(llvmModule.get())) {
    error = llvm::toString(std::move(e));
    return failure();
  }
  std::error_code ec;
  llvm::ToolOutputFile out(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot write '" + path.str() + "': " + ec.message();
    return failure();
  }
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, out.os(), nullptr,
                              llvm::CodeGenFileType::ObjectFile)) {
    error = "the target cannot emit object files";
    return failure();
  }
  pm.run(*llvmModule);
  out.keep();
  return success();
}

} // namespace autodist
