//===- Inference.cpp - Chunked forward passes -----------------------------===//

#include "autodist/runtime/Inference.h"
#include "autodist/runtime/Device.h"
#include "autodist/runtime/Error.h"
#include "autodist/runtime/InputBatch.h"
#include "autodist/runtime/Memref.h"
#include "autodist/runtime/StepArena.h"

#include <algorithm>
#include <string>

namespace autodist::rt {

bool isConcatenable(const TensorSpec &spec) {
  return spec.isBatched() &&
         std::count(spec.shape.begin(), spec.shape.end(), -1) == 1;
}

int64_t chooseChunkSize(const std::vector<TensorSpec> &inputs,
                        const std::vector<TensorSpec> &outputs,
                        int64_t numSamples, int64_t requested,
                        const std::string &file) {
  if (numSamples <= 0)
    throw Error("input file " + inQuotes(file) +
                " has no samples (the leading dimension of its arrays is 0)");
  int64_t chunk = requested ? std::min(requested, numSamples) : numSamples;
  for (const TensorSpec &in : inputs) {
    if (in.shape.empty() || in.isBatched())
      continue;
    // A fixed leading dimension: every call takes exactly that many samples.
    int64_t fixed = in.shape[0];
    std::string pinned = "model input " + inQuotes(in.name) +
                         " has a fixed batch size of " + std::to_string(fixed);
    if (requested && requested != fixed)
      throw Error(pinned + "; use --batch-size=" + std::to_string(fixed) +
                  " or drop --batch-size");
    if (numSamples % fixed != 0)
      throw Error(pinned + ", but input file " + inQuotes(file) + " has " +
                  std::to_string(numSamples) +
                  " samples, not a multiple of it");
    chunk = fixed;
  }
  if (chunk < numSamples)
    for (const TensorSpec &out : outputs)
      if (!isConcatenable(out))
        throw Error(
            "model output " + inQuotes(out.name) + " has shape " +
            shapeString(out.shape) +
            ", without a dynamic leading batch dimension, so its values for "
            "separate chunks cannot be concatenated; drop --batch-size to run "
            "all " +
            std::to_string(numSamples) + " samples in one call");
  return chunk;
}

std::vector<Tensor>
runForwardChunked(const ForwardFn &forward, std::vector<Tensor> &params,
                  const std::vector<TensorSpec> &inputSpecs,
                  std::vector<DataArray> &inputs,
                  const std::vector<TensorSpec> &outputSpecs,
                  int64_t numSamples, int64_t chunk) {
  // A single chunk gives every output its one-call shape; with several, all
  // outputs are concatenable (chooseChunkSize) and each chunk's rows are
  // written in place, so no copies are needed.
  std::vector<Tensor> outs;
  for (const TensorSpec &o : outputSpecs)
    outs.emplace_back(o.dtype, o.withBatch(numSamples));
  InputBatcher batcher(inputSpecs, inputs);
  for (int64_t first = 0; first < numSamples; first += chunk) {
    int64_t rows = std::min(chunk, numSamples - first);
    CallArgs args;
    for (Tensor &p : params)
      args.add(p);
    batcher.add(args, first, rows);
    for (size_t j = 0; j < outputSpecs.size(); ++j)
      args.add(outs[j].rowData(first), outputSpecs[j].withBatch(rows));
    arena::CallScope scope(arena::Entry::Forward);
    forward(args.get());
    device().synchronize();
  }
  return outs;
}

} // namespace autodist::rt
