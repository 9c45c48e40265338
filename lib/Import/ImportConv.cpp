//===- ImportConv.cpp - ONNX CNN ops to nn --------------------------------===//
//
// Conv, MaxPool, AveragePool, GlobalAveragePool and BatchNormalization
// (inference). ONNX's `auto_pad` is resolved here into explicit pads (the
// spatial dims are static), so the nn ops only know explicit padding.
//
//===----------------------------------------------------------------------===//

#include "ImportConv.h"
#include "BuildChecked.h"
#include "nn/NNOps.h"

#include "mlir/IR/Verifier.h"

#include <onnx/onnx_pb.h>

#include <map>
#include <optional>

using namespace mlir;

namespace autodist::detail {
namespace {

const std::map<std::string, std::vector<std::string>> &knownAttributes() {
  static const std::map<std::string, std::vector<std::string>> known = {
      {"Conv",
       {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"}},
      {"MaxPool",
       {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads",
        "storage_order", "strides"}},
      {"AveragePool",
       {"auto_pad", "ceil_mode", "count_include_pad", "dilations",
        "kernel_shape", "pads", "strides"}},
      {"GlobalAveragePool", {}},
      {"BatchNormalization",
       {"epsilon", "momentum", "spatial", "training_mode"}},
  };
  return known;
}

const onnx::AttributeProto *findAttr(const onnx::NodeProto &node,
                                     StringRef name) {
  for (const auto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t attrInt(const onnx::NodeProto &node, StringRef name, int64_t dflt) {
  const onnx::AttributeProto *a = findAttr(node, name);
  return a ? a->i() : dflt;
}

std::optional<std::vector<int64_t>> attrInts(const onnx::NodeProto &node,
                                             StringRef name) {
  const onnx::AttributeProto *a = findAttr(node, name);
  if (!a)
    return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::string listStr(ArrayRef<int64_t> v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(v, os);
  os << "]";
  return s;
}

/// Builds `OpTy` with result types from its own inference and verifies it;
/// what inference and the verifier say becomes one error naming the node.
template <typename OpTy>
FailureOr<Operation *>
buildCheckedOp(const NodeImportContext &c, ValueRange operands,
               ArrayRef<NamedAttribute> attrs, unsigned numResults) {
  std::string messages;
  Operation *op = createInferredOp<OpTy>(c.builder, c.loc, operands, attrs,
                                         numResults, messages);
  if (!op) {
    c.error() << (messages.empty() ? std::string("invalid node") : messages);
    return failure();
  }
  return op;
}

template <typename OpTy>
FailureOr<Value> buildChecked(const NodeImportContext &c, ValueRange operands,
                              ArrayRef<NamedAttribute> attrs) {
  FailureOr<Operation *> op = buildCheckedOp<OpTy>(c, operands, attrs, 1);
  if (failed(op))
    return failure();
  return (*op)->getResult(0);
}

/// The static shape of input `v` (rank 4, NCHW) or an error.
FailureOr<ArrayRef<int64_t>> nchwShape(const NodeImportContext &c, Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getRank() != 4) {
    c.error() << "only 2-D spatial inputs (NCHW, rank 4) are supported, got "
                 "rank "
              << t.getRank();
    return failure();
  }
  return t.getShape();
}

/// Strides, dilations and explicit pads of a window op, with ONNX's
/// defaults and `auto_pad` resolved against the input's spatial dims.
struct Window {
  std::vector<int64_t> strides{1, 1}, dilations{1, 1}, pads{0, 0, 0, 0};
};

FailureOr<Window> windowOf(const NodeImportContext &c,
                           const onnx::NodeProto &node,
                           ArrayRef<int64_t> spatial,
                           ArrayRef<int64_t> kernel) {
  Window w;
  auto check = [&](StringRef name, std::vector<int64_t> &dst,
                   size_t n) -> LogicalResult {
    if (std::optional<std::vector<int64_t>> v = attrInts(node, name)) {
      if (v->size() != n) {
        c.error() << "attribute '" << name << "' = " << listStr(*v)
                  << " must have " << n << " values (2-D spatial dims)";
        return failure();
      }
      dst = *v;
    }
    return success();
  };
  if (failed(check("strides", w.strides, 2)) ||
      failed(check("dilations", w.dilations, 2)) ||
      failed(check("pads", w.pads, 4)))
    return failure();
  std::string autoPad = "NOTSET";
  if (const onnx::AttributeProto *a = findAttr(node, "auto_pad"))
    autoPad = a->s();
  if (autoPad == "NOTSET")
    return w;
  if (autoPad != "VALID" && autoPad != "SAME_UPPER" &&
      autoPad != "SAME_LOWER") {
    c.error() << "attribute 'auto_pad' = '" << autoPad
              << "' is not supported (NOTSET, VALID, SAME_UPPER, SAME_LOWER)";
    return failure();
  }
  if (findAttr(node, "pads")) {
    c.error() << "attributes 'pads' and 'auto_pad' = '" << autoPad
              << "' are both given";
    return failure();
  }
  if (autoPad == "VALID")
    return w;
  for (int i = 0; i < 2; ++i) {
    if (w.strides[i] < 1 || w.dilations[i] < 1 || kernel[i] < 1)
      return w; // the op's verifier reports it
    // SAME: output ceil(in / stride); the odd pad goes at the end (UPPER)
    // or the beginning (LOWER).
    int64_t out = (spatial[i] + w.strides[i] - 1) / w.strides[i];
    int64_t window = w.dilations[i] * (kernel[i] - 1) + 1;
    int64_t total =
        std::max<int64_t>(0, (out - 1) * w.strides[i] + window - spatial[i]);
    int64_t small = total / 2, large = total - small;
    w.pads[i] = autoPad == "SAME_UPPER" ? small : large;
    w.pads[i + 2] = autoPad == "SAME_UPPER" ? large : small;
  }
  return w;
}

SmallVector<NamedAttribute> windowAttrs(OpBuilder &b, const Window &w) {
  return {b.getNamedAttr("strides", b.getDenseI64ArrayAttr(w.strides)),
          b.getNamedAttr("pads", b.getDenseI64ArrayAttr(w.pads)),
          b.getNamedAttr("dilations", b.getDenseI64ArrayAttr(w.dilations))};
}

/// Rejects every output but the first (e.g. MaxPool's Indices).
LogicalResult onlyFirstOutput(const NodeImportContext &c,
                              const onnx::NodeProto &node, StringRef what) {
  for (int i = 1; i < node.output_size(); ++i) {
    if (!node.output(i).empty()) {
      c.error() << what;
      return failure();
    }
  }
  return success();
}

FailureOr<Value> importConv(const onnx::NodeProto &node,
                            const NodeImportContext &c) {
  OpBuilder &b = c.builder;
  FailureOr<Value> x = c.operand(0), w = c.operand(1);
  if (failed(x) || failed(w))
    return failure();
  SmallVector<Value> operands = {*x, *w};
  if (node.input_size() > 2 && !node.input(2).empty()) {
    FailureOr<Value> bias = c.operand(2);
    if (failed(bias))
      return failure();
    operands.push_back(*bias);
  }
  FailureOr<ArrayRef<int64_t>> xs = nchwShape(c, *x);
  if (failed(xs))
    return failure();
  auto ws = cast<RankedTensorType>(w->getType()).getShape();
  if (ws.size() != 4) {
    c.error() << "weight must be [M, C/group, kH, kW], got rank " << ws.size();
    return failure();
  }
  ArrayRef<int64_t> kernel = ws.drop_front(2);
  if (std::optional<std::vector<int64_t>> k = attrInts(node, "kernel_shape")) {
    if (ArrayRef<int64_t>(*k) != kernel) {
      c.error() << "attribute 'kernel_shape' = " << listStr(*k)
                << " differs from the weight's spatial dims "
                << listStr(kernel);
      return failure();
    }
  }
  FailureOr<Window> win = windowOf(c, node, xs->drop_front(2), kernel);
  if (failed(win))
    return failure();
  SmallVector<NamedAttribute> attrs = windowAttrs(b, *win);
  attrs.push_back(
      b.getNamedAttr("group", b.getI64IntegerAttr(attrInt(node, "group", 1))));
  return buildChecked<nn::ConvOp>(c, operands, attrs);
}

FailureOr<Value> importPool(const onnx::NodeProto &node,
                            const NodeImportContext &c, bool max) {
  OpBuilder &b = c.builder;
  FailureOr<Value> x = c.operand(0);
  if (failed(x))
    return failure();
  if (max &&
      failed(onlyFirstOutput(c, node, "output 'Indices' is not supported")))
    return failure();
  int64_t ceil = attrInt(node, "ceil_mode", 0);
  if (ceil != 0) {
    c.error() << "attribute 'ceil_mode' = " << ceil
              << " is not supported (only 0)";
    return failure();
  }
  FailureOr<ArrayRef<int64_t>> xs = nchwShape(c, *x);
  if (failed(xs))
    return failure();
  std::optional<std::vector<int64_t>> kernel = attrInts(node, "kernel_shape");
  if (!kernel) {
    c.error() << "attribute 'kernel_shape' is missing";
    return failure();
  }
  if (kernel->size() != 2) {
    c.error() << "attribute 'kernel_shape' = " << listStr(*kernel)
              << " must have 2 values (2-D spatial dims)";
    return failure();
  }
  FailureOr<Window> win = windowOf(c, node, xs->drop_front(2), *kernel);
  if (failed(win))
    return failure();
  SmallVector<NamedAttribute> attrs = windowAttrs(b, *win);
  attrs.push_back(
      b.getNamedAttr("kernel_shape", b.getDenseI64ArrayAttr(*kernel)));
  if (max)
    return buildChecked<nn::MaxPoolOp>(c, {*x}, attrs);
  int64_t countPad = attrInt(node, "count_include_pad", 0);
  if (countPad != 0 && countPad != 1) {
    c.error() << "attribute 'count_include_pad' must be 0 or 1";
    return failure();
  }
  attrs.push_back(b.getNamedAttr("count_include_pad", b.getBoolAttr(countPad)));
  return buildChecked<nn::AveragePoolOp>(c, {*x}, attrs);
}

FailureOr<Value> importBatchNorm(const onnx::NodeProto &node,
                                 const NodeImportContext &c) {
  OpBuilder &b = c.builder;
  int64_t training = attrInt(node, "training_mode", 0);
  if (training != 0 && training != 1) {
    c.error() << "attribute 'training_mode' = " << training
              << " must be 0 or 1";
    return failure();
  }
  if (int64_t s = attrInt(node, "spatial", 1); s != 1) {
    c.error() << "attribute 'spatial' = " << s
              << " is not supported (only 1: per-channel statistics)";
    return failure();
  }
  // Inference form: only Y is defined. Training form: Y and the updated
  // running mean and variance (which the train step writes back).
  if (!training &&
      failed(onlyFirstOutput(c, node,
                             "the running mean and variance outputs need "
                             "training_mode = 1")))
    return failure();
  if (training && node.output_size() > 3) {
    c.error() << "the saved mean and variance outputs (before opset 14) are "
                 "not supported";
    return failure();
  }
  SmallVector<Value> operands;
  for (int i = 0; i < 5; ++i) {
    FailureOr<Value> v = c.operand(i);
    if (failed(v))
      return failure();
    operands.push_back(*v);
  }
  float eps = 1e-5f, momentum = 0.9f;
  if (const onnx::AttributeProto *a = findAttr(node, "epsilon"))
    eps = a->f();
  if (const onnx::AttributeProto *a = findAttr(node, "momentum"))
    momentum = a->f();
  if (!(momentum >= 0.0f && momentum <= 1.0f)) {
    c.error() << "attribute 'momentum' = " << momentum << " is not in [0, 1]";
    return failure();
  }
  SmallVector<NamedAttribute> attrs = {
      b.getNamedAttr("epsilon", b.getF32FloatAttr(eps))};
  // Only the training form (autodist-compile --train) uses the momentum.
  if (momentum != 0.9f)
    attrs.push_back(b.getNamedAttr("momentum", b.getF32FloatAttr(momentum)));
  if (!training)
    return buildChecked<nn::BatchNormOp>(c, operands, attrs);
  // ONNX's running variance blends the biased batch variance (ReduceVar).
  attrs.push_back(b.getNamedAttr("unbiased_running_var", b.getBoolAttr(false)));
  FailureOr<Operation *> op =
      buildCheckedOp<nn::BatchNormTrainOp>(c, operands, attrs, 5);
  if (failed(op))
    return failure();
  for (int i = 1; i < node.output_size() && i < 3; ++i)
    if (!node.output(i).empty())
      c.defineOutput(node.output(i), (*op)->getResult(i));
  return (*op)->getResult(0);
}

} // namespace

bool isCnnOp(StringRef opType) {
  return knownAttributes().count(opType.str()) != 0;
}

FailureOr<Value> importCnnNode(const onnx::NodeProto &node,
                               const NodeImportContext &c) {
  const std::string &type = node.op_type();
  const std::vector<std::string> &known = knownAttributes().at(type);
  for (const auto &a : node.attribute()) {
    if (!llvm::is_contained(known, a.name())) {
      c.error() << "unsupported attribute '" << a.name() << "'";
      return failure();
    }
  }
  if (type == "Conv")
    return importConv(node, c);
  if (type == "MaxPool" || type == "AveragePool")
    return importPool(node, c, type == "MaxPool");
  if (type == "BatchNormalization")
    return importBatchNorm(node, c);
  FailureOr<Value> x = c.operand(0);
  if (failed(x))
    return failure();
  return buildChecked<nn::GlobalAveragePoolOp>(c, {*x}, {});
}

} // namespace autodist::detail
