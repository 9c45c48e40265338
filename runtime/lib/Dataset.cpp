//===- Dataset.cpp - Samples from a .npz file -----------------------------===//

#include "autodist/runtime/Dataset.h"
#include "autodist/runtime/Error.h"
#include "autodist/runtime/InputBatch.h"
#include "autodist/runtime/Npz.h"

#include <memory>

namespace autodist::rt {

Dataset::Dataset(const std::string &path, const std::vector<TensorSpec> &inputs,
                 const TensorSpec *labels, bool labelsRequired,
                 Residency residency)
    : path_(path) {
  auto file = std::make_shared<const NpzFile>(path);
  const NpzFile &npz = *file;
  auto open = [&](const TensorSpec &spec) {
    // Bag offsets are read at random (InputBatcher): in memory.
    if (residency == Residency::OnDemand && spec.bagIds.empty())
      if (std::optional<NpzFile::StoredArray> stored =
              npz.storedArray(spec.name, spec.dtype))
        return DataArray(file, std::move(stored->layout), stored->offset);
    return DataArray(npz.read(spec.name, spec.dtype));
  };
  auto load = [&](const TensorSpec &spec) {
    DataArray t = open(spec);
    std::string what =
        "array " + inQuotes(spec.name) + " in data file " + inQuotes(path);
    // Everything but the leading (sample) dimension must match exactly.
    std::vector<int64_t> want(spec.shape.begin() + 1, spec.shape.end());
    std::vector<int64_t> have;
    if (t.rank() > 0)
      have.assign(t.shape().begin() + 1, t.shape().end());
    if (t.rank() != static_cast<int64_t>(spec.shape.size()) || have != want) {
      std::vector<int64_t> expected = spec.shape;
      expected[0] = -1;
      throw Error(what + " has shape " + shapeString(t.shape()) +
                  ", expected " + shapeString(expected) +
                  " (-1: any number of samples)");
    }
    if (!spec.bagOffsets.empty())
      return t; // bag ids: all samples' ids, as many as they have
    if (numSamples_ >= 0 && t.shape()[0] != numSamples_)
      throw Error(what + " has " + std::to_string(t.shape()[0]) +
                  " samples, but the arrays before it have " +
                  std::to_string(numSamples_));
    numSamples_ = t.shape()[0];
    return t;
  };
  // Inputs without a batch dimension (all static) given at exactly their
  // shapes: one whole call, e.g. a node test whose inputs are unrelated
  // matrices. Otherwise the leading dimension counts samples.
  bool anyBatched = false;
  for (const TensorSpec &in : inputs)
    anyBatched |= in.isBatched();
  if (!labels && !anyBatched) {
    whole_ = true;
    for (const TensorSpec &in : inputs) {
      whole_ &= npz.has(in.name);
      if (whole_)
        whole_ &= npz.read(in.name, in.dtype).shape() == in.shape;
    }
    if (whole_) {
      for (const TensorSpec &in : inputs)
        inputs_.emplace_back(npz.read(in.name, in.dtype));
      numSamples_ = 1;
      return;
    }
  }
  for (const TensorSpec &in : inputs)
    inputs_.push_back(load(in));
  for (size_t i = 0; i < inputs.size(); ++i)
    for (size_t j = 0; j < inputs.size(); ++j)
      if (!inputs[i].bagIds.empty() && inputs[j].name == inputs[i].bagIds)
        checkBagOffsets(inputs[i], inputs_[i], inputs_[j], path);
  if (labels && (labelsRequired || npz.has(labels->name)))
    labels_ = load(*labels);
  if (numSamples_ < 0)
    numSamples_ = 0;
}

} // namespace autodist::rt
