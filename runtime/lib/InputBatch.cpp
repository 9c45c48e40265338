//===- InputBatch.cpp - Model inputs for a range of samples ---------------===//

#include "autodist/runtime/InputBatch.h"
#include "autodist/runtime/Error.h"

namespace autodist::rt {

namespace {
int64_t elementAt(const DataArray &a, const void *data, int64_t i) {
  return a.dtype() == DType::I32 ? static_cast<const int32_t *>(data)[i]
                                 : static_cast<const int64_t *>(data)[i];
}

int indexOf(const std::vector<TensorSpec> &specs, const std::string &name) {
  for (size_t i = 0; i < specs.size(); ++i)
    if (specs[i].name == name)
      return static_cast<int>(i);
  return -1;
}
} // namespace

InputBatcher::InputBatcher(const std::vector<TensorSpec> &specs,
                           std::vector<DataArray> &arrays)
    : specs_(specs), arrays_(arrays), partner_(specs.size(), -1),
      rebased_(specs.size()) {
  for (size_t i = 0; i < specs.size(); ++i) {
    if (!specs[i].bagOffsets.empty())
      partner_[i] = indexOf(specs, specs[i].bagOffsets);
    if (!specs[i].bagIds.empty())
      partner_[i] = indexOf(specs, specs[i].bagIds);
  }
}

int64_t InputBatcher::bagStart(size_t ids, int64_t s) {
  DataArray &offsets = arrays_[partner_[ids]];
  if (s == offsets.shape()[0])
    return arrays_[ids].shape()[0];
  // Offsets are in memory (Dataset): rows() points into them.
  return elementAt(offsets, offsets.rows(0, 0), s);
}

void InputBatcher::add(CallArgs &args, int64_t first, int64_t count) {
  for (size_t i = 0; i < specs_.size(); ++i) {
    const TensorSpec &spec = specs_[i];
    DataArray &a = arrays_[i];
    if (!spec.bagOffsets.empty()) {
      int64_t begin = bagStart(i, first), end = bagStart(i, first + count);
      args.add(a.rows(begin, end - begin), {end - begin});
      continue;
    }
    if (!spec.bagIds.empty()) {
      size_t ids = partner_[i];
      int64_t begin = bagStart(ids, first);
      // A Tensor (the device's memory: compiled code reads it in place on
      // any target), grown to the largest call and then reused.
      std::optional<Tensor> &out = rebased_[i];
      int64_t n = count + (spec.offsetsIncludeEnd ? 1 : 0);
      if (!out || out->numElements() < n)
        out.emplace(DType::I64, std::vector<int64_t>{n});
      // i64 words; an i32 input uses the first half
      auto *words = out->data<int64_t>();
      for (int64_t k = 0; k < n; ++k) {
        int64_t v = bagStart(ids, first + k) - begin;
        if (spec.dtype == DType::I32)
          reinterpret_cast<int32_t *>(words)[k] = static_cast<int32_t>(v);
        else
          words[k] = v;
      }
      args.add(words, {n});
      continue;
    }
    args.add(a.rows(first, count), spec.shape, count);
  }
}

void InputBatcher::readAhead(int64_t first, int64_t count) {
  for (size_t i = 0; i < specs_.size(); ++i) {
    const TensorSpec &spec = specs_[i];
    if (!spec.bagIds.empty())
      continue; // offsets: in memory, rebased by add()
    if (!spec.bagOffsets.empty()) {
      int64_t begin = bagStart(i, first), end = bagStart(i, first + count);
      arrays_[i].readAhead(begin, end - begin);
      continue;
    }
    arrays_[i].readAhead(first, count);
  }
}

void checkBagOffsets(const TensorSpec &spec, DataArray &offsets, DataArray &ids,
                     const std::string &path) {
  std::string what =
      "array " + inQuotes(spec.name) + " in data file " + inQuotes(path);
  int64_t n = offsets.shape()[0], numIds = ids.shape()[0];
  const void *data = offsets.rows(0, 0);
  int64_t previous = 0;
  for (int64_t s = 0; s < n; ++s) {
    int64_t v = elementAt(offsets, data, s);
    if (v < previous || v > numIds)
      throw Error(what + " has offset " + std::to_string(v) + " at element " +
                  std::to_string(s) + ": the offsets of " +
                  inQuotes(spec.bagIds) +
                  " (where each sample's ids start) must be non-decreasing "
                  "from 0 and at most its " +
                  std::to_string(numIds) + " ids");
    previous = v;
  }
}

} // namespace autodist::rt
