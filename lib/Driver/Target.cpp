//===- Target.cpp - code generation targets and their lowerings -----------===//
//
// One entry per target: its name and the builder of its lowering. Today the
// CPU (OpenBLAS sgemm for contractions, oneDNN convolutions where chosen,
// MLIR-generated loops for the rest, MPI collectives); a CUDA target is an
// entry beside it.
//
//===----------------------------------------------------------------------===//

#include "autodist/Driver/Target.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace autodist {
namespace {

/// The CPU target's passes after its convolution library choice, as an
/// mlir-opt pass list (no op anchor).
static const char *const kCPULowering =
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
    // bf16 arithmetic in f32; its casts without libgcc's __truncsfbf2.
    "arith-emulate-unsupported-floats{source-types=bf16 target-type=f32},"
    "autodist-expand-bf16-casts,"
    "expand-strided-metadata,lower-affine,"
    // Allocations go through the runtime's step arena (docs/abi.md).
    "finalize-memref-to-llvm{use-generic-functions},"
    "convert-scf-to-cf,"
    // Dialect conversion is superlinear in the size of a block.
    "autodist-bound-block-size,"
    "convert-to-llvm,"
    "reconcile-unrealized-casts,"
    "autodist-emit-abi";

llvm::Error buildCPULowering(OpPassManager &pm, const TargetOptions &o) {
  std::string errors;
  llvm::raw_string_ostream os(errors);
  std::string pipeline = "autodist-export-manifest,"
                         "convert-nn-conv-to-onednn{backend=" +
                         o.convBackend + "}," + kCPULowering;
  if (failed(parsePassPipeline(pipeline, pm, os)))
    return llvm::createStringError("invalid CPU lowering pipeline: " + errors);
  return llvm::Error::success();
}

struct Target {
  llvm::StringLiteral name;
  llvm::Error (*build)(OpPassManager &, const TargetOptions &);
};

const Target kTargets[] = {{"cpu", buildCPULowering}};

} // namespace

llvm::ArrayRef<llvm::StringLiteral> targetNames() {
  static const llvm::SmallVector<llvm::StringLiteral> names = [] {
    llvm::SmallVector<llvm::StringLiteral> n;
    for (const Target &t : kTargets)
      n.push_back(t.name);
    return n;
  }();
  return names;
}

llvm::Error buildLoweringPipeline(OpPassManager &pm,
                                  const TargetOptions &target) {
  for (const Target &t : kTargets)
    if (t.name == target.name)
      return t.build(pm, target);
  return llvm::createStringError(
      "unknown target '" + target.name +
      "' (supported: " + llvm::join(targetNames(), ", ") + ")");
}

} // namespace autodist
