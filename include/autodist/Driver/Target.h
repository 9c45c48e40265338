//===- Target.h - code generation targets -----------------------*- C++ -*-===//
//
// A target owns its lowering: the passes from nn/dist on tensors to the LLVM
// dialect with the runtime ABI, and with them its library choices (BLAS,
// oneDNN on CPU). `--target` picks one.
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_DRIVER_TARGET_H
#define AUTODIST_DRIVER_TARGET_H

#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"

#include <string>

namespace autodist {

/// What selects and configures a target.
struct TargetOptions {
  /// A name of targetNames().
  std::string name = "cpu";
  /// The CPU target's convolutions: auto, im2col or onednn
  /// (convert-nn-conv-to-onednn).
  std::string convBackend = "auto";
};

/// The targets, as `--target` takes them.
llvm::ArrayRef<llvm::StringLiteral> targetNames();

/// Adds the lowering of `target` to `pm`; an error for a name that is not a
/// target (built before there is IR to attach a diagnostic to).
llvm::Error buildLoweringPipeline(mlir::OpPassManager &pm,
                                  const TargetOptions &target);

} // namespace autodist

#endif // AUTODIST_DRIVER_TARGET_H
