//===- Zip.h - Read-only ZIP archives ---------------------------*- C++ -*-===//
//
// Just enough ZIP to read what numpy.savez (stored) and numpy.savez_compressed
// (raw deflate) write, including the zip64 extensions numpy always forces on.
// Entry sizes and offsets come from the central directory, because the local
// headers numpy writes hold 0xFFFFFFFF placeholders.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_ZIP_H
#define AUTODIST_RUNTIME_ZIP_H

#include <cstdint>
#include <string>
#include <vector>

namespace autodist::rt {

class ZipArchive {
public:
  /// Reads and indexes the archive at `path`. Errors name it as
  /// `<kind> '<path>'` (e.g. "data file 'train.npz'").
  explicit ZipArchive(const std::string &path,
                      const std::string &kind = "data file");

  /// Entry names, in archive order.
  std::vector<std::string> names() const;
  bool contains(const std::string &name) const;
  /// The uncompressed, CRC-checked bytes of entry `name`.
  std::vector<uint8_t> read(const std::string &name) const;

private:
  struct Entry {
    std::string name;
    uint16_t flags, method;
    uint32_t crc;
    uint64_t compressedSize, size, localHeaderOffset;
  };
  [[noreturn]] void fail(const std::string &what) const;
  /// The little-endian integer of `width` bytes at `pos` (bounds-checked).
  uint64_t field(uint64_t pos, unsigned width) const;
  void parseCentralDirectory();

  std::string label_;
  std::vector<uint8_t> bytes_;
  std::vector<Entry> entries_;
};

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_ZIP_H
