//===- NNGradients.cpp - vector-Jacobian products of nn ops ---------------===//
//
// Each differentiable op builds its own VJP here (DifferentiableOpInterface);
// the autodiff pass only walks the program backwards and accumulates.
//
//===----------------------------------------------------------------------===//

#include "nn/NNOps.h"
#include "nn/NNShapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/Sequence.h"

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
  operandGrads.assign({ReshapeOp::create(b, op->getLoc(), grad, Value(),
                                         b.getDenseI64ArrayAttr(shape))
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

/// A scalar f32 tensor constant.
static Value scalarConst(OpBuilder &b, Location loc, float v) {
  auto scalarType = RankedTensorType::get({}, b.getF32Type());
  return arith::ConstantOp::create(b, loc,
                                   DenseElementsAttr::get(scalarType, v));
}

static bool isF32Tensor(Value v) { return typeOf(v).getElementType().isF32(); }

/// `v` with its last two dims swapped.
static Value transposeLast2(OpBuilder &b, Location loc, Value v) {
  int64_t r = typeOf(v).getRank();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, r));
  std::swap(perm[r - 1], perm[r - 2]);
  return TransposeOp::create(b, loc, v, b.getDenseI64ArrayAttr(perm));
}

static Value unsqueeze(OpBuilder &b, Location loc, Value v,
                       ArrayRef<int64_t> axes) {
  return UnsqueezeOp::create(b, loc, v, b.getDenseI64ArrayAttr(axes));
}

static Value squeeze(OpBuilder &b, Location loc, Value v,
                     ArrayRef<int64_t> axes) {
  return SqueezeOp::create(b, loc, v, b.getDenseI64ArrayAttr(axes));
}

/// Numpy matmul: 1-D operands are promoted to matrices (`a` to `[1, K]`,
/// `b` to `[K, 1]`, the gradient gets the unit dims back), then
/// `da = g b^T` and `db = a^T g`, each summed over the batch dims its
/// operand was broadcast along. `[B..., M, K] x [K, N]` computes `db` as
/// one 2-D gemm on the collapsed rows.
LogicalResult MatMulOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                 SmallVectorImpl<Value> &operandGrads) {
  Value g = resultGrads[0];
  Location loc = getLoc();
  Value a = getA(), w = getB();
  int64_t ra = typeOf(a).getRank(), rb = typeOf(w).getRank();
  if (ra == 2 && rb == 2) {
    operandGrads.assign({gemm(b, loc, g, w, false, true, 1.0f),
                         gemm(b, loc, a, g, true, false, 1.0f)});
    return success();
  }
  if (ra == 1 && rb == 1) { // dot product: g is a scalar
    operandGrads.assign(
        {MulOp::create(b, loc, g, w), MulOp::create(b, loc, g, a)});
    return success();
  }
  Value a2 = a, b2 = w, g2 = g;
  if (ra == 1) {
    a2 = unsqueeze(b, loc, a, {0});
    g2 = unsqueeze(b, loc, g2, {typeOf(g2).getRank() - 1});
  }
  if (rb == 1) {
    b2 = unsqueeze(b, loc, w, {1});
    g2 = unsqueeze(b, loc, g2, {typeOf(g2).getRank()});
  }
  auto a2t = typeOf(a2), b2t = typeOf(b2);
  Value da = sumToShape(
      b, loc, MatMulOp::create(b, loc, g2, transposeLast2(b, loc, b2)), a2t);
  Value db;
  int64_t k = a2t.getDimSize(a2t.getRank() - 1);
  int64_t n = b2t.getDimSize(1);
  if (b2t.getRank() == 2 && !ShapedType::isDynamic(k) &&
      !ShapedType::isDynamic(n) && a2t.getNumDynamicDims() <= 1) {
    Value rowsA =
        ReshapeOp::create(b, loc, a2, Value(), b.getDenseI64ArrayAttr({-1, k}));
    Value rowsG =
        ReshapeOp::create(b, loc, g2, Value(), b.getDenseI64ArrayAttr({-1, n}));
    db = gemm(b, loc, rowsA, rowsG, true, false, 1.0f);
  } else {
    db = sumToShape(
        b, loc, MatMulOp::create(b, loc, transposeLast2(b, loc, a2), g2), b2t);
  }
  if (ra == 1)
    da = squeeze(b, loc, da, {0});
  if (rb == 1)
    db = squeeze(b, loc, db, {1});
  operandGrads.assign({da, db});
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

/// The VJP of minimum (`lt`) or maximum (`gt`): the gradient goes to the
/// operand that was chosen, halved on ties (PyTorch's minimum/maximum).
static void extremumVJP(OpBuilder &b, Location loc, Value g, Value lhs,
                        Value rhs, StringRef picksLhs,
                        SmallVectorImpl<Value> &operandGrads) {
  Value zero = scalarConst(b, loc, 0.0f);
  Value half = scale(b, loc, g, 0.5f);
  Value tie = EqualOp::create(b, loc, lhs, rhs);
  Value lhsWins = CompareOp::create(b, loc, lhs, rhs, picksLhs);
  Value toLhs = WhereOp::create(b, loc, tie, half,
                                WhereOp::create(b, loc, lhsWins, g, zero));
  Value toRhs = WhereOp::create(b, loc, tie, half,
                                WhereOp::create(b, loc, lhsWins, zero, g));
  operandGrads.assign({sumToShape(b, loc, toLhs, typeOf(lhs)),
                       sumToShape(b, loc, toRhs, typeOf(rhs))});
}

LogicalResult MinOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                              SmallVectorImpl<Value> &operandGrads) {
  extremumVJP(b, getLoc(), resultGrads[0], getLhs(), getRhs(), "lt",
              operandGrads);
  return success();
}

LogicalResult MaxOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                              SmallVectorImpl<Value> &operandGrads) {
  extremumVJP(b, getLoc(), resultGrads[0], getLhs(), getRhs(), "gt",
              operandGrads);
  return success();
}

/// The cumulative sum of the upstream gradient in the opposite direction
/// (each input position feeds the outputs after it, or before it when
/// reversed).
LogicalResult CumSumOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                 SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign(getNumOperands(), Value()); // none for runtime_axis
  operandGrads[0] = CumSumOp::create(
      b, getLoc(), resultGrads[0], getRuntimeAxis(), getAxisAttr(),
      getExclusiveAttr(), b.getBoolAttr(!getReverse()));
  return success();
}

/// `g sign(x)`: 0 at x = 0 (and NaN), as PyTorch's abs backward.
LogicalResult AbsOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                              SmallVectorImpl<Value> &operandGrads) {
  Location loc = getLoc();
  Value g = resultGrads[0], x = getInput();
  Value zero = scalarConst(b, loc, 0.0f);
  Value pos = CompareOp::create(b, loc, x, zero, "gt");
  Value neg = CompareOp::create(b, loc, x, zero, "lt");
  operandGrads.assign({WhereOp::create(
      b, loc, pos, g,
      WhereOp::create(b, loc, neg, NegOp::create(b, loc, g), zero))});
  return success();
}

LogicalResult ReluOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                               SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({ReluGradOp::create(
      b, getLoc(), resultGrads[0], getInput(), b.getF32FloatAttr(0.0f))});
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

//===----------------------------------------------------------------------===//
// Elementwise math
//===----------------------------------------------------------------------===//

LogicalResult DivOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                              SmallVectorImpl<Value> &operandGrads) {
  Value g = resultGrads[0];
  Location loc = getLoc();
  // d(a / b) = da / b - (a / b) / b db.
  Value da = DivOp::create(b, loc, g, getRhs());
  Value db = NegOp::create(
      b, loc,
      DivOp::create(b, loc, MulOp::create(b, loc, g, getResult()), getRhs()));
  operandGrads.assign({sumToShape(b, loc, da, typeOf(getLhs())),
                       sumToShape(b, loc, db, typeOf(getRhs()))});
  return success();
}

LogicalResult PowOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                              SmallVectorImpl<Value> &operandGrads) {
  Value g = resultGrads[0];
  Location loc = getLoc();
  Value a = getLhs(), e = getRhs();
  if (!getType().getElementType().isF32()) {
    operandGrads.assign({Value(), Value()}); // integers: not differentiable
    return success();
  }
  // d(a^e)/da = e a^(e - 1).
  Value em1 = SubOp::create(b, loc, e, scalarConst(b, loc, 1.0f));
  Value da = MulOp::create(
      b, loc, g, MulOp::create(b, loc, e, PowOp::create(b, loc, a, em1)));
  Value db;
  // d(a^e)/de = a^e log(a), taken as 0 where a = 0 (as PyTorch does for
  // e >= 0). A constant exponent needs none.
  if (!e.getDefiningOp<arith::ConstantOp>()) {
    Value zero = scalarConst(b, loc, 0.0f);
    Value t = MulOp::create(
        b, loc, g,
        MulOp::create(b, loc, getResult(), LogOp::create(b, loc, a)));
    Value atZero = EqualOp::create(b, loc, a, zero);
    db =
        sumToShape(b, loc, WhereOp::create(b, loc, atZero, zero, t), typeOf(e));
  }
  operandGrads.assign({sumToShape(b, loc, da, typeOf(a)), db});
  return success();
}

LogicalResult SqrtOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                               SmallVectorImpl<Value> &operandGrads) {
  Location loc = getLoc();
  operandGrads.assign({DivOp::create(
      b, loc, scale(b, loc, resultGrads[0], 0.5f), getResult())});
  return success();
}

LogicalResult NegOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                              SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({NegOp::create(b, getLoc(), resultGrads[0])});
  return success();
}

LogicalResult ExpOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                              SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign(
      {MulOp::create(b, getLoc(), resultGrads[0], getResult())});
  return success();
}

LogicalResult LogOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                              SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({DivOp::create(b, getLoc(), resultGrads[0], getInput())});
  return success();
}

LogicalResult SigmoidOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                  SmallVectorImpl<Value> &operandGrads) {
  Location loc = getLoc();
  Value y = getResult();
  Value oneMinusY = SubOp::create(b, loc, scalarConst(b, loc, 1.0f), y);
  operandGrads.assign({MulOp::create(b, loc, resultGrads[0],
                                     MulOp::create(b, loc, y, oneMinusY))});
  return success();
}

LogicalResult TanhOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                               SmallVectorImpl<Value> &operandGrads) {
  Location loc = getLoc();
  Value y = getResult();
  Value d = SubOp::create(b, loc, scalarConst(b, loc, 1.0f),
                          MulOp::create(b, loc, y, y));
  operandGrads.assign({MulOp::create(b, loc, resultGrads[0], d)});
  return success();
}

LogicalResult ErfOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                              SmallVectorImpl<Value> &operandGrads) {
  Location loc = getLoc();
  Value x = getInput();
  // erf'(x) = 2 / sqrt(pi) exp(-x^2).
  Value e =
      ExpOp::create(b, loc, NegOp::create(b, loc, MulOp::create(b, loc, x, x)));
  operandGrads.assign({scale(b, loc, MulOp::create(b, loc, resultGrads[0], e),
                             1.1283791670955126f)});
  return success();
}

LogicalResult LeakyReluOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                    SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({ReluGradOp::create(b, getLoc(), resultGrads[0],
                                          getInput(), getAlphaAttr())});
  return success();
}

// The hard activations' gradients are PyTorch's at the kinks: zero at
// Clip's bounds and where HardSigmoid saturates (hardtanh_backward,
// hardsigmoid_backward), HardSwish's middle piece at x = +-3
// (hardswish_backward).
LogicalResult ClipOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                               SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({ClipGradOp::create(
      b, getLoc(), resultGrads[0], getInput(), getMinAttr(), getMaxAttr())});
  return success();
}

LogicalResult HardSigmoidOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                      SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({HardSigmoidGradOp::create(
      b, getLoc(), resultGrads[0], getInput(), getAlphaAttr(), getBetaAttr())});
  return success();
}

LogicalResult HardSwishOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                    SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign(
      {HardSwishGradOp::create(b, getLoc(), resultGrads[0], getInput())});
  return success();
}

LogicalResult GeluOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                               SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({GeluGradOp::create(b, getLoc(), resultGrads[0],
                                          getInput(), getApproximateAttr())});
  return success();
}

//===----------------------------------------------------------------------===//
// Select, cast, dropout
//===----------------------------------------------------------------------===//

LogicalResult WhereOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({Value(), Value(), Value()});
  if (!isF32Tensor(getX()))
    return success();
  Value g = resultGrads[0];
  Location loc = getLoc();
  Value zero = scalarConst(b, loc, 0.0f);
  Value c = getCondition();
  operandGrads[1] =
      sumToShape(b, loc, WhereOp::create(b, loc, c, g, zero), typeOf(getX()));
  operandGrads[2] =
      sumToShape(b, loc, WhereOp::create(b, loc, c, zero, g), typeOf(getY()));
  return success();
}

LogicalResult CastOp::buildVJP(OpBuilder &, ArrayRef<Value> resultGrads,
                               SmallVectorImpl<Value> &operandGrads) {
  // f32 -> f32 is the identity; through an integer there is no gradient.
  bool floats = isF32Tensor(getInput()) && isF32Tensor(getResult());
  operandGrads.assign({floats ? resultGrads[0] : Value()});
  return success();
}

LogicalResult DropoutOp::buildVJP(OpBuilder &, ArrayRef<Value> resultGrads,
                                  SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign({resultGrads[0]}); // inference: the identity
  if (getRuntimeRatio())
    operandGrads.push_back(Value()); // not read
  return success();
}

//===----------------------------------------------------------------------===//
// Softmax, reductions
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                  SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign(
      {SoftmaxGradOp::create(b, getLoc(), resultGrads[0], getResult(),
                             getAxisAttr(), b.getBoolAttr(false))});
  return success();
}

LogicalResult LogSoftmaxOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                     SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign(
      {SoftmaxGradOp::create(b, getLoc(), resultGrads[0], getResult(),
                             getAxisAttr(), b.getBoolAttr(true))});
  return success();
}

/// `v` with the reduced `dims` reinserted as size-1 dims (unless kept).
static Value keptDims(OpBuilder &b, Location loc, Value v,
                      ArrayRef<int64_t> dims, bool keepdims) {
  return keepdims ? v : unsqueeze(b, loc, v, dims);
}

/// ReduceSum / ReduceMean: the gradient broadcast back over the reduced
/// dims (divided by their size for the mean).
template <typename OpTy>
static LogicalResult reduceVJP(OpTy op, OpBuilder &b, Value g, bool mean,
                               SmallVectorImpl<Value> &operandGrads) {
  SmallVector<int64_t> dims = op.getReducedDims();
  if (dims.empty()) { // noop_with_empty_axes: the identity
    operandGrads.assign({g});
    return success();
  }
  Location loc = op.getLoc();
  Value kept = keptDims(b, loc, g, dims, op.getKeepdims());
  operandGrads.assign({BroadcastLikeOp::create(b, loc, kept, op.getInput(),
                                               b.getBoolAttr(mean))});
  return success();
}

LogicalResult ReduceSumOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                    SmallVectorImpl<Value> &operandGrads) {
  return reduceVJP(*this, b, resultGrads[0], false, operandGrads);
}

LogicalResult ReduceMeanOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                     SmallVectorImpl<Value> &operandGrads) {
  return reduceVJP(*this, b, resultGrads[0], true, operandGrads);
}

/// The gradient goes to the positions equal to the max, split evenly among
/// ties (as torch.amax, which ReduceMax is).
LogicalResult ReduceMaxOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                    SmallVectorImpl<Value> &operandGrads) {
  SmallVector<int64_t> dims = getReducedDims();
  Value g = resultGrads[0];
  if (dims.empty()) {
    operandGrads.assign({g});
    return success();
  }
  Location loc = getLoc();
  Value y = keptDims(b, loc, getResult(), dims, getKeepdims());
  g = keptDims(b, loc, g, dims, getKeepdims());
  Value hit = CastOp::create(b, loc, EqualOp::create(b, loc, getInput(), y),
                             TypeAttr::get(b.getF32Type()));
  Value count = ReduceSumOp::create(b, loc, hit, b.getDenseI64ArrayAttr(dims),
                                    b.getBoolAttr(true), b.getBoolAttr(false));
  operandGrads.assign(
      {MulOp::create(b, loc, hit, DivOp::create(b, loc, g, count))});
  return success();
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                    SmallVectorImpl<Value> &operandGrads) {
  ArrayRef<int64_t> perm = getPerm();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  operandGrads.assign({TransposeOp::create(b, getLoc(), resultGrads[0],
                                           b.getDenseI64ArrayAttr(inverse))});
  return success();
}

/// `axes` made non-negative against `rank`, sorted.
static SmallVector<int64_t> normalized(ArrayRef<int64_t> axes, int64_t rank) {
  SmallVector<int64_t> out;
  for (int64_t a : axes)
    out.push_back(a < 0 ? a + rank : a);
  llvm::sort(out);
  return out;
}

LogicalResult SqueezeOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                  SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign(
      {unsqueeze(b, getLoc(), resultGrads[0],
                 normalized(getAxes(), typeOf(getInput()).getRank()))});
  return success();
}

LogicalResult UnsqueezeOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                    SmallVectorImpl<Value> &operandGrads) {
  operandGrads.assign(
      {squeeze(b, getLoc(), resultGrads[0],
               normalized(getAxes(), typeOf(getResult()).getRank()))});
  return success();
}

LogicalResult ConcatOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                 SmallVectorImpl<Value> &operandGrads) {
  operandGrads.clear();
  if (!isF32Tensor(getResult()))
    return success();
  auto split = ConcatGradOp::create(b, getLoc(), resultGrads[0], getInputs(),
                                    getAxisAttr());
  llvm::append_range(operandGrads, split.getResults());
  return success();
}
