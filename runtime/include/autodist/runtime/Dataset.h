//===- Dataset.h - Samples from a .npz file ---------------------*- C++ -*-===//
//
// The arrays one run feeds the model: one per manifest input, named after it,
// plus the labels. Each array's leading dimension is the sample count (the
// same for all of them) and the other dimensions must match the manifest;
// but bag ids (nn.embedding_bag) hold all samples' ids, one after the
// other, their offsets input saying where each sample's start.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_DATASET_H
#define AUTODIST_RUNTIME_DATASET_H

#include "autodist/runtime/DataArray.h"
#include "autodist/runtime/Manifest.h"

#include <optional>
#include <string>
#include <vector>

namespace autodist::rt {

class Dataset {
public:
  /// How the arrays are held: all in memory, or those stored uncompressed
  /// read from the file as their rows are used (DataArray).
  enum class Residency { InMemory, OnDemand };

  /// Opens and validates `path`. `labels` may be null (no labels wanted);
  /// if the file lacks them that is an error only when `labelsRequired`.
  Dataset(const std::string &path, const std::vector<TensorSpec> &inputs,
          const TensorSpec *labels, bool labelsRequired,
          Residency residency = Residency::InMemory);

  const std::string &path() const { return path_; }
  /// 1 when whole() is true.
  int64_t numSamples() const { return numSamples_; }
  /// Whether no input has a batch dimension and the file gives each at
  /// exactly its shape: the arrays are one call's arguments, not samples.
  /// They are then in memory.
  bool whole() const { return whole_; }
  std::vector<DataArray> &inputs() { return inputs_; }
  /// Null when the file has no labels (or none were asked for).
  DataArray *labels() { return labels_ ? &*labels_ : nullptr; }

private:
  std::string path_;
  int64_t numSamples_ = -1;
  bool whole_ = false;
  std::vector<DataArray> inputs_;
  std::optional<DataArray> labels_;
};

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_DATASET_H
