//===- NpzWriter.h - Writing numpy .npz archives ----------------*- C++ -*-===//
//
// Streams a .npz (a zip of `<name>.npy` entries, stored uncompressed) into an
// AtomicFileWriter, one entry at a time, so writing never holds more than one
// array's encoding in memory. Every entry uses the zip64 extensions (as
// numpy.savez does), so arrays and archives may exceed 4 GiB. ZipArchive,
// Python's zipfile and numpy.load read the result.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_NPZWRITER_H
#define AUTODIST_RUNTIME_NPZWRITER_H

#include "autodist/runtime/AtomicFile.h"
#include "autodist/runtime/Tensor.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace autodist::rt {

class NpzWriter {
public:
  explicit NpzWriter(AtomicFileWriter &out) : out_(out) {}

  /// Adds array `name` (entry `name`.npy).
  void addArray(const std::string &name, const Tensor &t);
  /// Adds a raw entry named exactly `name` (e.g. a JSON side file).
  void addFile(const std::string &name, std::string_view bytes);
  /// Writes the central directory; the caller then commits `out`.
  void finish();

private:
  struct Entry {
    std::string name;
    uint32_t crc;
    uint64_t size, offset;
  };
  /// One entry made of consecutive `parts`.
  void addEntry(const std::string &name,
                const std::vector<std::string_view> &parts);

  AtomicFileWriter &out_;
  std::vector<Entry> entries_;
};

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_NPZWRITER_H
