//===- Compile.h - the compiler as a library --------------------*- C++ -*-===//
//
// autodist::compile is the one place that knows the stage order: import →
// training step (autodiff, loss, optimizer) and strategy → synchronization →
// lowering → object files → link with the runtime. autodist-compile only
// parses argv into CompileOptions; the C API (autodist-c/Compile.h) and the
// Python package call the same function.
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_DRIVER_COMPILE_H
#define AUTODIST_DRIVER_COMPILE_H

#include "autodist/Driver/CompileOptions.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Twine.h"

#include <memory>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace autodist {

/// A context with every dialect and interface the compiler uses, and every
/// pass registered for textual pipelines.
std::unique_ptr<mlir::MLIRContext> createCompilerContext();

/// Checks `options` on their own, before any work: known values and flags
/// that mean nothing without another. compile() checks them first, then
/// that the outputs are not inputs, special files or each other, and that
/// the input is readable.
mlir::LogicalResult verifyCompileOptions(mlir::MLIRContext &context,
                                         const CompileOptions &options);

/// Compiles `options.input` into `options.output` (what `options.emit`
/// says), with the side outputs the options ask for (--dump-strategy,
/// --write-hostfile, --explain-json). Errors are diagnostics of `context`
/// (register a handler to see them), located at the model file where they
/// concern it. A failed compile leaves every output as it was. `progress`,
/// unless options.quiet, gets one line per stage.
mlir::LogicalResult
compile(mlir::MLIRContext &context, const CompileOptions &options,
        llvm::function_ref<void(const llvm::Twine &)> progress = {});

} // namespace autodist

#endif // AUTODIST_DRIVER_COMPILE_H
