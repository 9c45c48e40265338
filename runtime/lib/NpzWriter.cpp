//===- NpzWriter.cpp - Writing numpy .npz archives ------------------------===//

#include "autodist/runtime/NpzWriter.h"
#include "autodist/runtime/Npy.h"

#include "autodist/runtime/ZipFormat.h"
#include <algorithm>

#include <zlib.h>

namespace autodist::rt {

namespace {
using namespace zip;
constexpr uint16_t kZip64 = 45;       // "version needed" for zip64
constexpr uint32_t kDosDate = 0x0021; // 1980-01-01: reproducible archives

/// Little-endian fields.
class Bytes {
public:
  Bytes &u16(uint64_t v) { return put(v, 2); }
  Bytes &u32(uint64_t v) { return put(v, 4); }
  Bytes &u64(uint64_t v) { return put(v, 8); }
  Bytes &str(const std::string &s) {
    data_ += s;
    return *this;
  }
  const std::string &data() const { return data_; }

private:
  Bytes &put(uint64_t v, int width) {
    for (int i = 0; i < width; ++i)
      data_.push_back(static_cast<char>(v >> (8 * i) & 0xff));
    return *this;
  }
  std::string data_;
};

uint32_t crcOf(uint32_t crc, std::string_view part) {
  auto p = reinterpret_cast<const Bytef *>(part.data());
  for (size_t done = 0; done < part.size();) {
    size_t n = std::min<uint64_t>(part.size() - done, kZlibChunk);
    crc = crc32(crc, p + done, static_cast<uInt>(n));
    done += n;
  }
  return crc;
}
} // namespace

void NpzWriter::addEntry(const std::string &name,
                         const std::vector<std::string_view> &parts) {
  Entry e{name, 0, 0, out_.offset()};
  for (std::string_view part : parts) {
    e.crc = crcOf(e.crc, part);
    e.size += part.size();
  }
  // Sizes live in the zip64 extra field; the 32-bit ones are saturated.
  Bytes h;
  h.u32(kLocalHeaderSig).u16(kZip64).u16(0).u16(0); // flags, method: stored
  h.u16(0).u16(kDosDate).u32(e.crc).u32(0xffffffff).u32(0xffffffff);
  h.u16(name.size()).u16(20).str(name);
  h.u16(0x0001).u16(16).u64(e.size).u64(e.size);
  out_.write(h.data());
  for (std::string_view part : parts)
    out_.write(part);
  entries_.push_back(std::move(e));
}

void NpzWriter::addArray(const std::string &name, const Tensor &t) {
  if (t.dtype() == DType::BF16) { // widened to float32 (encodeNpy)
    std::vector<uint8_t> bytes = encodeNpy(t);
    addEntry(name + ".npy",
             {{reinterpret_cast<const char *>(bytes.data()), bytes.size()}});
    return;
  }
  // The data goes straight from the tensor, without a copy.
  std::string header = npyHeader(t.dtype(), t.shape());
  addEntry(name + ".npy",
           {header, {static_cast<const char *>(t.data()), t.byteSize()}});
}

void NpzWriter::addFile(const std::string &name, std::string_view bytes) {
  addEntry(name, {bytes});
}

void NpzWriter::finish() {
  uint64_t dirOffset = out_.offset();
  Bytes dir;
  for (const Entry &e : entries_) {
    dir.u32(kCentralHeaderSig).u16(kZip64).u16(kZip64).u16(0).u16(0);
    dir.u16(0).u16(kDosDate).u32(e.crc).u32(0xffffffff).u32(0xffffffff);
    dir.u16(e.name.size()).u16(28).u16(0); // name, extra, comment lengths
    dir.u16(0).u16(0).u32(0).u32(0xffffffff).str(e.name);
    dir.u16(0x0001).u16(24).u64(e.size).u64(e.size).u64(e.offset);
  }
  uint64_t dirSize = dir.data().size(), zip64End = dirOffset + dirSize;
  dir.u32(kZip64EndSig).u64(44).u16(kZip64).u16(kZip64).u32(0).u32(0);
  dir.u64(entries_.size()).u64(entries_.size()).u64(dirSize).u64(dirOffset);
  dir.u32(kZip64LocatorSig).u32(0).u64(zip64End).u32(1);
  dir.u32(kEndSig).u16(0).u16(0).u16(0xffff).u16(0xffff);
  dir.u32(0xffffffff).u32(0xffffffff).u16(0);
  out_.write(dir.data());
}

} // namespace autodist::rt
