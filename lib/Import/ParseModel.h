//===- ParseModel.h - ModelProto without the parameters' bytes --*- C++ -*-===//
//
// The importer needs the graph, the shapes of the float initializers (the
// parameters: the runtime reads their values) and the values of the small
// int64 ones. Parsing a ModelProto the usual way copies every tensor's bytes
// into it: a model with 1 GB of weights would need 1 GB more than the file.
// This parser streams the serialized model and skips the data of large float
// initializers, recording only its size.
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_LIB_IMPORT_PARSEMODEL_H
#define AUTODIST_LIB_IMPORT_PARSEMODEL_H

#include <cstdint>
#include <map>
#include <string>

namespace google::protobuf::io {
class ZeroCopyInputStream;
} // namespace google::protobuf::io

namespace onnx {
class ModelProto;
} // namespace onnx

namespace autodist::detail {

/// Float initializers whose data was left out, by name: the bytes their
/// `raw_data` or `float_data` held.
using SkippedData = std::map<std::string, uint64_t>;

/// Parses the ModelProto in `input` into `model`, except the `raw_data` and
/// `float_data` of float graph initializers of `minSkippedBytes` or more,
/// whose sizes go to `skipped`. Returns false on malformed input.
bool parseModelWithoutWeights(google::protobuf::io::ZeroCopyInputStream &input,
                              onnx::ModelProto &model, SkippedData &skipped,
                              uint64_t minSkippedBytes = 1024);

} // namespace autodist::detail

#endif // AUTODIST_LIB_IMPORT_PARSEMODEL_H
