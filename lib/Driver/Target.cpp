//===- Target.cpp - code generation targets and their lowerings -----------===//
//
// One entry per target: its name and the builder of its lowering. The CPU
// (OpenBLAS sgemm for contractions, oneDNN convolutions where chosen,
// MLIR-generated loops for the rest, MPI collectives) and CUDA (cuBLASLt
// behind the same sgemm call, every other loop nest an MLIR-generated
// kernel compiled for one sm_XX and embedded in the object, NCCL
// collectives: docs/cuda.md).
//
//===----------------------------------------------------------------------===//

#include "autodist/Driver/Target.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace autodist {
namespace {

// Both targets' passes from linalg on tensors to buffers, with contractions
// as GEMM calls (`BLAS`: the target's convert-linalg-to-blas): a literal, so
// that each target's list is one constant.
#define AUTODIST_BUFFERIZE_AND_CONTRACT_WITH(BLAS)                             \
  "canonicalize,cse,"                                                          \
  "autodist-fuse-elementwise,"                                                 \
  "autodist-untie-empty-tensors,"                                              \
  "one-shot-bufferize{bufferize-function-boundaries "                          \
  "function-boundary-type-conversion=identity-layout-map},"                    \
  "buffer-results-to-out-params{modify-public-functions "                      \
  "hoist-static-allocs}," /* Contractions: the runtime's sgemm (OpenBLAS;      \
                             cuBLASLt on cuda). */                             \
      BLAS "autodist-deallocate-buffers,"
#define AUTODIST_BUFFERIZE_AND_CONTRACT                                        \
  AUTODIST_BUFFERIZE_AND_CONTRACT_WITH("convert-linalg-to-blas,")
// A Gemm's bias added in cuBLASLt's epilogue, not by a kernel writing C.
#define AUTODIST_BUFFERIZE_AND_CONTRACT_CUDA                                   \
  AUTODIST_BUFFERIZE_AND_CONTRACT_WITH("convert-linalg-to-blas{bias-epilogue}" \
                                       ",")

// Host code (loops, calls) to the LLVM dialect with the runtime ABI: the
// CPU's whole step, the cuda target's under --cuda-emulate.
#define AUTODIST_HOST_TO_LLVM                                                  \
  /* bf16 arithmetic in f32; its casts without libgcc's __truncsfbf2. */       \
  "arith-emulate-unsupported-floats{source-types=bf16 target-type=f32},"       \
  "autodist-expand-bf16-casts,"                                                \
  "expand-strided-metadata,lower-affine," /* Allocations go through the        \
                                             runtime's step arena              \
                                             (docs/abi.md). */                 \
  "finalize-memref-to-llvm{use-generic-functions},"                            \
  "convert-scf-to-cf," /* Dialect conversion is superlinear in the size of a   \
                          block. */                                            \
  "autodist-bound-block-size,"                                                 \
  "convert-to-llvm,"                                                           \
  "reconcile-unrealized-casts,"                                                \
  "autodist-emit-abi"

/// The CPU target's passes after its convolution library choice, as an
/// mlir-opt pass list (no op anchor).
static const char *const kCPULowering =
    "convert-nn-to-linalg,"
    // Which collectives overlap the computation: in the dist IR, once
    // the computation is lowered (its ops are the work to hide behind).
    "dist-overlap-collectives,"
    "convert-dist-to-runtime," AUTODIST_BUFFERIZE_AND_CONTRACT
    "autodist-strided-copies-to-linalg,"
    "autodist-collapse-loop-dims,"
    "convert-linalg-to-loops,"
    "autodist-outline-loops,"
    // Names the compiled time in --trace after the ONNX nodes.
    "autodist-trace-loop-calls,"
    "canonicalize,cse,"
    // Equal shapes give equal loop nests: the blocks of a Transformer
    // then share their outlined functions, so LLVM sees each once.
    "duplicate-function-elimination," AUTODIST_HOST_TO_LLVM;

llvm::Error parseLowering(OpPassManager &pm, const std::string &pipeline) {
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (failed(parsePassPipeline(pipeline, pm, os)))
    return llvm::createStringError("invalid lowering pipeline: " + errors);
  return llvm::Error::success();
}

llvm::Error buildCPULowering(OpPassManager &pm, const TargetOptions &o) {
  return parseLowering(pm, "autodist-export-manifest,"
                           "convert-nn-conv-to-library{backend=" +
                               o.convBackend + "}," + kCPULowering);
}

/// The cuda target's passes from nn/dist to bufferized loops: the CPU's
/// (started all-reduces run on the rank's communication stream, beside the
/// backward pass: runtime/cuda/NcclCommunicator.h), with every copy a loop
/// (device buffers are not memcpy'd by the host).
static const char *const kCUDABufferize =
    "convert-nn-to-linalg,"
    "dist-overlap-collectives,"
    "convert-dist-to-runtime," AUTODIST_BUFFERIZE_AND_CONTRACT_CUDA
    "autodist-strided-copies-to-linalg{all-copies},"
    "autodist-collapse-loop-dims,";

/// Loops to parallel loops, each a kernel to be: what is left on the host
/// that touches memory becomes a one-iteration parallel loop.
static const char *const kCUDAParallelLoops =
    "autodist-parallel-dims-outer,"
    "convert-linalg-to-parallel-loops,"
    // Buffers threaded through loops (a scatter's) become the buffer.
    "canonicalize,"
    "autodist-host-access-to-kernels,"
    "autodist-guard-kernel-asserts,"
    // Consecutive threads on consecutive elements (coalesced accesses).
    "autodist-innermost-dim-first,";

/// Parallel loops to GPU kernels: a grid of 256-thread blocks (outer dims to
/// blocks, the first tiled by 256 to threads).
static const char *const kCUDAKernels =
    // sccp: the tiles' bounds as constants, which the mapping needs (not
    // canonicalize: it would merge the tile loops back).
    "func.func(scf-parallel-loop-tiling{parallel-loop-tile-sizes=256 "
    "no-min-max-bounds},sccp,"
    "gpu-map-parallel-loops,convert-parallel-loops-to-gpu),"
    "autodist-check-device-accesses,"
    "lower-affine,canonicalize,cse,"
    "gpu-kernel-outlining,";

llvm::Error buildCUDALowering(OpPassManager &pm, const TargetOptions &o) {
  if (o.cudaEmulate)
    return parseLowering(pm, std::string("autodist-export-manifest,") +
                                 kCUDABufferize + kCUDAParallelLoops +
                                 // The kernels as loops on the host.
                                 AUTODIST_HOST_TO_LLVM);
  std::string arch = checkCudaArch(o.cudaArch);
  if (!arch.empty())
    return llvm::createStringError(arch);
  if (o.cudaFormat != "bin" && o.cudaFormat != "isa")
    return llvm::createStringError("unknown cuda kernel format '" +
                                   o.cudaFormat + "' (expected bin or isa)");
  std::string toolkit =
      o.cudaToolkit.empty() ? defaultCudaToolkit() : o.cudaToolkit;
  // Without libdevice the kernels' math calls stay undefined (ptxas would
  // fail late, or PTX would silently keep them).
  llvm::SmallString<256> libdevice(toolkit);
  llvm::sys::path::append(libdevice, "nvvm", "libdevice", "libdevice.10.bc");
  if (!llvm::sys::fs::exists(libdevice))
    return llvm::createStringError(
        "no CUDA toolkit at '" + toolkit + "' (" + libdevice.str().str() +
        " is missing): give --cuda-toolkit=DIR or set CUDA_HOME");
  // The toolkit's ptxas makes the cubins, and its libdevice defines the
  // math functions (__nv_expf, ...) the kernels call.
  std::string pipeline =
      std::string("autodist-export-manifest,") +
      // Group-1 f32 convolutions to cuDNN (the runtime's conv2d_* ABI).
      "convert-nn-conv-to-library{library=cudnn backend=" +
      (o.convBackend == "im2col" ? "im2col" : "auto") + "}," + kCUDABufferize +
      kCUDAParallelLoops + kCUDAKernels +
      "nvvm-attach-target{chip=" + o.cudaArch +
      " features=+ptx80 O=3},"
      // Structured control flow first: a kernel's cf.assert splits blocks.
      "gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,canonicalize,cse,"
      "reconcile-unrealized-casts),"
      "expand-strided-metadata,lower-affine,"
      // Allocations go through the runtime (device memory, docs/abi.md).
      "finalize-memref-to-llvm{use-generic-functions},"
      "convert-scf-to-cf,"
      "autodist-bound-block-size,"
      "convert-to-llvm,"
      "gpu-to-llvm,"
      "reconcile-unrealized-casts,"
      "gpu-module-to-binary{format=" +
      o.cudaFormat + " toolkit=" + toolkit + "},autodist-emit-abi";
  return parseLowering(pm, pipeline);
}

struct Target {
  llvm::StringLiteral name;
  llvm::Error (*build)(OpPassManager &, const TargetOptions &);
};

const Target kTargets[] = {{"cpu", buildCPULowering},
                           {"cuda", buildCUDALowering}};

} // namespace

std::string defaultCudaToolkit() {
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (auto dir = llvm::sys::Process::GetEnv(var))
      if (!dir->empty())
        return *dir;
  if (auto ptxas = llvm::sys::findProgramByName("ptxas")) {
    llvm::SmallString<256> real;
    if (!llvm::sys::fs::real_path(*ptxas, real))
      return llvm::sys::path::parent_path(llvm::sys::path::parent_path(real))
          .str();
  }
  return "/usr/local/cuda";
}

std::string checkCudaArch(llvm::StringRef arch) {
  unsigned version = 0;
  llvm::StringRef digits = arch;
  bool valid = digits.consume_front("sm_");
  digits.consume_back("a"); // sm_90a: the architecture-specific features
  valid = valid && !digits.getAsInteger(10, version) && version >= 80;
  if (!valid)
    return "--cuda-arch=" + arch.str() +
           ": expected sm_80 or newer (sm_80, sm_86, sm_89, sm_90, sm_90a, "
           "sm_100, ...)";
  return "";
}

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
