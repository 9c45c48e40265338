//===- Trainer.h - The training executable's main loop ----------*- C++ -*-===//
//
// Everything `main` does: parse the command line, load data and initial
// parameters, run the compiled train step for --steps steps on every rank,
// then (on rank 0) save, evaluate and predict.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_TRAINER_H
#define AUTODIST_RUNTIME_TRAINER_H

#include "autodist/runtime/ModelParams.h"

namespace autodist::rt {

/// The symbols of docs/abi.md, as found in the linked model object.
struct ModelEntryPoints {
  const char *manifest;
  OnnxBytes onnx;
  void (*trainStep)(void **args); // null for inference-only builds
  void (*forward)(void **args);
};

/// Runs the trainer; returns the process exit code. Initializes and
/// finalizes MPI.
int runMain(int argc, char **argv, const ModelEntryPoints &model);

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_TRAINER_H
