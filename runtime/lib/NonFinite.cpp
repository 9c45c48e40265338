//===- NonFinite.cpp - Detecting a diverged training step -----------------===//

#include "autodist/runtime/NonFinite.h"
#include "autodist/runtime/Error.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace autodist::rt {

std::optional<NonFinitePolicy> parseNonFinitePolicy(std::string_view s) {
  if (s == "stop")
    return NonFinitePolicy::Stop;
  if (s == "skip")
    return NonFinitePolicy::Skip;
  if (s == "continue")
    return NonFinitePolicy::Continue;
  return std::nullopt;
}

int64_t firstNonFinite(const float *data, int64_t n) {
  // An all-ones exponent is NaN or inf. The first pass is an integer OR
  // reduction, which vectorizes (a float compare loop with an early exit
  // does not): the check costs a read of what the step just wrote.
  constexpr uint32_t exponent = 0x7f800000u;
  constexpr int64_t block = 4096;
  for (int64_t start = 0; start < n; start += block) {
    int64_t end = std::min(n, start + block);
    uint32_t any = 0;
    for (int64_t i = start; i < end; ++i) {
      uint32_t bits;
      std::memcpy(&bits, data + i, sizeof bits);
      any |= (bits & exponent) == exponent;
    }
    if (!any)
      continue;
    for (int64_t i = start; i < end; ++i)
      if (!std::isfinite(data[i]))
        return i;
  }
  return -1;
}

const char *nonFiniteName(float v) {
  if (std::isnan(v))
    return "NaN";
  return v > 0 ? "+inf" : "-inf";
}

namespace {
std::optional<std::string> inTensors(const char *what,
                                     const std::vector<TensorSpec> &specs,
                                     const std::vector<Tensor> &tensors,
                                     bool skipOwned) {
  for (size_t i = 0; i < tensors.size() && i < specs.size(); ++i) {
    const Tensor &t = tensors[i];
    // Only replicated values: every rank must reach the same verdict
    // without communicating (a server's or a rank's own state may differ).
    if (t.dtype() != DType::F32 ||
        (skipOwned && (!specs[i].owners.empty() || specs[i].perRank)))
      continue;
    int64_t at = firstNonFinite(t.data<float>(), t.numElements());
    if (at >= 0)
      return std::string(what) + " " + inQuotes(specs[i].name) + " became " +
             nonFiniteName(t.data<float>()[at]) + " (element " +
             std::to_string(at) + ")";
  }
  return std::nullopt;
}
} // namespace

std::optional<std::string>
findNonFinite(float loss, const std::vector<TensorSpec> &paramSpecs,
              const std::vector<Tensor> &params,
              const std::vector<TensorSpec> &stateSpecs,
              const std::vector<Tensor> &state) {
  if (!std::isfinite(loss))
    return std::string("the loss is ") + nonFiniteName(loss);
  if (auto p = inTensors("parameter", paramSpecs, params, false))
    return p;
  return inTensors("optimizer state", stateSpecs, state, true);
}

} // namespace autodist::rt
