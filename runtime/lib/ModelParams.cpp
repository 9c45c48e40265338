//===- ModelParams.cpp - Parameters in the embedded ONNX model ------------===//

#include "autodist/runtime/ModelParams.h"
#include "autodist/runtime/AtomicFile.h"
#include "autodist/runtime/Error.h"
#include "autodist/runtime/ExternalData.h"
#include "autodist/runtime/OutputPath.h"
#include "autodist/runtime/ParseModel.h"

#include <climits>
#include <cstring>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <map>
#include <onnx/onnx_pb.h>
#include <optional>

namespace autodist::rt {

namespace {
/// The embedded model without the bytes of its large float initializers,
/// which stay in `bytes` where `skipped` says (no copy of the weights).
onnx::ModelProto parseModel(OnnxBytes bytes, SkippedData &skipped) {
  onnx::ModelProto model;
  if (bytes.size > INT_MAX)
    throw Error("the embedded ONNX model cannot be parsed");
  google::protobuf::io::ArrayInputStream input(bytes.data,
                                               static_cast<int>(bytes.size));
  if (!parseModelWithoutWeights(input, model, skipped))
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

/// Tensors this large or larger go to the data file of a model saved with
/// external data (onnx's default size_threshold).
constexpr uint64_t kMinExternalBytes = 1024;

/// Where external tensor `t`'s data is under `dir`; a missing or unreadable
/// file says how to point the executable elsewhere.
ExternalData locate(const onnx::TensorProto &t, const std::string &dir) {
  if (dir.empty())
    throw Error("initializer " + inQuotes(t.name()) +
                " uses ONNX external data, but the executable records no "
                "directory for it; give --external-data=DIR");
  ExternalData where;
  std::string err = locateExternalData(t, dir, where);
  if (!err.empty())
    throw Error(err + " (the model's external data is read from " +
                inQuotes(dir) + " at start; --external-data=DIR reads it " +
                "from elsewhere)");
  return where;
}

/// Reads external tensor `t` from under `dir` into `dst` (its size checked
/// by locate()).
void readExternal(const onnx::TensorProto &t, const std::string &dir,
                  void *dst) {
  std::string err = readExternalData(locate(t, dir), t.name(), dst);
  if (!err.empty())
    throw Error(err);
}

/// Writes the data of external tensors into one file beside the saved
/// model, each at a page-aligned offset (so readers may map it), and points
/// the tensors at it.
class ExternalDataWriter {
public:
  /// `modelPath`'s data goes to `modelPath`.data.
  explicit ExternalDataWriter(const std::string &modelPath)
      : location_(baseName(modelPath) + ".data"), file_(modelPath + ".data") {}

  void add(onnx::TensorProto &t, const void *data, uint64_t size) {
    static const char zeros[4096] = {};
    if (uint64_t pad = -file_.offset() % sizeof(zeros))
      file_.write(zeros, pad);
    uint64_t offset = file_.offset();
    file_.write(data, size);
    t.clear_raw_data();
    t.clear_float_data();
    t.clear_external_data();
    t.set_data_location(onnx::TensorProto::EXTERNAL);
    for (auto [key, value] :
         {std::pair<const char *, std::string>{"location", location_},
          {"offset", std::to_string(offset)},
          {"length", std::to_string(size)}}) {
      onnx::StringStringEntryProto *e = t.add_external_data();
      e->set_key(key);
      e->set_value(value);
    }
  }
  void commit() { file_.commit(); }

private:
  static std::string baseName(const std::string &path) {
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
  }
  std::string location_;
  AtomicFileWriter file_;
};
} // namespace

std::vector<Tensor> loadInitialParams(OnnxBytes bytes,
                                      const std::vector<TensorSpec> &specs,
                                      const std::string &externalDataDir) {
  SkippedData skipped;
  onnx::ModelProto model = parseModel(bytes, skipped);
  std::vector<Tensor> params;
  for (const TensorSpec &spec : specs) {
    const onnx::TensorProto &init = *findInitializer(model, spec);
    Tensor t(DType::F32, spec.shape);
    if (isExternal(init)) { // the size is checked against the shape
      readExternal(init, externalDataDir, t.data());
      params.push_back(std::move(t));
      continue;
    }
    auto where = skipped.find(spec.name);
    // ONNX stores tensors either as little-endian raw_data or in float_data.
    size_t have = where != skipped.end() ? where->second.length / sizeof(float)
                  : init.has_raw_data() ? init.raw_data().size() / sizeof(float)
                                        : init.float_data_size();
    if (have != static_cast<size_t>(t.numElements()) ||
        (where != skipped.end() && where->second.length != t.byteSize()) ||
        (init.has_raw_data() && init.raw_data().size() != t.byteSize()))
      throw Error("parameter " + inQuotes(spec.name) + " holds " +
                  std::to_string(have) +
                  " values in the embedded ONNX model, "
                  "expected " +
                  std::to_string(t.numElements()));
    if (where != skipped.end()) // straight from the embedded bytes
      std::memcpy(t.data(), bytes.data + where->second.offset, t.byteSize());
    else if (init.has_raw_data())
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
                         const std::string &path,
                         const std::string &externalDataDir) {
  SkippedData skipped;
  onnx::ModelProto model = parseModel(bytes, skipped);
  std::map<const onnx::TensorProto *, const Tensor *> trained;
  for (size_t i = 0; i < specs.size(); ++i)
    trained[findInitializer(model, specs[i])] = &values[i];
  bool external = false;
  for (const onnx::TensorProto &t : model.graph().initializer())
    external |= isExternal(t);

  // A model with external data is saved with external data (the embedded
  // form could pass protobuf's 2 GB): as onnx's save_as_external_data does,
  // every tensor of kMinExternalBytes or more goes to `path`.data, the
  // smaller ones (biases, int64 shapes, which onnxruntime wants inline) into
  // the model.
  std::optional<ExternalDataWriter> data;
  if (external) // beside the file written: a symlink's target
    data.emplace(followSymlinks(path));
  for (onnx::TensorProto &init :
       *model.mutable_graph()->mutable_initializer()) {
    auto it = trained.find(&init);
    if (it != trained.end()) {
      const Tensor &value = *it->second;
      if (data && value.byteSize() >= kMinExternalBytes) {
        data->add(init, value.data(), value.byteSize());
      } else {
        init.clear_external_data();
        init.clear_data_location();
        init.clear_float_data();
        init.set_raw_data(value.data(), value.byteSize());
      }
    } else if (auto where = skipped.find(init.name()); where != skipped.end()) {
      // Not a parameter (not in the manifest): its bytes as embedded.
      init.set_raw_data(bytes.data + where->second.offset,
                        where->second.length);
    } else if (isExternal(init)) { // a non-float tensor: its bytes as given
      ExternalData where = locate(init, externalDataDir);
      std::string bytes(where.length, '\0');
      readExternal(init, externalDataDir, bytes.data());
      if (bytes.size() >= kMinExternalBytes) {
        data->add(init, bytes.data(), bytes.size());
      } else {
        init.clear_external_data();
        init.clear_data_location();
        init.set_raw_data(std::move(bytes));
      }
    }
  }
  std::string out;
  if (!model.SerializeToString(&out))
    throw Error("cannot serialize the trained model for " + inQuotes(path));
  AtomicFileWriter file(path);
  file.write(out);
  if (data) // the data first: a model file is never left without it
    data->commit();
  file.commit();
}

} // namespace autodist::rt
