//===- Zip.h - Read-only ZIP archives ---------------------------*- C++ -*-===//
//
// Just enough ZIP to read what numpy.savez (stored) and numpy.savez_compressed
// (raw deflate) write, including the zip64 extensions numpy always forces on.
// Entry sizes and offsets come from the central directory, because the local
// headers numpy writes hold 0xFFFFFFFF placeholders.
//
// The archive is read from its file on demand (pread), never loaded whole:
// the central directory at open, an entry when asked for, or, for a stored
// entry, any byte range of it (storedRegion), so a data set larger than
// memory can be read a batch at a time.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_ZIP_H
#define AUTODIST_RUNTIME_ZIP_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace autodist::rt {

class ZipArchive {
public:
  /// Opens and indexes the archive at `path`, which must be a regular file.
  /// Errors name it as `<kind> '<path>'` (e.g. "data file 'train.npz'").
  explicit ZipArchive(const std::string &path,
                      const std::string &kind = "data file");
  ~ZipArchive();
  ZipArchive(const ZipArchive &) = delete;
  ZipArchive &operator=(const ZipArchive &) = delete;

  /// "data file 'train.npz'".
  const std::string &label() const { return label_; }
  /// Entry names, in archive order.
  std::vector<std::string> names() const;
  bool contains(const std::string &name) const;
  /// The uncompressed, CRC-checked bytes of entry `name`.
  std::vector<uint8_t> read(const std::string &name) const;

  /// Where a stored entry's bytes lie in the file.
  struct Region {
    uint64_t offset, size;
  };
  /// The region of entry `name` if it is stored (not compressed), after
  /// checking its CRC by reading it through once in fixed-size chunks;
  /// nullopt for a compressed entry.
  std::optional<Region> storedRegion(const std::string &name) const;
  /// Reads `size` bytes at file offset `offset` (within a storedRegion).
  void readAt(uint64_t offset, void *dst, uint64_t size) const;

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
  const Entry &find(const std::string &name) const;
  /// The file offset of `e`'s data, checked to lie within the file.
  uint64_t dataOffset(const Entry &e) const;

  std::string label_;
  int fd_ = -1;
  uint64_t fileSize_ = 0;
  // field()'s cache: the file bytes [windowStart_, + window_.size()).
  mutable std::vector<uint8_t> window_;
  mutable uint64_t windowStart_ = 0;
  std::vector<Entry> entries_;
};

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_ZIP_H
