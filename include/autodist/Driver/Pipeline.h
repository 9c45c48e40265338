//===- Pipeline.h - the compile pipeline used by the tools ------*- C++ -*-===//
#ifndef AUTODIST_DRIVER_PIPELINE_H
#define AUTODIST_DRIVER_PIPELINE_H

#include "autodist/Driver/CompileOptions.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace autodist {

/// Registers every dialect and interface the tools and pipelines use.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Builds @train_step (autodiff, loss, optimizer) when `options.train`, and
/// attaches the strategy (`dist.strategy`, and `dist.cluster` from a
/// resource spec).
mlir::LogicalResult buildTrainingStep(mlir::ModuleOp module,
                                      const CompileOptions &options);

/// Rewrites @train_step to carry out its strategy (dist-partition,
/// dist-synchronize, dist-staleness-pipeline, dist-split-powersgd), then cuts
/// all-reduce buckets over `bucketBytes` (dist-split-buckets).
mlir::LogicalResult synchronize(mlir::ModuleOp module,
                                int64_t bucketBytes = 1 << 20);

/// Rounds the operands of matrix products to `precision` (bf16 or fp16;
/// nn-mixed-precision); tf32 marks the module's f32 products and
/// convolutions as allowed on TF32 tensor cores (the module attribute
/// `autodist.float32_matmul`, recorded in the manifest); fp32 leaves the
/// module as it is.
mlir::LogicalResult applyPrecision(mlir::ModuleOp module,
                                   llvm::StringRef precision);

/// Runs a pass list on `module`, printing progress to stderr
/// when `verbose` is set.
mlir::LogicalResult runPipeline(mlir::ModuleOp module, llvm::StringRef pipeline,
                                bool verbose);

/// Translates an LLVM-dialect `module` to object files for the host CPU at
/// LLVM optimization level `optLevel` (0-3), embedding the bytes of the ONNX
/// file `modelPath` as `autodist_model_onnx` (docs/abi.md). The bytes are
/// copied from file to file, never held in memory. The module is split into
/// partitions (CodegenPartition.h) compiled on `jobs` threads (0: one per
/// core); `objects` gets their paths, `basePath` + `.partN.o`. On failure
/// none of them is left behind.
llvm::Error emitObjectFiles(mlir::ModuleOp module, llvm::StringRef modelPath,
                            unsigned optLevel, unsigned jobs,
                            llvm::StringRef basePath,
                            std::vector<std::string> &objects);

/// emitObjectFiles, merged into the one relocatable object file `path`.
llvm::Error emitObjectFile(mlir::ModuleOp module, llvm::StringRef modelPath,
                           unsigned optLevel, unsigned jobs,
                           llvm::StringRef path);

/// Links `objects` with the runtime of `target` into the executable
/// `outPath`, with the runtime's link arguments from `linkFile` (empty:
/// found as Linker.cpp says).
llvm::Error linkExecutable(const std::vector<std::string> &objects,
                           llvm::StringRef outPath, llvm::StringRef linkFile,
                           llvm::StringRef target = "cpu");

/// Merges `objects` into the relocatable object file `outPath` (`ld -r`).
llvm::Error mergeObjects(const std::vector<std::string> &objects,
                         llvm::StringRef outPath);

/// Removes `paths`, ignoring those that do not exist, and takes them off the
/// files removed on a signal.
void removeFiles(const std::vector<std::string> &paths);

} // namespace autodist

#endif // AUTODIST_DRIVER_PIPELINE_H
