//===- Zip.cpp - Read-only ZIP archives -----------------------------------===//

#include "autodist/runtime/Zip.h"
#include "autodist/runtime/Error.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include "autodist/runtime/ZipFormat.h"

#include <zlib.h>

namespace autodist::rt {

namespace {
using namespace zip;
constexpr uint16_t kZip64ExtraId = 0x0001;
} // namespace

void ZipArchive::fail(const std::string &what) const {
  throw Error(label_ + " is not a valid .npz (zip) archive: " + what);
}

ZipArchive::ZipArchive(const std::string &path, const std::string &kind)
    : label_(kind + " " + inQuotes(path)) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in)
    throw Error("cannot open " + label_ + ": " + std::strerror(errno));
  std::streamoff size = in.tellg();
  in.seekg(0);
  if (size >= 0)
    bytes_.resize(size);
  if (size < 0 || !in.read(reinterpret_cast<char *>(bytes_.data()), size))
    throw Error("cannot read " + label_);
  parseCentralDirectory();
}

uint64_t ZipArchive::field(uint64_t pos, unsigned width) const {
  if (pos > bytes_.size() || width > bytes_.size() - pos)
    fail("truncated");
  uint64_t v = 0;
  for (unsigned i = width; i-- > 0;)
    v = v << 8 | bytes_[pos + i];
  return v;
}

void ZipArchive::parseCentralDirectory() {
  auto u16 = [&](uint64_t pos) { return field(pos, 2); };
  auto u32 = [&](uint64_t pos) { return field(pos, 4); };
  auto u64 = [&](uint64_t pos) { return field(pos, 8); };

  // The end record is the last 22 bytes plus a comment of up to 64 KiB.
  if (bytes_.size() < 22)
    fail("too small");
  uint64_t end = bytes_.size() - 22;
  uint64_t lowest = end > 0xffff ? end - 0xffff : 0;
  while (u32(end) != kEndSig) {
    if (end == lowest)
      fail("no end of central directory record");
    --end;
  }
  uint64_t count = u16(end + 10), dirOffset = u32(end + 16);
  if (end >= 20 && u32(end - 20) == kZip64LocatorSig) {
    uint64_t rec = u64(end - 20 + 8);
    if (u32(rec) != kZip64EndSig)
      fail("bad zip64 end record");
    count = u64(rec + 32);
    dirOffset = u64(rec + 48);
  }

  uint64_t pos = dirOffset;
  for (uint64_t i = 0; i < count; ++i) {
    if (u32(pos) != kCentralHeaderSig)
      fail("bad central directory entry");
    Entry e;
    e.flags = u16(pos + 8);
    e.method = u16(pos + 10);
    e.crc = u32(pos + 16);
    e.compressedSize = u32(pos + 20);
    e.size = u32(pos + 24);
    uint64_t nameLen = u16(pos + 28), extraLen = u16(pos + 30),
             commentLen = u16(pos + 32);
    e.localHeaderOffset = u32(pos + 42);
    if (pos + 46 > bytes_.size() ||
        nameLen + extraLen + commentLen > bytes_.size() - (pos + 46))
      fail("truncated");
    e.name.assign(reinterpret_cast<const char *>(&bytes_[pos + 46]), nameLen);
    // Zip64 extra: 64-bit values for exactly the fields saturated above.
    for (uint64_t x = pos + 46 + nameLen, xEnd = x + extraLen; x + 4 <= xEnd;) {
      uint64_t id = u16(x), len = u16(x + 2), value = x + 4;
      if (id == kZip64ExtraId) {
        for (uint64_t *v : {&e.size, &e.compressedSize, &e.localHeaderOffset})
          if (*v == 0xffffffff && value + 8 <= x + 4 + len) {
            *v = u64(value);
            value += 8;
          }
      }
      x += 4 + len;
    }
    entries_.push_back(e);
    pos += 46 + nameLen + extraLen + commentLen;
  }
}

std::vector<std::string> ZipArchive::names() const {
  std::vector<std::string> out;
  for (const Entry &e : entries_)
    out.push_back(e.name);
  return out;
}

bool ZipArchive::contains(const std::string &name) const {
  return std::any_of(entries_.begin(), entries_.end(),
                     [&](const Entry &e) { return e.name == name; });
}

std::vector<uint8_t> ZipArchive::read(const std::string &name) const {
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [&](const Entry &e) { return e.name == name; });
  if (it == entries_.end())
    throw Error(label_ + " has no entry " + inQuotes(name));
  const Entry &e = *it;
  const std::string entry = "entry " + inQuotes(name) + ": ";
  if (e.flags & 1)
    fail(entry + "encrypted");

  // Skip the local header; its own name/extra lengths may differ from the
  // central directory's.
  uint64_t h = e.localHeaderOffset;
  if (field(h, 4) != kLocalHeaderSig)
    fail(entry + "bad local header");
  uint64_t data = h + 30 + field(h + 26, 2) + field(h + 28, 2);
  if (data > bytes_.size() || e.compressedSize > bytes_.size() - data)
    fail(entry + "truncated");
  const uint8_t *src = bytes_.data() + data;

  std::vector<uint8_t> out;
  if (e.method == 0) {
    if (e.compressedSize != e.size)
      fail(entry + "stored size mismatch");
    out.assign(src, src + e.size);
  } else if (e.method == 8) {
    // Deflate expands at most 1032:1; a larger declared size is a corrupt
    // (or hostile) entry, not a reason to allocate it.
    if (e.size / 1032 > e.compressedSize + 1)
      fail(entry + "declared size " + std::to_string(e.size) +
           " is impossible for " + std::to_string(e.compressedSize) +
           " compressed bytes");
    out.resize(e.size);
    z_stream zs{};
    if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) // raw deflate, no header
      fail(entry + "zlib init failed");
    uint64_t inLeft = e.compressedSize, outLeft = e.size;
    zs.next_in = const_cast<Bytef *>(src);
    zs.next_out = out.data();
    int rc = Z_OK;
    while (rc == Z_OK) {
      if (zs.avail_in == 0) {
        zs.avail_in = static_cast<uInt>(std::min(inLeft, kZlibChunk));
        inLeft -= zs.avail_in;
      }
      if (zs.avail_out == 0) {
        zs.avail_out = static_cast<uInt>(std::min(outLeft, kZlibChunk));
        outLeft -= zs.avail_out;
      }
      rc = inflate(&zs, Z_NO_FLUSH);
      if (rc == Z_BUF_ERROR && (zs.avail_in || inLeft) &&
          (zs.avail_out || outLeft))
        rc = Z_OK; // zlib just wants the next chunk
    }
    uint64_t produced = zs.total_out;
    inflateEnd(&zs);
    if (rc != Z_STREAM_END || produced != e.size)
      fail(entry + "corrupt deflate data");
  } else {
    fail(entry + "unsupported compression method " + std::to_string(e.method));
  }
  if (crc32_z(0, out.data(), out.size()) != e.crc)
    fail(entry + "CRC mismatch");
  return out;
}

} // namespace autodist::rt
