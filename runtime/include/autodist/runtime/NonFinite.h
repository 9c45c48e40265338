//===- NonFinite.h - Detecting a diverged training step ---------*- C++ -*-===//
//
// --on-nonfinite: after each step the runtime looks at the loss and at the
// updated parameters and replicated optimizer state for a NaN or an
// infinity (the train step returns no gradient norm: a non-finite gradient
// shows up in the parameters it updated). See docs/user-guide.md.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_NONFINITE_H
#define AUTODIST_RUNTIME_NONFINITE_H

#include "autodist/runtime/Manifest.h"
#include "autodist/runtime/Tensor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace autodist::rt {

/// What a step with a non-finite loss or update does: stop the run (before
/// anything is saved), skip its update, or carry on regardless.
enum class NonFinitePolicy { Stop, Skip, Continue };

/// "stop", "skip" or "continue"; nullopt for anything else.
std::optional<NonFinitePolicy> parseNonFinitePolicy(std::string_view s);

/// The index of the first NaN or infinity among `n` floats, or -1.
int64_t firstNonFinite(const float *data, int64_t n);

/// "NaN", "+inf" or "-inf" for a non-finite `v`.
const char *nonFiniteName(float v);

/// What is non-finite after a step, as a phrase for a message ("the loss is
/// NaN", "parameter 'fc1.weight' became +inf (element 3)"), or nullopt when
/// everything is finite. Looks at `loss`, every f32 parameter and every
/// state buffer neither with `owners` nor per rank (those are the same on
/// every rank, so all ranks reach the same verdict without communicating).
std::optional<std::string>
findNonFinite(float loss, const std::vector<TensorSpec> &paramSpecs,
              const std::vector<Tensor> &params,
              const std::vector<TensorSpec> &stateSpecs,
              const std::vector<Tensor> &state);

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_NONFINITE_H
