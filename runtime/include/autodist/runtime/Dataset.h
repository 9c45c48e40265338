//===- Dataset.h - Samples from a .npz file ---------------------*- C++ -*-===//
//
// The arrays one run feeds the model: one per manifest input, named after it,
// plus the labels. Each array's leading dimension is the sample count (the
// same for all of them) and the other dimensions must match the manifest.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_DATASET_H
#define AUTODIST_RUNTIME_DATASET_H

#include "autodist/runtime/Manifest.h"
#include "autodist/runtime/Tensor.h"

#include <optional>
#include <string>
#include <vector>

namespace autodist::rt {

class Dataset {
public:
  /// Loads and validates `path`. `labels` may be null (no labels wanted);
  /// if the file lacks them that is an error only when `labelsRequired`.
  Dataset(const std::string &path, const std::vector<TensorSpec> &inputs,
          const TensorSpec *labels, bool labelsRequired);

  const std::string &path() const { return path_; }
  /// 1 when whole() is true.
  int64_t numSamples() const { return numSamples_; }
  /// Whether no input has a batch dimension and the file gives each at
  /// exactly its shape: the arrays are one call's arguments, not samples.
  bool whole() const { return whole_; }
  std::vector<Tensor> &inputs() { return inputs_; }
  /// Null when the file has no labels (or none were asked for).
  Tensor *labels() { return labels_ ? &*labels_ : nullptr; }

private:
  std::string path_;
  int64_t numSamples_ = -1;
  bool whole_ = false;
  std::vector<Tensor> inputs_;
  std::optional<Tensor> labels_;
};

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_DATASET_H
