//===- Zip.cpp - Read-only ZIP archives -----------------------------------===//

#include "autodist/runtime/Zip.h"
#include "autodist/runtime/Error.h"
#include "autodist/runtime/ZipFormat.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
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
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused).
  fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd_ < 0)
    throw Error("cannot open " + label_ + ": " + std::strerror(errno));
  struct stat st;
  if (fstat(fd_, &st) != 0) {
    int err = errno;
    close(fd_);
    throw Error("cannot read " + label_ + ": " + std::strerror(err));
  }
  // A directory "opens" too, and a FIFO or device has no size to index.
  if (!S_ISREG(st.st_mode)) {
    close(fd_);
    throw Error(label_ + " is " +
                (S_ISDIR(st.st_mode) ? "a directory" : "not a regular file") +
                "; expected a .npz file");
  }
  fileSize_ = st.st_size;
  try {
    parseCentralDirectory();
  } catch (...) {
    close(fd_);
    throw;
  }
}

ZipArchive::~ZipArchive() { close(fd_); }

void ZipArchive::readAt(uint64_t offset, void *dst, uint64_t size) const {
  auto out = static_cast<uint8_t *>(dst);
  for (uint64_t done = 0; done < size;) {
    ssize_t n = pread(fd_, out + done, std::min<uint64_t>(size - done, 1 << 30),
                      static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      throw Error("cannot read " + label_ + ": " +
                  (n < 0 ? std::strerror(errno) : "the file shrank"));
    done += n;
  }
}

uint64_t ZipArchive::field(uint64_t pos, unsigned width) const {
  if (pos > fileSize_ || width > fileSize_ - pos)
    fail("truncated");
  if (pos < windowStart_ || pos + width > windowStart_ + window_.size()) {
    // Centred on `pos`: the end record is searched backwards and the
    // central directory read forwards.
    constexpr uint64_t kWindow = 1 << 16;
    windowStart_ = pos > kWindow / 2 ? pos - kWindow / 2 : 0;
    window_.resize(std::min(kWindow, fileSize_ - windowStart_));
    readAt(windowStart_, window_.data(), window_.size());
  }
  uint64_t v = 0;
  for (unsigned i = width; i-- > 0;)
    v = v << 8 | window_[pos - windowStart_ + i];
  return v;
}

void ZipArchive::parseCentralDirectory() {
  auto u16 = [&](uint64_t pos) { return field(pos, 2); };
  auto u32 = [&](uint64_t pos) { return field(pos, 4); };
  auto u64 = [&](uint64_t pos) { return field(pos, 8); };

  // The end record is the last 22 bytes plus a comment of up to 64 KiB.
  if (fileSize_ < 22)
    fail("too small");
  uint64_t end = fileSize_ - 22;
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
    if (pos + 46 > fileSize_ ||
        nameLen + extraLen + commentLen > fileSize_ - (pos + 46))
      fail("truncated");
    e.name.resize(nameLen);
    for (uint64_t k = 0; k < nameLen; ++k)
      e.name[k] = static_cast<char>(field(pos + 46 + k, 1));
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

const ZipArchive::Entry &ZipArchive::find(const std::string &name) const {
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [&](const Entry &e) { return e.name == name; });
  if (it == entries_.end())
    throw Error(label_ + " has no entry " + inQuotes(name));
  if (it->flags & 1)
    fail("entry " + inQuotes(name) + ": encrypted");
  return *it;
}

uint64_t ZipArchive::dataOffset(const Entry &e) const {
  // Skip the local header; its own name/extra lengths may differ from the
  // central directory's.
  const std::string entry = "entry " + inQuotes(e.name) + ": ";
  uint64_t h = e.localHeaderOffset;
  if (field(h, 4) != kLocalHeaderSig)
    fail(entry + "bad local header");
  uint64_t data = h + 30 + field(h + 26, 2) + field(h + 28, 2);
  if (data > fileSize_ || e.compressedSize > fileSize_ - data)
    fail(entry + "truncated");
  return data;
}

std::optional<ZipArchive::Region>
ZipArchive::storedRegion(const std::string &name) const {
  const Entry &e = find(name);
  if (e.method != 0)
    return std::nullopt;
  if (e.compressedSize != e.size)
    fail("entry " + inQuotes(name) + ": stored size mismatch");
  uint64_t data = dataOffset(e);
  // The CRC covers the whole entry: check it now, through a fixed buffer,
  // so that reading parts of it later needs no check.
  std::vector<uint8_t> chunk(std::min<uint64_t>(e.size, 1 << 20));
  uLong crc = crc32_z(0, nullptr, 0);
  for (uint64_t done = 0; done < e.size; done += chunk.size()) {
    chunk.resize(std::min<uint64_t>(chunk.size(), e.size - done));
    readAt(data + done, chunk.data(), chunk.size());
    crc = crc32_z(crc, chunk.data(), chunk.size());
  }
  if (crc != e.crc)
    fail("entry " + inQuotes(name) + ": CRC mismatch");
  return Region{data, e.size};
}

std::vector<uint8_t> ZipArchive::read(const std::string &name) const {
  const Entry &e = find(name);
  const std::string entry = "entry " + inQuotes(name) + ": ";
  uint64_t data = dataOffset(e);
  std::vector<uint8_t> out;
  if (e.method == 0) {
    if (e.compressedSize != e.size)
      fail(entry + "stored size mismatch");
    out.resize(e.size);
    readAt(data, out.data(), out.size());
  } else if (e.method == 8) {
    // Deflate expands at most 1032:1; a larger declared size is a corrupt
    // (or hostile) entry, not a reason to allocate it.
    if (e.size / 1032 > e.compressedSize + 1)
      fail(entry + "declared size " + std::to_string(e.size) +
           " is impossible for " + std::to_string(e.compressedSize) +
           " compressed bytes");
    std::vector<uint8_t> compressed(e.compressedSize);
    readAt(data, compressed.data(), compressed.size());
    out.resize(e.size);
    z_stream zs{};
    if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) // raw deflate, no header
      fail(entry + "zlib init failed");
    uint64_t inLeft = e.compressedSize, outLeft = e.size;
    zs.next_in = compressed.data();
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
