//===- Npy.cpp - numpy .npy arrays ----------------------------------------===//

#include "autodist/runtime/Npy.h"
#include "autodist/runtime/AtomicFile.h"
#include "autodist/runtime/Error.h"

#include <cstring>

namespace autodist::rt {

namespace {
constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

/// The fields of a .npy header, a Python dict literal such as
/// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
  size_t dataOffset = 0;
};

/// Parses the header; returns false if `bytes` is not a well-formed .npy.
bool parseHeader(const std::vector<uint8_t> &bytes, NpyHeader &h) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, kMagicLen) != 0)
    return false;
  size_t len, start;
  if (bytes[6] == 1) {
    len = bytes[8] | bytes[9] << 8;
    start = 10;
  } else if ((bytes[6] == 2 || bytes[6] == 3) && bytes.size() >= 12) {
    len = bytes[8] | bytes[9] << 8 | bytes[10] << 16 | size_t(bytes[11]) << 24;
    start = 12;
  } else {
    return false;
  }
  if (len > bytes.size() - start)
    return false;
  std::string dict(reinterpret_cast<const char *>(&bytes[start]), len);
  h.dataOffset = start + len;

  // Position just after `'key':` and any spaces, or npos.
  auto valueOf = [&](const char *key) {
    size_t p = dict.find(std::string("'") + key + "'");
    if (p == std::string::npos)
      return p;
    p = dict.find(':', p);
    if (p == std::string::npos)
      return p;
    return dict.find_first_not_of(' ', p + 1);
  };

  size_t p = valueOf("descr");
  if (p == std::string::npos || (dict[p] != '\'' && dict[p] != '"'))
    return false;
  size_t q = dict.find(dict[p], p + 1);
  if (q == std::string::npos)
    return false;
  h.descr = dict.substr(p + 1, q - p - 1);

  p = valueOf("fortran_order");
  if (p == std::string::npos)
    return false;
  h.fortranOrder = dict.compare(p, 4, "True") == 0;

  p = valueOf("shape");
  if (p == std::string::npos || dict[p] != '(')
    return false;
  q = dict.find(')', p);
  if (q == std::string::npos)
    return false;
  for (size_t i = p + 1; i < q;) {
    if (dict[i] == ' ' || dict[i] == ',') {
      ++i;
      continue;
    }
    size_t used = 0;
    try {
      h.shape.push_back(std::stoll(dict.substr(i, q - i), &used));
    } catch (const std::exception &) {
      return false;
    }
    if (h.shape.back() < 0)
      return false;
    i += used;
  }
  return true;
}

/// Converts `n` little-endian elements of type From at `src` into `dst`.
template <typename From, typename To>
void convert(const uint8_t *src, To *dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    From v;
    std::memcpy(&v, src + i * sizeof(From), sizeof(From)); // may be unaligned
    dst[i] = static_cast<To>(v);
  }
}
} // namespace

Tensor decodeNpy(const std::vector<uint8_t> &bytes, DType want,
                 const std::string &what) {
  NpyHeader h;
  if (!parseHeader(bytes, h))
    throw Error(what + " is not a valid .npy array");
  if (h.fortranOrder)
    throw Error(what + " is stored in Fortran order; save it in C order "
                       "(numpy.ascontiguousarray)");
  bool isFloat = h.descr == "<f4" || h.descr == "<f8";
  bool isInt = h.descr == "<i4" || h.descr == "<i8";
  if (want == DType::Bool && h.descr != "|b1")
    throw Error(what + " has dtype " + inQuotes(h.descr) +
                "; expected bool ('|b1')");
  if (want == DType::F32 && !isFloat)
    throw Error(what + " has dtype " + inQuotes(h.descr) +
                "; expected float32 or float64 ('<f4', '<f8')");
  if (want == DType::I64 && !isInt)
    throw Error(what + " has dtype " + inQuotes(h.descr) +
                "; expected int64 or int32 ('<i8', '<i4')");

  Tensor t(want, h.shape);
  int64_t n = t.numElements();
  size_t itemSize = h.descr[2] - '0'; // '|b1' too
  if (bytes.size() - h.dataOffset != n * itemSize)
    throw Error(what + " has " + std::to_string(bytes.size() - h.dataOffset) +
                " data bytes, but shape " + shapeString(h.shape) + " needs " +
                std::to_string(n * itemSize));
  const uint8_t *src = bytes.data() + h.dataOffset;
  if (h.descr == "<f4")
    convert<float>(src, t.data<float>(), n);
  else if (h.descr == "<f8")
    convert<double>(src, t.data<float>(), n);
  else if (h.descr == "|b1")
    for (int64_t i = 0; i < n; ++i) // numpy bools are 0 or 1 already
      t.data<uint8_t>()[i] = src[i] != 0;
  else if (h.descr == "<i4")
    convert<int32_t>(src, t.data<int64_t>(), n);
  else
    convert<int64_t>(src, t.data<int64_t>(), n);
  return t;
}

std::string npyHeader(DType dtype, const std::vector<int64_t> &shapeDims) {
  std::string shape;
  for (size_t i = 0; i < shapeDims.size(); ++i)
    shape += (i ? ", " : "") + std::to_string(shapeDims[i]);
  shape = "(" + shape + (shapeDims.size() == 1 ? ",)" : ")"); // Python tuple
  std::string dict = std::string("{'descr': '") +
                     (dtype == DType::F32   ? "<f4"
                      : dtype == DType::I64 ? "<i8"
                                            : "|b1") +
                     "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces to a 64-byte boundary, ending in a newline, as numpy does.
  size_t total = (kMagicLen + 4 + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - kMagicLen - 4 - dict.size() - 1, ' ');
  dict += '\n';
  std::string out(kMagic, kMagicLen);
  out += {1, 0, char(dict.size() & 0xff), char(dict.size() >> 8)};
  return out + dict;
}

std::vector<uint8_t> encodeNpy(const Tensor &t) {
  std::string header = npyHeader(t.dtype(), t.shape());
  std::vector<uint8_t> out(header.begin(), header.end());
  auto data = static_cast<const uint8_t *>(t.data());
  out.insert(out.end(), data, data + t.byteSize());
  return out;
}

void writeNpy(const std::string &path, const Tensor &t) {
  std::vector<uint8_t> bytes = encodeNpy(t);
  writeFileAtomically(
      path, {reinterpret_cast<const char *>(bytes.data()), bytes.size()});
}

} // namespace autodist::rt
