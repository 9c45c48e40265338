//===- GpuPresent.h - Whether the CUDA runtime tests have a GPU -*- C++ -*-===//
//
// The GPU cases of the cuda runtime's tests skip without one (CI machines).
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_TEST_RUNTIME_CUDA_GPUPRESENT_H
#define AUTODIST_TEST_RUNTIME_CUDA_GPUPRESENT_H

#include <cuda_runtime_api.h>

namespace autodist::rt::test {

/// Whether a CUDA device is usable (clears the error a probe leaves).
inline bool gpuPresent() {
  int count = 0;
  bool present = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  cudaGetLastError();
  return present;
}

} // namespace autodist::rt::test

#endif // AUTODIST_TEST_RUNTIME_CUDA_GPUPRESENT_H
