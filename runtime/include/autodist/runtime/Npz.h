//===- Npz.h - numpy .npz archives ------------------------------*- C++ -*-===//
//
// A .npz (numpy.savez / savez_compressed) is a zip of `<name>.npy` entries.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_NPZ_H
#define AUTODIST_RUNTIME_NPZ_H

#include "autodist/runtime/Npy.h"
#include "autodist/runtime/Tensor.h"
#include "autodist/runtime/Zip.h"

#include <optional>
#include <string>
#include <vector>

namespace autodist::rt {

class NpzFile {
public:
  explicit NpzFile(const std::string &path) : path_(path), zip_(path) {}

  /// Array names (entry names without ".npy"), in file order.
  std::vector<std::string> arrayNames() const;
  bool has(const std::string &name) const;
  /// Decodes array `name` as `dtype`; errors name the file and the array.
  Tensor read(const std::string &name, DType dtype) const;

  /// Where the elements of array `name` lie in the file, if it is stored
  /// uncompressed: its header (checked as read() checks it, and its CRC)
  /// and the file offset of its first element. nullopt if compressed.
  struct StoredArray {
    NpyLayout layout;
    uint64_t offset;
  };
  std::optional<StoredArray> storedArray(const std::string &name,
                                         DType dtype) const;
  /// Reads `size` bytes at file offset `offset` (within a StoredArray).
  void readAt(uint64_t offset, void *dst, uint64_t size) const {
    zip_.readAt(offset, dst, size);
  }

private:
  /// Throws unless the file has array `name`, listing the ones it has.
  void checkHas(const std::string &name) const;
  /// "array 'x' in data file 'train.npz'".
  std::string what(const std::string &name) const;

  std::string path_;
  ZipArchive zip_;
};

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_NPZ_H
