//===- ValidateModel.cpp - ONNX checker rules, tensor sizes ---------------===//

#include "ValidateModel.h"

#include "autodist/Driver/OutputFile.h"
#include "autodist/runtime/ExternalData.h"

#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

#include <limits>

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

using namespace mlir;

namespace autodist::detail {

/// The default domain has two spellings.
static std::string canonicalDomain(const std::string &domain) {
  return domain == "ai.onnx" ? std::string() : domain;
}

/// Whether `type` is a TensorProto data type of ONNX 1.23 (the protobuf
/// definitions built in are older; UNDEFINED included).
static bool isDataType(int64_t type) {
  return type >= 0 && type <= kNewestOnnxDataType;
}

/// Checks that a tensor type's element type is a TensorProto data type
/// (UNDEFINED: not known, allowed in value infos).
static LogicalResult checkValueInfo(const onnx::ValueInfoProto &info,
                                    const char *what, Location loc) {
  if (!info.type().has_tensor_type())
    return success();
  int elem = info.type().tensor_type().elem_type();
  if (isDataType(elem))
    return success();
  return emitError(loc) << what << " '" << info.name() << "' has element type "
                        << elem
                        << ", which is not an ONNX TensorProto data type";
}

bool sizeFitsInt64(llvm::ArrayRef<int64_t> dims) {
  constexpr uint64_t kMax = std::numeric_limits<int64_t>::max();
  uint64_t bytes = sizeof(int64_t);
  for (int64_t d : dims) {
    if (ShapedType::isDynamic(d) || d == 0)
      continue; // left out: MLIR multiplies in order, a 0 after huge dims
                // does not keep the count from overflowing
    if (d < 0 || bytes > kMax / static_cast<uint64_t>(d))
      return false;
    bytes *= static_cast<uint64_t>(d);
  }
  return true;
}

std::string shapeString(llvm::ArrayRef<int64_t> dims) {
  return "[" +
         llvm::join(llvm::map_range(dims,
                                    [](int64_t d) {
                                      return ShapedType::isDynamic(d)
                                                 ? std::string("?")
                                                 : std::to_string(d);
                                    }),
                    ", ") +
         "]";
}

/// Checks that `t`'s dims are non-negative and that its size fits int64.
static LogicalResult checkTensorSize(const onnx::TensorProto &t,
                                     const llvm::Twine &what, Location loc) {
  llvm::SmallVector<int64_t> dims(t.dims().begin(), t.dims().end());
  if (llvm::any_of(dims, [](int64_t d) { return d < 0; }))
    return emitError(loc) << what << " has a negative dim";
  if (!sizeFitsInt64(dims))
    return emitError(loc) << what << " has dims " << shapeString(dims)
                          << " whose size overflows 64 bits";
  return success();
}

/// The model's default-domain opset, checked to be one ONNX defines, and
/// the version the model imports of each domain.
static FailureOr<int64_t> checkOpsets(const onnx::ModelProto &model,
                                      llvm::StringMap<int64_t> &domains,
                                      Location loc) {
  int64_t opset = 0;
  for (const onnx::OperatorSetIdProto &o : model.opset_import()) {
    std::string domain = canonicalDomain(o.domain());
    domains[domain] = o.version();
    if (!domain.empty())
      continue;
    if (o.version() < 1 || o.version() > kNewestOnnxOpset)
      return emitError(loc) << "ONNX opset " << o.version()
                            << " is not defined (ONNX defines opsets 1 to "
                            << kNewestOnnxOpset << ")";
    opset = o.version();
  }
  return opset;
}

/// Checks that each of `node`'s attributes has the type its schema gives.
static LogicalResult checkAttributeTypes(const onnx::NodeProto &node,
                                         int64_t opset, Location loc) {
  const onnx::OpSchema *schema = onnx::OpSchemaRegistry::Schema(
      node.op_type(), static_cast<int>(opset), canonicalDomain(node.domain()));
  if (!schema)
    return success(); // an unknown op is reported by the importer
  for (const onnx::AttributeProto &a : node.attribute()) {
    if (a.type() == onnx::AttributeProto::UNDEFINED)
      continue; // IR version 1: the type follows from the field set
    auto it = schema->attributes().find(a.name());
    if (it == schema->attributes().end() || it->second.type == a.type())
      continue;
    std::string given = onnx::AttributeProto::AttributeType_IsValid(a.type())
                            ? onnx::AttributeProto::AttributeType_Name(a.type())
                            : "of type " + std::to_string(a.type());
    return emitError(loc) << "node '" << node.name() << "' (" << node.op_type()
                          << ", opset " << opset << "): attribute '" << a.name()
                          << "' is " << given << ", but " << node.op_type()
                          << " takes "
                          << onnx::AttributeProto::AttributeType_Name(
                                 it->second.type);
  }
  return success();
}

LogicalResult validateModel(const onnx::ModelProto &model, Location loc) {
  llvm::StringMap<int64_t> domains;
  FailureOr<int64_t> opset = checkOpsets(model, domains, loc);
  if (failed(opset))
    return failure();
  const onnx::GraphProto &graph = model.graph();

  // Each value is defined once: by a graph input, an initializer (which
  // old IR versions also list as an input) or one node output.
  llvm::StringSet<> inputs, defined;
  for (const onnx::ValueInfoProto &in : graph.input()) {
    if (!inputs.insert(in.name()).second)
      return emitError(loc)
             << "graph input '" << in.name() << "' is listed twice";
    if (failed(checkValueInfo(in, "input", loc)))
      return failure();
  }
  llvm::StringSet<> initializers;
  for (const onnx::TensorProto &t : graph.initializer()) {
    if (!initializers.insert(t.name()).second)
      return emitError(loc)
             << "initializer '" << t.name() << "' is defined twice";
    if (failed(checkTensorSize(t, "initializer '" + t.name() + "'", loc)))
      return failure();
    if (t.data_type() == onnx::TensorProto::UNDEFINED ||
        !isDataType(t.data_type()))
      return emitError(loc)
             << "initializer '" << t.name() << "' has data type "
             << t.data_type() << ", which is not an ONNX TensorProto data type";
  }
  defined = inputs;
  for (const auto &t : initializers)
    defined.insert(t.getKey());
  for (const onnx::ValueInfoProto &out : graph.output())
    if (failed(checkValueInfo(out, "output", loc)))
      return failure();
  for (const onnx::ValueInfoProto &info : graph.value_info())
    if (failed(checkValueInfo(info, "value", loc)))
      return failure();

  for (const onnx::NodeProto &node : graph.node()) {
    auto nodeError = [&]() {
      return emitError(loc) << "node '" << node.name() << "' ("
                            << node.op_type() << ", opset " << *opset << "): ";
    };
    auto domain = domains.find(canonicalDomain(node.domain()));
    if (domain == domains.end())
      return nodeError() << "its domain '" << node.domain()
                         << "' is not in the model's opset imports";
    for (const std::string &out : node.output())
      if (!out.empty() && !defined.insert(out).second)
        return nodeError() << "output '" << out
                           << "' is already defined (an ONNX graph defines "
                              "each value once)";
    if (failed(checkAttributeTypes(node, domain->second, loc)))
      return failure();
    for (const onnx::AttributeProto &a : node.attribute())
      if (a.has_t() &&
          failed(checkTensorSize(
              a.t(),
              "node '" + node.name() + "' (" + node.op_type() + ", opset " +
                  std::to_string(*opset) + "): attribute '" + a.name() + "'",
              loc)))
        return failure();
  }
  return success();
}

LogicalResult validateInputOptions(const onnx::GraphProto &graph,
                                   const OnnxImportOptions &options,
                                   Location loc) {
  llvm::StringSet<> initializers;
  for (const onnx::TensorProto &t : graph.initializer())
    initializers.insert(t.name());
  std::vector<std::string> names;
  for (const onnx::ValueInfoProto &in : graph.input())
    if (!initializers.contains(in.name()))
      names.push_back(in.name());
  auto check = [&](const llvm::StringMap<std::vector<int64_t>> &given,
                   const char *flag) -> LogicalResult {
    for (const auto &g : given)
      if (!llvm::is_contained(names, g.getKey()))
        return emitError(loc) << flag << " '" << g.getKey()
                              << "' names no input of the model (inputs: "
                              << (names.empty() ? std::string("none")
                                                : llvm::join(names, ", "))
                              << ")";
    return success();
  };
  if (failed(check(options.inputShapes, "--input-shape")) ||
      failed(check(options.boundInputs, "--bind-input")))
    return failure();
  for (const auto &g : options.inputShapes)
    if (options.boundInputs.count(g.getKey()))
      return emitError(loc) << "--input-shape '" << g.getKey()
                            << "' names an input --bind-input binds";
  return success();
}

LogicalResult validateOutputs(const onnx::GraphProto &graph,
                              llvm::StringRef dir,
                              const OnnxImportOptions &options, Location loc) {
  if (options.outputs.empty())
    return success();
  auto check = [&](const onnx::TensorProto &t) -> LogicalResult {
    if (!rt::isExternal(t))
      return success();
    for (const onnx::StringStringEntryProto &e : t.external_data()) {
      if (e.key() != "location")
        continue;
      llvm::SmallString<256> data(dir);
      llvm::sys::path::append(data, e.value());
      for (const auto &[flag, path] : options.outputs)
        if (!path.empty() && isSameFile(path, data))
          return emitError(loc)
                 << flag << " '" << path << "' is the same file as '" << data
                 << "', the external data of '" << t.name()
                 << "': refusing to overwrite it";
    }
    return success();
  };
  for (const onnx::TensorProto &t : graph.initializer())
    if (failed(check(t)))
      return failure();
  for (const onnx::NodeProto &node : graph.node())
    for (const onnx::AttributeProto &a : node.attribute())
      if (a.has_t() && failed(check(a.t())))
        return failure();
  return success();
}

} // namespace autodist::detail
