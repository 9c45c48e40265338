//===- ExternalData.h - ONNX tensors stored beside the model ----*- C++ -*-===//
//
// ONNX keeps a tensor's bytes in a file next to the model when its
// `data_location` is EXTERNAL (exporters do this past protobuf's 2 GB):
// `external_data` holds `location` (a path relative to the model's
// directory), `offset` and `length` (bytes; without `length` the data runs to
// the end of the file). The compiler (checking parameters, reading int64
// constants) and the runtime (reading initial parameters, --save) share this
// code, so it reports errors as messages instead of throwing.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_EXTERNALDATA_H
#define AUTODIST_RUNTIME_EXTERNALDATA_H

#include <cstdint>
#include <string>

namespace onnx {
class TensorProto;
} // namespace onnx

namespace autodist::rt {

/// Where the bytes of one external tensor are.
struct ExternalData {
  std::string location; // as written in the model
  std::string path;     // `location` resolved against the model's directory
  uint64_t offset = 0, length = 0;
};

/// Whether `t` keeps its data in an external file.
bool isExternal(const onnx::TensorProto &t);

/// Bytes per element of ONNX data type `dataType`; 0 when unknown or not
/// fixed-size (strings).
uint64_t elementSize(int dataType);

/// Finds the data of external tensor `t` under directory `dir` and checks
/// that the file exists and that the region is inside it and holds exactly
/// the bytes `t`'s shape and type need. A `location` that is absolute or
/// leaves `dir` (through `..`) is refused. Returns an error message naming
/// the tensor and the file, or "" on success.
std::string locateExternalData(const onnx::TensorProto &t,
                               const std::string &dir, ExternalData &out);

/// Reads the bytes `data` describes into `dst` (`data.length` bytes).
/// Returns an error message naming `tensorName` and the file, or "".
std::string readExternalData(const ExternalData &data,
                             const std::string &tensorName, void *dst);

/// Turns external tensor `t` into an ordinary one: its bytes (read from
/// under `dir`) become `raw_data`. For the small tensors whose values are
/// needed (int64 constants). Returns an error message or "".
std::string inlineExternalData(onnx::TensorProto &t, const std::string &dir);

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_EXTERNALDATA_H
