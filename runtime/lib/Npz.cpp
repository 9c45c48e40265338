//===- Npz.cpp - numpy .npz archives --------------------------------------===//

#include "autodist/runtime/Npz.h"
#include "autodist/runtime/Error.h"
#include "autodist/runtime/Npy.h"

#include <algorithm>

namespace autodist::rt {

std::vector<std::string> NpzFile::arrayNames() const {
  std::vector<std::string> out;
  for (const std::string &entry : zip_.names())
    if (entry.size() > 4 && entry.compare(entry.size() - 4, 4, ".npy") == 0)
      out.push_back(entry.substr(0, entry.size() - 4));
  return out;
}

bool NpzFile::has(const std::string &name) const {
  return zip_.contains(name + ".npy");
}

void NpzFile::checkHas(const std::string &name) const {
  if (has(name))
    return;
  std::string list;
  for (const std::string &n : arrayNames())
    list += (list.empty() ? "" : ", ") + n;
  throw Error("data file " + inQuotes(path_) + " has no array " +
              inQuotes(name) + " (has: " + (list.empty() ? "none" : list) +
              ")");
}

std::string NpzFile::what(const std::string &name) const {
  return "array " + inQuotes(name) + " in data file " + inQuotes(path_);
}

Tensor NpzFile::read(const std::string &name, DType dtype) const {
  checkHas(name);
  return decodeNpy(zip_.read(name + ".npy"), dtype, what(name));
}

std::optional<NpzFile::StoredArray>
NpzFile::storedArray(const std::string &name, DType dtype) const {
  checkHas(name);
  std::optional<ZipArchive::Region> region = zip_.storedRegion(name + ".npy");
  if (!region)
    return std::nullopt;
  // The header is small (numpy caps it at 10000 bytes); the size field of a
  // corrupt one must not size an allocation.
  uint8_t prefix[12] = {};
  uint64_t have = std::min<uint64_t>(region->size, sizeof prefix);
  zip_.readAt(region->offset, prefix, have);
  size_t headerSize = npyHeaderBytes(prefix, have);
  if (headerSize == 0 || headerSize > region->size || headerSize > (1 << 20))
    throw Error(what(name) + " is not a valid .npy array");
  std::vector<uint8_t> header(headerSize);
  zip_.readAt(region->offset, header.data(), headerSize);
  NpyLayout layout = parseNpyLayout(header.data(), headerSize, region->size,
                                    dtype, what(name));
  uint64_t offset = region->offset + layout.dataOffset;
  return StoredArray{std::move(layout), offset};
}

} // namespace autodist::rt
