//===- ModelParams.h - Parameters in the embedded ONNX model ----*- C++ -*-===//
//
// The compiled object embeds the input ONNX model. Its float initializers are
// the trainable parameters: their initial values come from it (or from its
// external data files), and --save writes the model back with the trained
// values in their place.
//
//===----------------------------------------------------------------------===//

#ifndef AUTODIST_RUNTIME_MODELPARAMS_H
#define AUTODIST_RUNTIME_MODELPARAMS_H

#include "autodist/runtime/Manifest.h"
#include "autodist/runtime/Tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace autodist::rt {

/// The serialized ModelProto (`autodist_model_onnx`, `..._size`).
struct OnnxBytes {
  const unsigned char *data;
  int64_t size;
};

/// Reads the initial value of every parameter in `specs`, checking that the
/// initializer exists, is float and has the manifest's shape. Initializers
/// with ONNX external data are read from their files under
/// `externalDataDir` (docs/abi.md).
std::vector<Tensor> loadInitialParams(OnnxBytes model,
                                      const std::vector<TensorSpec> &specs,
                                      const std::string &externalDataDir = "");

/// Writes `model` to `path` (atomically) with the data of the initializers
/// named in `specs` replaced by `values` (as raw_data). A model with external
/// data (under `externalDataDir`) is written with external data: its
/// tensors of 1 KiB or more go to `path`.data (location: that file's name),
/// the others into the model.
void saveModelWithParams(OnnxBytes model, const std::vector<TensorSpec> &specs,
                         const std::vector<Tensor> &values,
                         const std::string &path,
                         const std::string &externalDataDir = "");

} // namespace autodist::rt

#endif // AUTODIST_RUNTIME_MODELPARAMS_H
