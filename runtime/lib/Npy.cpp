//===- Npy.cpp - numpy .npy arrays ----------------------------------------===//

#include "autodist/runtime/Npy.h"
#include "autodist/runtime/AtomicFile.h"
#include "autodist/runtime/Error.h"
#include "autodist/runtime/HalfFloat.h"

#include <climits>
#include <cstring>
#include <optional>

namespace autodist::rt {

namespace {
constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

/// Parses the header in the first `size` bytes; returns false if they do
/// not start a well-formed .npy.
bool parseHeader(const uint8_t *bytes, size_t size, NpyLayout &h) {
  size_t end = npyHeaderBytes(bytes, size);
  if (end == 0 || end > size)
    return false;
  size_t start = bytes[6] == 1 ? 10 : 12;
  std::string dict(reinterpret_cast<const char *>(&bytes[start]), end - start);
  h.dataOffset = end;

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

/// int64 elements of array `what` into an int32 input: a value that does
/// not fit is an error, not a wrapped index.
void narrowToInt32(const uint8_t *src, int32_t *dst, int64_t n,
                   const std::string &what) {
  for (int64_t i = 0; i < n; ++i) {
    int64_t v;
    std::memcpy(&v, src + i * sizeof(v), sizeof(v));
    if (v < INT32_MIN || v > INT32_MAX)
      throw Error(what + " has int64 value " + std::to_string(v) +
                  ", which does not fit the model's int32 input");
    dst[i] = static_cast<int32_t>(v);
  }
}
/// The .npy element types an array converting to `want` may have.
bool accepts(DType want, const std::string &descr) {
  switch (want) {
  case DType::F32:
  case DType::F64:
  case DType::BF16:
    return descr == "<f4" || descr == "<f8";
  case DType::I64:
  case DType::I32:
    return descr == "<i4" || descr == "<i8";
  default:
    return descr == npyDescr(want);
  }
}

/// `accepts(want, .)` in words, for the error.
std::string acceptedDescrs(DType want) {
  switch (want) {
  case DType::F32:
  case DType::F64:
  case DType::BF16:
    return "float32 or float64 ('<f4', '<f8')";
  case DType::I64:
  case DType::I32:
    return "int64 or int32 ('<i8', '<i4')";
  case DType::Bool:
    return "bool ('|b1')";
  default:
    return std::string(dtypeName(want)) + " ('" + npyDescr(want) + "')";
  }
}
} // namespace

const char *npyDescr(DType dtype) {
  switch (dtype) {
  case DType::F32:
  case DType::BF16: // numpy has no bfloat16
    return "<f4";
  case DType::I64:
    return "<i8";
  case DType::I32:
    return "<i4";
  case DType::Bool:
    return "|b1";
  case DType::F64:
    return "<f8";
  case DType::F16:
    return "<f2";
  case DType::I8:
    return "|i1";
  case DType::I16:
    return "<i2";
  case DType::U8:
    return "|u1";
  case DType::U16:
    return "<u2";
  case DType::U32:
    return "<u4";
  case DType::U64:
    return "<u8";
  }
  return "";
}

size_t npyHeaderBytes(const uint8_t *prefix, size_t size) {
  if (size < 10 || std::memcmp(prefix, kMagic, kMagicLen) != 0)
    return 0;
  if (prefix[6] == 1)
    return 10 + (prefix[8] | prefix[9] << 8);
  if ((prefix[6] == 2 || prefix[6] == 3) && size >= 12)
    return 12 + (prefix[8] | prefix[9] << 8 | prefix[10] << 16 |
                 size_t(prefix[11]) << 24);
  return 0;
}

NpyLayout parseNpyLayout(const uint8_t *header, size_t headerSize,
                         uint64_t totalSize, DType want,
                         const std::string &what) {
  NpyLayout h;
  if (!parseHeader(header, headerSize, h))
    throw Error(what + " is not a valid .npy array");
  if (h.fortranOrder)
    throw Error(what + " is stored in Fortran order; save it in C order "
                       "(numpy.ascontiguousarray)");
  std::string expected = acceptedDescrs(want);
  if (!accepts(want, h.descr))
    throw Error(what + " has dtype " + inQuotes(h.descr) + "; expected " +
                expected);
  h.dtype = want;
  h.what = what;
  h.itemSize = h.descr[2] - '0'; // '|b1' too
  // Both the stored and the converted size must be representable: a shape
  // whose product wraps around would pass the size check below and then
  // index past the buffers.
  std::optional<int64_t> stored = checkedByteSize(h.shape, h.itemSize);
  if (!stored || !checkedByteSize(h.shape, dtypeSize(want)))
    throw Error(what + " has shape " + shapeString(h.shape) +
                ", whose size overflows 64 bits");
  uint64_t have = totalSize - h.dataOffset;
  if (have != static_cast<uint64_t>(*stored))
    throw Error(what + " has " + std::to_string(have) +
                " data bytes, but shape " + shapeString(h.shape) + " needs " +
                std::to_string(*stored));
  return h;
}

void convertNpyElements(const NpyLayout &layout, const uint8_t *src, void *dst,
                        int64_t n) {
  const std::string &descr = layout.descr;
  switch (layout.dtype) {
  case DType::F32:
    if (descr == "<f4")
      convert<float>(src, static_cast<float *>(dst), n);
    else
      convert<double>(src, static_cast<float *>(dst), n);
    return;
  case DType::F64:
    if (descr == "<f8")
      convert<double>(src, static_cast<double *>(dst), n);
    else
      convert<float>(src, static_cast<double *>(dst), n);
    return;
  case DType::BF16: {
    // Round to nearest even; exact for values that are bf16 already.
    auto *out = static_cast<uint16_t *>(dst);
    for (int64_t i = 0; i < n; ++i) {
      float f;
      if (descr == "<f4") {
        std::memcpy(&f, src + i * 4, 4);
      } else {
        double d;
        std::memcpy(&d, src + i * 8, 8);
        f = static_cast<float>(d);
      }
      out[i] = floatToBFloat16(f);
    }
    return;
  }
  case DType::Bool:
    for (int64_t i = 0; i < n; ++i) // numpy bools are 0 or 1 already
      static_cast<uint8_t *>(dst)[i] = src[i] != 0;
    return;
  case DType::I32:
    if (descr == "<i4")
      convert<int32_t>(src, static_cast<int32_t *>(dst), n);
    else
      narrowToInt32(src, static_cast<int32_t *>(dst), n, layout.what);
    return;
  case DType::I64:
    if (descr == "<i4")
      convert<int32_t>(src, static_cast<int64_t *>(dst), n);
    else
      convert<int64_t>(src, static_cast<int64_t *>(dst), n);
    return;
  case DType::F16: // stored as the ABI wants them
  case DType::I8:
  case DType::I16:
  case DType::U8:
  case DType::U16:
  case DType::U32:
  case DType::U64:
    std::memcpy(dst, src, n * dtypeSize(layout.dtype));
    return;
  }
}

Tensor decodeNpy(const std::vector<uint8_t> &bytes, DType want,
                 const std::string &what) {
  NpyLayout h =
      parseNpyLayout(bytes.data(), bytes.size(), bytes.size(), want, what);
  Tensor t(want, h.shape);
  convertNpyElements(h, bytes.data() + h.dataOffset, t.data(), t.numElements());
  return t;
}

std::string npyHeader(DType dtype, const std::vector<int64_t> &shapeDims) {
  std::string shape;
  for (size_t i = 0; i < shapeDims.size(); ++i)
    shape += (i ? ", " : "") + std::to_string(shapeDims[i]);
  shape = "(" + shape + (shapeDims.size() == 1 ? ",)" : ")"); // Python tuple
  std::string dict = std::string("{'descr': '") + npyDescr(dtype) +
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
  if (t.dtype() != DType::BF16) {
    out.insert(out.end(), data, data + t.byteSize());
    return out;
  }
  // bf16 elements go out widened to float32 (exactly).
  const uint16_t *bits = t.data<uint16_t>();
  for (int64_t i = 0, n = t.numElements(); i < n; ++i) {
    float wide = bfloat16ToFloat(bits[i]);
    auto *b = reinterpret_cast<const uint8_t *>(&wide);
    out.insert(out.end(), b, b + 4);
  }
  return out;
}

void writeNpy(const std::string &path, const Tensor &t) {
  std::vector<uint8_t> bytes = encodeNpy(t);
  writeFileAtomically(
      path, {reinterpret_cast<const char *>(bytes.data()), bytes.size()});
}

} // namespace autodist::rt
