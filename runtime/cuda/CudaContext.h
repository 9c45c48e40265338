//===- CudaContext.h - State shared by the CUDA runtime's files -*- C++ -*-===//
//
// Internal to runtime/cuda: the compute stream every kernel, cuBLASLt call and
// NCCL collective is ordered on (one stream, so no events are needed between
// them), how CUDA errors become Errors, and the few kernels of our own.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_CUDA_CUDACONTEXT_H
#define AUTODIST_RUNTIME_CUDA_CUDACONTEXT_H

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

namespace autodist::rt::cuda {

/// Whether CudaDevice::select() has chosen a GPU (and not yet shut down).
bool deviceSelected();
/// The GPU select() chose.
int deviceOrdinal();
/// The rank's compute stream; null before select().
cudaStream_t computeStream();

/// Throws Error("CUDA <call> failed: <cudaGetErrorString(err)>").
[[noreturn]] void throwCuda(cudaError_t err, const char *call);
inline void check(cudaError_t err, const char *call) {
  if (err != cudaSuccess)
    throwCuda(err, call);
}
/// For failures where nothing can throw (the mgpu* ABI, called by compiled
/// code): keeps the first message; the next Device::synchronize() throws it
/// (and shutdown prints it if nobody synchronized).
void recordAsyncError(const std::string &message);
/// Prints "error: <message>" and ends the job (comm::abort(1)).
[[noreturn]] void fatal(const std::string &message);

/// data[r * ld + c] = data[r * ld + c] * s (or / s), on the compute stream,
/// for r < rows, c < cols.
void scaleOnStream(float *data, int64_t rows, int64_t cols, int64_t ld, float s,
                   bool divide);
/// Fills `count` elements of `elementBytes` (2 or 4) bytes with `value`.
void fillOnStream(void *dst, uint32_t value, uint64_t count, int elementBytes);

/// The PTX of those kernels (a test compiles it with ptxas).
const char *kernelsPtx();

/// Unloads the mgpu* modules and our own kernels (select()'s exit handler,
/// while CUDA is still up).
void unloadModules();
void unloadKernels();

} // namespace autodist::rt::cuda

#endif // AUTODIST_RUNTIME_CUDA_CUDACONTEXT_H
