//===- NNConvOps.cpp - conv, pooling, batch norm: inference, verifiers ----===//
//
// Type inference checks the shapes (channel counts, window sizes, output
// sizes); the verifiers check the attributes that do not depend on shapes.
//
//===----------------------------------------------------------------------===//

#include "nn/NNOps.h"
#include "nn/NNShapeUtils.h"

#include "mlir/IR/TypeUtilities.h"

#include <cmath>
#include <type_traits>

using namespace mlir;
using namespace autodist::nn;

namespace {
RankedTensorType rankedType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

std::string listStr(ArrayRef<int64_t> v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(v, os);
  os << "]";
  return s;
}

/// Checks the window attributes shared by conv and pooling: 2 strides and
/// dilations (>= 1), 4 pads (>= 0).
LogicalResult verifyWindowAttrs(Operation *op, ArrayRef<int64_t> strides,
                                ArrayRef<int64_t> pads,
                                ArrayRef<int64_t> dilations) {
  if (strides.size() != 2 ||
      llvm::any_of(strides, [](int64_t s) { return s < 1; }))
    return op->emitOpError("strides must be 2 values >= 1, got ")
           << listStr(strides);
  if (dilations.size() != 2 ||
      llvm::any_of(dilations, [](int64_t d) { return d < 1; }))
    return op->emitOpError("dilations must be 2 values >= 1, got ")
           << listStr(dilations);
  if (pads.size() != 4 || llvm::any_of(pads, [](int64_t p) { return p < 0; }))
    return op->emitOpError(
               "pads must be 4 values >= 0 ([top, left, bottom, right]), got ")
           << listStr(pads);
  return success();
}

/// Checks an NCHW input (rank 4, static C, H, W) and returns its shape.
FailureOr<ArrayRef<int64_t>> nchwInput(std::optional<Location> loc,
                                       StringRef opName, Value input) {
  auto shape = rankedType(input).getShape();
  if (shape.size() != 4)
    return emitOptionalError(loc, opName,
                             " supports 2-D spatial dims only (an NCHW input "
                             "of rank 4), got ",
                             shapeStr(shape));
  if (llvm::any_of(shape.drop_front(), ShapedType::isDynamic))
    return emitOptionalError(loc, opName,
                             " needs static channel and spatial dims, got ",
                             shapeStr(shape));
  return shape;
}

/// The output spatial sizes of a window op with ONNX's floor rule; an error
/// when the attributes are malformed (the verifier reports those) or a
/// window does not fit.
FailureOr<SmallVector<int64_t>>
windowOutput(std::optional<Location> loc, StringRef opName,
             ArrayRef<int64_t> in, ArrayRef<int64_t> kernel,
             ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
             ArrayRef<int64_t> dilations) {
  if (kernel.size() != 2 || strides.size() != 2 || pads.size() != 4 ||
      dilations.size() != 2 ||
      llvm::any_of(kernel, [](int64_t k) { return k < 1; }) ||
      llvm::any_of(strides, [](int64_t s) { return s < 1; }) ||
      llvm::any_of(dilations, [](int64_t d) { return d < 1; }) ||
      llvm::any_of(pads, [](int64_t p) { return p < 0; }))
    return emitOptionalError(loc, opName,
                             " has malformed kernel, strides, pads or "
                             "dilations");
  SmallVector<int64_t> out;
  for (int i = 0; i < 2; ++i) {
    int64_t padded = in[i] + pads[i] + pads[i + 2];
    int64_t window = dilations[i] * (kernel[i] - 1) + 1;
    if (padded < window)
      return emitOptionalError(loc, opName, " window ", window,
                               " (dilated kernel) is larger than the padded "
                               "input ",
                               padded, " in spatial dim ", i);
    out.push_back((padded - window) / strides[i] + 1);
  }
  return out;
}
} // namespace

//===----------------------------------------------------------------------===//
// ConvOp
//===----------------------------------------------------------------------===//

LogicalResult ConvOp::inferReturnTypes(MLIRContext *ctx,
                                       std::optional<Location> loc,
                                       ValueRange operands,
                                       DictionaryAttr attrs,
                                       OpaqueProperties props, RegionRange,
                                       SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  auto x = nchwInput(loc, "nn.conv", op.getInput());
  if (failed(x))
    return failure();
  auto w = rankedType(op.getWeight()).getShape();
  if (w.size() != 4 || llvm::any_of(w, ShapedType::isDynamic))
    return emitOptionalError(loc,
                             "nn.conv expects a static weight [M, C/group, "
                             "kH, kW], got ",
                             shapeStr(w));
  int64_t group = op.getGroup();
  int64_t c = (*x)[1], m = w[0];
  if (group < 1 || c % group != 0 || m % group != 0)
    return emitOptionalError(loc, "nn.conv group ", group,
                             " must divide both the input channels (", c,
                             ") and the output channels (", m, ")");
  if (w[1] != c / group)
    return emitOptionalError(loc, "nn.conv weight ", shapeStr(w), " has ", w[1],
                             " input channels per group, expected ", c,
                             " / group ", group, " = ", c / group);
  if (Value bias = op.getBias()) {
    auto bs = rankedType(bias).getShape();
    if (bs.size() != 1 || !dimsCompatible(bs[0], m))
      return emitOptionalError(loc, "nn.conv bias has shape [", shapeStr(bs),
                               "], expected [", m,
                               "] (one per output channel)");
  }
  auto out = windowOutput(loc, "nn.conv", x->drop_front(2), w.drop_front(2),
                          op.getStrides(), op.getPads(), op.getDilations());
  if (failed(out))
    return failure();
  results.push_back(RankedTensorType::get({(*x)[0], m, (*out)[0], (*out)[1]},
                                          Float32Type::get(ctx)));
  return success();
}

/// The group and window attributes of a convolution or of its gradients.
/// The two operands a convolution or one of its gradients multiplies:
/// f32, or both bf16 or both f16 with group 1 (autodist-mixed-precision).
static LogicalResult verifyConvOperands(Operation *op, Value a, Value b,
                                        int64_t group) {
  Type ea = rankedType(a).getElementType(), eb = rankedType(b).getElementType();
  if (ea != eb)
    return op->emitOpError("operands must have the same element type, got ")
           << ea << " and " << eb;
  if (!ea.isF32() && group != 1)
    return op->emitOpError("takes ")
           << ea << " operands only with group 1, got group " << group;
  return success();
}

template <typename ConvLikeOp>
static LogicalResult verifyConvAttrs(ConvLikeOp op) {
  if (op.getGroup() < 1)
    return op.emitOpError("group must be >= 1, got ") << op.getGroup();
  return verifyWindowAttrs(op, op.getStrides(), op.getPads(),
                           op.getDilations());
}

bool ConvOp::acceptsHalfOperands() { return getGroup() == 1; }
bool ConvInputGradOp::acceptsHalfOperands() { return getGroup() == 1; }
bool ConvWeightGradOp::acceptsHalfOperands() { return getGroup() == 1; }

LogicalResult ConvOp::verify() {
  if (failed(verifyConvOperands(*this, getInput(), getWeight(), getGroup())))
    return failure();
  return verifyConvAttrs(*this);
}

LogicalResult ConvInputGradOp::verify() {
  if (failed(verifyConvOperands(*this, getGrad(), getWeight(), getGroup())))
    return failure();
  return verifyConvAttrs(*this);
}

LogicalResult ConvWeightGradOp::verify() {
  if (failed(verifyConvOperands(*this, getGrad(), getInput(), getGroup())))
    return failure();
  return verifyConvAttrs(*this);
}

//===----------------------------------------------------------------------===//
// MaxPoolOp, AveragePoolOp
//===----------------------------------------------------------------------===//

template <typename OpTy>
static LogicalResult inferPool(MLIRContext *ctx, std::optional<Location> loc,
                               ValueRange operands, DictionaryAttr attrs,
                               OpaqueProperties props,
                               SmallVectorImpl<Type> &results) {
  typename OpTy::Adaptor op(operands, attrs, props);
  StringRef name = OpTy::getOperationName();
  auto x = nchwInput(loc, name, op.getInput());
  if (failed(x))
    return failure();
  auto out = windowOutput(loc, name, x->drop_front(2), op.getKernelShape(),
                          op.getStrides(), op.getPads(), op.getDilations());
  if (failed(out))
    return failure();
  Type elem = std::is_same_v<OpTy, MaxPoolIndicesOp>
                  ? Type(IntegerType::get(ctx, 64))
                  : Type(Float32Type::get(ctx));
  results.push_back(
      RankedTensorType::get({(*x)[0], (*x)[1], (*out)[0], (*out)[1]}, elem));
  return success();
}

template <typename OpTy> static LogicalResult verifyPool(OpTy op) {
  ArrayRef<int64_t> k = op.getKernelShape(), pads = op.getPads();
  if (k.size() != 2 || llvm::any_of(k, [](int64_t v) { return v < 1; }))
    return op.emitOpError("kernel_shape must be 2 values >= 1, got ")
           << listStr(k);
  if (failed(verifyWindowAttrs(op, op.getStrides(), pads, op.getDilations())))
    return failure();
  for (int i = 0; i < 4; ++i)
    if (pads[i] >= k[i % 2])
      return op.emitOpError("pads ")
             << listStr(pads) << " must be smaller than kernel_shape "
             << listStr(k);
  return success();
}

LogicalResult MaxPoolOp::inferReturnTypes(MLIRContext *ctx,
                                          std::optional<Location> loc,
                                          ValueRange operands,
                                          DictionaryAttr attrs,
                                          OpaqueProperties props, RegionRange,
                                          SmallVectorImpl<Type> &results) {
  return inferPool<MaxPoolOp>(ctx, loc, operands, attrs, props, results);
}

LogicalResult MaxPoolOp::verify() { return verifyPool(*this); }

LogicalResult MaxPoolIndicesOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr attrs, OpaqueProperties props, RegionRange,
    SmallVectorImpl<Type> &results) {
  return inferPool<MaxPoolIndicesOp>(ctx, loc, operands, attrs, props, results);
}

LogicalResult MaxPoolIndicesOp::verify() {
  if (getStorageOrder() != 0 && getStorageOrder() != 1)
    return emitOpError("storage_order must be 0 or 1, got ")
           << getStorageOrder();
  return verifyPool(*this);
}

LogicalResult
AveragePoolOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                ValueRange operands, DictionaryAttr attrs,
                                OpaqueProperties props, RegionRange,
                                SmallVectorImpl<Type> &results) {
  return inferPool<AveragePoolOp>(ctx, loc, operands, attrs, props, results);
}

LogicalResult AveragePoolOp::verify() { return verifyPool(*this); }

//===----------------------------------------------------------------------===//
// GlobalAveragePoolOp
//===----------------------------------------------------------------------===//

LogicalResult GlobalAveragePoolOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr, OpaqueProperties, RegionRange,
    SmallVectorImpl<Type> &results) {
  auto shape = rankedType(operands[0]).getShape();
  if (shape.size() < 3)
    return emitOptionalError(loc,
                             "nn.global_average_pool expects [N, C, D1, ...] "
                             "(rank >= 3), got ",
                             shapeStr(shape));
  if (llvm::any_of(shape.drop_front(2), ShapedType::isDynamic))
    return emitOptionalError(
        loc, "nn.global_average_pool needs static spatial dims, got ",
        shapeStr(shape));
  SmallVector<int64_t> out(shape.take_front(2));
  out.append(shape.size() - 2, 1);
  results.push_back(RankedTensorType::get(out, Float32Type::get(ctx)));
  return success();
}

LogicalResult GlobalAveragePoolOp::verify() { return success(); }

//===----------------------------------------------------------------------===//
// BatchNormOp
//===----------------------------------------------------------------------===//

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            ValueRange operands,
                                            DictionaryAttr attrs,
                                            OpaqueProperties props, RegionRange,
                                            SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  auto x = rankedType(op.getInput());
  if (x.getRank() < 2 || x.isDynamicDim(1))
    return emitOptionalError(loc,
                             "nn.batch_norm expects [N, C, ...] with a static "
                             "C, got ",
                             shapeStr(x.getShape()));
  int64_t c = x.getDimSize(1);
  const char *names[] = {"scale", "bias", "mean", "var"};
  Value params[] = {op.getScale(), op.getBias(), op.getMean(), op.getVar()};
  for (auto [name, v] : llvm::zip(names, params)) {
    auto s = rankedType(v).getShape();
    if (s.size() != 1 || !dimsCompatible(s[0], c))
      return emitOptionalError(loc, "nn.batch_norm ", name, " has shape [",
                               shapeStr(s), "], expected [", c,
                               "] (one per channel)");
  }
  results.push_back(x);
  return success();
}

LogicalResult BatchNormOp::verify() {
  float eps = getEpsilon().convertToFloat();
  if (!std::isfinite(eps) || eps < 0.0f)
    return emitOpError("epsilon must be finite and >= 0, got ") << eps;
  return success();
}

//===----------------------------------------------------------------------===//
// Training forms and gradient ops
//===----------------------------------------------------------------------===//

LogicalResult BatchNormTrainOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr attrs, OpaqueProperties props, RegionRange regions,
    SmallVectorImpl<Type> &results) {
  // Same operands as the inference form: reuse its checks.
  if (failed(BatchNormOp::inferReturnTypes(ctx, loc, operands, attrs, props,
                                           regions, results)))
    return failure();
  auto channels = RankedTensorType::get({rankedType(operands[0]).getDimSize(1)},
                                        Float32Type::get(ctx));
  results.append(4, channels);
  return success();
}

LogicalResult
BatchNormGradOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                  ValueRange operands, DictionaryAttr attrs,
                                  OpaqueProperties props, RegionRange,
                                  SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  auto x = rankedType(op.getInput());
  if (x.getRank() < 2 || x.isDynamicDim(1))
    return emitOptionalError(loc,
                             "nn.batch_norm_grad expects [N, C, ...] with a "
                             "static C, got ",
                             shapeStr(x.getShape()));
  if (rankedType(op.getGrad()).getRank() != x.getRank())
    return emitOptionalError(loc, "nn.batch_norm_grad grad and input ranks "
                                  "differ");
  auto channels =
      RankedTensorType::get({x.getDimSize(1)}, Float32Type::get(ctx));
  for (Value v : {op.getScale(), op.getMean(), op.getVar()})
    if (rankedType(v).getShape() != channels.getShape())
      return emitOptionalError(loc, "nn.batch_norm_grad expects [",
                               x.getDimSize(1), "] per-channel operands");
  results.push_back(x);
  results.append(2, channels);
  return success();
}

/// Checks statistics over the global batch: empty, or `[C]`, `[C]`, `[1]`.
static LogicalResult checkGlobalStats(Operation *op, ValueRange stats,
                                      int64_t channels, StringRef what) {
  if (stats.empty())
    return success();
  if (stats.size() != 3)
    return op->emitOpError("expects 0 or 3 ")
           << what << " operands, got " << stats.size();
  int64_t expected[] = {channels, channels, 1};
  for (auto [v, n] : llvm::zip(stats, expected))
    if (rankedType(v).getShape() != ArrayRef<int64_t>{n})
      return op->emitOpError("expects ")
             << what << " of shapes [" << channels << "], [" << channels
             << "], [1], got " << v.getType();
  return success();
}

LogicalResult BatchNormTrainOp::verify() {
  float eps = getEpsilon().convertToFloat();
  if (!std::isfinite(eps) || eps < 0.0f)
    return emitOpError("epsilon must be finite and >= 0, got ") << eps;
  return checkGlobalStats(*this, getGlobalStats(),
                          getInput().getType().getDimSize(1), "global_stats");
}

LogicalResult BatchNormGradOp::verify() {
  if (!getGlobalSums().empty() && !getTrainingMode())
    return emitOpError("global_sums need training_mode");
  return checkGlobalStats(*this, getGlobalSums(),
                          getInput().getType().getDimSize(1), "global_sums");
}

/// `[C]` f32 for an `[N, C, ...]` input with a static C, or an error.
static FailureOr<RankedTensorType> channelType(std::optional<Location> loc,
                                               StringRef name, Value x) {
  auto t = rankedType(x);
  if (t.getRank() < 2 || t.isDynamicDim(1)) {
    (void)emitOptionalError(loc, name,
                            " expects [N, C, ...] with a static C, got ",
                            shapeStr(t.getShape()));
    return failure();
  }
  return RankedTensorType::get({t.getDimSize(1)}, t.getElementType());
}

LogicalResult BatchNormSumOp::inferReturnTypes(MLIRContext *ctx,
                                               std::optional<Location> loc,
                                               ValueRange operands,
                                               DictionaryAttr, OpaqueProperties,
                                               RegionRange,
                                               SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> c =
      channelType(loc, "nn.batch_norm_sum", operands[0]);
  if (failed(c))
    return failure();
  results.assign({*c, RankedTensorType::get({1}, Float32Type::get(ctx))});
  return success();
}

LogicalResult BatchNormSumOp::verify() { return success(); }

LogicalResult
BatchNormSqDevOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                   ValueRange operands, DictionaryAttr,
                                   OpaqueProperties, RegionRange,
                                   SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> c =
      channelType(loc, "nn.batch_norm_sq_dev", operands[0]);
  if (failed(c))
    return failure();
  results.push_back(*c);
  return success();
}

LogicalResult BatchNormSqDevOp::verify() {
  int64_t c = getInput().getType().getDimSize(1);
  if (getSum().getType().getShape() != ArrayRef<int64_t>{c} ||
      getCount().getType().getShape() != ArrayRef<int64_t>{1})
    return emitOpError("expects sum [")
           << c << "] and count [1], got " << getSum().getType() << " and "
           << getCount().getType();
  return success();
}

LogicalResult BatchNormGradSumsOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr, OpaqueProperties, RegionRange,
    SmallVectorImpl<Type> &results) {
  FailureOr<RankedTensorType> c =
      channelType(loc, "nn.batch_norm_grad_sums", operands[1]);
  if (failed(c))
    return failure();
  results.assign(2, *c);
  return success();
}

LogicalResult BatchNormGradSumsOp::verify() {
  auto g = getGrad().getType(), x = getInput().getType();
  if (g.getRank() != x.getRank() || g.getDimSize(1) != x.getDimSize(1))
    return emitOpError("grad ") << g << " does not match the input " << x;
  if (getMean().getType().getShape() != ArrayRef<int64_t>{x.getDimSize(1)})
    return emitOpError("mean must be [") << x.getDimSize(1) << "]";
  return success();
}

/// Checks the `[N, M, OH, OW]` gradient of a window op's output against the
/// output size the window attributes give for `inputSize`.
static LogicalResult
checkWindowGrad(std::optional<Location> loc, StringRef name, Value grad,
                int64_t channels, ArrayRef<int64_t> inputSize,
                ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                ArrayRef<int64_t> pads, ArrayRef<int64_t> dilations) {
  auto g = nchwInput(loc, name, grad);
  if (failed(g))
    return failure();
  if (inputSize.size() != 2)
    return emitOptionalError(loc, name, " input size must have 2 values");
  auto out =
      windowOutput(loc, name, inputSize, kernel, strides, pads, dilations);
  if (failed(out))
    return failure();
  if ((*g)[1] != channels || (*g)[2] != (*out)[0] || (*g)[3] != (*out)[1])
    return emitOptionalError(loc, name, " gradient ", shapeStr(*g),
                             " does not match the output [", channels, ", ",
                             (*out)[0], ", ", (*out)[1], "]");
  return success();
}

LogicalResult
ConvInputGradOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                  ValueRange operands, DictionaryAttr attrs,
                                  OpaqueProperties props, RegionRange,
                                  SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  auto w = rankedType(op.getWeight()).getShape();
  int64_t group = op.getGroup();
  if (w.size() != 4 || llvm::any_of(w, ShapedType::isDynamic) || group < 1 ||
      w[0] % group != 0)
    return emitOptionalError(loc, "nn.conv_input_grad expects a static weight "
                                  "[M, C/group, kH, kW] with group dividing M");
  if (failed(checkWindowGrad(loc, "nn.conv_input_grad", op.getGrad(), w[0],
                             op.getInputSize(), w.drop_front(2),
                             op.getStrides(), op.getPads(), op.getDilations())))
    return failure();
  int64_t n = rankedType(op.getGrad()).getDimSize(0);
  results.push_back(RankedTensorType::get(
      {n, w[1] * group, op.getInputSize()[0], op.getInputSize()[1]},
      Float32Type::get(ctx)));
  return success();
}

LogicalResult ConvWeightGradOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr attrs, OpaqueProperties props, RegionRange,
    SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  auto x = nchwInput(loc, "nn.conv_weight_grad", op.getInput());
  if (failed(x))
    return failure();
  auto g = rankedType(op.getGrad()).getShape();
  int64_t group = op.getGroup();
  if (g.size() != 4 || group < 1 || (*x)[1] % group != 0 ||
      ShapedType::isDynamic(g[1]) || g[1] % group != 0)
    return emitOptionalError(loc, "nn.conv_weight_grad: group ", group,
                             " must divide the channels");
  if (failed(checkWindowGrad(loc, "nn.conv_weight_grad", op.getGrad(), g[1],
                             x->drop_front(2), op.getKernelShape(),
                             op.getStrides(), op.getPads(), op.getDilations())))
    return failure();
  ArrayRef<int64_t> k = op.getKernelShape();
  results.push_back(RankedTensorType::get({g[1], (*x)[1] / group, k[0], k[1]},
                                          Float32Type::get(ctx)));
  return success();
}

LogicalResult
MaxPoolGradOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                ValueRange operands, DictionaryAttr attrs,
                                OpaqueProperties props, RegionRange,
                                SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  auto x = nchwInput(loc, "nn.max_pool_grad", op.getInput());
  if (failed(x))
    return failure();
  if (failed(checkWindowGrad(loc, "nn.max_pool_grad", op.getGrad(), (*x)[1],
                             x->drop_front(2), op.getKernelShape(),
                             op.getStrides(), op.getPads(), op.getDilations())))
    return failure();
  results.push_back(op.getInput().getType());
  return success();
}

LogicalResult AveragePoolGradOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr attrs, OpaqueProperties props, RegionRange,
    SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  auto g = rankedType(op.getGrad()).getShape();
  if (g.size() != 4)
    return emitOptionalError(loc, "nn.average_pool_grad expects an NCHW "
                                  "gradient");
  if (failed(checkWindowGrad(loc, "nn.average_pool_grad", op.getGrad(), g[1],
                             op.getInputSize(), op.getKernelShape(),
                             op.getStrides(), op.getPads(), op.getDilations())))
    return failure();
  results.push_back(RankedTensorType::get(
      {g[0], g[1], op.getInputSize()[0], op.getInputSize()[1]},
      Float32Type::get(ctx)));
  return success();
}

LogicalResult
GatherGradOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                               ValueRange operands, DictionaryAttr attrs,
                               OpaqueProperties props, RegionRange,
                               SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  auto g = rankedType(op.getGrad()).getShape();
  int64_t idxRank = rankedType(op.getIndices()).getRank();
  int64_t rank = static_cast<int64_t>(g.size()) - idxRank + 1;
  int64_t axis = op.getAxis();
  if (rank < 1 || axis < -rank || axis >= rank)
    return emitOptionalError(loc, "nn.gather_grad axis ", axis,
                             " is out of range for a gradient of rank ",
                             g.size(), " and indices of rank ", idxRank);
  if (axis < 0)
    axis += rank;
  if (op.getAxisSize() < 1 && op.getAxisSize() != -1)
    return emitOptionalError(loc, "nn.gather_grad axis_size must be >= 1, or "
                                  "-1 for a dynamic axis");
  SmallVector<int64_t> out(g.take_front(axis));
  out.push_back(op.getAxisSize() == -1 ? ShapedType::kDynamic
                                       : op.getAxisSize());
  llvm::append_range(out, g.drop_front(axis + idxRank));
  results.push_back(RankedTensorType::get(out, Float32Type::get(ctx)));
  return success();
}

LogicalResult GatherGradOp::verify() {
  if ((getAxisSize() == -1) != static_cast<bool>(getData()))
    return emitOpError("takes the data operand exactly when its axis is "
                       "dynamic (axis_size = -1)");
  return success();
}

LogicalResult
LayerNormGradOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                  ValueRange operands, DictionaryAttr attrs,
                                  OpaqueProperties props, RegionRange,
                                  SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  auto x = rankedType(op.getInput());
  int64_t rank = x.getRank(), axis = op.getAxis();
  if (axis < -rank || axis >= rank)
    return emitOptionalError(loc, "nn.layer_norm_grad axis ", axis,
                             " is out of range for rank ", rank);
  if (axis < 0)
    axis += rank;
  ArrayRef<int64_t> normalized = x.getShape().drop_front(axis);
  if (llvm::any_of(normalized, ShapedType::isDynamic))
    return emitOptionalError(loc, "nn.layer_norm_grad normalizes over a "
                                  "dynamic dim");
  results.push_back(x);
  results.append(2, RankedTensorType::get(normalized, Float32Type::get(ctx)));
  return success();
}
