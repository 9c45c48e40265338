//===- Target.h - code generation targets -----------------------*- C++ -*-===//
//
// A target owns its lowering: the passes from nn/dist on tensors to the LLVM
// dialect with the runtime ABI, and with them its library choices (BLAS,
// oneDNN on CPU). `--target` picks one.
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_DRIVER_TARGET_H
#define AUTODIST_DRIVER_TARGET_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"

#include <string>

namespace autodist {

/// What selects and configures a target.
struct TargetOptions {
  /// A name of targetNames().
  std::string name = "cpu";
  /// The CPU target's convolutions: auto, im2col or onednn
  /// (convert-nn-conv-to-library).
  std::string convBackend = "auto";
  /// The cuda target's GPU architecture (`sm_80` or newer: CUDA 13's ptxas
  /// has no older ones, and MLIR's NaN-propagating max needs sm_80).
  std::string cudaArch = "sm_90";
  /// The CUDA toolkit whose ptxas and libdevice the cuda target uses.
  std::string cudaToolkit;
  /// How the kernels are embedded: `bin` (a cubin for cudaArch) or `isa`
  /// (PTX text: what tests read).
  std::string cudaFormat = "bin";
  /// The cuda target's IR rewrites, its kernels then run as loops on the
  /// host with the CPU runtime: checks them where there is no GPU.
  bool cudaEmulate = false;
};

/// The CUDA toolkit to use: $CUDA_HOME, else $CUDA_PATH, else the
/// directory above the `ptxas` on PATH, else /usr/local/cuda.
std::string defaultCudaToolkit();

/// Why `arch` is not an architecture the cuda target compiles for, or "".
std::string checkCudaArch(llvm::StringRef arch);

/// The targets, as `--target` takes them.
llvm::ArrayRef<llvm::StringLiteral> targetNames();

/// Adds the lowering of `target` to `pm`; an error for a name that is not a
/// target (built before there is IR to attach a diagnostic to).
llvm::Error buildLoweringPipeline(mlir::OpPassManager &pm,
                                  const TargetOptions &target);

} // namespace autodist

#endif // AUTODIST_DRIVER_TARGET_H
