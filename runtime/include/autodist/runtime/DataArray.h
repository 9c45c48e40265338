//===- DataArray.h - One array of a data file -------------------*- C++ -*-===//
//
// An array of a data file, by rows (samples along the leading dimension).
// Either loaded into memory, or, for an array stored uncompressed in the
// .npz, read from the file when its rows are asked for: a training rank then
// holds only the batch it uses, and its memory does not grow with the data
// set (two batch buffers, reused from step to step: one the running step
// reads, one the next step's rows are read into meanwhile, readAhead()).
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
  /// in memory, a pointer into the array; else read into one of this
  /// array's batch buffers (or taken from the one readAhead() filled with
  /// exactly these rows), valid until the next rows() call (readAhead()
  /// leaves it alone).
  void *rows(int64_t first, int64_t count);
  /// Reads rows [first, first + count) into the batch buffer the last
  /// rows() did not return, and starts moving them to the device, so that
  /// a rows() call for them needs no read: called while compiled code
  /// still works on the last rows() (a no-op for an array in memory).
  void readAhead(int64_t first, int64_t count);

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
  std::optional<Tensor> batches_[2];
  int current_ = 0; // the buffer rows() returned last
  struct Range {
    int64_t first, count;
  };
  std::optional<Range> ahead_; // in the other buffer
  std::vector<uint8_t> raw_;   // stored elements needing conversion

  /// Reads rows [first, first + count) into batches_[slot].
  void *read(int slot, int64_t first, int64_t count);
};

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_DATAARRAY_H
