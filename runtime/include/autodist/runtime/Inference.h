//===- Inference.h - Chunked forward passes ---------------------*- C++ -*-===//
//
// `--inputs/--outputs`: run `autodist_forward` over every sample of the input
// arrays, in chunks of a chosen size, and gather every model output over all
// chunks. Outputs whose leading dimension is the dynamic batch are written
// chunk by chunk straight into one tensor over all samples (concatenation
// along the batch dimension); any other output is only defined for a single
// chunk (one call over all samples).
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_INFERENCE_H
#define AUTODIST_RUNTIME_INFERENCE_H

#include "autodist/runtime/DataArray.h"
#include "autodist/runtime/Manifest.h"
#include "autodist/runtime/Tensor.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace autodist::rt {

/// Whether chunk results of output `spec` can be concatenated: its leading
/// dimension is the dynamic batch and no other dimension is dynamic.
bool isConcatenable(const TensorSpec &spec);

/// The chunk size for `numSamples` samples of `inputs`: `requested`
/// (--batch-size; 0 = all samples in one call). An input with a fixed leading
/// dimension pins it. Throws Error naming the input or output at fault;
/// `file` names the input file in messages.
int64_t chooseChunkSize(const std::vector<TensorSpec> &inputs,
                        const std::vector<TensorSpec> &outputs,
                        int64_t numSamples, int64_t requested,
                        const std::string &file);

using ForwardFn = std::function<void(void **args)>;

/// Calls `forward` (docs/abi.md: params, inputs, then outputs) on samples
/// [first, first + chunk) for first = 0, chunk, 2*chunk, ... (the last chunk
/// may be smaller) and returns one tensor per output spec, over all samples.
/// `inputs` holds one array per input spec whose leading dimension is the
/// sample count. `chunk` must come from chooseChunkSize.
std::vector<Tensor>
runForwardChunked(const ForwardFn &forward, std::vector<Tensor> &params,
                  const std::vector<TensorSpec> &inputSpecs,
                  std::vector<DataArray> &inputs,
                  const std::vector<TensorSpec> &outputSpecs,
                  int64_t numSamples, int64_t chunk);

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_INFERENCE_H
