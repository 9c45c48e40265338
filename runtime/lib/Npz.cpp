//===- Npz.cpp - numpy .npz archives --------------------------------------===//

#include "autodist/runtime/Npz.h"
#include "autodist/runtime/Error.h"
#include "autodist/runtime/Npy.h"

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

Tensor NpzFile::read(const std::string &name, DType dtype) const {
  if (!has(name)) {
    std::string list;
    for (const std::string &n : arrayNames())
      list += (list.empty() ? "" : ", ") + n;
    throw Error("data file " + inQuotes(path_) + " has no array " +
                inQuotes(name) + " (has: " + (list.empty() ? "none" : list) +
                ")");
  }
  return decodeNpy(zip_.read(name + ".npy"), dtype,
                   "array " + inQuotes(name) + " in data file " +
                       inQuotes(path_));
}

} // namespace autodist::rt
