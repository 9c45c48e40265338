//===- Main.cpp - Entry point of a compiled model's training executable ---===//
//
// Kept apart from the runtime library so that the library (and its tests)
// links without a model object; only this file references the model's
// symbols. The train step is weak because inference builds do not export it.
//
//===----------------------------------------------------------------------===//

#include "autodist/runtime/Trainer.h"
#ifdef AUTODIST_TARGET_CUDA
#include "autodist/runtime/cuda/CudaDevice.h"
#endif

#include <malloc.h>

#include <cstdint>
#include <cstdio>

extern "C" {
extern const char autodist_manifest[];
extern const unsigned char autodist_model_onnx[];
extern const int64_t autodist_model_onnx_size;
__attribute__((weak)) void autodist_train_step(void **args);
__attribute__((weak)) void autodist_forward(void **args);
}

int main(int argc, char **argv) {
  // The compiled step allocates its multi-MiB temporaries afresh every step;
  // by default glibc serves those with mmap and returns them with munmap, so
  // every step page-faults and zeroes them again (about 45% of an MLP step in
  // bench/, perf). Keeping freed blocks in the heap makes the steady state
  // reuse them: 1.6x samples/s on the bench MLP, batch 128, 2 ranks.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  // A failed run-time check of the compiled code (cf.assert: a Gather index
  // out of range, a Reshape shape that disagrees with its import-time
  // resolution) puts() its message and aborts: line-buffered, the line is
  // written before the abort even when stdout is a pipe or a file.
  setvbuf(stdout, nullptr, _IOLBF, 0);
#ifdef AUTODIST_TARGET_CUDA
  // A `--target=cuda` executable: compiled code and its buffers on the GPU.
  autodist::rt::setDevice(&autodist::rt::cudaDevice());
#endif
  return autodist::rt::runMain(argc, argv,
                               {autodist_manifest,
                                {autodist_model_onnx, autodist_model_onnx_size},
                                autodist_train_step,
                                autodist_forward});
}
