//===- NNGradients.cpp - vector-Jacobian products of nn ops ---------------===//
//
// Each differentiable op builds its own VJP here (DifferentiableOpInterface);
// the autodiff pass only walks the program backwards and accumulates.
//
//===----------------------------------------------------------------------===//

#include "nn/NNOps.h"
#include "nn/NNShapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace autodist::nn;

static RankedTensorType typeOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// `alpha * op(a) * op(b)` as an nn.gemm without bias.
static Value gemm(OpBuilder &b, Location loc, Value x, Value y, bool transX,
                  bool transY, float alpha) {
  return GemmOp::create(b, loc, x, y, Value(), b.getF32FloatAttr(alpha),
                        b.getF32FloatAttr(1.0f), b.getBoolAttr(transX),
                        b.getBoolAttr(transY));
}

/// `v * s` for a scalar constant `s`.
static Value scale(OpBuilder &b, Location loc, Value v, float s) {
  if (s == 1.0f)
    return v;
  auto scalarType = RankedTensorType::get({}, b.getF32Type());
  Value c =
      arith::ConstantOp::create(b, loc, DenseElementsAttr::get(scalarType, s));
  return MulOp::create(b, loc, v, c);
}

/// The VJP of a reshape-like op: `grad` reshaped back to the shape of
/// `input` (static or with one dynamic dim).
static LogicalResult reshapeBack(OpBuilder &b, Operation *op, Value grad,
                                 Value input,
                                 SmallVectorImpl<Value> &operandGrads) {
  RankedTensorType t = typeOf(input);
  if (t.getNumDynamicDims() > 1)
    return op->emitOpError("gradient needs at most one dynamic dim, input is ")
           << t;
  SmallVector<int64_t> shape;
  for (int64_t d : t.getShape())
    shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
  operandGrads.assign(
      {ReshapeOp::create(b, op->getLoc(), grad, b.getDenseI64ArrayAttr(shape))
           .getResult()});
  return success();
}

LogicalResult GemmOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                               SmallVectorImpl<Value> &operandGrads) {
  Value g = resultGrads[0];
  Location loc = getLoc();
  float alpha = getAlpha().convertToFloat();
  bool tA = getTransA(), tB = getTransB();
  Value dA = tA ? gemm(b, loc, getB(), g, tB, true, alpha)
                : gemm(b, loc, g, getB(), false, !tB, alpha);
  Value dB = tB ? gemm(b, loc, g, getA(), true, tA, alpha)
                : gemm(b, loc, getA(), g, !tA, false, alpha);
  operandGrads.assign({dA, dB});
  if (Value c = getC())
    operandGrads.push_back(scale(b, loc, sumToShape(b, loc, g, typeOf(c)),
                                 getBeta().convertToFloat()));
  return success();
}

LogicalResult MatMulOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                 SmallVectorImpl<Value> &operandGrads) {
  if (typeOf(getA()).getRank() != 2 || typeOf(getB()).getRank() != 2)
    return emitOpError("gradient of a matmul with non-2-D operands is not "
                       "supported yet");
  Value g = resultGrads[0];
  operandGrads.assign({gemm(b, getLoc(), g, getB(), false, true, 1.0f),
                       gemm(b, getLoc(), getA(), g, true, false, 1.0f)});
  return success();
}

LogicalResult AddOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                              SmallVectorImpl<Value> &operandGrads) {
  Value g = resultGrads[0];
  operandGrads.assign({sumToShape(b, getLoc(), g, typeOf(getLhs())),
                       sumToShape(b, getLoc(), g, typeOf(getRhs()))});
  return success();
}

LogicalResult SubOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                              SmallVectorImpl<Value> &operandGrads) {
  Value g = resultGrads[0];
  operandGrads.assign({sumToShape(b, getLoc(), g, typeOf(getLhs())),
                       sumToShape(b, getLoc(), scale(b, getLoc(), g, -1.0f),
                                  typeOf(getRhs()))});
  return success();
}

LogicalResult MulOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                              SmallVectorImpl<Value> &operandGrads) {
  Value g = resultGrads[0];
  Location loc = getLoc();
  operandGrads.assign(
      {sumToShape(b, loc, MulOp::create(b, loc, g, getRhs()), typeOf(getLhs())),
       sumToShape(b, loc, MulOp::create(b, loc, g, getLhs()),
                  typeOf(getRhs()))});
  return success();
}

LogicalResult ReluOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                               SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign(
      {ReluGradOp::create(b, getLoc(), resultGrads[0], getInput())});
  return success();
}

LogicalResult IdentityOp::buildVJP(OpBuilder &, ArrayRef<Value> resultGrads,
                                   SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({resultGrads[0]});
  return success();
}

LogicalResult FlattenOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                  SmallVectorImpl<Value> &operandGrads) {
  return reshapeBack(b, *this, resultGrads[0], getInput(), operandGrads);
}

LogicalResult ReshapeOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                  SmallVectorImpl<Value> &operandGrads) {
  return reshapeBack(b, *this, resultGrads[0], getInput(), operandGrads);
}

LogicalResult
SoftmaxCrossEntropyLossOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                    SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign(
      {SoftmaxCrossEntropyLossGradOp::create(b, getLoc(), resultGrads[0],
                                             getLogits(), getLabels()),
       Value()});
  return success();
}

LogicalResult MseLossOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                  SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({MseLossGradOp::create(b, getLoc(), resultGrads[0],
                                             getPrediction(), getTarget()),
                       Value()});
  return success();
}
