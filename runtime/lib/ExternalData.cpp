//===- ExternalData.cpp - ONNX tensors stored beside the model ------------===//

#include "autodist/runtime/ExternalData.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <onnx/onnx_pb.h>
#include <sys/stat.h>
#include <unistd.h>

namespace autodist::rt {

namespace {
std::string quoted(const std::string &s) { return "'" + s + "'"; }

std::string tensorLabel(const onnx::TensorProto &t) {
  return "initializer " + quoted(t.name());
}

/// Parses a non-negative decimal integer (the whole string).
bool parseSize(const std::string &s, uint64_t &out) {
  if (s.empty() || s.size() > 19)
    return false;
  out = 0;
  for (char c : s) {
    if (c < '0' || c > '9')
      return false;
    out = out * 10 + static_cast<uint64_t>(c - '0');
  }
  return true;
}

/// Whether relative path `location` stays inside its base directory (no
/// `..` climbing above it).
bool staysInside(const std::string &location) {
  int depth = 0;
  size_t start = 0;
  while (start <= location.size()) {
    size_t end = location.find('/', start);
    if (end == std::string::npos)
      end = location.size();
    std::string part = location.substr(start, end - start);
    if (part == "..") {
      if (--depth < 0)
        return false;
    } else if (!part.empty() && part != ".") {
      ++depth;
    }
    start = end + 1;
  }
  return true;
}

/// The bytes `t`'s shape and type need; an error message on a bad shape or
/// a type without a fixed size.
std::string expectedBytes(const onnx::TensorProto &t, uint64_t &bytes) {
  uint64_t size = elementSize(t.data_type());
  if (size == 0)
    return tensorLabel(t) + " has external data of unsupported type " +
           onnx::TensorProto::DataType_Name(
               static_cast<onnx::TensorProto::DataType>(t.data_type()));
  for (int64_t d : t.dims()) {
    if (d < 0)
      return tensorLabel(t) + " has a negative dim";
    if (d != 0 && size > UINT64_MAX / static_cast<uint64_t>(d))
      return tensorLabel(t) + " is too large";
    size *= static_cast<uint64_t>(d);
  }
  bytes = size;
  return "";
}
} // namespace

bool isExternal(const onnx::TensorProto &t) {
  return t.has_data_location() &&
         t.data_location() == onnx::TensorProto::EXTERNAL;
}

uint64_t elementSize(int dataType) {
  switch (dataType) {
  case onnx::TensorProto::FLOAT:
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::UINT32:
    return 4;
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::UINT64:
  case onnx::TensorProto::DOUBLE:
  case onnx::TensorProto::COMPLEX64:
    return 8;
  case onnx::TensorProto::INT16:
  case onnx::TensorProto::UINT16:
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
    return 2;
  case onnx::TensorProto::INT8:
  case onnx::TensorProto::UINT8:
  case onnx::TensorProto::BOOL:
    return 1;
  case onnx::TensorProto::COMPLEX128:
    return 16;
  default:
    return 0;
  }
}

std::string locateExternalData(const onnx::TensorProto &t,
                               const std::string &dir, ExternalData &out) {
  const std::string what = tensorLabel(t);
  bool haveLocation = false, haveLength = false;
  out = ExternalData();
  for (const onnx::StringStringEntryProto &e : t.external_data()) {
    if (e.key() == "location") {
      out.location = e.value();
      haveLocation = true;
    } else if (e.key() == "offset" || e.key() == "length") {
      uint64_t v;
      if (!parseSize(e.value(), v))
        return what + " has invalid external data " + e.key() + " " +
               quoted(e.value()) + " (expected a byte count)";
      (e.key() == "offset" ? out.offset : out.length) = v;
      haveLength |= e.key() == "length";
    }
  }
  if (!haveLocation || out.location.empty())
    return what + " has external data without a 'location'";
  if (out.location[0] == '/' || !staysInside(out.location))
    return what + ": external data location " + quoted(out.location) +
           " is outside the model's directory " + quoted(dir) +
           " (ONNX locations are relative to it)";
  out.path = (dir.empty() ? std::string(".") : dir) + "/" + out.location;

  uint64_t need = 0;
  if (std::string err = expectedBytes(t, need); !err.empty())
    return err;
  struct stat st;
  if (stat(out.path.c_str(), &st) != 0)
    return what + ": external data file " + quoted(out.path) + " " +
           (errno == ENOENT
                ? "does not exist"
                : "cannot be read: " + std::string(strerror(errno)));
  if (!S_ISREG(st.st_mode))
    return what + ": external data file " + quoted(out.path) +
           " is not a regular file";
  uint64_t fileSize = static_cast<uint64_t>(st.st_size);
  if (out.offset > fileSize ||
      (haveLength && out.length > fileSize - out.offset))
    return what + ": external data at offset " + std::to_string(out.offset) +
           (haveLength ? ", length " + std::to_string(out.length) : "") +
           " runs past the end of " + quoted(out.path) + " (" +
           std::to_string(fileSize) + " bytes)";
  if (!haveLength)
    out.length = fileSize - out.offset;
  if (out.length != need)
    return what + ": external data in " + quoted(out.path) + " holds " +
           std::to_string(out.length) + " bytes, but its shape and type need " +
           std::to_string(need);
  return "";
}

std::string readExternalData(const ExternalData &data,
                             const std::string &tensorName, void *dst) {
  std::string what = "initializer " + quoted(tensorName) +
                     ": cannot read external data file " + quoted(data.path);
  int fd = open(data.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return what + ": " + strerror(errno);
  auto *bytes = static_cast<char *>(dst);
  uint64_t done = 0;
  while (done < data.length) {
    size_t chunk = static_cast<size_t>(
        std::min<uint64_t>(data.length - done, uint64_t(1) << 30));
    ssize_t n =
        pread(fd, bytes + done, chunk, static_cast<off_t>(data.offset + done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      std::string reason =
          n < 0 ? strerror(errno) : "it is shorter than before";
      close(fd);
      return what + ": " + reason;
    }
    done += static_cast<uint64_t>(n);
  }
  close(fd);
  return "";
}

std::string inlineExternalData(onnx::TensorProto &t, const std::string &dir) {
  ExternalData data;
  if (std::string err = locateExternalData(t, dir, data); !err.empty())
    return err;
  std::string bytes(data.length, '\0');
  if (std::string err = readExternalData(data, t.name(), bytes.data());
      !err.empty())
    return err;
  t.clear_external_data();
  t.clear_data_location();
  t.set_raw_data(std::move(bytes));
  return "";
}

} // namespace autodist::rt
