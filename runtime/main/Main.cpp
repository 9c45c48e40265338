//===- Main.cpp - Entry point of a compiled model's training executable ---===//
//
// Kept apart from the runtime library so that the library (and its tests)
// links without a model object; only this file references the model's
// symbols. The train step is weak because inference builds do not export it.
//
//===----------------------------------------------------------------------===//

#include "autodist/runtime/Trainer.h"

#include <cstdint>

extern "C" {
extern const char autodist_manifest[];
extern const unsigned char autodist_model_onnx[];
extern const int64_t autodist_model_onnx_size;
__attribute__((weak)) void autodist_train_step(void **args);
__attribute__((weak)) void autodist_forward(void **args);
}

int main(int argc, char **argv) {
  return autodist::rt::runMain(argc, argv,
                               {autodist_manifest,
                                {autodist_model_onnx, autodist_model_onnx_size},
                                autodist_train_step,
                                autodist_forward});
}
