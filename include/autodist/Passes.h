//===- Passes.h - AutoDist-MLIR passes --------------------------*- C++ -*-===//
#ifndef AUTODIST_PASSES_H
#define AUTODIST_PASSES_H

#include "mlir/Pass/Pass.h"
#include <memory>

namespace autodist {

#define GEN_PASS_DECL
#include "autodist/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "autodist/Passes.h.inc"

/// Registers the passes and the named pipelines (autodist-lower-to-llvm).
void registerAllPassesAndPipelines();

} // namespace autodist

#endif // AUTODIST_PASSES_H
