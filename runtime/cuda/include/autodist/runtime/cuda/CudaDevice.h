//===- CudaDevice.h - The CUDA GPU as the runtime's device ------*- C++ -*-===//
//
// The device of `--target=cuda` executables: their main() installs it with
// setDevice(&cudaDevice()) before runMain, and the trainer's select() then
// binds the rank to a GPU, makes the compute stream and the cuBLASLt handle
// the steps use, and installs the NCCL communicator. Declared apart from the
// implementation so that Main.cpp needs no CUDA header.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_CUDA_CUDADEVICE_H
#define AUTODIST_RUNTIME_CUDA_CUDADEVICE_H

#include "autodist/runtime/Device.h"

namespace autodist::rt {

/// The process's CUDA device (one per process; nothing touches CUDA until
/// select()).
Device &cudaDevice();

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_CUDA_CUDADEVICE_H
