//===- OnnxImporter.cpp - ONNX model to nn dialect ------------------------===//
//
// Reads a ModelProto with libonnx's protobuf classes and builds
// `func.func @forward(params..., inputs...) -> outputs` in the nn dialect.
// Float initializers become parameters (arguments tagged `nn.param` with
// their ONNX names); int64 initializers and Constant nodes are constants the
// importer folds (e.g. Reshape's shape). Each node is checked as it is
// built, so errors name the node.
//
//===----------------------------------------------------------------------===//

#include "autodist/Import/OnnxImporter.h"
#include "BuildChecked.h"
#include "FoldShapes.h"
#include "ImportConv.h"
#include "ValidateModel.h"
#include "nn/NNOps.h"

#include "autodist/Passes.h"
#include "autodist/runtime/ExternalData.h"
#include "autodist/runtime/ParseModel.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <onnx/onnx_pb.h>

#include <cmath>
#include <deque>
#include <functional>
#include <map>

using namespace mlir;

namespace autodist {

std::string parseInputShapes(ArrayRef<std::string> specs,
                             OnnxImportOptions &options) {
  for (const std::string &list : specs) {
    SmallVector<StringRef> items;
    StringRef(list).split(items, ',', -1, false);
    for (StringRef item : items) {
      auto [name, dims] = item.rsplit(':');
      if (name.empty() || dims.empty() || dims == item)
        return ("invalid --input-shape '" + item +
                "' (expected NAME:D0xD1..., e.g. x:16x64)")
            .str();
      std::vector<int64_t> shape;
      SmallVector<StringRef> parts;
      dims.split(parts, 'x');
      for (StringRef p : parts) {
        int64_t d;
        if (p.getAsInteger(10, d) || d <= 0)
          return ("invalid dim '" + p + "' in --input-shape '" + item + "'")
              .str();
        shape.push_back(d);
      }
      options.inputShapes[name] = std::move(shape);
    }
  }
  return "";
}

std::string parseBoundInputs(ArrayRef<std::string> specs,
                             OnnxImportOptions &options) {
  for (StringRef spec : specs) {
    auto [name, list] = spec.split('=');
    if (name.empty() || name == spec)
      return ("invalid --bind-input '" + spec +
              "' (expected NAME=V0,V1,..., e.g. axes=0,2)")
          .str();
    std::vector<int64_t> values;
    SmallVector<StringRef> parts; // NAME= binds an empty 1-D input
    list.split(parts, ',', -1, /*KeepEmpty=*/false);
    for (StringRef p : parts) {
      int64_t v;
      if (p.trim().getAsInteger(10, v))
        return ("invalid value '" + p + "' in --bind-input '" + spec + "'")
            .str();
      values.push_back(v);
    }
    options.boundInputs[name] = std::move(values);
  }
  return "";
}

namespace {

using detail::IntConstant;
using detail::readInts;

class Importer {
public:
  Importer(MLIRContext *ctx, StringRef bufferName, StringRef modelDir,
           const rt::SkippedData &skipped, const OnnxImportOptions &options)
      : ctx(ctx), b(ctx), fileLoc(FileLineColLoc::get(ctx, bufferName, 0, 0)),
        modelDir(modelDir.str()), skipped(skipped), options(options) {}

  OwningOpRef<ModuleOp> run(const onnx::ModelProto &model);

private:
  LogicalResult importNode(const onnx::NodeProto &node);
  LogicalResult collectInitializers(const onnx::GraphProto &graph);
  /// Checks that float initializer `t` holds as many bytes as its shape
  /// needs (read or, for a large one, skipped at parsing).
  LogicalResult checkFloatData(const onnx::TensorProto &t);
  /// `t` with its values at hand: `t` itself, or for external data a copy
  /// with the bytes read from the model's directory (for the small tensors
  /// whose values the importer needs); null after an error at `loc`.
  const onnx::TensorProto *withValues(const onnx::TensorProto &t, Location loc);
  FailureOr<RankedTensorType> inputType(const onnx::ValueInfoProto &info);
  /// Makes graph input `info` a constant when --bind-input names it.
  LogicalResult bindInput(const onnx::ValueInfoProto &info);

  Location nodeLoc(const onnx::NodeProto &node) {
    std::string name = node.name().empty() ? node.op_type() : node.name();
    return NameLoc::get(StringAttr::get(ctx, name), fileLoc);
  }
  InFlightDiagnostic nodeError(const onnx::NodeProto &node) {
    return emitError(nodeLoc(node))
           << "node '" << node.name() << "' (" << node.op_type() << ", opset "
           << opset << "): ";
  }
  FailureOr<Value> operand(const onnx::NodeProto &node, int i);
  /// The int64/bool constant `k` named `name` as an arith.constant (made
  /// once); `error` starts the error when it cannot be (an unknown entry).
  FailureOr<Value> materialize(const std::string &name, const IntConstant &k,
                               function_ref<InFlightDiagnostic()> error);
  /// Whether input `i` is given (present and non-empty).
  bool hasInput(const onnx::NodeProto &node, int i) {
    return i < node.input_size() && !node.input(i).empty();
  }
  /// The int64 values of constant input `i`; an error if it is not one.
  FailureOr<std::vector<int64_t>> constInput(const onnx::NodeProto &node, int i,
                                             StringRef what);
  /// Axes from attribute `axes` or from constant input `inputIndex` (the
  /// opset 13/18 form); nullopt when neither is given.
  FailureOr<std::optional<std::vector<int64_t>>>
  axesOf(const onnx::NodeProto &node, int inputIndex);
  /// Reshape's constant shape input; one entry unknown at import (the
  /// batch dim read by Shape) becomes -1.
  FailureOr<std::vector<int64_t>> reshapeTarget(const onnx::NodeProto &node);
  /// Expand's constant shape input; an unknown entry (the batch read by
  /// Shape) against a dynamic dim of `input` becomes 1.
  FailureOr<std::vector<int64_t>> expandTarget(const onnx::NodeProto &node,
                                               Value input);
  LogicalResult checkAttributes(const onnx::NodeProto &node);
  FailureOr<Value> importSoftmax(const onnx::NodeProto &node, bool log);
  FailureOr<Value> importReduce(const onnx::NodeProto &node);
  LogicalResult importDropout(const onnx::NodeProto &node);
  /// Folds a node whose result is an int64/bool constant (FoldShapes.h):
  /// true when folded, false when it is to be imported as an op.
  FailureOr<bool> foldIntConstants(const onnx::NodeProto &node);
  FailureOr<Value> importSlice(const onnx::NodeProto &node);
  LogicalResult importSplit(const onnx::NodeProto &node);
  FailureOr<Value> importConstantOfShape(const onnx::NodeProto &node);
  FailureOr<Value> importRange(const onnx::NodeProto &node);

  /// Builds op `OpTy` with result types from its own type inference; a
  /// failure is reported as one error naming the node instead of aborting.
  template <typename OpTy>
  FailureOr<Operation *>
  buildOp(const onnx::NodeProto &node, ValueRange operands,
          ArrayRef<NamedAttribute> attrs = {}, unsigned numResults = 1);
  template <typename OpTy>
  FailureOr<Value> build(const onnx::NodeProto &node, ValueRange operands,
                         ArrayRef<NamedAttribute> attrs = {}) {
    FailureOr<Operation *> op = buildOp<OpTy>(node, operands, attrs);
    if (failed(op))
      return failure();
    return (*op)->getResult(0);
  }

  MLIRContext *ctx;
  OpBuilder b;
  FileLineColLoc fileLoc;
  /// The absolute directory of the model: where external data lives.
  std::string modelDir;
  /// The float initializers whose bytes were not read (ParseModel.h).
  const rt::SkippedData &skipped;
  const OnnxImportOptions &options;
  std::map<std::string, Value> values;
  std::map<std::string, IntConstant> intConstants;
  std::map<std::string, const onnx::TensorProto *> floatInits;
  std::vector<std::string> paramOrder;
  /// Copies of external tensors with their bytes read (see withValues).
  std::deque<onnx::TensorProto> inlined;
  /// Whether some initializer keeps its data in an external file.
  bool hasExternalData = false;
  /// The model's default-domain opset (operator semantics depend on it).
  int64_t opset = 21;
};

int64_t attrInt(const onnx::NodeProto &node, StringRef name, int64_t dflt) {
  for (const auto &a : node.attribute())
    if (a.name() == name)
      return a.i();
  return dflt;
}

float attrFloat(const onnx::NodeProto &node, StringRef name, float dflt) {
  for (const auto &a : node.attribute())
    if (a.name() == name)
      return a.f();
  return dflt;
}

const onnx::AttributeProto *findAttr(const onnx::NodeProto &node,
                                     StringRef name) {
  for (const auto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

std::string dataTypeName(int64_t t) {
  if (!onnx::TensorProto::DataType_IsValid(static_cast<int>(t)))
    return std::to_string(t);
  return onnx::TensorProto::DataType_Name(
      static_cast<onnx::TensorProto::DataType>(t));
}

/// The attributes each supported op accepts (anything else is rejected, so
/// that an attribute the importer ignores never changes the answer).
const std::map<std::string, std::vector<std::string>> &knownAttributes() {
  static const std::map<std::string, std::vector<std::string>> known = {
      {"Gemm", {"alpha", "beta", "transA", "transB"}},
      {"MatMul", {}},
      {"Add", {}},
      {"Sub", {}},
      {"Mul", {}},
      {"Div", {}},
      {"Pow", {}},
      {"Relu", {}},
      {"Sqrt", {}},
      {"Neg", {}},
      {"Exp", {}},
      {"Log", {}},
      {"Sigmoid", {}},
      {"Tanh", {}},
      {"Erf", {}},
      {"LeakyRelu", {"alpha"}},
      {"Gelu", {"approximate"}},
      {"Where", {}},
      {"Equal", {}},
      {"Cast", {"to", "saturate"}},
      {"Dropout", {"ratio", "seed"}},
      {"Softmax", {"axis"}},
      {"LogSoftmax", {"axis"}},
      {"ReduceSum", {"axes", "keepdims", "noop_with_empty_axes"}},
      {"ReduceMean", {"axes", "keepdims", "noop_with_empty_axes"}},
      {"ReduceMax", {"axes", "keepdims", "noop_with_empty_axes"}},
      {"Transpose", {"perm"}},
      {"Squeeze", {"axes"}},
      {"Unsqueeze", {"axes"}},
      {"Concat", {"axis"}},
      {"Identity", {}},
      {"Flatten", {"axis"}},
      {"Reshape", {"allowzero"}},
      {"Constant", {"value"}},
      {"Gather", {"axis"}},
      {"LayerNormalization", {"axis", "epsilon", "stash_type"}},
      {"Slice", {"starts", "ends", "axes"}},
      {"Split", {"axis", "split", "num_outputs"}},
      {"Expand", {}},
      {"Trilu", {"upper"}},
      {"Shape", {"start", "end"}},
      {"Size", {}},
      {"ConstantOfShape", {"value"}},
      {"Range", {}},
      // Folded on int64 constants only (shape arithmetic).
      {"Tile", {}},
      {"Min", {}},
      {"Max", {}},
      {"Mod", {"fmod"}},
      {"Abs", {}},
      {"Less", {}},
      {"Greater", {}},
      {"LessOrEqual", {}},
      {"GreaterOrEqual", {}},
      {"Not", {}},
      {"And", {}},
      {"Or", {}},
  };
  return known;
}

/// Reads a float TensorProto (raw_data or float_data).
std::vector<float> readFloats(const onnx::TensorProto &t) {
  std::vector<float> v;
  if (!t.raw_data().empty()) {
    v.resize(t.raw_data().size() / sizeof(float));
    memcpy(v.data(), t.raw_data().data(), v.size() * sizeof(float));
  } else {
    v.assign(t.float_data().begin(), t.float_data().end());
  }
  return v;
}

std::vector<int64_t> attrInts(const onnx::AttributeProto &a) {
  return std::vector<int64_t>(a.ints().begin(), a.ints().end());
}

RankedTensorType f32Tensor(MLIRContext *ctx, const onnx::TensorProto &t) {
  SmallVector<int64_t> shape(t.dims().begin(), t.dims().end());
  return RankedTensorType::get(shape, Float32Type::get(ctx));
}

} // namespace

template <typename OpTy>
FailureOr<Operation *>
Importer::buildOp(const onnx::NodeProto &node, ValueRange operands,
                  ArrayRef<NamedAttribute> attrs, unsigned numResults) {
  std::string messages;
  Operation *op = detail::createInferredOp<OpTy>(b, nodeLoc(node), operands,
                                                 attrs, numResults, messages);
  if (!op) {
    nodeError(node) << (messages.empty() ? std::string("invalid node")
                                         : messages);
    return failure();
  }
  return op;
}

FailureOr<Value> Importer::operand(const onnx::NodeProto &node, int i) {
  if (i >= node.input_size() || node.input(i).empty()) {
    nodeError(node) << "missing input " << i;
    return failure();
  }
  auto it = values.find(node.input(i));
  if (it != values.end())
    return it->second;
  auto c = intConstants.find(node.input(i));
  if (c == intConstants.end()) {
    nodeError(node) << "input '" << node.input(i)
                    << "' is not produced by any earlier node";
    return failure();
  }
  // An int64/bool constant read as data: materialize it once.
  return materialize(node.input(i), c->second,
                     [&]() { return nodeError(node); });
}

FailureOr<Value>
Importer::materialize(const std::string &name, const IntConstant &k,
                      function_ref<InFlightDiagnostic()> error) {
  if (k.hasUnknown()) {
    error() << "'" << name
            << "' depends on a dynamic dim; give the graph input's shape "
               "with --input-shape";
    return failure();
  }
  Type elem = k.isBool ? b.getI1Type() : b.getI64Type();
  auto type = RankedTensorType::get(k.dims, elem);
  if (type.getNumElements() != (int64_t)k.values.size()) {
    error() << "constant '" << name << "' has " << k.values.size()
            << " values for shape " << type;
    return failure();
  }
  DenseElementsAttr attr;
  if (k.isBool) {
    SmallVector<bool> bits(k.values.begin(), k.values.end());
    attr = DenseElementsAttr::get(type, ArrayRef<bool>(bits));
  } else {
    attr = DenseElementsAttr::get(type, ArrayRef<int64_t>(k.values));
  }
  Value v = arith::ConstantOp::create(b, fileLoc, attr);
  values[name] = v;
  return v;
}

FailureOr<std::vector<int64_t>>
Importer::constInput(const onnx::NodeProto &node, int i, StringRef what) {
  auto it =
      hasInput(node, i) ? intConstants.find(node.input(i)) : intConstants.end();
  if (it == intConstants.end() || it->second.isBool) {
    nodeError(node) << "the " << what
                    << " input must be a constant int64 tensor";
    return failure();
  }
  if (it->second.hasUnknown()) {
    nodeError(node) << "the " << what
                    << " input depends on a dynamic dim; give the graph "
                       "input's shape with --input-shape";
    return failure();
  }
  return it->second.values;
}

FailureOr<std::vector<int64_t>>
Importer::reshapeTarget(const onnx::NodeProto &node) {
  auto it =
      hasInput(node, 1) ? intConstants.find(node.input(1)) : intConstants.end();
  if (it != intConstants.end() && !it->second.isBool) {
    std::vector<int64_t> shape = it->second.values;
    // Exporters read the batch dim with Shape; unknown, it is inferred.
    if (llvm::count_if(shape, detail::isUnknown) == 1 &&
        !llvm::is_contained(shape, -1)) {
      for (int64_t &d : shape)
        if (detail::isUnknown(d))
          d = -1;
      return shape;
    }
  }
  return constInput(node, 1, "shape");
}

FailureOr<std::vector<int64_t>>
Importer::expandTarget(const onnx::NodeProto &node, Value input) {
  auto it =
      hasInput(node, 1) ? intConstants.find(node.input(1)) : intConstants.end();
  if (it != intConstants.end() && !it->second.isBool) {
    std::vector<int64_t> shape = it->second.values;
    // An unknown entry (read from the batch) against a dynamic dim of the
    // input keeps that dim: broadcasting leaves it as it is.
    auto in = cast<RankedTensorType>(input.getType()).getShape();
    int64_t off = (int64_t)shape.size() - (int64_t)in.size();
    bool resolved = true;
    for (auto [i, d] : llvm::enumerate(shape)) {
      if (!detail::isUnknown(d))
        continue;
      int64_t j = (int64_t)i - off;
      if (j >= 0 && ShapedType::isDynamic(in[j]))
        d = 1;
      else
        resolved = false;
    }
    if (resolved)
      return shape;
  }
  return constInput(node, 1, "shape");
}

FailureOr<std::optional<std::vector<int64_t>>>
Importer::axesOf(const onnx::NodeProto &node, int inputIndex) {
  const onnx::AttributeProto *attr = findAttr(node, "axes");
  if (attr && hasInput(node, inputIndex)) {
    nodeError(node) << "attribute 'axes' and the axes input are both given";
    return failure();
  }
  if (attr)
    return std::optional<std::vector<int64_t>>(attrInts(*attr));
  if (!hasInput(node, inputIndex))
    return std::optional<std::vector<int64_t>>();
  FailureOr<std::vector<int64_t>> v = constInput(node, inputIndex, "axes");
  if (failed(v))
    return failure();
  return std::optional<std::vector<int64_t>>(*v);
}

LogicalResult Importer::checkAttributes(const onnx::NodeProto &node) {
  auto it = knownAttributes().find(node.op_type());
  if (it == knownAttributes().end())
    return success(); // reported as an unsupported op
  for (const auto &a : node.attribute()) {
    if (!llvm::is_contained(it->second, a.name())) {
      nodeError(node) << "unsupported attribute '" << a.name() << "'";
      return failure();
    }
  }
  return success();
}

FailureOr<bool> Importer::foldIntConstants(const onnx::NodeProto &node) {
  auto constant = [&](const std::string &name) -> const IntConstant * {
    auto it = intConstants.find(name);
    return it == intConstants.end() ? nullptr : &it->second;
  };
  auto shapeOf =
      [&](const std::string &name) -> std::optional<std::vector<int64_t>> {
    auto it = values.find(name);
    if (it == values.end())
      return std::nullopt;
    auto shape = cast<RankedTensorType>(it->second.getType()).getShape();
    return std::vector<int64_t>(shape.begin(), shape.end());
  };
  std::vector<IntConstant> outs;
  FailureOr<bool> folded = detail::foldIntNode(
      node, {constant, shapeOf, [&] { return nodeError(node); }, opset}, outs);
  if (failed(folded) || !*folded)
    return folded;
  intConstants[node.output(0)] = std::move(outs[0]);
  return true;
}

FailureOr<Value> Importer::importSoftmax(const onnx::NodeProto &node,
                                         bool log) {
  FailureOr<Value> x = operand(node, 0);
  if (failed(x))
    return failure();
  auto t = cast<RankedTensorType>(x->getType());
  int64_t rank = t.getRank();
  int64_t axis = attrInt(node, "axis", opset >= 13 ? -1 : 1);
  if (axis < -rank || axis >= rank) {
    nodeError(node) << "attribute 'axis' = " << axis
                    << " is out of range for rank " << rank;
    return failure();
  }
  if (axis < 0)
    axis += rank;
  auto axisAttr = [&](int64_t a) {
    return b.getNamedAttr("axis", b.getI64IntegerAttr(a));
  };
  // Opset 13+ normalizes along one axis; before, over the flattened dims
  // [axis, rank), which is the same when axis is the last dim.
  if (opset >= 13 || axis == rank - 1) {
    if (log)
      return build<nn::LogSoftmaxOp>(node, {*x}, {axisAttr(axis)});
    return build<nn::SoftmaxOp>(node, {*x}, {axisAttr(axis)});
  }
  if (t.getNumDynamicDims() > 1) {
    nodeError(node) << "opset " << opset << " " << node.op_type()
                    << " with attribute 'axis' = " << axis
                    << " needs at most one dynamic dim";
    return failure();
  }
  FailureOr<Value> flat = build<nn::FlattenOp>(node, {*x}, {axisAttr(axis)});
  if (failed(flat))
    return failure();
  FailureOr<Value> sm =
      log ? build<nn::LogSoftmaxOp>(node, {*flat}, {axisAttr(1)})
          : build<nn::SoftmaxOp>(node, {*flat}, {axisAttr(1)});
  if (failed(sm))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t d : t.getShape())
    shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
  return build<nn::ReshapeOp>(
      node, {*sm}, {b.getNamedAttr("shape", b.getDenseI64ArrayAttr(shape))});
}

FailureOr<Value> Importer::importReduce(const onnx::NodeProto &node) {
  FailureOr<Value> x = operand(node, 0);
  if (failed(x))
    return failure();
  auto axes = axesOf(node, 1);
  if (failed(axes))
    return failure();
  int64_t keepdims = attrInt(node, "keepdims", 1);
  int64_t noop = attrInt(node, "noop_with_empty_axes", 0);
  if ((keepdims != 0 && keepdims != 1) || (noop != 0 && noop != 1)) {
    nodeError(node) << "attribute '"
                    << (keepdims != 0 && keepdims != 1 ? "keepdims"
                                                       : "noop_with_empty_axes")
                    << "' must be 0 or 1";
    return failure();
  }
  SmallVector<NamedAttribute> attrs = {
      b.getNamedAttr("axes", b.getDenseI64ArrayAttr(
                                 axes->value_or(std::vector<int64_t>{}))),
      b.getNamedAttr("keepdims", b.getBoolAttr(keepdims)),
      b.getNamedAttr("noop_with_empty_axes", b.getBoolAttr(noop))};
  const std::string &type = node.op_type();
  if (type == "ReduceSum")
    return build<nn::ReduceSumOp>(node, {*x}, attrs);
  if (type == "ReduceMean")
    return build<nn::ReduceMeanOp>(node, {*x}, attrs);
  return build<nn::ReduceMaxOp>(node, {*x}, attrs);
}

LogicalResult Importer::importDropout(const onnx::NodeProto &node) {
  FailureOr<Value> x = operand(node, 0);
  if (failed(x))
    return failure();
  // The ratio: attribute before opset 12, constant input 1 since (a Constant
  // node or, as some exporters write it, a float initializer); 0.5 if absent.
  float ratio = attrFloat(node, "ratio", 0.5f);
  if (opset >= 12 && hasInput(node, 1)) {
    const std::string &name = node.input(1);
    std::vector<float> v;
    auto it = values.find(name);
    auto c = it == values.end() ? arith::ConstantOp()
                                : it->second.getDefiningOp<arith::ConstantOp>();
    auto attr =
        c ? dyn_cast<DenseElementsAttr>(c.getValue()) : DenseElementsAttr();
    if (attr && attr.getElementType().isF32())
      v.assign(attr.getValues<float>().begin(), attr.getValues<float>().end());
    else if (floatInits.count(name)) {
      const onnx::TensorProto *t = withValues(*floatInits[name], nodeLoc(node));
      if (!t)
        return failure();
      v = readFloats(*t);
    }
    if (v.size() != 1) {
      nodeError(node) << "input 'ratio' must be a constant float scalar";
      return failure();
    }
    ratio = v[0];
  }
  if (!(ratio >= 0.0f && ratio < 1.0f)) {
    nodeError(node) << "ratio " << ratio << " is outside [0, 1)";
    return failure();
  }
  // training_mode, when given, must be a constant: inference (the forward
  // pass) is the identity and the training step applies the mask either
  // way, as torch's eval() and train() do.
  if (hasInput(node, 2)) {
    auto it = intConstants.find(node.input(2));
    if (it == intConstants.end() || it->second.values.size() != 1) {
      nodeError(node) << "input 'training_mode' must be a constant bool";
      return failure();
    }
  }
  bool wantsMask = node.output_size() > 1 && !node.output(1).empty();
  if (wantsMask && opset < 12) {
    nodeError(node) << "output 'mask' of opset " << opset
                    << " Dropout is not supported (unspecified in inference "
                       "before opset 12)";
    return failure();
  }
  FailureOr<Operation *> op = buildOp<nn::DropoutOp>(
      node, {*x}, {b.getNamedAttr("ratio", b.getF32FloatAttr(ratio))}, 2);
  if (failed(op))
    return failure();
  if (node.output_size() < 1) {
    nodeError(node) << "has no output";
    return failure();
  }
  values[node.output(0)] = (*op)->getResult(0);
  if (wantsMask)
    values[node.output(1)] = (*op)->getResult(1);
  return success();
}

FailureOr<Value> Importer::importSlice(const onnx::NodeProto &node) {
  FailureOr<Value> x = operand(node, 0);
  if (failed(x))
    return failure();
  std::vector<int64_t> starts, ends, axes, steps;
  if (opset < 10) {
    const onnx::AttributeProto *s = findAttr(node, "starts"),
                               *e = findAttr(node, "ends");
    if (!s || !e) {
      nodeError(node) << "attributes 'starts' and 'ends' are required";
      return failure();
    }
    starts = attrInts(*s);
    ends = attrInts(*e);
    if (const onnx::AttributeProto *a = findAttr(node, "axes"))
      axes = attrInts(*a);
  } else {
    if (findAttr(node, "starts") || findAttr(node, "ends") ||
        findAttr(node, "axes")) {
      nodeError(node) << "attributes 'starts', 'ends' and 'axes' are inputs "
                         "since opset 10";
      return failure();
    }
    FailureOr<std::vector<int64_t>> s = constInput(node, 1, "starts");
    if (failed(s))
      return failure();
    FailureOr<std::vector<int64_t>> e = constInput(node, 2, "ends");
    if (failed(e))
      return failure();
    starts = *s;
    ends = *e;
    if (hasInput(node, 3)) {
      FailureOr<std::vector<int64_t>> a = constInput(node, 3, "axes");
      if (failed(a))
        return failure();
      axes = *a;
    }
    if (hasInput(node, 4)) {
      FailureOr<std::vector<int64_t>> st = constInput(node, 4, "steps");
      if (failed(st))
        return failure();
      steps = *st;
    }
  }
  if (axes.empty())
    for (int64_t i = 0; i < (int64_t)starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  return build<nn::SliceOp>(
      node, {*x},
      {b.getNamedAttr("starts", b.getDenseI64ArrayAttr(starts)),
       b.getNamedAttr("ends", b.getDenseI64ArrayAttr(ends)),
       b.getNamedAttr("axes", b.getDenseI64ArrayAttr(axes)),
       b.getNamedAttr("steps", b.getDenseI64ArrayAttr(steps))});
}

LogicalResult Importer::importSplit(const onnx::NodeProto &node) {
  FailureOr<Value> x = operand(node, 0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  int64_t rank = type.getRank(), axis = attrInt(node, "axis", 0);
  if (axis < -rank || axis >= rank) {
    nodeError(node) << "attribute 'axis' = " << axis
                    << " is out of range for rank " << rank;
    return failure();
  }
  int64_t dim = type.getDimSize(axis < 0 ? axis + rank : axis);
  int64_t n = node.output_size();
  std::vector<int64_t> sizes;
  const onnx::AttributeProto *splitAttr = findAttr(node, "split");
  const onnx::AttributeProto *numOutputs = findAttr(node, "num_outputs");
  if (splitAttr && hasInput(node, 1)) {
    nodeError(node) << "attribute 'split' and the split input are both given";
    return failure();
  }
  if (hasInput(node, 1)) {
    FailureOr<std::vector<int64_t>> s = constInput(node, 1, "split");
    if (failed(s))
      return failure();
    sizes = *s;
  } else if (splitAttr) {
    sizes = attrInts(*splitAttr);
  } else {
    if (ShapedType::isDynamic(dim)) {
      nodeError(node) << "splits dynamic dim " << axis;
      return failure();
    }
    if (numOutputs && numOutputs->i() != n) {
      nodeError(node) << "attribute 'num_outputs' = " << numOutputs->i()
                      << " differs from the number of outputs " << n;
      return failure();
    }
    // Opset 18 num_outputs: chunks of ceil(dim / n), the last one smaller;
    // before, equal parts.
    int64_t chunk = numOutputs ? (dim + n - 1) / n : dim / n;
    if (n < 1 || (!numOutputs && dim % n != 0) || chunk * (n - 1) >= dim) {
      nodeError(node) << "cannot split dim " << axis << " of size " << dim
                      << " into " << n << " parts";
      return failure();
    }
    sizes.assign(n - 1, chunk);
    sizes.push_back(dim - chunk * (n - 1));
  }
  if ((int64_t)sizes.size() != n) {
    nodeError(node) << "has " << n << " outputs but " << sizes.size()
                    << " split sizes";
    return failure();
  }
  FailureOr<Operation *> op = buildOp<nn::SplitOp>(
      node, {*x},
      {b.getNamedAttr("axis", b.getI64IntegerAttr(axis)),
       b.getNamedAttr("sizes", b.getDenseI64ArrayAttr(sizes))},
      n);
  if (failed(op))
    return failure();
  for (int64_t i = 0; i < n; ++i)
    if (!node.output(i).empty())
      values[node.output(i)] = (*op)->getResult(i);
  return success();
}

FailureOr<Value> Importer::importConstantOfShape(const onnx::NodeProto &node) {
  // An int64/bool value was folded already; here the value is float.
  FailureOr<std::vector<int64_t>> shape = constInput(node, 0, "shape");
  if (failed(shape))
    return failure();
  float value = 0.0f;
  if (const onnx::AttributeProto *a = findAttr(node, "value")) {
    if (!a->has_t() || a->t().data_type() != onnx::TensorProto::FLOAT) {
      nodeError(node) << "attribute 'value' must be a float, int64 or bool "
                         "tensor";
      return failure();
    }
    const onnx::TensorProto *t = withValues(a->t(), nodeLoc(node));
    if (!t)
      return failure();
    std::vector<float> v = readFloats(*t);
    if (v.size() != 1) {
      nodeError(node) << "attribute 'value' must hold one value";
      return failure();
    }
    value = v[0];
  }
  if (llvm::any_of(*shape, [](int64_t d) { return d < 0; })) {
    nodeError(node) << "negative dim in the shape";
    return failure();
  }
  auto type = RankedTensorType::get(
      SmallVector<int64_t>(shape->begin(), shape->end()), b.getF32Type());
  return arith::ConstantOp::create(b, nodeLoc(node),
                                   DenseElementsAttr::get(type, value))
      .getResult();
}

FailureOr<Value> Importer::importRange(const onnx::NodeProto &node) {
  // Int64 ranges were folded already; a float one needs constant scalars.
  double args[3];
  for (int i = 0; i < 3; ++i) {
    FailureOr<Value> v = operand(node, i);
    if (failed(v))
      return failure();
    DenseElementsAttr attr;
    if (!matchPattern(*v, m_Constant(&attr)) || attr.getNumElements() != 1 ||
        !attr.getElementType().isF32()) {
      nodeError(node) << "input " << i
                      << " must be a constant scalar (float32 or int64)";
      return failure();
    }
    args[i] = (*attr.getValues<float>().begin());
  }
  if (args[2] == 0) {
    nodeError(node) << "delta is 0";
    return failure();
  }
  int64_t n =
      std::max<int64_t>((int64_t)std::ceil((args[1] - args[0]) / args[2]), 0);
  std::vector<float> data;
  for (int64_t i = 0; i < n; ++i)
    data.push_back(float(args[0] + i * args[2]));
  auto type = RankedTensorType::get({n}, b.getF32Type());
  return arith::ConstantOp::create(
             b, nodeLoc(node),
             DenseElementsAttr::get(type, ArrayRef<float>(data)))
      .getResult();
}

const onnx::TensorProto *Importer::withValues(const onnx::TensorProto &t,
                                              Location loc) {
  if (!rt::isExternal(t))
    return &t;
  onnx::TensorProto &copy = inlined.emplace_back(t);
  if (std::string err = rt::inlineExternalData(copy, modelDir); !err.empty()) {
    emitError(loc) << err;
    return nullptr;
  }
  return &copy;
}

LogicalResult Importer::checkFloatData(const onnx::TensorProto &t) {
  uint64_t need = sizeof(float);
  for (int64_t d : t.dims()) {
    if (d < 0)
      return emitError(fileLoc)
             << "initializer '" << t.name() << "' has a negative dim";
    need *= static_cast<uint64_t>(d);
  }
  auto it = skipped.find(t.name());
  uint64_t have = it != skipped.end() ? it->second.length
                  : t.has_raw_data()  ? t.raw_data().size()
                                      : t.float_data_size() * sizeof(float);
  if (have != need)
    return emitError(fileLoc) << "initializer '" << t.name() << "' holds "
                              << have << " bytes, but its shape "
                              << f32Tensor(ctx, t) << " needs " << need;
  return success();
}

LogicalResult Importer::collectInitializers(const onnx::GraphProto &graph) {
  for (const onnx::TensorProto &t : graph.initializer()) {
    bool external = rt::isExternal(t);
    hasExternalData |= external;
    switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      // A parameter: only its shape matters here, the runtime reads the
      // values. External data is checked (file, region, size), not read.
      if (external) {
        rt::ExternalData where;
        if (std::string err = rt::locateExternalData(t, modelDir, where);
            !err.empty())
          return emitError(fileLoc) << err;
      } else if (failed(checkFloatData(t))) {
        return failure();
      }
      floatInits[t.name()] = &t;
      paramOrder.push_back(t.name());
      break;
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::BOOL: {
      const onnx::TensorProto *values = withValues(t, fileLoc);
      if (!values)
        return failure();
      IntConstant c = readInts(*values);
      if (!c.matchesDims())
        return emitError(fileLoc)
               << "initializer '" << t.name() << "' has " << c.values.size()
               << " values for shape " << detail::shapeString(c.dims);
      intConstants[t.name()] = std::move(c);
      break;
    }
    default:
      return emitError(fileLoc)
             << "initializer '" << t.name() << "' has unsupported data type "
             << onnx::TensorProto::DataType_Name(
                    static_cast<onnx::TensorProto::DataType>(t.data_type()));
    }
  }
  return success();
}

LogicalResult Importer::bindInput(const onnx::ValueInfoProto &info) {
  auto it = options.boundInputs.find(info.name());
  if (it == options.boundInputs.end())
    return success();
  const std::vector<int64_t> &values = it->second;
  int elemType = info.type().has_tensor_type()
                     ? info.type().tensor_type().elem_type()
                     : onnx::TensorProto::UNDEFINED;
  if (elemType != onnx::TensorProto::INT64 &&
      elemType != onnx::TensorProto::BOOL)
    return emitError(fileLoc) << "--bind-input '" << info.name()
                              << "': only int64 and bool inputs can be bound";
  const auto &shape = info.type().tensor_type().shape();
  IntConstant c;
  c.values = values;
  c.isBool = elemType == onnx::TensorProto::BOOL;
  if (shape.dim_size() > 1)
    return emitError(fileLoc) << "--bind-input '" << info.name()
                              << "': only scalar and 1-D inputs can be bound";
  if (shape.dim_size() == 1) {
    const auto &d = shape.dim(0);
    if (d.has_dim_value() && d.dim_value() != (int64_t)values.size())
      return emitError(fileLoc)
             << "--bind-input '" << info.name() << "' gives " << values.size()
             << " values, but the input has " << d.dim_value();
    c.dims = {(int64_t)values.size()};
  } else if (values.size() != 1) {
    return emitError(fileLoc) << "--bind-input '" << info.name() << "' gives "
                              << values.size() << " values for a scalar input";
  }
  intConstants[info.name()] = std::move(c);
  return success();
}

FailureOr<RankedTensorType>
Importer::inputType(const onnx::ValueInfoProto &info) {
  const std::string &name = info.name();
  int elemType = info.type().has_tensor_type()
                     ? info.type().tensor_type().elem_type()
                     : onnx::TensorProto::UNDEFINED;
  if (elemType != onnx::TensorProto::FLOAT &&
      elemType != onnx::TensorProto::INT64 &&
      elemType != onnx::TensorProto::BOOL) {
    emitError(fileLoc) << "input '" << name
                       << "' must be a float32, int64 or bool tensor (other "
                          "input types are not supported yet)";
    return failure();
  }
  const auto &shape = info.type().tensor_type().shape();
  auto given = options.inputShapes.find(name);
  SmallVector<int64_t> dims;
  for (int i = 0; i < shape.dim_size(); ++i) {
    const auto &d = shape.dim(i);
    dims.push_back(d.has_dim_value() ? d.dim_value() : ShapedType::kDynamic);
  }
  if (given != options.inputShapes.end()) {
    const std::vector<int64_t> &g = given->second;
    if (g.size() != dims.size()) {
      emitError(fileLoc) << "--input-shape for '" << name << "' has rank "
                         << g.size() << " but the model input has rank "
                         << dims.size();
      return failure();
    }
    for (size_t i = 0; i < dims.size(); ++i) {
      if (!ShapedType::isDynamic(dims[i]) && dims[i] != g[i]) {
        emitError(fileLoc) << "--input-shape for '" << name << "' sets dim "
                           << i << " to " << g[i]
                           << " but the model fixes it to " << dims[i];
        return failure();
      }
      dims[i] = g[i];
    }
  }
  for (size_t i = 1; i < dims.size(); ++i) {
    if (ShapedType::isDynamic(dims[i])) {
      emitError(fileLoc) << "input '" << name << "' dim " << i
                         << " is symbolic; give it with --input-shape=" << name
                         << ":D0xD1...";
      return failure();
    }
  }
  if (!detail::sizeFitsInt64(dims)) {
    emitError(fileLoc) << "input '" << name << "' has shape "
                       << detail::shapeString(dims)
                       << ", a negative dim or a size that overflows 64 bits";
    return failure();
  }
  Type elem = elemType == onnx::TensorProto::FLOAT   ? Type(b.getF32Type())
              : elemType == onnx::TensorProto::INT64 ? Type(b.getI64Type())
                                                     : Type(b.getI1Type());
  return RankedTensorType::get(dims, elem);
}

LogicalResult Importer::importNode(const onnx::NodeProto &node) {
  const std::string &type = node.op_type();
  if (!node.domain().empty() && node.domain() != "ai.onnx") {
    nodeError(node) << "unsupported op domain '" << node.domain() << "'";
    return failure();
  }
  if (failed(checkAttributes(node)))
    return failure();
  FailureOr<bool> folded = foldIntConstants(node);
  if (failed(folded))
    return failure();
  if (*folded)
    return success();
  FailureOr<Value> result = failure();
  auto unary = [&](auto tag) -> FailureOr<Value> {
    using OpTy = decltype(tag);
    FailureOr<Value> x = operand(node, 0);
    if (failed(x))
      return failure();
    return build<OpTy>(node, {*x});
  };
  auto binary = [&](auto tag) -> FailureOr<Value> {
    using OpTy = decltype(tag);
    FailureOr<Value> x = operand(node, 0), y = operand(node, 1);
    if (failed(x) || failed(y))
      return failure();
    return build<OpTy>(node, {*x, *y});
  };

  if (type == "Gemm") {
    FailureOr<Value> a = operand(node, 0), bv = operand(node, 1);
    if (failed(a) || failed(bv))
      return failure();
    SmallVector<Value> ops = {*a, *bv};
    if (node.input_size() > 2 && !node.input(2).empty()) {
      FailureOr<Value> c = operand(node, 2);
      if (failed(c))
        return failure();
      ops.push_back(*c);
    }
    result = build<nn::GemmOp>(
        node, ops,
        {b.getNamedAttr("alpha",
                        b.getF32FloatAttr(attrFloat(node, "alpha", 1))),
         b.getNamedAttr("beta", b.getF32FloatAttr(attrFloat(node, "beta", 1))),
         b.getNamedAttr("transA", b.getBoolAttr(attrInt(node, "transA", 0))),
         b.getNamedAttr("transB", b.getBoolAttr(attrInt(node, "transB", 0)))});
  } else if (type == "MatMul") {
    result = binary(nn::MatMulOp());
  } else if (type == "Add") {
    result = binary(nn::AddOp());
  } else if (type == "Sub") {
    result = binary(nn::SubOp());
  } else if (type == "Mul") {
    result = binary(nn::MulOp());
  } else if (type == "Div") {
    result = binary(nn::DivOp());
  } else if (type == "Pow") {
    FailureOr<Value> x = operand(node, 0), y = operand(node, 1);
    if (failed(x) || failed(y))
      return failure();
    Value e = *y;
    // ONNX allows an integer exponent; nn.pow computes in f32.
    if (!cast<RankedTensorType>(e.getType()).getElementType().isF32()) {
      FailureOr<Value> c = build<nn::CastOp>(
          node, {e}, {b.getNamedAttr("to", TypeAttr::get(b.getF32Type()))});
      if (failed(c))
        return failure();
      e = *c;
    }
    result = build<nn::PowOp>(node, {*x, e});
  } else if (type == "Relu") {
    result = unary(nn::ReluOp());
  } else if (type == "Sqrt") {
    result = unary(nn::SqrtOp());
  } else if (type == "Neg") {
    result = unary(nn::NegOp());
  } else if (type == "Exp") {
    result = unary(nn::ExpOp());
  } else if (type == "Log") {
    result = unary(nn::LogOp());
  } else if (type == "Sigmoid") {
    result = unary(nn::SigmoidOp());
  } else if (type == "Tanh") {
    result = unary(nn::TanhOp());
  } else if (type == "Erf") {
    result = unary(nn::ErfOp());
  } else if (type == "LeakyRelu") {
    FailureOr<Value> x = operand(node, 0);
    if (failed(x))
      return failure();
    result = build<nn::LeakyReluOp>(
        node, {*x},
        {b.getNamedAttr("alpha",
                        b.getF32FloatAttr(attrFloat(node, "alpha", 0.01f)))});
  } else if (type == "Gelu") {
    FailureOr<Value> x = operand(node, 0);
    if (failed(x))
      return failure();
    std::string approx = "none";
    if (const onnx::AttributeProto *a = findAttr(node, "approximate"))
      approx = a->s();
    if (approx != "none" && approx != "tanh") {
      nodeError(node) << "attribute 'approximate' = '" << approx
                      << "' is not supported (none, tanh)";
      return failure();
    }
    result = build<nn::GeluOp>(
        node, {*x}, {b.getNamedAttr("approximate", b.getStringAttr(approx))});
  } else if (type == "Equal") {
    result = binary(nn::EqualOp());
  } else if (type == "Where") {
    FailureOr<Value> c = operand(node, 0), x = operand(node, 1),
                     y = operand(node, 2);
    if (failed(c) || failed(x) || failed(y))
      return failure();
    result = build<nn::WhereOp>(node, {*c, *x, *y});
  } else if (type == "Cast") {
    FailureOr<Value> x = operand(node, 0);
    if (failed(x))
      return failure();
    const onnx::AttributeProto *to = findAttr(node, "to");
    if (!to) {
      nodeError(node) << "attribute 'to' is missing";
      return failure();
    }
    Type elem;
    switch (to->i()) {
    case onnx::TensorProto::FLOAT:
      elem = b.getF32Type();
      break;
    case onnx::TensorProto::INT64:
      elem = b.getI64Type();
      break;
    case onnx::TensorProto::BOOL:
      elem = b.getI1Type();
      break;
    default:
      nodeError(node) << "attribute 'to' = " << dataTypeName(to->i())
                      << " is not supported (FLOAT, INT64, BOOL)";
      return failure();
    }
    result = build<nn::CastOp>(node, {*x},
                               {b.getNamedAttr("to", TypeAttr::get(elem))});
  } else if (type == "Dropout") {
    return importDropout(node);
  } else if (type == "Softmax" || type == "LogSoftmax") {
    result = importSoftmax(node, type == "LogSoftmax");
  } else if (type == "ReduceSum" || type == "ReduceMean" ||
             type == "ReduceMax") {
    result = importReduce(node);
  } else if (type == "Transpose") {
    FailureOr<Value> x = operand(node, 0);
    if (failed(x))
      return failure();
    std::vector<int64_t> perm;
    if (const onnx::AttributeProto *a = findAttr(node, "perm")) {
      perm = attrInts(*a);
    } else {
      for (int64_t i = cast<RankedTensorType>(x->getType()).getRank() - 1;
           i >= 0; --i)
        perm.push_back(i);
    }
    result = build<nn::TransposeOp>(
        node, {*x}, {b.getNamedAttr("perm", b.getDenseI64ArrayAttr(perm))});
  } else if (type == "Squeeze" || type == "Unsqueeze") {
    FailureOr<Value> x = operand(node, 0);
    if (failed(x))
      return failure();
    auto axes = axesOf(node, 1);
    if (failed(axes))
      return failure();
    std::vector<int64_t> list;
    if (axes->has_value()) {
      list = **axes;
    } else if (type == "Unsqueeze") {
      nodeError(node) << "needs axes (attribute 'axes' or the axes input)";
      return failure();
    } else {
      // No axes: every static size-1 dim (a dynamic dim is never squeezed).
      auto shape = cast<RankedTensorType>(x->getType()).getShape();
      for (auto [i, d] : llvm::enumerate(shape))
        if (d == 1)
          list.push_back(i);
    }
    NamedAttribute attr = b.getNamedAttr("axes", b.getDenseI64ArrayAttr(list));
    result = type == "Squeeze" ? build<nn::SqueezeOp>(node, {*x}, {attr})
                               : build<nn::UnsqueezeOp>(node, {*x}, {attr});
  } else if (type == "Concat") {
    const onnx::AttributeProto *axis = findAttr(node, "axis");
    if (!axis) {
      nodeError(node) << "attribute 'axis' is missing";
      return failure();
    }
    SmallVector<Value> ins;
    for (int i = 0; i < node.input_size(); ++i) {
      FailureOr<Value> v = operand(node, i);
      if (failed(v))
        return failure();
      ins.push_back(*v);
    }
    result = build<nn::ConcatOp>(
        node, ins, {b.getNamedAttr("axis", b.getI64IntegerAttr(axis->i()))});
  } else if (type == "Gather") {
    FailureOr<Value> data = operand(node, 0), indices = operand(node, 1);
    if (failed(data) || failed(indices))
      return failure();
    result = build<nn::GatherOp>(
        node, {*data, *indices},
        {b.getNamedAttr("axis",
                        b.getI64IntegerAttr(attrInt(node, "axis", 0)))});
  } else if (type == "LayerNormalization") {
    if (attrInt(node, "stash_type", 1) != 1) {
      nodeError(node) << "attribute 'stash_type' = "
                      << attrInt(node, "stash_type", 1)
                      << " is not supported (only 1: float32)";
      return failure();
    }
    for (int i = 1; i < node.output_size(); ++i) {
      if (!node.output(i).empty()) {
        nodeError(node) << "the Mean and InvStdDev outputs are not supported";
        return failure();
      }
    }
    FailureOr<Value> x = operand(node, 0), scale = operand(node, 1);
    if (failed(x) || failed(scale))
      return failure();
    SmallVector<Value> ops = {*x, *scale};
    if (node.input_size() > 2 && !node.input(2).empty()) {
      FailureOr<Value> bias = operand(node, 2);
      if (failed(bias))
        return failure();
      ops.push_back(*bias);
    }
    result = build<nn::LayerNormOp>(
        node, ops,
        {b.getNamedAttr("axis", b.getI64IntegerAttr(attrInt(node, "axis", -1))),
         b.getNamedAttr("epsilon",
                        b.getF32FloatAttr(attrFloat(node, "epsilon", 1e-5f)))});
  } else if (type == "Slice") {
    result = importSlice(node);
  } else if (type == "Split") {
    return importSplit(node);
  } else if (type == "Expand") {
    FailureOr<Value> x = operand(node, 0);
    if (failed(x))
      return failure();
    FailureOr<std::vector<int64_t>> shape = expandTarget(node, *x);
    if (failed(shape))
      return failure();
    result = build<nn::ExpandOp>(
        node, {*x}, {b.getNamedAttr("shape", b.getDenseI64ArrayAttr(*shape))});
  } else if (type == "Trilu") {
    FailureOr<Value> x = operand(node, 0);
    if (failed(x))
      return failure();
    int64_t k = 0;
    if (hasInput(node, 1)) {
      FailureOr<std::vector<int64_t>> kv = constInput(node, 1, "k");
      if (failed(kv))
        return failure();
      if (kv->size() != 1) {
        nodeError(node) << "the k input must be a scalar";
        return failure();
      }
      k = (*kv)[0];
    }
    int64_t upper = attrInt(node, "upper", 1);
    if (upper != 0 && upper != 1) {
      nodeError(node) << "attribute 'upper' = " << upper
                      << " is not supported (0 or 1)";
      return failure();
    }
    result = build<nn::TriluOp>(node, {*x},
                                {b.getNamedAttr("upper", b.getBoolAttr(upper)),
                                 b.getNamedAttr("k", b.getI64IntegerAttr(k))});
  } else if (type == "ConstantOfShape") {
    result = importConstantOfShape(node);
  } else if (type == "Range") {
    result = importRange(node);
  } else if (type == "Shape" || type == "Size") {
    // Folded whenever the input is known (FoldShapes.cpp).
    if (failed(operand(node, 0)))
      return failure();
    nodeError(node) << "cannot be folded";
    return failure();
  } else if (type == "Identity") {
    result = unary(nn::IdentityOp());
  } else if (type == "Flatten") {
    FailureOr<Value> x = operand(node, 0);
    if (failed(x))
      return failure();
    result = build<nn::FlattenOp>(
        node, {*x},
        {b.getNamedAttr("axis",
                        b.getI64IntegerAttr(attrInt(node, "axis", 1)))});
  } else if (type == "Reshape") {
    FailureOr<Value> x = operand(node, 0);
    if (failed(x))
      return failure();
    FailureOr<std::vector<int64_t>> shape = reshapeTarget(node);
    if (failed(shape))
      return failure();
    if (attrInt(node, "allowzero", 0) != 0) {
      nodeError(node) << "allowzero=1 is not supported";
      return failure();
    }
    result = build<nn::ReshapeOp>(
        node, {*x}, {b.getNamedAttr("shape", b.getDenseI64ArrayAttr(*shape))});
  } else if (type == "Constant") {
    const onnx::AttributeProto *v = findAttr(node, "value");
    if (!v || !v->has_t()) {
      nodeError(node) << "only the 'value' tensor form is supported";
      return failure();
    }
    const onnx::TensorProto *values = withValues(v->t(), nodeLoc(node));
    if (!values)
      return failure();
    const onnx::TensorProto &t = *values;
    if (t.data_type() == onnx::TensorProto::INT64 ||
        t.data_type() == onnx::TensorProto::BOOL) {
      IntConstant c = readInts(t);
      if (!c.matchesDims()) {
        nodeError(node) << "attribute 'value' has " << c.values.size()
                        << " values for shape " << detail::shapeString(c.dims);
        return failure();
      }
      intConstants[node.output(0)] = std::move(c);
      return success();
    }
    if (t.data_type() != onnx::TensorProto::FLOAT) {
      nodeError(node) << "only float, int64 and bool constants are supported";
      return failure();
    }
    RankedTensorType ty = f32Tensor(ctx, t);
    std::vector<float> data = readFloats(t);
    if ((int64_t)data.size() != ty.getNumElements()) {
      nodeError(node) << "constant has " << data.size() << " values for shape "
                      << ty;
      return failure();
    }
    result =
        arith::ConstantOp::create(
            b, nodeLoc(node), DenseElementsAttr::get(ty, ArrayRef<float>(data)))
            .getResult();
  } else if (detail::isCnnOp(type)) {
    result = detail::importCnnNode(
        node, {b, nodeLoc(node), [&](int i) { return operand(node, i); },
               [&] { return nodeError(node); },
               [&](const std::string &name, Value v) { values[name] = v; }});
  } else {
    nodeError(node) << "unsupported ONNX op '" << type << "'";
    return failure();
  }
  if (failed(result))
    return failure();
  if (node.output_size() < 1) {
    nodeError(node) << "has no output";
    return failure();
  }
  values[node.output(0)] = *result;
  return success();
}

OwningOpRef<ModuleOp> Importer::run(const onnx::ModelProto &model) {
  const onnx::GraphProto &graph = model.graph();
  for (const auto &o : model.opset_import()) {
    if (!o.domain().empty() && o.domain() != "ai.onnx")
      continue;
    if (o.version() < 7) {
      emitError(fileLoc) << "ONNX opset " << o.version()
                         << " is too old (need 7 or newer)";
      return nullptr;
    }
    opset = o.version();
  }
  if (failed(collectInitializers(graph)))
    return nullptr;

  SmallVector<Type> argTypes;
  SmallVector<std::pair<StringRef, std::string>> argTags;
  for (const std::string &name : paramOrder) {
    argTypes.push_back(f32Tensor(ctx, *floatInits[name]));
    argTags.push_back({"nn.param", name});
  }
  for (const onnx::ValueInfoProto &in : graph.input()) {
    if (floatInits.count(in.name()) || intConstants.count(in.name()))
      continue; // old IR versions list initializers as inputs too
    if (failed(bindInput(in)))
      return nullptr;
    if (intConstants.count(in.name()))
      continue;
    FailureOr<RankedTensorType> t = inputType(in);
    if (failed(t))
      return nullptr;
    argTypes.push_back(*t);
    argTags.push_back({"nn.input", in.name()});
  }

  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  module->getOperation()->setAttr("autodist.source", fileLoc.getFilename());
  if (hasExternalData) // where the runtime finds the parameters' values
    module->getOperation()->setAttr("autodist.external_data_dir",
                                    b.getStringAttr(modelDir));
  b.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(b, fileLoc, "forward",
                                   b.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  for (auto [i, tag] : llvm::enumerate(argTags)) {
    func.setArgAttr(i, tag.first, b.getStringAttr(tag.second));
    values[tag.second] = entry->getArgument(i);
  }
  b.setInsertionPointToEnd(entry);
  for (const onnx::NodeProto &node : graph.node())
    if (failed(importNode(node)))
      return nullptr;

  SmallVector<Value> results;
  for (const onnx::ValueInfoProto &out : graph.output()) {
    auto it = values.find(out.name());
    // An output computed entirely at import (e.g. a Shape) is a constant.
    if (auto c = intConstants.find(out.name());
        it == values.end() && c != intConstants.end()) {
      if (failed(materialize(out.name(), c->second, [&]() {
            return emitError(fileLoc) << "graph output ";
          })))
        return nullptr;
      it = values.find(out.name());
    }
    if (it == values.end()) {
      emitError(fileLoc) << "graph output '" << out.name()
                         << "' is not produced by any node";
      return nullptr;
    }
    results.push_back(it->second);
  }
  if (results.empty()) {
    emitError(fileLoc) << "the model has no outputs";
    return nullptr;
  }
  func::ReturnOp::create(b, fileLoc, results);
  func.setType(b.getFunctionType(argTypes, ValueRange(results).getTypes()));
  for (auto [i, out] : llvm::enumerate(graph.output()))
    func.setResultAttr(i, "nn.output", b.getStringAttr(out.name()));
  if (failed(verify(*module)))
    return nullptr;
  // Exporters' decompositions of ops we have whole (LayerNorm before opset
  // 17) are folded right away, so every later stage sees one op.
  PassManager pm(ctx);
  pm.addPass(createRecognizeLayerNorm());
  if (failed(pm.run(*module)))
    return nullptr;
  return module;
}

/// Imports the model `input` streams (`name` in diagnostics; its directory
/// holds the external data).
static OwningOpRef<ModuleOp>
importStream(MLIRContext *context,
             google::protobuf::io::ZeroCopyInputStream &input, StringRef name,
             const OnnxImportOptions &options) {
  context->loadDialect<nn::NNDialect, func::FuncDialect, arith::ArithDialect>();
  Location loc = FileLineColLoc::get(context, name, 0, 0);
  onnx::ModelProto model;
  rt::SkippedData skipped;
  if (!rt::parseModelWithoutWeights(input, model, skipped)) {
    emitError(loc) << "cannot parse '" << name
                   << "' as an ONNX model (truncated or not a ModelProto)";
    return nullptr;
  }
  if (!model.has_graph()) {
    emitError(loc) << "'" << name << "' has no graph";
    return nullptr;
  }
  // External data is relative to the model's directory, kept absolute so
  // that the executable finds it from anywhere.
  llvm::SmallString<256> dir(name);
  llvm::sys::path::remove_filename(dir);
  llvm::sys::fs::make_absolute(dir);
  llvm::sys::path::remove_dots(dir, /*remove_dot_dot=*/true);
  if (failed(detail::validateModel(model, loc)) ||
      failed(detail::validateInputOptions(model.graph(), options, loc)) ||
      failed(detail::validateOutputs(model.graph(), dir, options, loc)))
    return nullptr;
  return Importer(context, name, dir, skipped, options).run(model);
}

OwningOpRef<ModuleOp> importOnnxModel(MLIRContext *context, StringRef bytes,
                                      StringRef bufferName,
                                      const OnnxImportOptions &options) {
  if (bytes.size() > INT_MAX) {
    emitError(FileLineColLoc::get(context, bufferName, 0, 0))
        << "'" << bufferName
        << "' is larger than an ONNX model can be (2 GB; larger models keep "
           "their tensors in external data files)";
    return nullptr;
  }
  google::protobuf::io::ArrayInputStream input(bytes.data(),
                                               static_cast<int>(bytes.size()));
  return importStream(context, input, bufferName, options);
}

OwningOpRef<ModuleOp> importOnnxFile(MLIRContext *context, StringRef path,
                                     const OnnxImportOptions &options) {
  int fd;
  if (std::error_code ec = llvm::sys::fs::openFileForRead(path, fd)) {
    emitError(FileLineColLoc::get(context, path, 0, 0))
        << "cannot read '" << path << "': " << ec.message();
    return nullptr;
  }
  OwningOpRef<ModuleOp> module;
  {
    google::protobuf::io::FileInputStream input(fd);
    module = importStream(context, input, path, options);
  }
  llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  return module;
}

} // namespace autodist
