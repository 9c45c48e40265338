//===- NNOps.cpp - nn op verifiers and result-type inference --------------===//
//
// Type inference does the shape checking: every op's verifier runs it (via
// InferTypeOpInterface), so a bad shape is reported with the op's location
// both when the importer builds the op and when IR is parsed.
//
//===----------------------------------------------------------------------===//

#include "nn/NNOps.h"
#include "nn/NNShapeUtils.h"

#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace autodist::nn;

#include "nn/NNInterfaces.cpp.inc"

namespace {
RankedTensorType f32Tensor(MLIRContext *ctx, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, Float32Type::get(ctx));
}

RankedTensorType rankedType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// Formats a shape as `2x?x3` for diagnostics.
std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(
      shape, os,
      [&](int64_t d) {
        if (ShapedType::isDynamic(d))
          os << "?";
        else
          os << d;
      },
      "x");
  return s;
}
} // namespace

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

LogicalResult GemmOp::inferReturnTypes(MLIRContext *ctx,
                                       std::optional<Location> loc,
                                       ValueRange operands,
                                       DictionaryAttr attrs,
                                       OpaqueProperties props, RegionRange,
                                       SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  auto a = rankedType(op.getA()), b = rankedType(op.getB());
  if (a.getRank() != 2 || b.getRank() != 2)
    return emitOptionalError(loc, "nn.gemm expects 2-D A and B, got ",
                             a.getRank(), "-D and ", b.getRank(), "-D");
  int64_t m = a.getDimSize(op.getTransA() ? 1 : 0);
  int64_t ka = a.getDimSize(op.getTransA() ? 0 : 1);
  int64_t kb = b.getDimSize(op.getTransB() ? 1 : 0);
  int64_t n = b.getDimSize(op.getTransB() ? 0 : 1);
  if (!dimsCompatible(ka, kb))
    return emitOptionalError(loc, "nn.gemm inner dims differ: op(A) is ",
                             shapeStr({m, ka}), ", op(B) is ",
                             shapeStr({kb, n}));
  if (Value c = op.getC()) {
    auto cShape = rankedType(c).getShape();
    auto bc = broadcastShapes(cShape, {m, n});
    if (cShape.size() > 2 || failed(bc) || !dimsCompatible((*bc)[0], m) ||
        !dimsCompatible((*bc)[1], n))
      return emitOptionalError(loc, "nn.gemm C of shape ", shapeStr(cShape),
                               " does not broadcast to ", shapeStr({m, n}));
  }
  results.push_back(f32Tensor(ctx, {m, n}));
  return success();
}

LogicalResult GemmOp::verify() {
  if (getAlpha().convertToFloat() == 0.0f)
    return emitOpError("alpha must be non-zero");
  return success();
}

//===----------------------------------------------------------------------===//
// MatMulOp
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::inferReturnTypes(MLIRContext *ctx,
                                         std::optional<Location> loc,
                                         ValueRange operands,
                                         DictionaryAttr attrs,
                                         OpaqueProperties props, RegionRange,
                                         SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  auto a = rankedType(op.getA()), b = rankedType(op.getB());
  if (a.getRank() != 2 || b.getRank() != 2)
    return emitOptionalError(loc, "nn.matmul supports 2-D operands only, got ",
                             a.getRank(), "-D and ", b.getRank(), "-D");
  if (!dimsCompatible(a.getDimSize(1), b.getDimSize(0)))
    return emitOptionalError(
        loc, "nn.matmul inner dims differ: ", shapeStr(a.getShape()), " x ",
        shapeStr(b.getShape()));
  results.push_back(f32Tensor(ctx, {a.getDimSize(0), b.getDimSize(1)}));
  return success();
}

LogicalResult MatMulOp::verify() { return success(); }

//===----------------------------------------------------------------------===//
// Binary elementwise ops
//===----------------------------------------------------------------------===//

static LogicalResult inferBroadcast(MLIRContext *ctx,
                                    std::optional<Location> loc,
                                    StringRef opName, ValueRange operands,
                                    SmallVectorImpl<Type> &results) {
  auto l = rankedType(operands[0]).getShape();
  auto r = rankedType(operands[1]).getShape();
  auto shape = broadcastShapes(l, r);
  if (failed(shape))
    return emitOptionalError(loc, opName,
                             " operands do not broadcast: ", shapeStr(l),
                             " and ", shapeStr(r));
  results.push_back(f32Tensor(ctx, *shape));
  return success();
}

#define NN_BINARY_OP(CLASS, NAME)                                              \
  LogicalResult CLASS::inferReturnTypes(                                       \
      MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,      \
      DictionaryAttr, OpaqueProperties, RegionRange,                           \
      SmallVectorImpl<Type> &results) {                                        \
    return inferBroadcast(ctx, loc, NAME, operands, results);                  \
  }                                                                            \
  LogicalResult CLASS::verify() { return success(); }
NN_BINARY_OP(AddOp, "nn.add")
NN_BINARY_OP(SubOp, "nn.sub")
NN_BINARY_OP(MulOp, "nn.mul")
#undef NN_BINARY_OP

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// FlattenOp
//===----------------------------------------------------------------------===//

/// Product of dims, dynamic if any is.
static int64_t product(ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims) {
    if (ShapedType::isDynamic(d))
      return ShapedType::kDynamic;
    p *= d;
  }
  return p;
}

LogicalResult FlattenOp::inferReturnTypes(MLIRContext *ctx,
                                          std::optional<Location> loc,
                                          ValueRange operands,
                                          DictionaryAttr attrs,
                                          OpaqueProperties props, RegionRange,
                                          SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  auto shape = rankedType(op.getInput()).getShape();
  int64_t rank = shape.size();
  int64_t axis = op.getAxis();
  if (axis < -rank || axis > rank)
    return emitOptionalError(loc, "nn.flatten axis ", axis,
                             " is out of range for rank ", rank);
  if (axis < 0)
    axis += rank;
  results.push_back(f32Tensor(
      ctx, {product(shape.take_front(axis)), product(shape.drop_front(axis))}));
  return success();
}

LogicalResult FlattenOp::verify() { return success(); }

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *ctx,
                                          std::optional<Location> loc,
                                          ValueRange operands,
                                          DictionaryAttr attrs,
                                          OpaqueProperties props, RegionRange,
                                          SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  auto in = rankedType(op.getInput()).getShape();
  ArrayRef<int64_t> target = op.getShape();
  SmallVector<int64_t> out;
  int inferred = -1;
  for (auto [i, d] : llvm::enumerate(target)) {
    if (d == 0) {
      if (i >= in.size())
        return emitOptionalError(loc, "nn.reshape copies dim ", i,
                                 " of a rank-", in.size(), " input");
      out.push_back(in[i]);
    } else if (d == -1) {
      if (inferred >= 0)
        return emitOptionalError(loc, "nn.reshape shape has more than one -1");
      inferred = i;
      out.push_back(ShapedType::kDynamic);
    } else if (d < -1) {
      return emitOptionalError(loc, "nn.reshape shape has invalid dim ", d);
    } else {
      out.push_back(d);
    }
  }
  int64_t total = product(in);
  int64_t known = 1;
  bool knownStatic = true;
  for (auto [i, d] : llvm::enumerate(out)) {
    if ((int)i == inferred)
      continue;
    if (ShapedType::isDynamic(d))
      knownStatic = false;
    else
      known *= d;
  }
  if (!ShapedType::isDynamic(total) && knownStatic) {
    if (known == 0 || total % known != 0 || (inferred < 0 && total != known))
      return emitOptionalError(loc, "nn.reshape cannot reshape ", shapeStr(in),
                               " into ", shapeStr(out));
    if (inferred >= 0)
      out[inferred] = total / known;
  }
  results.push_back(f32Tensor(ctx, out));
  return success();
}

LogicalResult ReshapeOp::verify() {
  if (llvm::count(getShape(), -1) > 1)
    return emitOpError("shape has more than one -1");
  return success();
}

//===----------------------------------------------------------------------===//
// ReduceSumOp
//===----------------------------------------------------------------------===//

LogicalResult ReduceSumOp::inferReturnTypes(MLIRContext *ctx,
                                            std::optional<Location> loc,
                                            ValueRange operands,
                                            DictionaryAttr attrs,
                                            OpaqueProperties props, RegionRange,
                                            SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  auto in = rankedType(op.getInput()).getShape();
  int64_t rank = in.size();
  llvm::SmallSet<int64_t, 4> axes;
  for (int64_t a : op.getAxes()) {
    if (a < -rank || a >= rank)
      return emitOptionalError(loc, "nn.reduce_sum axis ", a,
                               " is out of range for rank ", rank);
    if (!axes.insert(a < 0 ? a + rank : a).second)
      return emitOptionalError(loc, "nn.reduce_sum axis ", a, " is repeated");
  }
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < rank; ++i) {
    if (!axes.contains(i))
      out.push_back(in[i]);
    else if (op.getKeepdims())
      out.push_back(1);
  }
  results.push_back(f32Tensor(ctx, out));
  return success();
}

LogicalResult ReduceSumOp::verify() { return success(); }

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

/// Checks logits `[N, C]` against labels `[N]`.
static LogicalResult checkLogitsLabels(std::optional<Location> loc,
                                       StringRef opName, Value logits,
                                       Value labels) {
  auto l = rankedType(logits), y = rankedType(labels);
  if (l.getRank() != 2)
    return emitOptionalError(loc, opName, " expects 2-D logits [N, C], got ",
                             shapeStr(l.getShape()));
  if (!dimsCompatible(l.getDimSize(0), y.getDimSize(0)))
    return emitOptionalError(loc, opName, " has ", l.getDimSize(0),
                             " logit rows but ", y.getDimSize(0), " labels");
  return success();
}

LogicalResult SoftmaxCrossEntropyLossOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr, OpaqueProperties, RegionRange,
    SmallVectorImpl<Type> &results) {
  if (failed(checkLogitsLabels(loc, "nn.softmax_cross_entropy_loss",
                               operands[0], operands[1])))
    return failure();
  results.push_back(f32Tensor(ctx, {}));
  return success();
}

LogicalResult SoftmaxCrossEntropyLossOp::verify() { return success(); }

//===----------------------------------------------------------------------===//
// Training ops
//===----------------------------------------------------------------------===//

LogicalResult ReluGradOp::verify() {
  if (failed(verifyCompatibleShape(getGrad().getType(), getInput().getType())))
    return emitOpError("grad and input shapes differ");
  return success();
}

LogicalResult SoftmaxCrossEntropyLossGradOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr, OpaqueProperties, RegionRange,
    SmallVectorImpl<Type> &results) {
  if (failed(checkLogitsLabels(loc, "nn.softmax_cross_entropy_loss_grad",
                               operands[1], operands[2])))
    return failure();
  results.push_back(operands[1].getType());
  return success();
}

LogicalResult SoftmaxCrossEntropyLossGradOp::verify() { return success(); }

LogicalResult SgdUpdateOp::verify() {
  if (getParam().getType() != getGrad().getType())
    return emitOpError("gradient type ")
           << getGrad().getType() << " differs from parameter type "
           << getParam().getType();
  return success();
}

Value SgdUpdateOp::getUpdatedParam() { return getParam(); }
OpOperand &SgdUpdateOp::getGradOperand() { return getGradMutable(); }

#define GET_OP_CLASSES
#include "nn/NNOps.cpp.inc"
