//===- ZipWriter.cpp - Minimal ZIP writer for tests -----------------------===//

#include "ZipWriter.h"

#include <cstring>
#include <fstream>
#include <stdexcept>
#include <zlib.h>

namespace autodist::rt::test {

namespace {
void put16(std::vector<uint8_t> &out, uint32_t v) {
  out.push_back(v & 0xff);
  out.push_back(v >> 8 & 0xff);
}
void put32(std::vector<uint8_t> &out, uint32_t v) {
  put16(out, v & 0xffff);
  put16(out, v >> 16);
}

std::vector<uint8_t> rawDeflate(const std::vector<uint8_t> &in) {
  z_stream zs{};
  if (deflateInit2(&zs, Z_BEST_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("deflateInit2 failed");
  std::vector<uint8_t> out(deflateBound(&zs, in.size()));
  zs.next_in = const_cast<Bytef *>(in.data());
  zs.avail_in = in.size();
  zs.next_out = out.data();
  zs.avail_out = out.size();
  if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
    throw std::runtime_error("deflate failed");
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}
} // namespace

void writeZip(const std::string &path, const ZipEntries &entries,
              bool deflate) {
  std::vector<uint8_t> file, directory;
  for (const auto &[name, bytes] : entries) {
    std::vector<uint8_t> data = deflate ? rawDeflate(bytes) : bytes;
    uint32_t crc = crc32(0, bytes.data(), bytes.size());
    uint32_t offset = file.size();
    // Local header, then the same fields again in the central directory.
    auto fields = [&](std::vector<uint8_t> &out) {
      put16(out, 20);              // version needed
      put16(out, 0);               // flags
      put16(out, deflate ? 8 : 0); // method
      put32(out, 0);               // time, date
      put32(out, crc);
      put32(out, data.size());
      put32(out, bytes.size());
      put16(out, name.size());
      put16(out, 0); // extra length
    };
    put32(file, 0x04034b50);
    fields(file);
    file.insert(file.end(), name.begin(), name.end());
    file.insert(file.end(), data.begin(), data.end());

    put32(directory, 0x02014b50);
    put16(directory, 20); // version made by
    fields(directory);
    put16(directory, 0); // comment length
    put16(directory, 0); // disk
    put16(directory, 0); // internal attributes
    put32(directory, 0); // external attributes
    put32(directory, offset);
    directory.insert(directory.end(), name.begin(), name.end());
  }
  uint32_t dirOffset = file.size();
  file.insert(file.end(), directory.begin(), directory.end());
  put32(file, 0x06054b50);
  put32(file, 0); // disk numbers
  put16(file, entries.size());
  put16(file, entries.size());
  put32(file, directory.size());
  put32(file, dirOffset);
  put16(file, 0); // comment length
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char *>(file.data()), file.size());
}

std::vector<uint8_t> makeNpy(const std::string &descr, const std::string &shape,
                             const void *data, size_t bytes,
                             bool fortranOrder) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': " +
                       (fortranOrder ? "True" : "False") +
                       ", 'shape': " + shape + ", }\n";
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  put16(out, header.size());
  out.insert(out.end(), header.begin(), header.end());
  auto p = static_cast<const uint8_t *>(data);
  out.insert(out.end(), p, p + bytes);
  return out;
}

} // namespace autodist::rt::test
