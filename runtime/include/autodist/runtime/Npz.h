//===- Npz.h - numpy .npz archives ------------------------------*- C++ -*-===//
//
// A .npz (numpy.savez / savez_compressed) is a zip of `<name>.npy` entries.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_NPZ_H
#define AUTODIST_RUNTIME_NPZ_H

#include "autodist/runtime/Tensor.h"
#include "autodist/runtime/Zip.h"

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

private:
  std::string path_;
  ZipArchive zip_;
};

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_NPZ_H
