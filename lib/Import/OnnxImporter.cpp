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
#include "nn/NNOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"

#include <onnx/onnx_pb.h>

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

namespace {

/// A constant integer tensor known at import time.
using IntConstant = std::vector<int64_t>;

class Importer {
public:
  Importer(MLIRContext *ctx, StringRef bufferName,
           const OnnxImportOptions &options)
      : ctx(ctx), b(ctx), fileLoc(FileLineColLoc::get(ctx, bufferName, 0, 0)),
        options(options) {}

  OwningOpRef<ModuleOp> run(const onnx::ModelProto &model);

private:
  LogicalResult importNode(const onnx::NodeProto &node);
  LogicalResult collectInitializers(const onnx::GraphProto &graph);
  FailureOr<RankedTensorType> inputType(const onnx::ValueInfoProto &info);

  Location nodeLoc(const onnx::NodeProto &node) {
    std::string name = node.name().empty() ? node.op_type() : node.name();
    return NameLoc::get(StringAttr::get(ctx, name), fileLoc);
  }
  InFlightDiagnostic nodeError(const onnx::NodeProto &node) {
    return emitError(nodeLoc(node))
           << "node '" << node.name() << "' (" << node.op_type() << "): ";
  }
  FailureOr<Value> operand(const onnx::NodeProto &node, int i);

  /// Builds op `OpTy` with result types from its own type inference; a
  /// failure is reported at the node's location instead of aborting.
  template <typename OpTy>
  FailureOr<Value> build(const onnx::NodeProto &node, ValueRange operands,
                         ArrayRef<NamedAttribute> attrs = {});

  MLIRContext *ctx;
  OpBuilder b;
  FileLineColLoc fileLoc;
  const OnnxImportOptions &options;
  std::map<std::string, Value> values;
  std::map<std::string, IntConstant> intConstants;
  std::map<std::string, const onnx::TensorProto *> floatInits;
  std::vector<std::string> paramOrder;
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

/// Reads an int64 TensorProto (raw_data or int64_data).
IntConstant readInts(const onnx::TensorProto &t) {
  IntConstant v;
  if (!t.raw_data().empty()) {
    const std::string &raw = t.raw_data();
    v.resize(raw.size() / sizeof(int64_t));
    memcpy(v.data(), raw.data(), v.size() * sizeof(int64_t));
  } else {
    v.assign(t.int64_data().begin(), t.int64_data().end());
  }
  return v;
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

RankedTensorType f32Tensor(MLIRContext *ctx, const onnx::TensorProto &t) {
  SmallVector<int64_t> shape(t.dims().begin(), t.dims().end());
  return RankedTensorType::get(shape, Float32Type::get(ctx));
}

} // namespace

template <typename OpTy>
FailureOr<Value> Importer::build(const onnx::NodeProto &node,
                                 ValueRange operands,
                                 ArrayRef<NamedAttribute> attrs) {
  Location loc = nodeLoc(node);
  OperationState state(loc, OpTy::getOperationName());
  state.addOperands(operands);
  state.addAttributes(attrs);
  // A placeholder result type; the op's own inference replaces it below.
  state.addTypes(b.getNoneType());
  Operation *op = b.create(state);
  SmallVector<Type> types;
  if (failed(OpTy::inferReturnTypes(
          ctx, loc, op->getOperands(), op->getRawDictionaryAttrs(),
          op->getPropertiesStorage(), op->getRegions(), types))) {
    op->erase();
    return failure();
  }
  op->getResult(0).setType(types[0]);
  if (failed(verify(op))) {
    op->erase();
    return failure();
  }
  return op->getResult(0);
}

FailureOr<Value> Importer::operand(const onnx::NodeProto &node, int i) {
  if (i >= node.input_size() || node.input(i).empty()) {
    nodeError(node) << "missing input " << i;
    return failure();
  }
  auto it = values.find(node.input(i));
  if (it == values.end()) {
    if (intConstants.count(node.input(i)))
      nodeError(node) << "input '" << node.input(i)
                      << "' is an integer constant where a float tensor is "
                         "expected";
    else
      nodeError(node) << "input '" << node.input(i)
                      << "' is not produced by any earlier node";
    return failure();
  }
  return it->second;
}

LogicalResult Importer::collectInitializers(const onnx::GraphProto &graph) {
  for (const onnx::TensorProto &t : graph.initializer()) {
    if (t.has_data_location() &&
        t.data_location() == onnx::TensorProto::EXTERNAL)
      return emitError(fileLoc) << "initializer '" << t.name()
                                << "' uses external data, which is not "
                                   "supported";
    switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      floatInits[t.name()] = &t;
      paramOrder.push_back(t.name());
      break;
    case onnx::TensorProto::INT64:
      intConstants[t.name()] = readInts(t);
      break;
    default:
      return emitError(fileLoc)
             << "initializer '" << t.name() << "' has unsupported data type "
             << onnx::TensorProto::DataType_Name(
                    static_cast<onnx::TensorProto::DataType>(t.data_type()));
    }
  }
  return success();
}

FailureOr<RankedTensorType>
Importer::inputType(const onnx::ValueInfoProto &info) {
  const std::string &name = info.name();
  if (!info.type().has_tensor_type() ||
      info.type().tensor_type().elem_type() != onnx::TensorProto::FLOAT) {
    emitError(fileLoc) << "input '" << name
                       << "' must be a float32 tensor (other input types are "
                          "not supported yet)";
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
  return RankedTensorType::get(dims, b.getF32Type());
}

LogicalResult Importer::importNode(const onnx::NodeProto &node) {
  const std::string &type = node.op_type();
  if (!node.domain().empty() && node.domain() != "ai.onnx") {
    nodeError(node) << "unsupported op domain '" << node.domain() << "'";
    return failure();
  }
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
  } else if (type == "Relu") {
    result = unary(nn::ReluOp());
  } else if (type == "Identity") {
    if (node.input_size() == 1 && intConstants.count(node.input(0))) {
      intConstants[node.output(0)] = intConstants[node.input(0)];
      return success();
    }
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
    auto shape = node.input_size() > 1 ? intConstants.find(node.input(1))
                                       : intConstants.end();
    if (shape == intConstants.end()) {
      nodeError(node) << "the shape input must be a constant int64 tensor";
      return failure();
    }
    if (attrInt(node, "allowzero", 0) != 0) {
      nodeError(node) << "allowzero=1 is not supported";
      return failure();
    }
    result = build<nn::ReshapeOp>(
        node, {*x},
        {b.getNamedAttr("shape", b.getDenseI64ArrayAttr(shape->second))});
  } else if (type == "Constant") {
    const onnx::AttributeProto *v = findAttr(node, "value");
    if (!v || !v->has_t()) {
      nodeError(node) << "only the 'value' tensor form is supported";
      return failure();
    }
    const onnx::TensorProto &t = v->t();
    if (t.data_type() == onnx::TensorProto::INT64) {
      intConstants[node.output(0)] = readInts(t);
      return success();
    }
    if (t.data_type() != onnx::TensorProto::FLOAT) {
      nodeError(node) << "only float and int64 constants are supported";
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
  for (const auto &opset : model.opset_import()) {
    if ((opset.domain().empty() || opset.domain() == "ai.onnx") &&
        opset.version() < 7) {
      emitError(fileLoc) << "ONNX opset " << opset.version()
                         << " is too old (need 7 or newer)";
      return nullptr;
    }
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
    FailureOr<RankedTensorType> t = inputType(in);
    if (failed(t))
      return nullptr;
    argTypes.push_back(*t);
    argTags.push_back({"nn.input", in.name()});
  }

  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  module->getOperation()->setAttr("autodist.source", fileLoc.getFilename());
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
  return module;
}

OwningOpRef<ModuleOp> importOnnxModel(MLIRContext *context, StringRef bytes,
                                      StringRef bufferName,
                                      const OnnxImportOptions &options) {
  context->loadDialect<nn::NNDialect, func::FuncDialect, arith::ArithDialect>();
  onnx::ModelProto model;
  if (bytes.size() > INT_MAX ||
      !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    emitError(FileLineColLoc::get(context, bufferName, 0, 0))
        << "cannot parse '" << bufferName
        << "' as an ONNX model (truncated or not a ModelProto)";
    return nullptr;
  }
  if (!model.has_graph()) {
    emitError(FileLineColLoc::get(context, bufferName, 0, 0))
        << "'" << bufferName << "' has no graph";
    return nullptr;
  }
  return Importer(context, bufferName, options).run(model);
}

} // namespace autodist
