//===- Memref.h - MLIR memref descriptors -----------------------*- C++ -*-===//
//
// Builds the strided memref descriptors of docs/abi.md for contiguous
// row-major buffers, for any rank, as a run of int64 words:
//   {allocated, aligned, offset, sizes[R], strides[R]}
// (pointers are 64-bit, so every field is one word and there is no padding),
// and collects them into the `void **args` array the entry points take.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_MEMREF_H
#define AUTODIST_RUNTIME_MEMREF_H

#include "autodist/runtime/Tensor.h"

#include <cstdint>
#include <vector>

namespace autodist::rt {

static_assert(sizeof(void *) == sizeof(int64_t), "the ABI assumes 64-bit");

/// Typed view of a descriptor, for the C-ABI functions compiled code calls.
template <typename T, int Rank> struct StridedMemref {
  T *allocated;
  T *aligned;
  int64_t offset;
  int64_t sizes[Rank];
  int64_t strides[Rank];
};
template <typename T> struct StridedMemref<T, 0> {
  T *allocated;
  T *aligned;
  int64_t offset;
};

/// Row-major strides of `shape` (the last one is 1).
std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &shape);

/// One descriptor for `data` viewed with `shape`, row-major, offset 0.
class MemrefDescriptor {
public:
  MemrefDescriptor(void *data, const std::vector<int64_t> &shape);

  int64_t rank() const { return (words_.size() - 3) / 2; }
  const std::vector<int64_t> &words() const { return words_; }
  /// What goes into `args[i]`.
  void *get() { return words_.data(); }

private:
  std::vector<int64_t> words_;
};

/// The argument array of one call into compiled code.
class CallArgs {
public:
  void add(void *data, const std::vector<int64_t> &shape) {
    descriptors_.emplace_back(data, shape);
  }
  void add(Tensor &t) { add(t.data(), t.shape()); }
  /// `args`, valid until the next add().
  void **get();

private:
  std::vector<MemrefDescriptor> descriptors_;
  std::vector<void *> pointers_;
};

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_MEMREF_H
