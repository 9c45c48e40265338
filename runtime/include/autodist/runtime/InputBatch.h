//===- InputBatch.h - Model inputs for a range of samples -------*- C++ -*-===//
//
// What a call of the model gets for samples [first, first + count): each
// batched input its rows. Bag inputs (nn.embedding_bag, docs/abi.md "Bag
// inputs") hold every sample's ids concatenated, with a per-sample offsets
// array giving where each sample's ids start: the call gets those samples'
// ids (a varying number) and their offsets rebased to start at 0, plus the
// end of the last bag when the model takes it (include_last_offset).
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_INPUTBATCH_H
#define AUTODIST_RUNTIME_INPUTBATCH_H

#include "autodist/runtime/DataArray.h"
#include "autodist/runtime/Manifest.h"
#include "autodist/runtime/Memref.h"

#include <optional>
#include <string>
#include <vector>

namespace autodist::rt {

class InputBatcher {
public:
  /// `arrays[i]` holds input `specs[i]` (Dataset::inputs(), which checked
  /// the bag offsets); both outlive this.
  InputBatcher(const std::vector<TensorSpec> &specs,
               std::vector<DataArray> &arrays);

  /// Adds every input's argument for samples [first, first + count).
  void add(CallArgs &args, int64_t first, int64_t count);
  /// Reads the arrays read on demand for samples [first, first + count)
  /// into their spare buffers (DataArray::readAhead), so that the add()
  /// for them does not wait for the file: called while the device runs the
  /// step before.
  void readAhead(int64_t first, int64_t count);

private:
  /// Where sample `s`'s ids start in bag ids input `ids` (s may be the
  /// sample count: the end of the last).
  int64_t bagStart(size_t ids, int64_t s);

  const std::vector<TensorSpec> &specs_;
  std::vector<DataArray> &arrays_;
  /// Per input: its bag partner (the offsets of ids, the ids of offsets),
  /// or -1.
  std::vector<int> partner_;
  /// Per offsets input: the rebased offsets of the current call.
  std::vector<std::optional<Tensor>> rebased_;
};

/// Checks the bag offsets input `spec` (array `offsets`) of the ids array
/// `ids` in data file `path`: non-decreasing within [0, number of ids].
void checkBagOffsets(const TensorSpec &spec, DataArray &offsets, DataArray &ids,
                     const std::string &path);

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_INPUTBATCH_H
