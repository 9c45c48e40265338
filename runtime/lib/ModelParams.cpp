//===- ModelParams.cpp - Parameters in the embedded ONNX model ------------===//

#include "autodist/runtime/ModelParams.h"
#include "autodist/runtime/AtomicFile.h"
#include "autodist/runtime/Error.h"

#include <climits>
#include <cstring>
#include <onnx/onnx_pb.h>

namespace autodist::rt {

namespace {
onnx::ModelProto parseModel(OnnxBytes bytes) {
  onnx::ModelProto model;
  if (bytes.size > INT_MAX ||
      !model.ParseFromArray(bytes.data, static_cast<int>(bytes.size)))
    throw Error("the embedded ONNX model cannot be parsed");
  return model;
}

onnx::TensorProto *findInitializer(onnx::ModelProto &model,
                                   const TensorSpec &spec) {
  for (onnx::TensorProto &t : *model.mutable_graph()->mutable_initializer())
    if (t.name() == spec.name) {
      if (t.data_type() != onnx::TensorProto::FLOAT)
        throw Error("parameter " + inQuotes(spec.name) +
                    " is not a float initializer in the embedded ONNX model");
      if (t.data_location() == onnx::TensorProto::EXTERNAL)
        throw Error("parameter " + inQuotes(spec.name) +
                    " uses ONNX external data, which is not supported");
      std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
      if (dims != spec.shape)
        throw Error("parameter " + inQuotes(spec.name) + " has shape " +
                    shapeString(dims) + " in the embedded ONNX model but " +
                    shapeString(spec.shape) + " in the manifest");
      return &t;
    }
  throw Error("the embedded ONNX model has no initializer for parameter " +
              inQuotes(spec.name));
}
} // namespace

std::vector<Tensor> loadInitialParams(OnnxBytes bytes,
                                      const std::vector<TensorSpec> &specs) {
  onnx::ModelProto model = parseModel(bytes);
  std::vector<Tensor> params;
  for (const TensorSpec &spec : specs) {
    const onnx::TensorProto &init = *findInitializer(model, spec);
    Tensor t(DType::F32, spec.shape);
    // ONNX stores tensors either as little-endian raw_data or in float_data.
    size_t have = init.has_raw_data() ? init.raw_data().size() / sizeof(float)
                                      : init.float_data_size();
    if (have != static_cast<size_t>(t.numElements()) ||
        (init.has_raw_data() && init.raw_data().size() != t.byteSize()))
      throw Error("parameter " + inQuotes(spec.name) + " holds " +
                  std::to_string(have) +
                  " values in the embedded ONNX model, "
                  "expected " +
                  std::to_string(t.numElements()));
    if (init.has_raw_data())
      std::memcpy(t.data(), init.raw_data().data(), t.byteSize());
    else
      std::copy(init.float_data().begin(), init.float_data().end(),
                t.data<float>());
    params.push_back(std::move(t));
  }
  return params;
}

void saveModelWithParams(OnnxBytes bytes, const std::vector<TensorSpec> &specs,
                         const std::vector<Tensor> &values,
                         const std::string &path) {
  onnx::ModelProto model = parseModel(bytes);
  for (size_t i = 0; i < specs.size(); ++i) {
    onnx::TensorProto &init = *findInitializer(model, specs[i]);
    init.clear_float_data();
    init.set_raw_data(values[i].data(), values[i].byteSize());
  }
  std::string out;
  if (!model.SerializeToString(&out))
    throw Error("cannot serialize the trained model for " + inQuotes(path));
  writeFileAtomically(path, out);
}

} // namespace autodist::rt
