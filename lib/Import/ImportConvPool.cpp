//===- ImportConvPool.cpp - Conv and pooling ------------------------------===//
//
// Conv, MaxPool, AveragePool and GlobalAveragePool. ONNX's `auto_pad` is
// resolved here into explicit pads (the spatial dims are static), so the nn
// ops only know explicit padding.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "nn/NNOps.h"

#include <onnx/onnx_pb.h>

using namespace mlir;

namespace autodist::detail {
namespace {

/// Whether `v` is a 1-D spatial input (NCL, rank 3): imported as 2-D with
/// H = 1 (nn.unsqueeze before, nn.squeeze after), the window lifted.
bool isOneD(Value v) {
  return cast<RankedTensorType>(v.getType()).getRank() == 3;
}

/// Whether `v` is a 1-D or 2-D spatial input (NCL, NCHW), else an error.
LogicalResult checkSpatialRank(NodeImporter &c, Value v) {
  int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
  if (rank == 3 || rank == 4)
    return success();
  c.error() << "only 1-D and 2-D spatial inputs (NCL, NCHW: rank 3, 4) are "
               "supported, got rank "
            << rank;
  return failure();
}

/// The static shape of input `v` (rank 4, NCHW, 1-D inputs lifted).
ArrayRef<int64_t> nchwShape(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// `v` [N, C, L] as [N, C, 1, L] (a 1-D window op's input or weight).
FailureOr<Value> liftOneD(NodeImporter &c, Value v) {
  return c.build<nn::UnsqueezeOp>(
      {v}, {c.b.getNamedAttr("axes", c.b.getDenseI64ArrayAttr({2}))});
}

/// A 1-D window op's result [N, C, 1, L] as [N, C, L].
FailureOr<Value> lowerOneD(NodeImporter &c, FailureOr<Value> v) {
  if (failed(v))
    return failure();
  return c.build<nn::SqueezeOp>(
      {*v}, {c.b.getNamedAttr("axes", c.b.getDenseI64ArrayAttr({2}))});
}

/// Strides, dilations and explicit pads of a window op, with ONNX's
/// defaults and `auto_pad` resolved against the input's spatial dims.
struct Window {
  std::vector<int64_t> strides{1, 1}, dilations{1, 1}, pads{0, 0, 0, 0};
};

/// `oneD`: the node's attributes are 1-D (`spatial` and `kernel` are the
/// lifted 2-D ones, H = 1) and are lifted the same way.
FailureOr<Window> windowOf(NodeImporter &c, ArrayRef<int64_t> spatial,
                           ArrayRef<int64_t> kernel, bool oneD = false) {
  Window w;
  auto check = [&](StringRef name, std::vector<int64_t> &dst,
                   size_t n) -> LogicalResult {
    if (std::optional<std::vector<int64_t>> v = c.attrInts(name)) {
      size_t want = oneD ? n / 2 : n;
      if (v->size() != want) {
        c.error() << "attribute '" << name << "' = " << listString(*v)
                  << " must have " << want << (want == 1 ? " value" : " values")
                  << " (" << (oneD ? 1 : 2) << "-D spatial dims)";
        return failure();
      }
      dst = *v;
      if (oneD) // [s] -> [1, s]; pads [b, e] -> [0, b, 0, e]
        dst = n == 2 ? std::vector<int64_t>{1, (*v)[0]}
                     : std::vector<int64_t>{0, (*v)[0], 0, (*v)[1]};
    }
    return success();
  };
  if (failed(check("strides", w.strides, 2)) ||
      failed(check("dilations", w.dilations, 2)) ||
      failed(check("pads", w.pads, 4)))
    return failure();
  std::string autoPad = c.attrString("auto_pad");
  if (autoPad == "NOTSET")
    return w;
  if (autoPad != "VALID" && autoPad != "SAME_UPPER" &&
      autoPad != "SAME_LOWER") {
    c.error() << "attribute 'auto_pad' = '" << autoPad
              << "' is not supported (NOTSET, VALID, SAME_UPPER, SAME_LOWER)";
    return failure();
  }
  if (c.attr("pads")) {
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

FailureOr<Value> importConv(NodeImporter &c) {
  OpBuilder &b = c.b;
  FailureOr<SmallVector<Value>> operands =
      c.operands(/*required=*/2, /*optional=*/1);
  if (failed(operands))
    return failure();
  Value x = (*operands)[0], w = (*operands)[1];
  if (failed(checkSpatialRank(c, x)))
    return failure();
  bool oneD = isOneD(x);
  auto ws = cast<RankedTensorType>(w.getType()).getShape();
  if (ws.size() != (oneD ? 3u : 4u)) {
    c.error() << "weight must be "
              << (oneD ? "[M, C/group, k]" : "[M, C/group, kH, kW]")
              << ", got rank " << ws.size();
    return failure();
  }
  if (std::optional<std::vector<int64_t>> k = c.attrInts("kernel_shape")) {
    if (ArrayRef<int64_t>(*k) != ws.drop_front(2)) {
      c.error() << "attribute 'kernel_shape' = " << listString(*k)
                << " differs from the weight's spatial dims "
                << listString(ws.drop_front(2));
      return failure();
    }
  }
  if (oneD) {
    FailureOr<Value> x2 = liftOneD(c, x), w2 = liftOneD(c, w);
    if (failed(x2) || failed(w2))
      return failure();
    (*operands)[0] = x = *x2;
    (*operands)[1] = w = *w2;
  }
  ArrayRef<int64_t> kernel = nchwShape(w).drop_front(2);
  FailureOr<Window> win = windowOf(c, nchwShape(x).drop_front(2), kernel, oneD);
  if (failed(win))
    return failure();
  SmallVector<NamedAttribute> attrs = windowAttrs(b, *win);
  attrs.push_back(
      b.getNamedAttr("group", b.getI64IntegerAttr(c.attrInt("group"))));
  FailureOr<Value> y = c.build<nn::ConvOp>(*operands, attrs);
  return oneD ? lowerOneD(c, y) : y;
}

/// `ceil_mode = 1`: the output size rounds up, a partial last window
/// covering the end of the input. That window reads past the end pad, so
/// the end pad grows by what it reads there: for MaxPool (padding is -inf)
/// and AveragePool without count_include_pad (pads are not counted) that is
/// exactly ceil mode. With count_include_pad the overhang would be counted
/// (PyTorch divides by the window clipped to the padded input): an error
/// where it changes the size.
LogicalResult applyCeilMode(NodeImporter &c, ArrayRef<int64_t> spatial,
                            ArrayRef<int64_t> kernel, Window &w,
                            bool countsPads) {
  for (int i = 0; i < 2; ++i) {
    int64_t stride = w.strides[i],
            padded = spatial[i] + w.pads[i] + w.pads[i + 2];
    int64_t window = w.dilations[i] * (kernel[i] - 1) + 1;
    int64_t span = padded - window;
    if (stride < 1 || span < 0)
      return success(); // the op's verifier reports it
    int64_t floorOut = span / stride + 1;
    int64_t ceilOut = (span + stride - 1) / stride + 1;
    // As PyTorch and onnxruntime: the last window must start inside the
    // input or its leading pad.
    if ((ceilOut - 1) * stride >= spatial[i] + w.pads[i])
      --ceilOut;
    if (ceilOut == floorOut)
      continue;
    if (countsPads) {
      c.error() << "attribute 'ceil_mode' = 1 with 'count_include_pad' = 1 "
                   "is not supported where it changes the output size "
                   "(spatial dim "
                << i << ": " << ceilOut << " instead of " << floorOut << ")";
      return failure();
    }
    w.pads[i + 2] += (ceilOut - 1) * stride + window - padded;
  }
  return success();
}

template <bool max> FailureOr<Value> importPool(NodeImporter &c) {
  OpBuilder &b = c.b;
  FailureOr<Value> x = c.operand(0);
  if (failed(x))
    return failure();
  bool wantsIndices =
      max && c.node.output_size() > 1 && !c.node.output(1).empty();
  int64_t ceil = c.attrInt("ceil_mode");
  if (ceil != 0 && ceil != 1) {
    c.error() << "attribute 'ceil_mode' = " << ceil << " must be 0 or 1";
    return failure();
  }
  if (failed(checkSpatialRank(c, *x)))
    return failure();
  bool oneD = isOneD(*x);
  if (oneD && failed(x = liftOneD(c, *x)))
    return failure();
  ArrayRef<int64_t> xs = nchwShape(*x);
  std::optional<std::vector<int64_t>> kernel = c.attrInts("kernel_shape");
  if (!kernel) {
    c.error() << "attribute 'kernel_shape' is missing";
    return failure();
  }
  if (kernel->size() != (oneD ? 1u : 2u)) {
    c.error() << "attribute 'kernel_shape' = " << listString(*kernel)
              << (oneD ? " must have 1 value (1-D spatial dims)"
                       : " must have 2 values (2-D spatial dims)");
    return failure();
  }
  if (oneD)
    kernel = std::vector<int64_t>{1, (*kernel)[0]};
  FailureOr<Window> win = windowOf(c, xs.drop_front(2), *kernel, oneD);
  if (failed(win))
    return failure();
  int64_t countPad = max ? 0 : c.attrInt("count_include_pad");
  if (countPad != 0 && countPad != 1) {
    c.error() << "attribute 'count_include_pad' must be 0 or 1";
    return failure();
  }
  if (ceil &&
      failed(applyCeilMode(c, xs.drop_front(2), *kernel, *win, countPad)))
    return failure();
  SmallVector<NamedAttribute> attrs = windowAttrs(b, *win);
  attrs.push_back(
      b.getNamedAttr("kernel_shape", b.getDenseI64ArrayAttr(*kernel)));
  if (max) {
    if (wantsIndices) {
      int64_t order = c.attrInt("storage_order");
      if (order != 0 && order != 1) {
        c.error() << "attribute 'storage_order' = " << order
                  << " must be 0 or 1";
        return failure();
      }
      SmallVector<NamedAttribute> indexAttrs(attrs);
      indexAttrs.push_back(
          b.getNamedAttr("storage_order", b.getI64IntegerAttr(order)));
      FailureOr<Value> i = c.build<nn::MaxPoolIndicesOp>({*x}, indexAttrs);
      if (oneD)
        i = lowerOneD(c, i);
      if (failed(i))
        return failure();
      c.define(1, *i);
    }
    FailureOr<Value> y = c.build<nn::MaxPoolOp>({*x}, attrs);
    return oneD ? lowerOneD(c, y) : y;
  }
  attrs.push_back(b.getNamedAttr("count_include_pad", b.getBoolAttr(countPad)));
  FailureOr<Value> y = c.build<nn::AveragePoolOp>({*x}, attrs);
  return oneD ? lowerOneD(c, y) : y;
}

FailureOr<Value> importGlobalAveragePool(NodeImporter &c) {
  FailureOr<Value> x = c.operand(0);
  if (failed(x))
    return failure();
  return c.build<nn::GlobalAveragePoolOp>({*x});
}

} // namespace

void registerConvPoolOps(OpRegistry &r) {
  std::vector<AttrSpec> window = {
      {"auto_pad", "NOTSET"}, "dilations", "kernel_shape", "pads", "strides"};
  auto with = [&](std::vector<AttrSpec> more) {
    std::vector<AttrSpec> all = window;
    all.insert(all.end(), more.begin(), more.end());
    return all;
  };
  r.add(
      {"Conv",
       7,
       with({{"group", 1}}),
       importConv,
       {},
       {"", "`nn.conv`",
        "input (`nn.conv_input_grad`: the output gradient dilated by the "
        "strides, padded, correlated with the flipped kernel per group), "
        "weight (`nn.conv_weight_grad`), bias (summed over N, H, W); all "
        "strides, pads, dilations, groups incl. depthwise",
        R"(1-D and 2-D: NCL input `[N, C, L]` or NCHW input `[N, C, H, W]` (batch may be dynamic; the other dims static), static weight `[M, C/group, k]` or `[M, C/group, kH, kW]`, optional bias `[M]`; a 1-D convolution is imported as a 2-D one with H = 1 (`nn.unsqueeze` before, `nn.squeeze` after). `group` (incl. depthwise, `group = C`), `strides`, `dilations`, `pads`; `auto_pad` NOTSET/VALID/SAME_UPPER/SAME_LOWER is resolved into explicit pads by the importer (with `pads` also given it is an error). `kernel_shape`, if given, must equal the weight's spatial dims. 3-D convolutions are errors. Lowers to zero padding, then (`group = 1`) im2col columns of the whole batch `[C·kH·kW, N·OH·OW]` and one `linalg.contract` → one sgemm, transposed to NCHW (the gradients likewise one sgemm each on the output gradient transposed to channels-first: the weight gradient with the forward's columns, the input gradient as `wᵀ·dy` added back into the input by col2im), or `linalg.conv_2d_ngchw_gfchw` / generic gradients with groups; the bias added after the sum)"}});
  r.add({"MaxPool",
         7,
         with({{"ceil_mode", 0}, {"storage_order", 0}}),
         importPool<true>,
         {},
         {"", "`nn.max_pool`",
          "yes (`nn.max_pool_grad`): each window's gradient goes to its "
          "maximum, the first in row-major window order on ties (as PyTorch)",
          "1-D and 2-D (1-D lifted to 2-D with H = 1, as Conv; 3-D is an "
          "error). `kernel_shape` (required), `strides`, `pads` (each "
          "smaller than the kernel, padding is `-inf`), `dilations`, "
          "`auto_pad` as Conv. `ceil_mode = 1` (GoogLeNet, SqueezeNet): a "
          "partial last window where the size rounds up (one that would "
          "start past the input and its leading pad is dropped, as "
          "PyTorch), imported as more end padding. The `Indices` output "
          "(`nn.max_pool_indices`, int64, no gradient): the flat input index "
          "of each window's maximum, the first on ties, row-major or, with "
          "`storage_order = 1`, column-major over H and W; the count starts "
          "at the batch this program computes (a rank's share of the global "
          "batch, one inference chunk), as onnxruntime's on that batch"}});
  r.add(
      {"AveragePool",
       7,
       with({{"ceil_mode", 0}, {"count_include_pad", 0}}),
       importPool<false>,
       {},
       {"", "`nn.average_pool`",
        "yes (`nn.average_pool_grad`), both `count_include_pad`",
        "1-D and 2-D, as MaxPool. `kernel_shape`, `strides`, `pads` (each "
        "smaller than the kernel), `dilations` (opset 19), `auto_pad` as Conv, "
        "`count_include_pad` 0 (default: divide by the window positions "
        "inside the input) or 1 (divide by kH * kW). `ceil_mode = 1` as "
        "MaxPool; with `count_include_pad = 1` only where it does not "
        "change the output size (an error otherwise)"}});
  r.add(
      {"GlobalAveragePool",
       1,
       {},
       importGlobalAveragePool,
       {},
       {"", "`nn.global_average_pool`", "yes (broadcast, divided by the count)",
        "`[N, C, D1, ...]` (any spatial rank >= 1, static) to `[N, C, 1, "
        "...]`"}});
}

} // namespace autodist::detail
