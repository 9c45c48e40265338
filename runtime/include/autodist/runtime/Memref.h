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

/// The argument array of one call into compiled code. Reused from call to
/// call (clear(), then add() again), it allocates nothing once its buffers
/// have grown to the call's size: a steady-state step makes no allocation.
class CallArgs {
public:
  /// Drops the arguments, keeping the memory.
  void clear() {
    words_.clear();
    starts_.clear();
  }
  /// `data` viewed with `shape`, every -1 in it replaced by `batch`.
  void add(void *data, const std::vector<int64_t> &shape, int64_t batch = -1);
  void add(Tensor &t) { add(t.data(), t.shape()); }
  /// `args`, valid until the next add() or clear().
  void **get();

private:
  std::vector<int64_t> words_; // the descriptors, one after the other
  std::vector<size_t> starts_; // where each begins in words_
  std::vector<void *> pointers_;
};

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_MEMREF_H
