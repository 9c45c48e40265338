//===- ParseModel.h - ModelProto without the parameters' bytes --*- C++ -*-===//
//
// Parsing a ModelProto the usual way copies every tensor's bytes into it: a
// model with 1 GB of weights would need 1 GB more than its serialized form.
// The importer needs only the shapes of the float initializers (the
// parameters) and the runtime copies their values straight into its own
// buffers, so this parser streams the serialized model and skips the data of
// large float initializers, recording where it is. Shared by the compiler
// and the runtime (no exceptions).
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_RUNTIME_PARSEMODEL_H
#define AUTODIST_RUNTIME_PARSEMODEL_H

#include <cstdint>
#include <map>
#include <string>

namespace google::protobuf::io {
class ZeroCopyInputStream;
} // namespace google::protobuf::io

namespace onnx {
class ModelProto;
} // namespace onnx

namespace autodist::rt {

/// Where the data of a skipped initializer is in the parsed input: `length`
/// bytes at `offset`, little-endian floats (`raw_data` or packed
/// `float_data`).
struct SkippedBytes {
  uint64_t offset = 0, length = 0;
};

/// Float initializers whose data was left out, by name.
using SkippedData = std::map<std::string, SkippedBytes>;
/// Parses the ModelProto in `input` into `model`, except the `raw_data` and
/// `float_data` of float graph initializers of `minSkippedBytes` or more,
/// which go to `skipped` (float_data only in its packed form, the one
/// serializers write). Returns false on malformed input (also: two such
/// fields in one initializer).
bool parseModelWithoutWeights(google::protobuf::io::ZeroCopyInputStream &input,
                              onnx::ModelProto &model, SkippedData &skipped,
                              uint64_t minSkippedBytes = 1024);

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_PARSEMODEL_H
