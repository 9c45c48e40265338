//===- DataArray.h - One array of a data file -------------------*- C++ -*-===//
//
// An array of a data file, by rows (samples along the leading dimension).
// Either loaded into memory, or, for an array stored uncompressed in the
// .npz, read from the file when its rows are asked for: a training rank then
// holds only the batch it uses, and its memory does not grow with the data
// set (the batch buffer is reused from step to step).
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_DATAARRAY_H
#define AUTODIST_RUNTIME_DATAARRAY_H

#include "autodist/runtime/Npy.h"
#include "autodist/runtime/Npz.h"
#include "autodist/runtime/Tensor.h"

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace autodist::rt {

class DataArray {
public:
  /// An array in memory.
  explicit DataArray(Tensor t);
  /// An array read on demand from `npz`: `layout`'s elements start at file
  /// offset `offset` (NpzFile::storedArray).
  DataArray(std::shared_ptr<const NpzFile> npz, NpyLayout layout,
            uint64_t offset);

  const std::vector<int64_t> &shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  /// Whether the elements are in memory (tensor() is valid).
  bool inMemory() const { return memory_.has_value(); }
  Tensor &tensor() { return *memory_; }

  /// Rows [first, first + count) (within the array) as dtype() elements:
  /// in memory, a pointer into the array; else read into this array's batch
  /// buffer, valid until the next call.
  void *rows(int64_t first, int64_t count);

  /// Calls `fn(elements, firstElement, n)` over the whole array in chunks
  /// (one for an array in memory) of dtype() elements.
  void
  forEachChunk(const std::function<void(const void *, int64_t, int64_t)> &fn);

private:
  DType dtype_;
  std::vector<int64_t> shape_;
  int64_t rowElements_ = 1;
  std::optional<Tensor> memory_;
  // Read on demand: where the elements are, and the buffers rows() reuses.
  std::shared_ptr<const NpzFile> npz_;
  NpyLayout layout_;
  uint64_t offset_ = 0;
  std::optional<Tensor> batch_;
  std::vector<uint8_t> raw_; // stored elements needing conversion
};

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_DATAARRAY_H
