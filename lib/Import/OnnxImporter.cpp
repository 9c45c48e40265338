//===- OnnxImporter.cpp - ONNX model to nn dialect ------------------------===//
//
// Reads a ModelProto with libonnx's protobuf classes and builds
// `func.func @forward(params..., inputs...) -> outputs` in the nn dialect.
// Float initializers become parameters (arguments tagged `nn.param` with
// their ONNX names); int64 initializers and Constant nodes are constants the
// importer folds (e.g. Reshape's shape). Each node goes to its operator's
// registry entry (OpRegistry.h), which checks it as it is built, so errors
// name the node.
//
//===----------------------------------------------------------------------===//

#include "autodist/Import/OnnxImporter.h"
#include "Importer.h"
#include "ValidateModel.h"
#include "nn/NNOps.h"

#include "autodist/Passes.h"
#include "autodist/runtime/ExternalData.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <onnx/onnx_pb.h>

#include <cstring>

using namespace mlir;

namespace autodist {

llvm::Error parseInputShapes(ArrayRef<std::string> specs,
                             OnnxImportOptions &options) {
  for (const std::string &list : specs) {
    SmallVector<StringRef> items;
    StringRef(list).split(items, ',', -1, false);
    for (StringRef item : items) {
      auto [name, dims] = item.rsplit(':');
      if (name.empty() || dims.empty() || dims == item)
        return llvm::createStringError(
            ("invalid --input-shape '" + item +
             "' (expected NAME:D0xD1..., e.g. x:16x64)")
                .str());
      std::vector<int64_t> shape;
      SmallVector<StringRef> parts;
      dims.split(parts, 'x');
      for (StringRef p : parts) {
        int64_t d;
        if (p.getAsInteger(10, d) || d <= 0)
          return llvm::createStringError(
              ("invalid dim '" + p + "' in --input-shape '" + item + "'")
                  .str());
        shape.push_back(d);
      }
      options.inputShapes[name] = std::move(shape);
    }
  }
  return llvm::Error::success();
}

llvm::Error parseBoundInputs(ArrayRef<std::string> specs,
                             OnnxImportOptions &options) {
  for (StringRef spec : specs) {
    auto [name, list] = spec.split('=');
    if (name.empty() || name == spec)
      return llvm::createStringError(
          ("invalid --bind-input '" + spec +
           "' (expected NAME=V0,V1,..., e.g. axes=0,2)")
              .str());
    std::vector<int64_t> values;
    SmallVector<StringRef> parts; // NAME= binds an empty 1-D input
    list.split(parts, ',', -1, /*KeepEmpty=*/false);
    for (StringRef p : parts) {
      int64_t v;
      if (p.trim().getAsInteger(10, v))
        return llvm::createStringError(
            ("invalid value '" + p + "' in --bind-input '" + spec + "'").str());
      values.push_back(v);
    }
    options.boundInputs[name] = std::move(values);
  }
  return llvm::Error::success();
}

namespace detail {

std::string dataTypeName(int64_t t) {
  if (!onnx::TensorProto::DataType_IsValid(static_cast<int>(t)))
    return std::to_string(t);
  return onnx::TensorProto::DataType_Name(
      static_cast<onnx::TensorProto::DataType>(t));
}

const char kSupportedElementTypes[] =
    "float, double, float16, bfloat16, int64, int32, int16, int8, uint64, "
    "uint32, uint16, uint8 or bool";

Type elementTypeOf(MLIRContext *ctx, int64_t t) {
  switch (t) {
  case onnx::TensorProto::FLOAT:
    return Float32Type::get(ctx);
  case onnx::TensorProto::DOUBLE:
    return Float64Type::get(ctx);
  case onnx::TensorProto::FLOAT16:
    return Float16Type::get(ctx);
  case onnx::TensorProto::BFLOAT16:
    return BFloat16Type::get(ctx);
  case onnx::TensorProto::INT64:
    return IntegerType::get(ctx, 64);
  case onnx::TensorProto::INT32:
    return IntegerType::get(ctx, 32);
  case onnx::TensorProto::INT16:
    return IntegerType::get(ctx, 16);
  case onnx::TensorProto::INT8:
    return IntegerType::get(ctx, 8);
  case onnx::TensorProto::BOOL:
    return IntegerType::get(ctx, 1);
  case onnx::TensorProto::UINT64:
    return IntegerType::get(ctx, 64, IntegerType::Unsigned);
  case onnx::TensorProto::UINT32:
    return IntegerType::get(ctx, 32, IntegerType::Unsigned);
  case onnx::TensorProto::UINT16:
    return IntegerType::get(ctx, 16, IntegerType::Unsigned);
  case onnx::TensorProto::UINT8:
    return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  default:
    return Type();
  }
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

std::vector<double> readDoubles(const onnx::TensorProto &t) {
  std::vector<double> v;
  if (!t.raw_data().empty()) {
    v.resize(t.raw_data().size() / sizeof(double));
    memcpy(v.data(), t.raw_data().data(), v.size() * sizeof(double));
  } else {
    v.assign(t.double_data().begin(), t.double_data().end());
  }
  return v;
}

RankedTensorType f32Tensor(MLIRContext *ctx, const onnx::TensorProto &t) {
  SmallVector<int64_t> shape(t.dims().begin(), t.dims().end());
  return RankedTensorType::get(shape, Float32Type::get(ctx));
}

Importer::Importer(MLIRContext *ctx, StringRef bufferName, StringRef modelDir,
                   const rt::SkippedData &skipped,
                   const OnnxImportOptions &options)
    : ctx(ctx), b(ctx), fileLoc(FileLineColLoc::get(ctx, bufferName, 0, 0)),
      modelDir(modelDir.str()), skipped(skipped), options(options) {}

Location Importer::nodeLoc(const onnx::NodeProto &node) {
  std::string name = node.name().empty() ? node.op_type() : node.name();
  return NameLoc::get(StringAttr::get(ctx, name), fileLoc);
}

InFlightDiagnostic Importer::nodeError(const onnx::NodeProto &node) {
  return emitError(nodeLoc(node))
         << "node '" << node.name() << "' (" << node.op_type() << ", opset "
         << opset << "): ";
}

//===----------------------------------------------------------------------===//
// NodeImporter
//===----------------------------------------------------------------------===//

bool NodeImporter::hasInput(int i) const {
  return i < node.input_size() && !node.input(i).empty();
}

FailureOr<Value> NodeImporter::operand(int i) {
  if (!hasInput(i)) {
    error() << "missing input " << i;
    return failure();
  }
  return value(node.input(i));
}

FailureOr<Value> NodeImporter::value(const std::string &name) {
  auto it = im.values.find(name);
  if (it != im.values.end())
    return it->second;
  auto c = im.intConstants.find(name);
  if (auto d = im.doubleConstants.find(name);
      c == im.intConstants.end() && d != im.doubleConstants.end()) {
    // A DOUBLE constant read as data (a Cast to FLOAT folds it instead):
    // an f64 constant, made once.
    const onnx::TensorProto &t = *d->second;
    SmallVector<int64_t> dims(t.dims().begin(), t.dims().end());
    auto type = RankedTensorType::get(dims, b.getF64Type());
    std::vector<double> values = readDoubles(t);
    if ((int64_t)values.size() != type.getNumElements()) {
      error() << "constant '" << name << "' has " << values.size()
              << " values for shape " << type;
      return failure();
    }
    Value v = arith::ConstantOp::create(
        b, im.fileLoc, DenseElementsAttr::get(type, ArrayRef<double>(values)));
    im.values[name] = v;
    return v;
  }
  if (c == im.intConstants.end()) {
    error() << "input '" << name << "' is not produced by any earlier node";
    return failure();
  }
  // An int64/bool constant read as data: materialize it once.
  return im.materialize(name, c->second, [&]() { return error(); });
}

FailureOr<SmallVector<Value>> NodeImporter::operands(int required,
                                                     int optional) {
  if (required < 0)
    required = node.input_size();
  SmallVector<Value> vs;
  for (int i = 0; i < required + optional; ++i) {
    if (i >= required && !hasInput(i))
      continue;
    FailureOr<Value> v = operand(i);
    if (failed(v))
      return failure();
    vs.push_back(*v);
  }
  return vs;
}

std::optional<std::pair<std::vector<int64_t>, Value>>
NodeImporter::runTimeShape(int i) const {
  const IntConstant *c = intConstant(i);
  if (!c || c->isBool || !c->hasUnknown() || c->dims.size() != 1)
    return std::nullopt;
  std::optional<Value> v = runTimeValue(i);
  if (!v)
    return std::nullopt;
  std::vector<int64_t> shape = c->values;
  for (int64_t &d : shape)
    if (isUnknown(d))
      d = -1;
  return std::make_pair(shape, *v);
}

std::optional<Value> NodeImporter::runTimeValue(int i) const {
  if (!hasInput(i))
    return std::nullopt;
  auto it = im.values.find(node.input(i));
  if (it == im.values.end())
    return std::nullopt;
  return it->second;
}

std::optional<Value> NodeImporter::runTimeIndexVector(int i) const {
  if (intConstant(i))
    return std::nullopt;
  std::optional<Value> v = runTimeValue(i);
  if (!v)
    return std::nullopt;
  auto t = dyn_cast<RankedTensorType>(v->getType());
  if (!t || t.getRank() != 1 || t.isDynamicDim(0) ||
      !(t.getElementType().isSignlessInteger(64) ||
        t.getElementType().isSignlessInteger(32)))
    return std::nullopt;
  return v;
}

FailureOr<std::vector<int64_t>> NodeImporter::declaredShape(int i,
                                                            StringRef what) {
  const std::string &name = node.output(i);
  auto it = im.declaredShapes.find(name);
  if (it != im.declaredShapes.end())
    return it->second;
  error() << "the " << what << " input is a run-time value, so output '" << name
          << "' needs a shape declared in the model (a graph output or "
             "value_info with dims), which it lacks; or bind the input with "
             "--bind-input";
  return failure();
}

const IntConstant *NodeImporter::intConstant(int i) const {
  if (!hasInput(i))
    return nullptr;
  auto it = im.intConstants.find(node.input(i));
  return it == im.intConstants.end() ? nullptr : &it->second;
}

FailureOr<std::vector<int64_t>> NodeImporter::constInput(int i,
                                                         StringRef what) {
  const IntConstant *c = intConstant(i);
  if (!c || c->isBool) {
    error() << "the " << what << " input must be a constant int64 tensor";
    return failure();
  }
  if (c->hasUnknown()) {
    error() << "the " << what
            << " input depends on a dynamic dim; give the graph "
               "input's shape with --input-shape";
    return failure();
  }
  return c->values;
}

FailureOr<std::optional<std::vector<float>>> NodeImporter::constFloats(int i) {
  using Result = std::optional<std::vector<float>>;
  if (!hasInput(i))
    return Result();
  const std::string &name = node.input(i);
  auto it = im.values.find(name);
  auto c = it == im.values.end()
               ? arith::ConstantOp()
               : it->second.getDefiningOp<arith::ConstantOp>();
  auto attr =
      c ? dyn_cast<DenseElementsAttr>(c.getValue()) : DenseElementsAttr();
  if (attr && attr.getElementType().isF32())
    return Result(std::vector<float>(attr.getValues<float>().begin(),
                                     attr.getValues<float>().end()));
  auto init = im.floatInits.find(name);
  if (init == im.floatInits.end())
    return Result();
  const onnx::TensorProto *t = withValues(*init->second);
  if (!t)
    return failure();
  return Result(readFloats(*t));
}

FailureOr<std::optional<std::vector<int64_t>>>
NodeImporter::axes(int inputIndex) {
  using Result = std::optional<std::vector<int64_t>>;
  std::optional<std::vector<int64_t>> fromAttr = attrInts("axes");
  if (fromAttr && hasInput(inputIndex)) {
    error() << "attribute 'axes' and the axes input are both given";
    return failure();
  }
  if (fromAttr)
    return fromAttr;
  if (!hasInput(inputIndex))
    return Result();
  FailureOr<std::vector<int64_t>> v = constInput(inputIndex, "axes");
  if (failed(v))
    return failure();
  return Result(*v);
}

const onnx::TensorProto *NodeImporter::withValues(const onnx::TensorProto &t) {
  return im.withValues(t, loc());
}

void NodeImporter::define(int i, Value v) {
  if (i < node.output_size() && !node.output(i).empty())
    im.values[node.output(i)] = v;
}

void NodeImporter::defineConstant(int i, IntConstant c) {
  if (i < node.output_size() && !node.output(i).empty())
    im.intConstants[node.output(i)] = std::move(c);
}

void NodeImporter::defineDoubleConstant(int i, const onnx::TensorProto &t) {
  if (i < node.output_size() && !node.output(i).empty())
    im.doubleConstants[node.output(i)] = &t;
}

const onnx::TensorProto *NodeImporter::doubleConstant(int i) const {
  if (!hasInput(i))
    return nullptr;
  auto it = im.doubleConstants.find(node.input(i));
  return it == im.doubleConstants.end() ? nullptr : it->second;
}

FailureOr<Value> NodeImporter::floatConstant(RankedTensorType type,
                                             ArrayRef<float> data) {
  if ((int64_t)data.size() != type.getNumElements()) {
    error() << "constant has " << data.size() << " values for shape " << type;
    return failure();
  }
  return arith::ConstantOp::create(b, loc(), DenseElementsAttr::get(type, data))
      .getResult();
}

/// The ONNX name of an nn element type (float, int64, bool).
static std::string onnxTypeName(Type t) {
  if (t.isF32())
    return "float";
  if (t.isF64())
    return "double";
  if (t.isF16())
    return "float16";
  if (t.isBF16())
    return "bfloat16";
  if (t.isSignlessInteger(1))
    return "bool";
  if (auto i = dyn_cast<IntegerType>(t))
    return (i.isUnsigned() ? "uint" : "int") + std::to_string(i.getWidth());
  std::string s;
  llvm::raw_string_ostream(s) << t;
  return s;
}

/// The ONNX names of the types in an ODS constraint ("32-bit float or
/// 64-bit signless integer"), as a list ("float or int64").
static std::string onnxTypeList(StringRef constraint) {
  SmallVector<StringRef> parts;
  constraint.split(parts, " or ");
  std::vector<std::string> names;
  for (StringRef p : parts) {
    p = p.trim();
    if (p == "32-bit float")
      names.push_back("float");
    else if (p == "64-bit float")
      names.push_back("double");
    else if (p == "16-bit float")
      names.push_back("float16");
    else if (p == "bfloat16 type")
      names.push_back("bfloat16");
    else if (p == "1-bit signless integer")
      names.push_back("bool");
    else if (p.consume_back("-bit signless integer"))
      names.push_back("int" + p.str());
    else if (p.consume_back("-bit unsigned integer"))
      names.push_back("uint" + p.str());
    else
      names.push_back(p.str());
  }
  if (names.size() < 2)
    return llvm::join(names, "");
  std::string last = names.back();
  names.pop_back();
  return llvm::join(names, ", ") + " or " + last;
}

std::string NodeImporter::describeBuildFailure(ValueRange operands,
                                               const std::string &messages) {
  if (messages.empty())
    return "invalid node";
  std::string types;
  llvm::raw_string_ostream os(types);
  llvm::SetVector<Type> seen;
  for (Value v : operands)
    seen.insert(getElementTypeOrSelf(v.getType()));
  llvm::interleave(
      seen, os, [&](Type t) { os << onnxTypeName(t); }, " and ");
  StringRef m(messages);
  // Inference of a mixed-type elementwise op ("... operands have different
  // element types: i64 and f32"): ONNX requires one type.
  if (m.contains("different element types"))
    return "inputs of different types (" + types +
           ") are not supported: the operator takes inputs of one type";
  // An ODS type constraint ("operand #0 must be ranked tensor of 32-bit
  // float values, but got ..."): name the types, not the IR.
  size_t at = m.find("must be ranked tensor of ");
  if (at == StringRef::npos)
    return messages;
  StringRef allowed = m.drop_front(at + strlen("must be ranked tensor of "));
  allowed = allowed.take_until([](char c) { return c == ','; });
  allowed.consume_back(" values");
  return types + " inputs are not supported (this operator takes " +
         onnxTypeList(allowed) + " here)";
}

LogicalResult NodeImporter::onlyFirstOutput(StringRef what) {
  for (int i = 1; i < node.output_size(); ++i) {
    if (!node.output(i).empty()) {
      error() << what;
      return failure();
    }
  }
  return success();
}

/// The default of attribute `name` in `spec`, of type `T`; a handler asking
/// for a default the entry does not give is a programming error.
template <typename T> static T specDefault(const OpSpec &spec, StringRef name) {
  const AttrSpec *a = spec.attribute(name);
  if (!a || !std::holds_alternative<T>(a->dflt))
    llvm::report_fatal_error("ONNX operator '" + Twine(spec.name) +
                             "' has no default for attribute '" + name + "'");
  return std::get<T>(a->dflt);
}

int64_t NodeImporter::attrInt(StringRef name) const {
  if (const onnx::AttributeProto *a = attr(name))
    return a->i();
  return specDefault<int64_t>(spec, name);
}

float NodeImporter::attrFloat(StringRef name) const {
  if (const onnx::AttributeProto *a = attr(name))
    return a->f();
  return specDefault<float>(spec, name);
}

std::string NodeImporter::attrString(StringRef name) const {
  if (const onnx::AttributeProto *a = attr(name))
    return a->s();
  return specDefault<std::string>(spec, name);
}

//===----------------------------------------------------------------------===//
// Importer
//===----------------------------------------------------------------------===//

FailureOr<bool> Importer::foldIntConstants(const onnx::NodeProto &node,
                                           const OpSpec &spec) {
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
  FailureOr<bool> folded = foldIntNode(
      node, spec.fold,
      {constant, shapeOf, [&] { return nodeError(node); }, opset}, outs);
  if (failed(folded) || !*folded)
    return folded;
  intConstants[node.output(0)] = std::move(outs[0]);
  return true;
}

void Importer::importRunTimeShadow(const onnx::NodeProto &node,
                                   const OpSpec &spec) {
  if (!spec.import || node.output_size() != 1)
    return;
  Block *block = b.getInsertionBlock();
  Operation *last = block->empty() ? nullptr : &block->back();
  FailureOr<Value> result = failure();
  {
    // A handler's errors only mean there is no run-time form.
    ScopedDiagnosticHandler silence(ctx,
                                    [](Diagnostic &) { return success(); });
    NodeImporter n(*this, node, spec);
    result = spec.import(n);
  }
  auto made = llvm::make_range(
      last ? std::next(last->getIterator()) : block->begin(), block->end());
  if (failed(result) || !*result) {
    // Constants of the node's inputs materialized on the way are cached in
    // `values`: forget them with the ops.
    llvm::SmallPtrSet<Operation *, 8> erased;
    for (Operation &op : made)
      erased.insert(&op);
    for (const std::string &name : node.input())
      if (auto it = values.find(name);
          it != values.end() && erased.contains(it->second.getDefiningOp()))
        values.erase(it);
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(made)))
      op.erase();
    return;
  }
  for (Operation &op : made)
    shadowOps.push_back(&op);
  values[node.output(0)] = *result;
}

void Importer::eraseUnusedShadows() {
  for (Operation *op : llvm::reverse(shadowOps))
    if (op->use_empty())
      op->erase();
  shadowOps.clear();
}

LogicalResult Importer::importNode(const onnx::NodeProto &node) {
  if (!node.domain().empty() && node.domain() != "ai.onnx") {
    nodeError(node) << "unsupported op domain '" << node.domain() << "'";
    return failure();
  }
  const OpSpec *spec = OpRegistry::get().lookup(node.op_type());
  if (!spec) {
    nodeError(node) << "unsupported ONNX op '" << node.op_type()
                    << "' (docs/operators.md lists the supported ones)";
    return failure();
  }
  // Opsets before 7 broadcast and name attributes differently for most
  // operators: only those whose entry starts there are imported.
  if (opset < 7 && opset < spec->sinceOpset) {
    nodeError(node) << "opset " << opset
                    << " is not supported for this operator (it is imported "
                       "from opset "
                    << spec->sinceOpset << " on)";
    return failure();
  }
  // An attribute the importer ignored could change the answer.
  for (const auto &a : node.attribute()) {
    if (!spec->attribute(a.name())) {
      nodeError(node) << "unsupported attribute '" << a.name() << "'";
      return failure();
    }
  }
  FailureOr<bool> folded = foldIntConstants(node, *spec);
  if (failed(folded))
    return failure();
  if (*folded) {
    if (intConstants[node.output(0)].hasUnknown())
      importRunTimeShadow(node, *spec);
    return success();
  }
  NodeImporter n(*this, node, *spec);
  if (!spec->import) {
    nodeError(node) << "unsupported ONNX op '" << node.op_type()
                    << "' on run-time values (it is folded on int64/bool "
                       "constants only)";
    return failure();
  }
  FailureOr<Value> result = spec->import(n);
  if (failed(result))
    return failure();
  if (!*result)
    return success(); // the handler named its outputs
  if (node.output_size() < 1) {
    nodeError(node) << "has no output";
    return failure();
  }
  values[node.output(0)] = *result;
  return success();
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
  Type elem = k.isBool    ? b.getI1Type()
              : k.isInt32 ? b.getI32Type()
                          : b.getI64Type();
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
  } else if (k.isInt32) {
    SmallVector<int32_t> narrow(k.values.begin(), k.values.end());
    attr = DenseElementsAttr::get(type, ArrayRef<int32_t>(narrow));
  } else {
    attr = DenseElementsAttr::get(type, ArrayRef<int64_t>(k.values));
  }
  Value v = arith::ConstantOp::create(b, fileLoc, attr);
  values[name] = v;
  return v;
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
      elemType != onnx::TensorProto::INT32 &&
      elemType != onnx::TensorProto::BOOL)
    return emitError(fileLoc)
           << "--bind-input '" << info.name()
           << "': only int64, int32 and bool inputs can be bound";
  const auto &shape = info.type().tensor_type().shape();
  IntConstant c;
  c.values = values;
  c.isBool = elemType == onnx::TensorProto::BOOL;
  c.isInt32 = elemType == onnx::TensorProto::INT32;
  for (int64_t v : values)
    if (c.isInt32 && (v < INT32_MIN || v > INT32_MAX))
      return emitError(fileLoc) << "--bind-input '" << info.name() << "': " << v
                                << " does not fit in int32";
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
  Type elem = elementTypeOf(b.getContext(), elemType);
  if (!elem) {
    emitError(fileLoc) << "input '" << name << "' must be a tensor of "
                       << kSupportedElementTypes
                       << " (other input types are not supported yet)";
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
  return RankedTensorType::get(dims, elem);
}

OwningOpRef<ModuleOp> Importer::run(const onnx::ModelProto &model) {
  const onnx::GraphProto &graph = model.graph();
  for (const auto &o : model.opset_import()) {
    if (!o.domain().empty() && o.domain() != "ai.onnx")
      continue;
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
  for (const auto *infos : {&graph.output(), &graph.value_info()})
    for (const onnx::ValueInfoProto &info : *infos) {
      if (!info.type().has_tensor_type() ||
          !info.type().tensor_type().has_shape())
        continue;
      std::vector<int64_t> dims;
      for (const auto &d : info.type().tensor_type().shape().dim())
        dims.push_back(d.has_dim_value() && d.dim_value() >= 0 ? d.dim_value()
                                                               : -1);
      declaredShapes.emplace(info.name(), std::move(dims));
    }
  findEmbeddingBags(graph, embeddingBags, absorbed);
  for (const onnx::NodeProto &node : graph.node())
    if (!absorbed.count(&node) && failed(importNode(node)))
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
  eraseUnusedShadows();
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

} // namespace detail

void printOnnxOperatorTable(llvm::raw_ostream &os) {
  detail::printOperatorTable(detail::OpRegistry::get(), os);
}

std::vector<std::string> supportedOnnxOperators() {
  std::vector<std::string> names;
  for (const detail::OpSpec &s : detail::OpRegistry::get().ops())
    names.push_back(s.name);
  return names;
}

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
  return detail::Importer(context, name, dir, skipped, options).run(model);
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
