//===- NNLowering.cpp - lowering of nn ops to linalg on tensors -----------===//
//
// Each op lowers itself (LowerToLinalgOpInterface). Contractions become
// linalg.matmul (later mapped to a BLAS call), everything else
// linalg.generic/reduce with arith/math bodies.
//
//===----------------------------------------------------------------------===//

#include "nn/NNOps.h"
#include "nn/NNShapeUtils.h"
#include "nn/NNSignedness.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/Sequence.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace autodist::nn;

using Results = FailureOr<SmallVector<Value>>;

static RankedTensorType typeOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

/// `init + op(a) * op(b)` as linalg.matmul, with transposes in its maps.
static Value buildMatmul(OpBuilder &b, Location loc, Value x, Value y,
                         bool transX, bool transY, Value init) {
  MLIRContext *ctx = b.getContext();
  AffineExpr m, n, k;
  bindDims(ctx, m, n, k);
  SmallVector<NamedAttribute> attrs;
  if (transX || transY) {
    auto map = [&](ArrayRef<AffineExpr> e) {
      return AffineMapAttr::get(AffineMap::get(3, 0, e, ctx));
    };
    Attribute maps[] = {
        map(transX ? ArrayRef<AffineExpr>{k, m} : ArrayRef<AffineExpr>{m, k}),
        map(transY ? ArrayRef<AffineExpr>{n, k} : ArrayRef<AffineExpr>{k, n}),
        map({m, n})};
    attrs.push_back(b.getNamedAttr("indexing_maps", b.getArrayAttr(maps)));
  }
  return linalg::MatmulOp::create(b, loc, TypeRange{init.getType()},
                                  ValueRange{x, y}, ValueRange{init}, attrs)
      .getResult(0);
}

/// An empty `[M, N]` tensor whose dynamic dims come from `x` and `y`.
static Value emptyMatrix(OpBuilder &b, Location loc, RankedTensorType type,
                         Value x, bool transX, Value y, bool transY) {
  SmallVector<Value> dyn;
  if (type.isDynamicDim(0))
    dyn.push_back(tensor::DimOp::create(b, loc, x, transX ? 1 : 0));
  if (type.isDynamicDim(1))
    dyn.push_back(tensor::DimOp::create(b, loc, y, transY ? 0 : 1));
  return tensor::EmptyOp::create(b, loc, type.getShape(), b.getF32Type(), dyn);
}

static Value zeros(OpBuilder &b, Location loc, Value empty) {
  return linalg::FillOp::create(b, loc, f32Const(b, loc, 0.0f), empty)
      .getResult(0);
}

Results GemmOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  RankedTensorType type = getType();
  bool tA = getTransA(), tB = getTransB();
  float alpha = getAlpha().convertToFloat(), beta = getBeta().convertToFloat();
  Value empty = emptyMatrix(b, loc, type, getA(), tA, getB(), tB);
  Value c = getC();
  if (alpha == 1.0f) {
    // Accumulate straight into beta * C, broadcast to [M, N].
    Value init = zeros(b, loc, empty);
    if (c)
      init = buildElementwise(
          b, loc, type, {c},
          [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
            if (beta == 1.0f)
              return a[0];
            return arith::MulFOp::create(nb, l, a[0], f32Const(nb, l, beta));
          },
          empty);
    return SmallVector<Value>{
        buildMatmul(b, loc, getA(), getB(), tA, tB, init)};
  }
  Value prod =
      buildMatmul(b, loc, getA(), getB(), tA, tB, zeros(b, loc, empty));
  SmallVector<Value> ins = {prod};
  if (c)
    ins.push_back(c);
  Value out = buildElementwise(
      b, loc, type, ins,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value v = arith::MulFOp::create(nb, l, a[0], f32Const(nb, l, alpha));
        if (a.size() < 2)
          return v;
        Value cv = arith::MulFOp::create(nb, l, a[1], f32Const(nb, l, beta));
        return arith::AddFOp::create(nb, l, v, cv);
      },
      tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, prod),
                              b.getF32Type()));
  return SmallVector<Value>{out};
}

/// Reads a broadcast batch dim `j` of an operand with `nBatch` batch dims
/// inside an iteration space whose first `resultBatch.size()` dims are the
/// result's batch dims: aligned right; a static 1 broadcast reads index 0.
static AffineExpr batchExpr(MLIRContext *ctx, ArrayRef<int64_t> operandBatch,
                            ArrayRef<int64_t> resultBatch, int64_t j) {
  int64_t i = j + (resultBatch.size() - operandBatch.size());
  if (operandBatch[j] == 1 && resultBatch[i] != 1)
    return getAffineConstantExpr(0, ctx);
  return getAffineDimExpr(i, ctx);
}

/// numpy matmul as one contraction (linalg.contract; a linalg.generic when
/// an operand broadcasts a size-1 batch dim): iteration dims are the
/// result's batch dims, then m (if `a` is N-D), n (if `b` is N-D), then k.
static Value buildGenericMatmul(OpBuilder &b, Location loc, Value x, Value y,
                                RankedTensorType type) {
  MLIRContext *ctx = b.getContext();
  auto xt = typeOf(x), yt = typeOf(y);
  bool hasM = xt.getRank() >= 2, hasN = yt.getRank() >= 2;
  ArrayRef<int64_t> xBatch = xt.getShape().drop_back(hasM ? 2 : 1);
  ArrayRef<int64_t> yBatch = yt.getShape().drop_back(hasN ? 2 : 1);
  int64_t nBatch = type.getRank() - hasM - hasN;
  ArrayRef<int64_t> rBatch = type.getShape().take_front(nBatch);
  int64_t nLoops = type.getRank() + 1;
  AffineExpr m = getAffineDimExpr(nBatch, ctx);
  AffineExpr n = getAffineDimExpr(nBatch + hasM, ctx);
  AffineExpr k = getAffineDimExpr(nLoops - 1, ctx);
  SmallVector<AffineExpr> xe, ye, oe;
  for (int64_t j = 0; j < (int64_t)xBatch.size(); ++j)
    xe.push_back(batchExpr(ctx, xBatch, rBatch, j));
  if (hasM)
    xe.push_back(m);
  xe.push_back(k);
  for (int64_t j = 0; j < (int64_t)yBatch.size(); ++j)
    ye.push_back(batchExpr(ctx, yBatch, rBatch, j));
  ye.push_back(k);
  if (hasN)
    ye.push_back(n);
  for (int64_t i = 0; i < type.getRank(); ++i)
    oe.push_back(getAffineDimExpr(i, ctx));
  // Dynamic result dims: a non-broadcast batch dim of either operand, or m
  // of x, or n of y.
  SmallVector<Value> dyn;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (!type.isDynamicDim(i))
      continue;
    if (i >= nBatch) {
      bool isM = hasM && i == nBatch;
      dyn.push_back(isM ? tensor::DimOp::create(b, loc, x, xt.getRank() - 2)
                        : tensor::DimOp::create(b, loc, y, yt.getRank() - 1));
      continue;
    }
    int64_t jx = i - (nBatch - (int64_t)xBatch.size());
    int64_t jy = i - (nBatch - (int64_t)yBatch.size());
    if (jx >= 0 && xt.isDynamicDim(jx))
      dyn.push_back(tensor::DimOp::create(b, loc, x, jx));
    else
      dyn.push_back(tensor::DimOp::create(b, loc, y, jy));
  }
  Value init = zeros(
      b, loc,
      tensor::EmptyOp::create(b, loc, type.getShape(), b.getF32Type(), dyn));
  SmallVector<AffineMap> maps = {AffineMap::get(nLoops, 0, xe, ctx),
                                 AffineMap::get(nLoops, 0, ye, ctx),
                                 AffineMap::get(nLoops, 0, oe, ctx)};
  // Without size-1 broadcasts (constant indices) it is a linalg.contract,
  // which becomes sgemm calls after bufferization (convert-linalg-to-blas).
  if (llvm::all_of(maps,
                   [](AffineMap m) { return m.isProjectedPermutation(); }))
    return linalg::ContractOp::create(b, loc, TypeRange{type}, ValueRange{x, y},
                                      ValueRange{init},
                                      b.getAffineMapArrayAttr(maps))
        .getResult(0);
  SmallVector<utils::IteratorType> iters(nLoops - 1,
                                         utils::IteratorType::parallel);
  iters.push_back(utils::IteratorType::reduction);
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{x, y}, ValueRange{init}, maps,
             iters,
             [](OpBuilder &nb, Location l, ValueRange a) {
               // bf16/f16 operands (autodist-mixed-precision): exact in f32.
               Value x = a[0], y = a[1];
               if (!x.getType().isF32()) {
                 x = arith::ExtFOp::create(nb, l, nb.getF32Type(), x);
                 y = arith::ExtFOp::create(nb, l, nb.getF32Type(), y);
               }
               Value p = arith::MulFOp::create(nb, l, x, y);
               linalg::YieldOp::create(
                   nb, l, ValueRange{arith::AddFOp::create(nb, l, a[2], p)});
             })
      .getResult(0);
}

Results MatMulOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  Value x = getA(), y = getB();
  auto xt = typeOf(x), yt = typeOf(y);
  RankedTensorType type = getType();
  if (xt.getRank() == 2 && yt.getRank() == 2) {
    Value empty = emptyMatrix(b, loc, type, x, false, y, false);
    return SmallVector<Value>{
        buildMatmul(b, loc, x, y, false, false, zeros(b, loc, empty))};
  }
  // [B..., M, K] x [K, N]: one 2-D matmul on [B*...*M, K] (BLAS later).
  if (xt.getRank() > 2 && yt.getRank() == 2 &&
      xt.getNumDynamicDims() - xt.isDynamicDim(xt.getRank() - 1) <= 1) {
    int64_t r = xt.getRank();
    SmallVector<ReassociationIndices> re = {
        llvm::to_vector(llvm::seq<int64_t>(0, r - 1)), {r - 1}};
    int64_t rows = 1;
    for (int64_t d : xt.getShape().drop_back())
      rows = ShapedType::isDynamic(d) || ShapedType::isDynamic(rows)
                 ? ShapedType::kDynamic
                 : rows * d;
    auto x2Type = RankedTensorType::get({rows, xt.getDimSize(r - 1)},
                                        xt.getElementType());
    Value x2 = tensor::CollapseShapeOp::create(b, loc, x2Type, x, re);
    auto out2Type =
        RankedTensorType::get({rows, yt.getDimSize(1)}, b.getF32Type());
    Value empty = emptyMatrix(b, loc, out2Type, x2, false, y, false);
    Value mm = buildMatmul(b, loc, x2, y, false, false, zeros(b, loc, empty));
    return SmallVector<Value>{
        tensor::ExpandShapeOp::create(b, loc, type, mm, re).getResult()};
  }
  return SmallVector<Value>{buildGenericMatmul(b, loc, x, y, type)};
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

template <typename ArithOp>
static Results lowerBinary(OpBuilder &b, Operation *op) {
  return SmallVector<Value>{buildElementwise(
      b, op->getLoc(), cast<RankedTensorType>(op->getResult(0).getType()),
      op->getOperands(), [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        return ArithOp::create(nb, l, a[0], a[1]);
      })};
}

/// A binary op on f32 or integer operands: `FloatOp` or `IntOp`.
template <typename FloatOp, typename IntOp>
static Results lowerNumericBinary(OpBuilder &b, Operation *op) {
  if (isa<FloatType>(getElementTypeOrSelf(op->getResult(0).getType())))
    return lowerBinary<FloatOp>(b, op);
  return lowerBinary<IntOp>(b, op);
}

Results AddOp::lowerToLinalg(OpBuilder &b) {
  return lowerNumericBinary<arith::AddFOp, arith::AddIOp>(b, *this);
}
Results SubOp::lowerToLinalg(OpBuilder &b) {
  return lowerNumericBinary<arith::SubFOp, arith::SubIOp>(b, *this);
}
Results MulOp::lowerToLinalg(OpBuilder &b) {
  return lowerNumericBinary<arith::MulFOp, arith::MulIOp>(b, *this);
}
// NaN-propagating on floats (as numpy's minimum/maximum and PyTorch).
Results MinOp::lowerToLinalg(OpBuilder &b) {
  if (nn::isUnsignedResult(*this, 0))
    return lowerBinary<arith::MinUIOp>(b, *this);
  return lowerNumericBinary<arith::MinimumFOp, arith::MinSIOp>(b, *this);
}
Results MaxOp::lowerToLinalg(OpBuilder &b) {
  if (nn::isUnsignedResult(*this, 0))
    return lowerBinary<arith::MaxUIOp>(b, *this);
  return lowerNumericBinary<arith::MaximumFOp, arith::MaxSIOp>(b, *this);
}

static Value intZero(OpBuilder &b, Location l, Type t) {
  return arith::ConstantOp::create(b, l, b.getIntegerAttr(t, 0));
}

/// An integer divisor that cannot trap: `divisor` is `y` with 1 where `y`
/// is 0 or -1 (x / 0 traps, and so does the minimum / -1); the caller
/// selects its result for those elements.
struct SafeDivisor {
  Value isZero, isMinusOne, divisor;
};
static SafeDivisor safeDivisor(OpBuilder &b, Location l, Value y) {
  Type t = y.getType();
  Value minusOne = arith::ConstantOp::create(b, l, b.getIntegerAttr(t, -1));
  Value isZero = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, y,
                                       intZero(b, l, t));
  Value isMinusOne =
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, y, minusOne);
  Value special = arith::OrIOp::create(b, l, isZero, isMinusOne);
  Value one = arith::ConstantOp::create(b, l, b.getIntegerAttr(t, 1));
  return {isZero, isMinusOne, arith::SelectOp::create(b, l, special, one, y)};
}

/// An unsigned `x / y` (`Div`) or `x % y` (`Rem`) that gives 0 for y = 0
/// instead of trapping.
template <typename Div>
static Results lowerUnsignedDivision(OpBuilder &b, Operation *op) {
  return SmallVector<Value>{buildElementwise(
      b, op->getLoc(), cast<RankedTensorType>(op->getResult(0).getType()),
      op->getOperands(), [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Type t = a[1].getType();
        Value zero = intZero(nb, l, t);
        Value isZero =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, a[1], zero);
        Value one = arith::ConstantOp::create(nb, l, nb.getIntegerAttr(t, 1));
        Value d = arith::SelectOp::create(nb, l, isZero, one, a[1]);
        return arith::SelectOp::create(nb, l, isZero, zero,
                                       Div::create(nb, l, a[0], d));
      })};
}

Results DivOp::lowerToLinalg(OpBuilder &b) {
  if (isa<FloatType>(getType().getElementType()))
    return lowerBinary<arith::DivFOp>(b, *this);
  if (nn::isUnsignedResult(*this, 0))
    return lowerUnsignedDivision<arith::DivUIOp>(b, *this);
  // Truncating toward zero (C, onnxruntime); x / 0 is 0 rather than a trap.
  // The minimum divided by -1 overflows: it is computed as a negation
  // (wrapping) because idiv traps on it too.
  return SmallVector<Value>{buildElementwise(
      b, getLoc(), getType(), getOperands(),
      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        SafeDivisor d = safeDivisor(nb, l, a[1]);
        Value zero = intZero(nb, l, a[0].getType());
        Value q = arith::DivSIOp::create(nb, l, a[0], d.divisor);
        Value negated = arith::SubIOp::create(nb, l, zero, a[0]);
        q = arith::SelectOp::create(nb, l, d.isMinusOne, negated, q);
        return arith::SelectOp::create(nb, l, d.isZero, zero, q);
      })};
}

Results ModOp::lowerToLinalg(OpBuilder &b) {
  // Unsigned: both fmod forms are the remainder.
  if (nn::isUnsignedResult(*this, 0))
    return lowerUnsignedDivision<arith::RemUIOp>(b, *this);
  bool fmod = getFmod();
  return SmallVector<Value>{buildElementwise(
      b, getLoc(), getType(), getOperands(),
      [fmod](OpBuilder &nb, Location l, ValueRange a) -> Value {
        if (isa<FloatType>(a[0].getType()))
          return arith::RemFOp::create(nb, l, a[0], a[1]); // C fmod
        // x rem 0 and x rem -1 (which traps on the minimum) are 0.
        SafeDivisor d = safeDivisor(nb, l, a[1]);
        Value zero = intZero(nb, l, a[0].getType());
        Value r = arith::RemSIOp::create(nb, l, a[0], d.divisor);
        r = arith::SelectOp::create(
            nb, l, arith::OrIOp::create(nb, l, d.isZero, d.isMinusOne), zero,
            r);
        if (fmod)
          return r;
        // Python's %: a non-zero remainder takes the divisor's sign.
        Value rNeg =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, r, zero);
        Value bNeg =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, a[1], zero);
        Value rNonZero =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ne, r, zero);
        Value fix = arith::AndIOp::create(
            nb, l, rNonZero, arith::XOrIOp::create(nb, l, rNeg, bNeg));
        return arith::SelectOp::create(
            nb, l, fix, arith::AddIOp::create(nb, l, r, a[1]), r);
      })};
}

Results LogicalOp::lowerToLinalg(OpBuilder &b) {
  StringRef kind = getKind();
  return SmallVector<Value>{buildElementwise(
      b, getLoc(), getType(), getOperands(),
      [kind](OpBuilder &nb, Location l, ValueRange a) -> Value {
        if (kind == "and")
          return arith::AndIOp::create(nb, l, a[0], a[1]);
        if (kind == "or")
          return arith::OrIOp::create(nb, l, a[0], a[1]);
        return arith::XOrIOp::create(nb, l, a[0], a[1]);
      })};
}

/// One step per position along the axis: the running sum of the slices so
/// far (a slice of size 1 along the axis) is written to that position
/// (before adding the slice when exclusive).
static Value buildCumSum(OpBuilder &b, Location loc, Value x, int64_t axis,
                         bool exclusive, bool reverse) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> sliceShape(type.getShape());
  sliceShape[axis] = 1;
  auto sliceType = RankedTensorType::get(sliceShape, type.getElementType());
  SmallVector<OpFoldResult> sizes;
  for (int64_t i = 0; i < rank; ++i)
    sizes.push_back(i == axis ? OpFoldResult(b.getIndexAttr(1))
                              : tensor::getMixedSize(b, loc, x, i));
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  Value zeroElem = arith::ConstantOp::create(
      b, loc, cast<TypedAttr>(b.getZeroAttr(type.getElementType())));
  Value sliceEmpty =
      tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  Value acc0 =
      linalg::FillOp::create(b, loc, zeroElem, sliceEmpty).getResult(0);
  Value out0 = emptyLike(b, loc, type, {x});
  Value lb = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value n = tensor::DimOp::create(b, loc, x, axis);
  bool isFloat = isa<FloatType>(type.getElementType());
  auto loop = scf::ForOp::create(
      b, loc, lb, n, one, ValueRange{out0, acc0},
      [&](OpBuilder &nb, Location l, Value i, ValueRange iter) {
        Value pos = i;
        if (reverse)
          pos = arith::SubIOp::create(nb, l,
                                      arith::SubIOp::create(nb, l, n, one), i);
        SmallVector<OpFoldResult> offsets(rank, nb.getIndexAttr(0));
        offsets[axis] = pos;
        Value part = tensor::ExtractSliceOp::create(nb, l, sliceType, x,
                                                    offsets, sizes, strides);
        // Exclusive: the sum so far is written before the slice is added.
        Value written;
        if (exclusive)
          written = tensor::InsertSliceOp::create(nb, l, iter[1], iter[0],
                                                  offsets, sizes, strides);
        // acc += part, reading acc only as the output, so that the loop
        // carries it in place (bufferization needs the yielded value to be
        // the iter_arg's buffer).
        AffineMap id = nb.getMultiDimIdentityMap(rank);
        Value sum =
            linalg::GenericOp::create(
                nb, l, TypeRange{sliceType}, ValueRange{part},
                ValueRange{iter[1]}, ArrayRef<AffineMap>{id, id},
                SmallVector<utils::IteratorType>(rank,
                                                 utils::IteratorType::parallel),
                [&](OpBuilder &eb, Location el, ValueRange a) {
                  Value v = isFloat ? arith::AddFOp::create(eb, el, a[1], a[0])
                                          .getResult()
                                    : arith::AddIOp::create(eb, el, a[1], a[0])
                                          .getResult();
                  linalg::YieldOp::create(eb, el, ValueRange{v});
                })
                .getResult(0);
        if (!exclusive)
          written = tensor::InsertSliceOp::create(nb, l, sum, iter[0], offsets,
                                                  sizes, strides);
        scf::YieldOp::create(nb, l, ValueRange{written, sum});
      });
  return loop.getResult(0);
}

Results CumSumOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  bool exclusive = getExclusive(), reverse = getReverse();
  Value runtimeAxis = getRuntimeAxis();
  if (!runtimeAxis)
    return SmallVector<Value>{
        buildCumSum(b, loc, getInput(), getAxis(), exclusive, reverse)};
  // One case per axis of the (static) rank; an axis outside stops.
  int64_t rank = getType().getRank();
  Value axis = nn::checkedIndex(
      b, loc, tensor::ExtractOp::create(b, loc, runtimeAxis, ValueRange{}),
      rank, "CumSum: the axis input is outside [-rank, rank)");
  auto cases = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  auto sw = scf::IndexSwitchOp::create(b, loc, TypeRange{getType()}, axis,
                                       cases, rank);
  OpBuilder::InsertionGuard guard(b);
  for (int64_t i = 0; i <= rank; ++i) {
    Region &region = i < rank ? sw.getCaseRegions()[i] : sw.getDefaultRegion();
    b.setInsertionPointToStart(&region.emplaceBlock());
    // The default case is unreachable after the check.
    Value v = i < rank ? buildCumSum(b, loc, getInput(), i, exclusive, reverse)
                       : getInput();
    scf::YieldOp::create(b, loc, ValueRange{v});
  }
  return SmallVector<Value>{sw.getResult(0)};
}

Results NotOp::lowerToLinalg(OpBuilder &b) {
  return SmallVector<Value>{buildElementwise(
      b, getLoc(), getType(), ValueRange{getInput()},
      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value t = arith::ConstantOp::create(nb, l, nb.getBoolAttr(true));
        return arith::XOrIOp::create(nb, l, a[0], t);
      })};
}
/// `x^e` of integers by squaring over e's bits (exact, wrapping); a
/// negative `e` gives the truncation of 1 / x^|e|: 0, but 1 for x = 1 and
/// +-1 for x = -1 (0^-n, a division by zero, gives 0 too).
static Value intPower(OpBuilder &b, Location l, Value x, Value e) {
  Type t = x.getType();
  unsigned width = t.getIntOrFloatBitWidth();
  auto c = [&](int64_t v) {
    return arith::ConstantOp::create(b, l, b.getIntegerAttr(t, v));
  };
  Value lb = arith::ConstantIndexOp::create(b, l, 0);
  Value ub = arith::ConstantIndexOp::create(b, l, width - 1);
  Value step = arith::ConstantIndexOp::create(b, l, 1);
  auto loop = scf::ForOp::create(
      b, l, lb, ub, step, ValueRange{c(1), x, e},
      [&](OpBuilder &nb, Location nl, Value, ValueRange acc) {
        Value odd = arith::CmpIOp::create(
            nb, nl, arith::CmpIPredicate::ne,
            arith::AndIOp::create(nb, nl, acc[2], c(1)), c(0));
        Value times = arith::MulIOp::create(nb, nl, acc[0], acc[1]);
        Value result = arith::SelectOp::create(nb, nl, odd, times, acc[0]);
        Value square = arith::MulIOp::create(nb, nl, acc[1], acc[1]);
        Value rest = arith::ShRUIOp::create(nb, nl, acc[2], c(1));
        scf::YieldOp::create(nb, nl, ValueRange{result, square, rest});
      });
  Value positive = loop.getResult(0);
  Value eOdd =
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne,
                            arith::AndIOp::create(b, l, e, c(1)), c(0));
  Value minusOne = arith::SelectOp::create(b, l, eOdd, c(-1), c(1));
  Value isOne = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, x, c(1));
  Value isMinusOne =
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, x, c(-1));
  Value negative = arith::SelectOp::create(
      b, l, isOne, c(1),
      arith::SelectOp::create(b, l, isMinusOne, minusOne, c(0)));
  Value eNegative =
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, e, c(0));
  return arith::SelectOp::create(b, l, eNegative, negative, positive);
}

Results PowOp::lowerToLinalg(OpBuilder &b) {
  if (isa<FloatType>(getLhs().getType().getElementType()))
    return lowerBinary<math::PowFOp>(b, *this);
  return SmallVector<Value>{buildElementwise(
      b, getLoc(), getType(), getOperands(),
      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        if (isa<IntegerType>(a[1].getType()))
          return intPower(nb, l, a[0], a[1]);
        // A float exponent: numpy's power in f64, truncated toward zero.
        Type f64 = nb.getF64Type();
        Value x = arith::SIToFPOp::create(nb, l, f64, a[0]);
        Value e = a[1].getType().isF64()
                      ? a[1]
                      : arith::ExtFOp::create(nb, l, f64, a[1]).getResult();
        return arith::FPToSIOp::create(nb, l, a[0].getType(),
                                       math::PowFOp::create(nb, l, x, e));
      })};
}

/// An elementwise op of one operand with the given scalar body.
static Results
lowerUnary(OpBuilder &b, Operation *op,
           function_ref<Value(OpBuilder &, Location, Value)> body) {
  return SmallVector<Value>{buildElementwise(
      b, op->getLoc(), cast<RankedTensorType>(op->getResult(0).getType()),
      op->getOperands(), [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        return body(nb, l, a[0]);
      })};
}

Results SqrtOp::lowerToLinalg(OpBuilder &b) {
  return lowerUnary(b, *this, [](OpBuilder &nb, Location l, Value x) -> Value {
    return math::SqrtOp::create(nb, l, x);
  });
}
Results NegOp::lowerToLinalg(OpBuilder &b) {
  return lowerUnary(b, *this, [](OpBuilder &nb, Location l, Value x) -> Value {
    if (isa<FloatType>(x.getType()))
      return arith::NegFOp::create(nb, l, x);
    return arith::SubIOp::create(nb, l, intZero(nb, l, x.getType()), x);
  });
}
Results AbsOp::lowerToLinalg(OpBuilder &b) {
  if (nn::isUnsignedResult(*this, 0))
    return SmallVector<Value>{getInput()};
  return lowerUnary(b, *this, [](OpBuilder &nb, Location l, Value x) -> Value {
    if (isa<FloatType>(x.getType()))
      return math::AbsFOp::create(nb, l, x);
    return math::AbsIOp::create(nb, l, x);
  });
}
Results ExpOp::lowerToLinalg(OpBuilder &b) {
  return lowerUnary(b, *this, [](OpBuilder &nb, Location l, Value x) -> Value {
    return math::ExpOp::create(nb, l, x);
  });
}
Results LogOp::lowerToLinalg(OpBuilder &b) {
  return lowerUnary(b, *this, [](OpBuilder &nb, Location l, Value x) -> Value {
    return math::LogOp::create(nb, l, x);
  });
}
Results TanhOp::lowerToLinalg(OpBuilder &b) {
  return lowerUnary(b, *this, [](OpBuilder &nb, Location l, Value x) -> Value {
    return math::TanhOp::create(nb, l, x);
  });
}

static Value sigmoid(OpBuilder &b, Location l, Value x) {
  Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, x));
  Value one = f32Const(b, l, 1.0f);
  return arith::DivFOp::create(b, l, one, arith::AddFOp::create(b, l, one, e));
}

Results SigmoidOp::lowerToLinalg(OpBuilder &b) {
  return lowerUnary(b, *this, sigmoid);
}

/// erf(x) in arith ops (math.erf has no LLVM lowering): the rational
/// approximation of Eigen/XLA on x clamped to [-4, 4] (erf is +-1 in f32
/// beyond), within 4e-7 relative of erf.
static Value buildErf(OpBuilder &b, Location l, Value x) {
  static const float alpha[] = {-2.72614225801306e-10f, 2.77068142495902e-08f,
                                -2.10102402082508e-06f, -5.69250639462346e-05f,
                                -7.34990630326855e-04f, -2.95459980854025e-03f,
                                -1.60960333262415e-02f};
  static const float beta[] = {-1.45660718464996e-05f, -2.13374055278905e-04f,
                               -1.68282697438203e-03f, -7.37332916720468e-03f,
                               -1.42647390514189e-02f};
  Value c = arith::MinimumFOp::create(
      b, l, arith::MaximumFOp::create(b, l, x, f32Const(b, l, -4.0f)),
      f32Const(b, l, 4.0f));
  Value x2 = arith::MulFOp::create(b, l, c, c);
  auto horner = [&](ArrayRef<float> coeffs) {
    Value acc = f32Const(b, l, coeffs[0]);
    for (float k : coeffs.drop_front())
      acc = arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, acc, x2),
                                  f32Const(b, l, k));
    return acc;
  };
  Value p = arith::MulFOp::create(b, l, horner(alpha), c);
  return arith::DivFOp::create(b, l, p, horner(beta));
}

Results ErfOp::lowerToLinalg(OpBuilder &b) {
  return lowerUnary(b, *this, buildErf);
}

Results LeakyReluOp::lowerToLinalg(OpBuilder &b) {
  float alpha = getAlpha().convertToFloat();
  return lowerUnary(b, *this, [&](OpBuilder &nb, Location l, Value x) -> Value {
    Value neg = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OLT, x,
                                      f32Const(nb, l, 0.0f));
    Value scaled = arith::MulFOp::create(nb, l, x, f32Const(nb, l, alpha));
    return arith::SelectOp::create(nb, l, neg, scaled, x);
  });
}

Results ClipOp::lowerToLinalg(OpBuilder &b) {
  float lo = getMin().convertToFloat(), hi = getMax().convertToFloat();
  return lowerUnary(b, *this, [&](OpBuilder &nb, Location l, Value x) -> Value {
    // An infinite bound is absent: maximumf(x, -inf) is x, NaN included.
    Value y = x;
    if (!std::isinf(lo))
      y = arith::MaximumFOp::create(nb, l, y, f32Const(nb, l, lo));
    if (!std::isinf(hi))
      y = arith::MinimumFOp::create(nb, l, y, f32Const(nb, l, hi));
    return y;
  });
}

/// `alpha * x + beta`, the line HardSigmoid clamps; its gradient tests the
/// same value so that forward and backward agree on which piece x is in.
static Value hardSigmoidLine(OpBuilder &b, Location l, Value x, float alpha,
                             float beta) {
  Value scaled = arith::MulFOp::create(b, l, x, f32Const(b, l, alpha));
  return arith::AddFOp::create(b, l, scaled, f32Const(b, l, beta));
}

/// max(0, min(1, alpha * x + beta)). HardSwish uses it with alpha = 1/6 (a
/// multiplication, not x / 6), as onnxruntime's expansion of HardSwish.
static Value hardSigmoid(OpBuilder &b, Location l, Value x, float alpha,
                         float beta) {
  Value line = hardSigmoidLine(b, l, x, alpha, beta);
  Value upper = arith::MinimumFOp::create(b, l, line, f32Const(b, l, 1.0f));
  return arith::MaximumFOp::create(b, l, upper, f32Const(b, l, 0.0f));
}

Results HardSigmoidOp::lowerToLinalg(OpBuilder &b) {
  float alpha = getAlpha().convertToFloat(), beta = getBeta().convertToFloat();
  return lowerUnary(b, *this, [&](OpBuilder &nb, Location l, Value x) -> Value {
    return hardSigmoid(nb, l, x, alpha, beta);
  });
}

Results HardSwishOp::lowerToLinalg(OpBuilder &b) {
  return lowerUnary(b, *this, [](OpBuilder &nb, Location l, Value x) -> Value {
    return arith::MulFOp::create(nb, l, x,
                                 hardSigmoid(nb, l, x, 1.0f / 6.0f, 0.5f));
  });
}

Results GeluOp::lowerToLinalg(OpBuilder &b) {
  bool useTanh = getApproximate() == "tanh";
  return lowerUnary(b, *this, [&](OpBuilder &nb, Location l, Value x) -> Value {
    Value inner;
    if (useTanh) {
      // tanh(sqrt(2/pi) * (x + 0.044715 x^3))
      Value x3 =
          arith::MulFOp::create(nb, l, x, arith::MulFOp::create(nb, l, x, x));
      Value s = arith::AddFOp::create(
          nb, l, x,
          arith::MulFOp::create(nb, l, x3, f32Const(nb, l, 0.044715f)));
      inner = math::TanhOp::create(
          nb, l,
          arith::MulFOp::create(nb, l, s,
                                f32Const(nb, l, 0.7978845608028654f)));
    } else {
      inner = buildErf(nb, l,
                       arith::MulFOp::create(
                           nb, l, x, f32Const(nb, l, 0.7071067811865476f)));
    }
    Value half = arith::MulFOp::create(nb, l, x, f32Const(nb, l, 0.5f));
    return arith::MulFOp::create(
        nb, l, half,
        arith::AddFOp::create(nb, l, inner, f32Const(nb, l, 1.0f)));
  });
}

Results GeluGradOp::lowerToLinalg(OpBuilder &b) {
  bool useTanh = getApproximate() == "tanh";
  auto mul = [](OpBuilder &nb, Location l, Value x, Value y) -> Value {
    return arith::MulFOp::create(nb, l, x, y);
  };
  auto add = [](OpBuilder &nb, Location l, Value x, Value y) -> Value {
    return arith::AddFOp::create(nb, l, x, y);
  };
  return SmallVector<Value>{buildElementwise(
      b, getLoc(), getType(), {getGrad(), getInput()},
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value x = a[1];
        auto c = [&](float v) { return f32Const(nb, l, v); };
        Value x2 = mul(nb, l, x, x);
        Value d;
        if (useTanh) {
          // t = tanh(k0 (x + k1 x^3)); gelu' = 0.5 (1 + t) +
          // 0.5 x (1 - t^2) k0 (1 + 3 k1 x^2).
          const float k0 = 0.7978845608028654f, k1 = 0.044715f;
          Value u =
              mul(nb, l, add(nb, l, x, mul(nb, l, mul(nb, l, x, x2), c(k1))),
                  c(k0));
          Value t = math::TanhOp::create(nb, l, u);
          Value left = mul(nb, l, add(nb, l, t, c(1.0f)), c(0.5f));
          Value sech2 = arith::SubFOp::create(nb, l, c(1.0f), mul(nb, l, t, t));
          Value du = mul(
              nb, l, add(nb, l, mul(nb, l, x2, c(3.0f * k1)), c(1.0f)), c(k0));
          d = add(nb, l, left,
                  mul(nb, l, mul(nb, l, mul(nb, l, x, c(0.5f)), sech2), du));
        } else {
          // Phi(x) + x phi(x), Phi(x) = 0.5 (1 + erf(x / sqrt 2)),
          // phi(x) = exp(-x^2 / 2) / sqrt(2 pi).
          Value cdf = mul(
              nb, l,
              add(nb, l, buildErf(nb, l, mul(nb, l, x, c(0.7071067811865476f))),
                  c(1.0f)),
              c(0.5f));
          Value pdf =
              mul(nb, l, math::ExpOp::create(nb, l, mul(nb, l, x2, c(-0.5f))),
                  c(0.3989422804014327f));
          d = add(nb, l, cdf, mul(nb, l, x, pdf));
        }
        return mul(nb, l, a[0], d);
      })};
}

Results EqualOp::lowerToLinalg(OpBuilder &b) {
  return SmallVector<Value>{buildElementwise(
      b, getLoc(), getType(), getOperands(),
      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        if (isa<FloatType>(a[0].getType()))
          return arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, a[0],
                                       a[1]);
        return arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, a[0],
                                     a[1]);
      })};
}

Results CompareOp::lowerToLinalg(OpBuilder &b) {
  StringRef p = getPredicate();
  // Ordered float predicates: a comparison with NaN is false.
  arith::CmpFPredicate fp = p == "lt"   ? arith::CmpFPredicate::OLT
                            : p == "le" ? arith::CmpFPredicate::OLE
                            : p == "gt" ? arith::CmpFPredicate::OGT
                                        : arith::CmpFPredicate::OGE;
  bool u = nn::isUnsignedOperand(*this, 0);
  arith::CmpIPredicate ip =
      p == "lt"   ? (u ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt)
      : p == "le" ? (u ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle)
      : p == "gt" ? (u ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt)
                  : (u ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge);
  return SmallVector<Value>{
      buildElementwise(b, getLoc(), getType(), getOperands(),
                       [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                         if (isa<FloatType>(a[0].getType()))
                           return arith::CmpFOp::create(nb, l, fp, a[0], a[1]);
                         return arith::CmpIOp::create(nb, l, ip, a[0], a[1]);
                       })};
}

Results WhereOp::lowerToLinalg(OpBuilder &b) {
  return SmallVector<Value>{buildElementwise(
      b, getLoc(), getType(), getOperands(),
      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        return arith::SelectOp::create(nb, l, a[0], a[1], a[2]);
      })};
}

/// Converts a scalar between nn's element types with ONNX Cast semantics
/// (between integers: sign-extended or wrapped; between floats: rounded to
/// nearest even; float to integer: truncated toward zero).
static Value castScalar(OpBuilder &b, Location l, Value v, Type to,
                        bool fromUnsigned, bool toUnsigned) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (isa<FloatType>(from) && isa<FloatType>(to)) {
    unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
    if (fw == tw) // f16 <-> bf16: through f32, which holds both exactly
      return arith::TruncFOp::create(
          b, l, to, arith::ExtFOp::create(b, l, b.getF32Type(), v));
    if (to.isBF16() && fw == 64) // f64 -> bf16 rounds through f32
      return arith::TruncFOp::create(
          b, l, to, arith::TruncFOp::create(b, l, b.getF32Type(), v));
    if (fw < tw)
      return arith::ExtFOp::create(b, l, to, v);
    return arith::TruncFOp::create(b, l, to, v);
  }
  if (to.isSignlessInteger(1)) {
    if (isa<FloatType>(from))
      return arith::CmpFOp::create(
          b, l, arith::CmpFPredicate::UNE, v,
          arith::ConstantOp::create(b, l, b.getFloatAttr(from, 0.0)));
    Value zero = arith::ConstantOp::create(b, l, b.getIntegerAttr(from, 0));
    return arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, v, zero);
  }
  // A bool is 0 or 1: unsigned.
  bool fromBool = from.isSignlessInteger(1);
  fromUnsigned |= fromBool;
  if (isa<FloatType>(to))
    return fromUnsigned ? arith::UIToFPOp::create(b, l, to, v).getResult()
                        : arith::SIToFPOp::create(b, l, to, v).getResult();
  if (isa<FloatType>(from))
    return toUnsigned ? arith::FPToUIOp::create(b, l, to, v).getResult()
                      : arith::FPToSIOp::create(b, l, to, v).getResult();
  if (from.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
    return arith::TruncIOp::create(b, l, to, v); // wraps, as numpy
  if (from.getIntOrFloatBitWidth() == to.getIntOrFloatBitWidth())
    return v; // int32 <-> uint32: the same bits
  // Widening extends by the source's signedness.
  return fromUnsigned ? arith::ExtUIOp::create(b, l, to, v).getResult()
                      : arith::ExtSIOp::create(b, l, to, v).getResult();
}

Results CastOp::lowerToLinalg(OpBuilder &b) {
  if (getInput().getType() == getType())
    return SmallVector<Value>{getInput()};
  Type to = getTo();
  bool fromUnsigned = nn::isUnsignedOperand(*this, 0);
  bool toUnsigned = nn::isUnsignedResult(*this, 0);
  return SmallVector<Value>{buildElementwise(
      b, getLoc(), getType(), {getInput()},
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        return castScalar(nb, l, a[0], to, fromUnsigned, toUnsigned);
      })};
}

Results DropoutOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  auto maskType = cast<RankedTensorType>(getMask().getType());
  Value empty = emptyLike(b, loc, maskType, {getInput()});
  Value trueV = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  Value mask = linalg::FillOp::create(b, loc, trueV, empty).getResult(0);
  return SmallVector<Value>{getInput(), mask};
}

Results ReluOp::lowerToLinalg(OpBuilder &b) {
  return SmallVector<Value>{buildElementwise(
      b, getLoc(), getType(), {getInput()},
      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        return arith::MaximumFOp::create(nb, l, a[0], f32Const(nb, l, 0.0f));
      })};
}

Results ReluGradOp::lowerToLinalg(OpBuilder &b) {
  float alpha = getAlpha().convertToFloat();
  return SmallVector<Value>{buildElementwise(
      b, getLoc(), getType(), {getGrad(), getInput()},
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value zero = f32Const(nb, l, 0.0f);
        Value pos =
            arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT, a[1], zero);
        Value neg =
            alpha == 0.0f
                ? zero
                : arith::MulFOp::create(nb, l, a[0], f32Const(nb, l, alpha))
                      .getResult();
        return arith::SelectOp::create(nb, l, pos, a[0], neg);
      })};
}

/// An elementwise gradient `body(grad, input)` of an op's (grad, input)
/// operands.
static Results
lowerGrad(OpBuilder &b, Operation *op,
          function_ref<Value(OpBuilder &, Location, Value, Value)> body) {
  return SmallVector<Value>{buildElementwise(
      b, op->getLoc(), cast<RankedTensorType>(op->getResult(0).getType()),
      op->getOperands(), [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        return body(nb, l, a[0], a[1]);
      })};
}

static Value cmpF(OpBuilder &b, Location l, arith::CmpFPredicate pred, Value x,
                  float c) {
  return arith::CmpFOp::create(b, l, pred, x, f32Const(b, l, c));
}

/// `(x pred1 c1) and (x pred2 c2)`, the first compare built first.
static Value cmpBoth(OpBuilder &b, Location l, Value x,
                     arith::CmpFPredicate pred1, float c1,
                     arith::CmpFPredicate pred2, float c2) {
  Value first = cmpF(b, l, pred1, x, c1);
  Value second = cmpF(b, l, pred2, x, c2);
  return arith::AndIOp::create(b, l, first, second);
}

Results ClipGradOp::lowerToLinalg(OpBuilder &b) {
  float lo = getMin().convertToFloat(), hi = getMax().convertToFloat();
  return lowerGrad(b, *this, [&](OpBuilder &nb, Location l, Value g, Value x) {
    // hardtanh_backward zeroes x <= min or x >= max: unordered compares
    // keep g for a NaN x, as it does.
    Value inside = cmpBoth(nb, l, x, arith::CmpFPredicate::UGT, lo,
                           arith::CmpFPredicate::ULT, hi);
    Value zero = f32Const(nb, l, 0.0f);
    return arith::SelectOp::create(nb, l, inside, g, zero).getResult();
  });
}

Results HardSigmoidGradOp::lowerToLinalg(OpBuilder &b) {
  float alpha = getAlpha().convertToFloat(), beta = getBeta().convertToFloat();
  return lowerGrad(b, *this, [&](OpBuilder &nb, Location l, Value g, Value x) {
    Value t = hardSigmoidLine(nb, l, x, alpha, beta);
    Value inside = cmpBoth(nb, l, t, arith::CmpFPredicate::OGT, 0.0f,
                           arith::CmpFPredicate::OLT, 1.0f);
    Value scaled = arith::MulFOp::create(nb, l, g, f32Const(nb, l, alpha));
    Value zero = f32Const(nb, l, 0.0f);
    return arith::SelectOp::create(nb, l, inside, scaled, zero).getResult();
  });
}

Results HardSwishGradOp::lowerToLinalg(OpBuilder &b) {
  return lowerGrad(b, *this, [](OpBuilder &nb, Location l, Value g, Value x) {
    // hardswish_backward: x < -3 ? 0 : x <= 3 ? g * (x / 3 + 0.5) : g.
    Value third = arith::DivFOp::create(nb, l, x, f32Const(nb, l, 3.0f));
    Value slope = arith::AddFOp::create(nb, l, third, f32Const(nb, l, 0.5f));
    Value ramp = arith::MulFOp::create(nb, l, g, slope);
    Value notAbove = cmpF(nb, l, arith::CmpFPredicate::OLE, x, 3.0f);
    Value mid = arith::SelectOp::create(nb, l, notAbove, ramp, g);
    Value below = cmpF(nb, l, arith::CmpFPredicate::OLT, x, -3.0f);
    Value zero = f32Const(nb, l, 0.0f);
    return arith::SelectOp::create(nb, l, below, zero, mid).getResult();
  });
}

Results IdentityOp::lowerToLinalg(OpBuilder &) {
  return SmallVector<Value>{getInput()};
}

static Value addF(OpBuilder &b, Location l, Value x, Value y);

/// `grad + weight_decay * param` (L2 regularization folded into the
/// gradient, as torch.optim does).
static Value decayed(OpBuilder &b, Location l, Value grad, Value param,
                     float weightDecay) {
  if (weightDecay == 0.0f)
    return grad;
  Value d = arith::MulFOp::create(b, l, param, f32Const(b, l, weightDecay));
  return arith::AddFOp::create(b, l, grad, d);
}

/// The inputs of an optimizer update's loop: `operands`, then its hold
/// condition (a rank-0 tensor<i1>, broadcast) when it has one.
static SmallVector<Value> updateInputs(ValueRange operands, Value hold) {
  SmallVector<Value> in(operands);
  if (hold)
    in.push_back(hold);
  return in;
}

/// The results of an update's loop body: `updated`, or with a hold
/// condition (the last block argument, `args`) `olds` where it is true.
static SmallVector<Value> heldUnless(OpBuilder &b, Location l, Value hold,
                                     ValueRange args, ValueRange olds,
                                     ValueRange updated) {
  SmallVector<Value> out(updated);
  if (!hold)
    return out;
  for (auto [o, old] : llvm::zip(out, olds))
    o = arith::SelectOp::create(b, l, args.back(), old, o);
  return out;
}

// Each update is one loop over the parameter (every result written once,
// each input read once), its hold condition applied in that loop.
Results SgdUpdateOp::lowerToLinalg(OpBuilder &b) {
  float wd = getWeightDecay().convertToFloat();
  Value hold = getHold();
  return buildElementwiseResults(
      b, getLoc(), getType(),
      updateInputs({getParam(), getGrad(), getLr()}, hold), 1,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value g = decayed(nb, l, a[1], a[0], wd);
        Value step = arith::MulFOp::create(nb, l, a[2], g);
        Value p1 = arith::SubFOp::create(nb, l, a[0], step);
        return heldUnless(nb, l, hold, a, {a[0]}, {p1});
      });
}

Results MomentumUpdateOp::lowerToLinalg(OpBuilder &b) {
  float wd = getWeightDecay().convertToFloat();
  float mu = getMomentum().convertToFloat();
  bool nesterov = getNesterov();
  Value hold = getHold();
  return buildElementwiseResults(
      b, getLoc(), getParam().getType(),
      updateInputs({getParam(), getGrad(), getVelocity(), getLr()}, hold), 2,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value g = decayed(nb, l, a[1], a[0], wd);
        Value mv = arith::MulFOp::create(nb, l, a[2], f32Const(nb, l, mu));
        Value v1 = arith::AddFOp::create(nb, l, mv, g);
        Value step = v1;
        if (nesterov) {
          Value mv1 = arith::MulFOp::create(nb, l, v1, f32Const(nb, l, mu));
          step = arith::AddFOp::create(nb, l, g, mv1);
        }
        Value s = arith::MulFOp::create(nb, l, a[3], step);
        Value p1 = arith::SubFOp::create(nb, l, a[0], s);
        return heldUnless(nb, l, hold, a, {a[0], a[2]}, {p1, v1});
      });
}

Results AdamUpdateOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  RankedTensorType type = getParam().getType();
  float b1 = getBeta1().convertToFloat(), b2 = getBeta2().convertToFloat();
  float eps = getEpsilon().convertToFloat();
  float wd = getWeightDecay().convertToFloat();
  bool decoupled = getDecoupled();
  float gradDecay = decoupled ? 0.0f : wd;
  // Bias corrections from the step number, once per call (torch's form:
  // step_size = lr / bc1, denom = sqrt(v) / sqrt(bc2) + eps).
  Value lr = tensor::ExtractOp::create(b, loc, getLr(), ValueRange{});
  Value t = tensor::ExtractOp::create(b, loc, getStep(), ValueRange{});
  Value one = f32Const(b, loc, 1.0f);
  Value bc1 = arith::SubFOp::create(
      b, loc, one, math::PowFOp::create(b, loc, f32Const(b, loc, b1), t));
  Value bc2 = arith::SubFOp::create(
      b, loc, one, math::PowFOp::create(b, loc, f32Const(b, loc, b2), t));
  Value stepSize = arith::DivFOp::create(b, loc, lr, bc1);
  Value bc2Sqrt = math::SqrtOp::create(b, loc, bc2);
  Value shrink = arith::SubFOp::create(
      b, loc, one, arith::MulFOp::create(b, loc, lr, f32Const(b, loc, wd)));
  Value hold = getHold();
  return buildElementwiseResults(
      b, loc, type, updateInputs({getParam(), getGrad(), getM(), getV()}, hold),
      3, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value g = decayed(nb, l, a[1], a[0], gradDecay);
        Value m1 = arith::AddFOp::create(
            nb, l, arith::MulFOp::create(nb, l, a[2], f32Const(nb, l, b1)),
            arith::MulFOp::create(nb, l, g, f32Const(nb, l, 1.0f - b1)));
        Value gg = arith::MulFOp::create(nb, l, g, g);
        Value v1 = arith::AddFOp::create(
            nb, l, arith::MulFOp::create(nb, l, a[3], f32Const(nb, l, b2)),
            arith::MulFOp::create(nb, l, gg, f32Const(nb, l, 1.0f - b2)));
        Value p = decoupled && wd != 0.0f
                      ? arith::MulFOp::create(nb, l, a[0], shrink).getResult()
                      : a[0];
        Value denom = arith::AddFOp::create(
            nb, l,
            arith::DivFOp::create(nb, l, math::SqrtOp::create(nb, l, v1),
                                  bc2Sqrt),
            f32Const(nb, l, eps));
        Value upd = arith::MulFOp::create(
            nb, l, stepSize, arith::DivFOp::create(nb, l, m1, denom));
        Value p1 = arith::SubFOp::create(nb, l, p, upd);
        return heldUnless(nb, l, hold, a, {a[0], a[2], a[3]}, {p1, m1, v1});
      });
}

/// The number of elements of `v` (dynamic dims included) as an f32.
static Value numelF32(OpBuilder &b, Location loc, Value v) {
  Value n = arith::ConstantIndexOp::create(b, loc, 1);
  for (OpFoldResult d : tensor::getMixedSizes(b, loc, v))
    n = arith::MulIOp::create(b, loc, n,
                              getValueOrCreateConstantIndexOp(b, loc, d));
  Value n64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), n);
  return arith::SIToFPOp::create(b, loc, b.getF32Type(), n64);
}

Results MseLossOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  RankedTensorType predType = getPrediction().getType();
  Value sq =
      buildElementwise(b, loc, predType, {getPrediction(), getTarget()},
                       [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                         Value d = arith::SubFOp::create(nb, l, a[0], a[1]);
                         return arith::MulFOp::create(nb, l, d, d);
                       });
  SmallVector<int64_t> all(predType.getRank());
  std::iota(all.begin(), all.end(), 0);
  Value total = buildReduction(b, loc, sq, all, 0.0f, addF);
  Value n = numelF32(b, loc, getPrediction());
  return SmallVector<Value>{
      buildElementwise(b, loc, getType(), {total},
                       [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                         return arith::DivFOp::create(nb, l, a[0], n);
                       })};
}

Results MseLossGradOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  Value g = tensor::ExtractOp::create(b, loc, getGrad(), ValueRange{});
  Value scale = arith::DivFOp::create(
      b, loc, arith::MulFOp::create(b, loc, g, f32Const(b, loc, 2.0f)),
      numelF32(b, loc, getPrediction()));
  return SmallVector<Value>{
      buildElementwise(b, loc, getType(), {getPrediction(), getTarget()},
                       [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                         Value d = arith::SubFOp::create(nb, l, a[0], a[1]);
                         return arith::MulFOp::create(nb, l, d, scale);
                       })};
}

/// The f32 sum over every element of every tensor of `tensors` of
/// `fn(element)`.
static Value sumOfAll(OpBuilder &b, Location loc, ValueRange tensors,
                      function_ref<Value(OpBuilder &, Location, Value)> fn) {
  Value total = f32Const(b, loc, 0.0f);
  for (Value g : tensors) {
    auto t = typeOf(g);
    Value mapped = buildElementwise(
        b, loc, t, {g}, [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          return fn(nb, l, a[0]);
        });
    SmallVector<int64_t> all(t.getRank());
    std::iota(all.begin(), all.end(), 0);
    Value s = mapped;
    if (!all.empty())
      s = buildReduction(b, loc, mapped, all, 0.0f, addF);
    total = arith::AddFOp::create(
        b, loc, total, tensor::ExtractOp::create(b, loc, s, ValueRange{}));
  }
  return total;
}

/// Each tensor of `tensors` times the f32 scalar `factor`.
static SmallVector<Value> scaledBy(OpBuilder &b, Location loc,
                                   ValueRange tensors, Value factor) {
  SmallVector<Value> out;
  for (Value g : tensors)
    out.push_back(
        buildElementwise(b, loc, typeOf(g), {g},
                         [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                           return arith::MulFOp::create(nb, l, a[0], factor);
                         }));
  return out;
}

Results ClipByGlobalNormOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  Value total = sumOfAll(b, loc, getGrads(),
                         [](OpBuilder &nb, Location l, Value x) -> Value {
                           return arith::MulFOp::create(nb, l, x, x);
                         });
  // torch.nn.utils.clip_grad_norm_: coef = min(1, max_norm / (norm + 1e-6)).
  Value norm = math::SqrtOp::create(b, loc, total);
  Value coef = arith::DivFOp::create(
      b, loc, f32Const(b, loc, getMaxNorm().convertToFloat()),
      arith::AddFOp::create(b, loc, norm, f32Const(b, loc, 1e-6f)));
  coef = arith::MinimumFOp::create(b, loc, coef, f32Const(b, loc, 1.0f));
  return scaledBy(b, loc, getGrads(), coef);
}

Results UnscaleGradientsOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  // Non-finite anywhere iff the sum of every element times 0 is NaN (x * 0
  // is +-0 for a finite x, NaN for an infinite or NaN one).
  Value total = sumOfAll(
      b, loc, getGrads(), [](OpBuilder &nb, Location l, Value x) -> Value {
        return arith::MulFOp::create(nb, l, x, f32Const(nb, l, 0.0f));
      });
  Value foundInf =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, total, total);
  // GradScaler multiplies by the reciprocal, rounded to f32.
  Value scale = tensor::ExtractOp::create(b, loc, getScale(), ValueRange{});
  Value inv = arith::DivFOp::create(b, loc, f32Const(b, loc, 1.0f), scale);
  SmallVector<Value> out = scaledBy(b, loc, getGrads(), inv);
  out.push_back(tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({}, b.getI1Type()), ValueRange{foundInf}));
  return out;
}

Results UpdateLossScaleOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  auto scalar = [&](Value t) {
    return tensor::ExtractOp::create(b, loc, t, ValueRange{}).getResult();
  };
  Value scale = scalar(getScale()), tracker = scalar(getGrowthTracker());
  Value inf = scalar(getFoundInf());
  Value zero = f32Const(b, loc, 0.0f);
  // No overflow: one more successful step; at the interval, grow (only to
  // a finite scale) and restart the count.
  Value successful =
      arith::AddFOp::create(b, loc, tracker, f32Const(b, loc, 1.0f));
  Value due = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OGE, successful,
      f32Const(b, loc, static_cast<float>(getGrowthInterval())));
  Value grown = arith::MulFOp::create(
      b, loc, scale, f32Const(b, loc, getGrowthFactor().convertToFloat()));
  Value finite = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OLT, math::AbsFOp::create(b, loc, grown),
      f32Const(b, loc, std::numeric_limits<float>::infinity()));
  Value okScale = arith::SelectOp::create(
      b, loc, due,
      arith::SelectOp::create(b, loc, finite, grown, scale).getResult(), scale);
  Value okTracker = arith::SelectOp::create(b, loc, due, zero, successful);
  Value backedOff = arith::MulFOp::create(
      b, loc, scale, f32Const(b, loc, getBackoffFactor().convertToFloat()));
  auto t = RankedTensorType::get({}, b.getF32Type());
  auto tensorOf = [&](Value v) {
    return tensor::FromElementsOp::create(b, loc, t, ValueRange{v}).getResult();
  };
  return SmallVector<Value>{
      tensorOf(arith::SelectOp::create(b, loc, inf, backedOff, okScale)),
      tensorOf(arith::SelectOp::create(b, loc, inf, zero, okTracker))};
}

//===----------------------------------------------------------------------===//
// Shape ops and reductions
//===----------------------------------------------------------------------===//

static Results lowerReshape(OpBuilder &b, Operation *op, Value input) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  FailureOr<Value> v = reshapeTensor(b, op->getLoc(), input, type);
  if (failed(v))
    return op->emitOpError("cannot lower reshape of ")
           << input.getType() << " to " << type;
  return SmallVector<Value>{*v};
}

Results FlattenOp::lowerToLinalg(OpBuilder &b) {
  return lowerReshape(b, *this, getInput());
}

Results ReshapeOp::lowerToLinalg(OpBuilder &b) {
  Results out = lowerReshape(b, *this, getInput());
  Value sizes = getSizes();
  if (failed(out) || !sizes)
    return out;
  // The import-time resolution of the shape must be the ONNX one.
  Location loc = getLoc();
  Value result = (*out)[0];
  auto in = typeOf(getInput());
  std::string node;
  if (auto name = dyn_cast<NameLoc>(loc))
    node = " (node '" + name.getName().str() + "')";
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value minusOne = arith::ConstantIndexOp::create(b, loc, -1);
  for (int64_t k = 0; k < getType().getRank(); ++k) {
    Value idx = arith::ConstantIndexOp::create(b, loc, k);
    Value entry = arith::IndexCastOp::create(
        b, loc, b.getIndexType(),
        tensor::ExtractOp::create(b, loc, sizes, ValueRange{idx}));
    Value want = entry;
    if (k < in.getRank())
      want = arith::SelectOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, entry, zero),
          tensor::DimOp::create(b, loc, getInput(), k), entry);
    Value have = tensor::DimOp::create(b, loc, result, k);
    Value ok = arith::OrIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, entry,
                              minusOne),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, want, have));
    cf::AssertOp::create(b, loc, ok,
                         "Reshape: the shape read at run time disagrees with "
                         "the one resolved at import" +
                             node + ", dim " + std::to_string(k));
  }
  return out;
}

static Value addF(OpBuilder &b, Location l, Value x, Value y) {
  return arith::AddFOp::create(b, l, x, y);
}

static Value maxF(OpBuilder &b, Location l, Value x, Value y) {
  return arith::MaximumFOp::create(b, l, x, y);
}

/// The number of elements in `dims` of `input`, as an f32 scalar.
static Value countF32(OpBuilder &b, Location loc, Value input,
                      ArrayRef<int64_t> dims) {
  auto t = typeOf(input);
  int64_t n = 1;
  Value dyn;
  for (int64_t d : dims) {
    if (!t.isDynamicDim(d)) {
      n *= t.getDimSize(d);
      continue;
    }
    Value v = tensor::DimOp::create(b, loc, input, d);
    dyn = dyn ? arith::MulIOp::create(b, loc, dyn, v).getResult() : v;
  }
  Value count = f32Const(b, loc, static_cast<float>(n));
  if (!dyn)
    return count;
  Value d64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), dyn);
  Value df = arith::SIToFPOp::create(b, loc, b.getF32Type(), d64);
  return arith::MulFOp::create(b, loc, df, count);
}

Results ReduceSumOp::lowerToLinalg(OpBuilder &b) {
  SmallVector<int64_t> dims = getReducedDims();
  if (dims.empty())
    return SmallVector<Value>{getInput()};
  Value sum = buildReduction(b, getLoc(), getInput(), dims, 0.0f, addF);
  return lowerReshape(b, *this, sum);
}

Results ReduceMeanOp::lowerToLinalg(OpBuilder &b) {
  SmallVector<int64_t> dims = getReducedDims();
  if (dims.empty())
    return SmallVector<Value>{getInput()};
  Location loc = getLoc();
  Value sum = buildReduction(b, loc, getInput(), dims, 0.0f, addF);
  Value count = countF32(b, loc, getInput(), dims);
  Value mean =
      buildElementwise(b, loc, typeOf(sum), {sum},
                       [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                         return arith::DivFOp::create(nb, l, a[0], count);
                       });
  return lowerReshape(b, *this, mean);
}

Results ReduceMaxOp::lowerToLinalg(OpBuilder &b) {
  SmallVector<int64_t> dims = getReducedDims();
  if (dims.empty())
    return SmallVector<Value>{getInput()};
  Value max = buildReduction(b, getLoc(), getInput(), dims,
                             -std::numeric_limits<float>::infinity(), maxF);
  return lowerReshape(b, *this, max);
}

/// ArgMax (`max`) or ArgMin along `axis`: one linalg.generic carrying the
/// best value and its index, the first among ties unless `last`; a NaN
/// wins over any number (the first NaN, or the last with `last`).
static Results lowerArg(OpBuilder &b, Operation *op, Value input, int64_t axis,
                        bool max, bool last) {
  Location loc = op->getLoc();
  auto inType = cast<RankedTensorType>(input.getType());
  Type elem = inType.getElementType();
  int64_t rank = inType.getRank();
  SmallVector<int64_t> outShape;
  SmallVector<Value> dyn;
  SmallVector<AffineExpr> outExprs;
  for (int64_t i = 0; i < rank; ++i) {
    if (i == axis)
      continue;
    outShape.push_back(inType.getDimSize(i));
    outExprs.push_back(b.getAffineDimExpr(i));
    if (inType.isDynamicDim(i))
      dyn.push_back(tensor::DimOp::create(b, loc, input, i));
  }
  // The start: the worst value (the first element then always wins, or
  // ties with it), index 0.
  TypedAttr worst;
  if (auto f = dyn_cast<FloatType>(elem))
    worst = b.getFloatAttr(
        elem, APFloat::getInf(f.getFloatSemantics(), /*Negative=*/max));
  else
    worst = b.getIntegerAttr(
        elem, max ? APInt::getSignedMinValue(elem.getIntOrFloatBitWidth())
                  : APInt::getSignedMaxValue(elem.getIntOrFloatBitWidth()));
  Value best =
      linalg::FillOp::create(
          b, loc, arith::ConstantOp::create(b, loc, worst).getResult(),
          tensor::EmptyOp::create(b, loc, outShape, elem, dyn).getResult())
          .getResult(0);
  Value index =
      linalg::FillOp::create(
          b, loc,
          arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0)).getResult(),
          tensor::EmptyOp::create(b, loc, outShape, b.getI64Type(), dyn)
              .getResult())
          .getResult(0);
  SmallVector<AffineMap> maps = {
      b.getMultiDimIdentityMap(rank),
      AffineMap::get(rank, 0, outExprs, b.getContext()),
      AffineMap::get(rank, 0, outExprs, b.getContext())};
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  iters[axis] = utils::IteratorType::reduction;
  bool isFloat = isa<FloatType>(elem);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{best.getType(), index.getType()}, ValueRange{input},
      ValueRange{best, index}, maps, iters,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value x = a[0], cur = a[1];
        Value better;
        if (isFloat) {
          auto strict =
              max ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT;
          auto loose =
              max ? arith::CmpFPredicate::OGE : arith::CmpFPredicate::OLE;
          Value xNaN =
              arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNO, x, x);
          Value curNaN =
              arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNO, cur, cur);
          Value cmp =
              arith::CmpFOp::create(nb, l, last ? loose : strict, x, cur);
          // A NaN wins over numbers; among NaNs the first (or the last).
          Value nanWins =
              last ? xNaN
                   : arith::AndIOp::create(
                         nb, l, xNaN,
                         arith::XOrIOp::create(
                             nb, l, curNaN,
                             arith::ConstantIntOp::create(nb, l, 1, 1)));
          better = arith::OrIOp::create(nb, l, cmp, nanWins);
        } else {
          auto pred = max ? (last ? arith::CmpIPredicate::sge
                                  : arith::CmpIPredicate::sgt)
                          : (last ? arith::CmpIPredicate::sle
                                  : arith::CmpIPredicate::slt);
          better = arith::CmpIOp::create(nb, l, pred, x, cur);
        }
        Value at = arith::IndexCastOp::create(
            nb, l, nb.getI64Type(), linalg::IndexOp::create(nb, l, axis));
        linalg::YieldOp::create(
            nb, l,
            ValueRange{arith::SelectOp::create(nb, l, better, x, cur),
                       arith::SelectOp::create(nb, l, better, at, a[2])});
      });
  return lowerReshape(b, op, generic.getResult(1));
}

Results ArgMaxOp::lowerToLinalg(OpBuilder &b) {
  return lowerArg(b, *this, getInput(), getAxis(), /*max=*/true,
                  getSelectLastIndex());
}

Results ArgMinOp::lowerToLinalg(OpBuilder &b) {
  return lowerArg(b, *this, getInput(), getAxis(), /*max=*/false,
                  getSelectLastIndex());
}

Results TransposeOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  RankedTensorType type = getType();
  SmallVector<Value> dyn;
  for (auto [i, p] : llvm::enumerate(getPerm()))
    if (type.isDynamicDim(i))
      dyn.push_back(tensor::DimOp::create(b, loc, getInput(), p));
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(),
                                       type.getElementType(), dyn);
  return SmallVector<Value>{
      linalg::TransposeOp::create(b, loc, getInput(), init, getPerm())
          .getResult()[0]};
}

Results SqueezeOp::lowerToLinalg(OpBuilder &b) {
  return lowerReshape(b, *this, getInput());
}

Results UnsqueezeOp::lowerToLinalg(OpBuilder &b) {
  return lowerReshape(b, *this, getInput());
}

/// Each operand is copied (linalg.copy, which becomes loops) into its slice
/// of the result: the extract/insert pairs bufferize in place, where
/// tensor.concat would copy strided slices through a runtime call.
Results ConcatOp::lowerToLinalg(OpBuilder &b) {
  if (getInputs().size() == 1)
    return SmallVector<Value>{getInputs()[0]};
  Location loc = getLoc();
  RankedTensorType type = getType();
  int64_t rank = type.getRank();
  int64_t axis = getAxis();
  if (axis < 0)
    axis += rank;
  // Dynamic result dims: the axis dim is the sum of the operands', any
  // other is read from the first operand where it is dynamic.
  auto dimOf = [&](Value v, int64_t d) -> OpFoldResult {
    auto t = typeOf(v);
    if (!t.isDynamicDim(d))
      return b.getIndexAttr(t.getDimSize(d));
    return tensor::DimOp::create(b, loc, v, d).getResult();
  };
  auto addIndex = [&](OpFoldResult x, OpFoldResult y) -> OpFoldResult {
    auto cx = getConstantIntValue(x), cy = getConstantIntValue(y);
    if (cx && cy)
      return b.getIndexAttr(*cx + *cy);
    if (cx == 0)
      return y;
    if (cy == 0)
      return x;
    return arith::AddIOp::create(b, loc,
                                 getValueOrCreateConstantIndexOp(b, loc, x),
                                 getValueOrCreateConstantIndexOp(b, loc, y))
        .getResult();
  };
  SmallVector<Value> dyn;
  for (int64_t i = 0; i < rank; ++i) {
    if (!type.isDynamicDim(i))
      continue;
    if (i == axis) {
      OpFoldResult total = b.getIndexAttr(0);
      for (Value v : getInputs())
        total = addIndex(total, dimOf(v, i));
      dyn.push_back(getValueOrCreateConstantIndexOp(b, loc, total));
      continue;
    }
    for (Value v : getInputs()) {
      if (typeOf(v).isDynamicDim(i)) {
        dyn.push_back(tensor::DimOp::create(b, loc, v, i));
        break;
      }
    }
  }
  Value out = tensor::EmptyOp::create(b, loc, type.getShape(),
                                      type.getElementType(), dyn);
  OpFoldResult offset = b.getIndexAttr(0);
  for (Value v : getInputs()) {
    SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
    offsets[axis] = offset;
    SmallVector<OpFoldResult> sizes, strides(rank, b.getIndexAttr(1));
    for (int64_t i = 0; i < rank; ++i)
      sizes.push_back(dimOf(v, i));
    Value slice = tensor::ExtractSliceOp::create(b, loc, typeOf(v), out,
                                                 offsets, sizes, strides);
    Value copied =
        linalg::CopyOp::create(b, loc, ValueRange{v}, ValueRange{slice})
            .getResult(0);
    out = tensor::InsertSliceOp::create(b, loc, copied, out, offsets, sizes,
                                        strides);
    offset = addIndex(offset, sizes[axis]);
  }
  return SmallVector<Value>{out};
}

Results BroadcastLikeOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  RankedTensorType type = getType();
  Value count;
  if (getMean())
    count = arith::DivFOp::create(b, loc, numelF32(b, loc, getLike()),
                                  numelF32(b, loc, getInput()));
  return SmallVector<Value>{buildElementwise(
      b, loc, type, {getInput()},
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        if (!count)
          return a[0];
        return arith::DivFOp::create(nb, l, a[0], count);
      },
      emptyLike(b, loc, type, {getLike()}))};
}

/// Operand i's gradient is the slice of the gradient at the sum of the
/// sizes of operands 0..i-1 along the axis.
Results ConcatGradOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  Value g = getGrad();
  int64_t rank = typeOf(g).getRank();
  int64_t axis = getAxis();
  if (axis < 0)
    axis += rank;
  auto dimOf = [&](Value v, int64_t d) -> OpFoldResult {
    auto t = typeOf(v);
    if (!t.isDynamicDim(d))
      return b.getIndexAttr(t.getDimSize(d));
    return tensor::DimOp::create(b, loc, v, d).getResult();
  };
  SmallVector<Value> out;
  OpFoldResult offset = b.getIndexAttr(0);
  for (auto [v, r] : llvm::zip(getInputs(), getResults())) {
    SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
    offsets[axis] = offset;
    SmallVector<OpFoldResult> sizes, strides(rank, b.getIndexAttr(1));
    for (int64_t i = 0; i < rank; ++i)
      sizes.push_back(dimOf(v, i));
    out.push_back(tensor::ExtractSliceOp::create(
        b, loc, cast<RankedTensorType>(r.getType()), g, offsets, sizes,
        strides));
    auto co = getConstantIntValue(offset),
         cs = getConstantIntValue(sizes[axis]);
    if (co && cs)
      offset = b.getIndexAttr(*co + *cs);
    else
      offset = arith::AddIOp::create(
                   b, loc, getValueOrCreateConstantIndexOp(b, loc, offset),
                   getValueOrCreateConstantIndexOp(b, loc, sizes[axis]))
                   .getResult();
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Softmax, LogSoftmax
//===----------------------------------------------------------------------===//

/// exp(x - max) / sum or x - max - log(sum) along `axis`, with the
/// reductions read back through maps that drop `axis`.
static Value buildSoftmax(OpBuilder &b, Location loc, Value x, int64_t axis,
                          bool log) {
  auto type = typeOf(x);
  int64_t rank = type.getRank();
  if (axis < 0)
    axis += rank;
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> kept;
  for (int64_t i = 0; i < rank; ++i)
    if (i != axis)
      kept.push_back(getAffineDimExpr(i, ctx));
  AffineMap id = b.getMultiDimIdentityMap(rank);
  AffineMap red = AffineMap::get(rank, 0, kept, ctx);
  SmallVector<utils::IteratorType> par(rank, utils::IteratorType::parallel);
  auto generic =
      [&](ValueRange ins, ArrayRef<AffineMap> inMaps,
          function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
        return buildMappedElementwise(b, loc, type, ins, inMaps, x, body);
      };
  Value max = buildReduction(b, loc, x, {axis},
                             -std::numeric_limits<float>::infinity(), maxF);
  Value e = generic({x, max}, {id, red},
                    [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                      Value d = arith::SubFOp::create(nb, l, a[0], a[1]);
                      return math::ExpOp::create(nb, l, d);
                    });
  Value sum = buildReduction(b, loc, e, {axis}, 0.0f, addF);
  if (!log)
    return generic({e, sum}, {id, red},
                   [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                     return arith::DivFOp::create(nb, l, a[0], a[1]);
                   });
  return generic({x, max, sum}, {id, red, red},
                 [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                   Value d = arith::SubFOp::create(nb, l, a[0], a[1]);
                   return arith::SubFOp::create(
                       nb, l, d, math::LogOp::create(nb, l, a[2]));
                 });
}

Results SoftmaxOp::lowerToLinalg(OpBuilder &b) {
  return SmallVector<Value>{
      buildSoftmax(b, getLoc(), getInput(), getAxis(), false)};
}

Results LogSoftmaxOp::lowerToLinalg(OpBuilder &b) {
  return SmallVector<Value>{
      buildSoftmax(b, getLoc(), getInput(), getAxis(), true)};
}

/// y * (g - sum(g * y)) (softmax) or g - exp(y) * sum(g) (log-softmax),
/// the sums along `axis` read back through a map that drops it.
Results SoftmaxGradOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  RankedTensorType type = getType();
  Value g = getGrad(), y = getOutput();
  bool log = getLog();
  int64_t rank = type.getRank();
  int64_t axis = getAxis();
  if (axis < 0)
    axis += rank;
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> kept;
  for (int64_t i = 0; i < rank; ++i)
    if (i != axis)
      kept.push_back(getAffineDimExpr(i, ctx));
  AffineMap id = b.getMultiDimIdentityMap(rank);
  AffineMap red = AffineMap::get(rank, 0, kept, ctx);
  SmallVector<utils::IteratorType> par(rank, utils::IteratorType::parallel);
  Value summand = g;
  if (!log)
    summand =
        buildElementwise(b, loc, type, {g, y},
                         [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                           return arith::MulFOp::create(nb, l, a[0], a[1]);
                         });
  Value sum = buildReduction(b, loc, summand, {axis}, 0.0f, addF);
  Value out =
      linalg::GenericOp::create(
          b, loc, TypeRange{type}, ValueRange{g, y, sum},
          ValueRange{emptyLike(b, loc, type, {y})},
          ArrayRef<AffineMap>{id, id, red, id}, par,
          [&](OpBuilder &nb, Location l, ValueRange a) {
            Value v;
            if (log) {
              Value p = math::ExpOp::create(nb, l, a[1]);
              v = arith::SubFOp::create(nb, l, a[0],
                                        arith::MulFOp::create(nb, l, p, a[2]));
            } else {
              v = arith::MulFOp::create(
                  nb, l, a[1], arith::SubFOp::create(nb, l, a[0], a[2]));
            }
            linalg::YieldOp::create(nb, l, ValueRange{v});
          })
          .getResult(0);
  return SmallVector<Value>{out};
}

//===----------------------------------------------------------------------===//
// Softmax cross-entropy
//===----------------------------------------------------------------------===//

namespace {
/// The pieces of a numerically stable softmax over the rows of `[N, C]`
/// logits: row max, exp(x - max), and the row sums of the latter.
struct SoftmaxParts {
  Value rowMax, shiftedExp, rowSum;
};
} // namespace

/// Maps of a `[N, C]` iteration space reading `[N, C]` and `[N]` operands.
static AffineMap rowColMap(OpBuilder &b) { return b.getMultiDimIdentityMap(2); }
static AffineMap rowMap(OpBuilder &b) {
  return AffineMap::get(2, 0, {b.getAffineDimExpr(0)}, b.getContext());
}

static SoftmaxParts buildSoftmaxParts(OpBuilder &b, Location loc, Value x) {
  SoftmaxParts p;
  p.rowMax = buildReduction(
      b, loc, x, {1}, -std::numeric_limits<float>::infinity(),
      [](OpBuilder &nb, Location l, Value v, Value acc) -> Value {
        return arith::MaximumFOp::create(nb, l, v, acc);
      });
  auto type = typeOf(x);
  SmallVector<utils::IteratorType> par(2, utils::IteratorType::parallel);
  p.shiftedExp =
      linalg::GenericOp::create(
          b, loc, TypeRange{type}, ValueRange{x, p.rowMax},
          ValueRange{emptyLike(b, loc, type, {x})},
          ArrayRef<AffineMap>{rowColMap(b), rowMap(b), rowColMap(b)}, par,
          [](OpBuilder &nb, Location l, ValueRange a) {
            Value d = arith::SubFOp::create(nb, l, a[0], a[1]);
            linalg::YieldOp::create(nb, l,
                                    ValueRange{math::ExpOp::create(nb, l, d)});
          })
          .getResult(0);
  p.rowSum = buildReduction(b, loc, p.shiftedExp, {1}, 0.0f, addF);
  return p;
}

/// The batch size N of `[N, C]` logits as an f32 scalar.
static Value batchSizeF32(OpBuilder &b, Location loc, Value x) {
  Value n = tensor::DimOp::create(b, loc, x, 0);
  Value n64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), n);
  return arith::SIToFPOp::create(b, loc, b.getF32Type(), n64);
}

/// True in a `[N, C]` generic body when the column index equals `label`.
static Value isLabelColumn(OpBuilder &b, Location l, Value label) {
  Value c = linalg::IndexOp::create(b, l, 1);
  Value c64 = arith::IndexCastOp::create(b, l, b.getI64Type(), c);
  return arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, c64, label);
}

/// Logits `[N..., C]` as rows `[M, C]` and labels `[N...]` as `[M]`.
static std::pair<Value, Value> asRows(OpBuilder &b, Location loc, Value logits,
                                      Value labels) {
  int64_t rank = typeOf(logits).getRank();
  if (rank == 2)
    return {logits, labels};
  ReassociationIndices lead(rank - 1);
  std::iota(lead.begin(), lead.end(), 0);
  Value rows = tensor::CollapseShapeOp::create(
      b, loc, logits, ArrayRef<ReassociationIndices>{lead, {rank - 1}});
  Value flat = tensor::CollapseShapeOp::create(
      b, loc, labels, ArrayRef<ReassociationIndices>{lead});
  return {rows, flat};
}

Results SoftmaxCrossEntropyLossOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  auto rowsAndLabels = asRows(b, loc, getLogits(), getLabels());
  Value x = rowsAndLabels.first, labels = rowsAndLabels.second;
  SoftmaxParts sm = buildSoftmaxParts(b, loc, x);
  // picked[n] = x[n, labels[n]], as a masked row reduction.
  auto rowType = typeOf(sm.rowSum);
  Value picked0 = zeros(b, loc, emptyLike(b, loc, rowType, {sm.rowSum}));
  Value picked =
      linalg::GenericOp::create(
          b, loc, TypeRange{rowType}, ValueRange{x, labels},
          ValueRange{picked0},
          ArrayRef<AffineMap>{rowColMap(b), rowMap(b), rowMap(b)},
          {utils::IteratorType::parallel, utils::IteratorType::reduction},
          [](OpBuilder &nb, Location l, ValueRange a) {
            Value hit = isLabelColumn(nb, l, a[1]);
            Value v = arith::SelectOp::create(nb, l, hit, a[0],
                                              f32Const(nb, l, 0.0f));
            linalg::YieldOp::create(nb, l, ValueRange{addF(nb, l, a[2], v)});
          })
          .getResult(0);
  // loss[n] = max[n] + log(sum[n]) - picked[n]
  Value perSample = buildElementwise(
      b, loc, rowType, {sm.rowMax, sm.rowSum, picked},
      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value lse = addF(nb, l, a[0], math::LogOp::create(nb, l, a[1]));
        return arith::SubFOp::create(nb, l, lse, a[2]);
      });
  Value total = buildReduction(b, loc, perSample, {0}, 0.0f, addF);
  Value n = batchSizeF32(b, loc, x);
  return SmallVector<Value>{
      buildElementwise(b, loc, getType(), {total},
                       [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                         return arith::DivFOp::create(nb, l, a[0], n);
                       })};
}

Results SoftmaxCrossEntropyLossGradOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  auto rowsAndLabels = asRows(b, loc, getLogits(), getLabels());
  Value x = rowsAndLabels.first, labels = rowsAndLabels.second;
  SoftmaxParts sm = buildSoftmaxParts(b, loc, x);
  // scale = grad / N, read once outside the loop nest.
  Value g = tensor::ExtractOp::create(b, loc, getGrad(), ValueRange{});
  Value scaleV = arith::DivFOp::create(b, loc, g, batchSizeF32(b, loc, x));
  auto rowsType = typeOf(x);
  SmallVector<utils::IteratorType> par(2, utils::IteratorType::parallel);
  Value out =
      linalg::GenericOp::create(
          b, loc, TypeRange{rowsType},
          ValueRange{sm.shiftedExp, sm.rowSum, labels},
          ValueRange{emptyLike(b, loc, rowsType, {x})},
          ArrayRef<AffineMap>{rowColMap(b), rowMap(b), rowMap(b), rowColMap(b)},
          par,
          [&](OpBuilder &nb, Location l, ValueRange a) {
            Value p = arith::DivFOp::create(nb, l, a[0], a[1]);
            Value hit = isLabelColumn(nb, l, a[2]);
            Value one = arith::SelectOp::create(
                nb, l, hit, f32Const(nb, l, 1.0f), f32Const(nb, l, 0.0f));
            Value d = arith::SubFOp::create(nb, l, p, one);
            linalg::YieldOp::create(
                nb, l, ValueRange{arith::MulFOp::create(nb, l, d, scaleV)});
          })
          .getResult(0);
  RankedTensorType type = getType();
  if (type.getRank() > 2) {
    ReassociationIndices lead(type.getRank() - 1);
    std::iota(lead.begin(), lead.end(), 0);
    out = tensor::ExpandShapeOp::create(
        b, loc, type, out,
        ArrayRef<ReassociationIndices>{lead, {type.getRank() - 1}},
        tensor::getMixedSizes(b, loc, getLogits()));
  }
  return SmallVector<Value>{out};
}

//===----------------------------------------------------------------------===//
// Embeddings and normalization
//===----------------------------------------------------------------------===//

Results GatherOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  RankedTensorType type = getType();
  Value data = getData(), indices = getIndices();
  int64_t dataRank = getData().getType().getRank();
  int64_t idxRank = getIndices().getType().getRank();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0)
    axis += dataRank;
  // Dynamic result dims come from the data or the indices they copy.
  SmallVector<Value> dyn;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (!type.isDynamicDim(i))
      continue;
    if (i < axis)
      dyn.push_back(tensor::DimOp::create(b, loc, data, i));
    else if (i < axis + idxRank)
      dyn.push_back(tensor::DimOp::create(b, loc, indices, i - axis));
    else
      dyn.push_back(tensor::DimOp::create(b, loc, data, i - idxRank + 1));
  }
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(),
                                       type.getElementType(), dyn);
  SmallVector<AffineExpr> idxExprs;
  for (int64_t j = 0; j < idxRank; ++j)
    idxExprs.push_back(b.getAffineDimExpr(axis + j));
  AffineMap idxMap =
      AffineMap::get(type.getRank(), 0, idxExprs, b.getContext());
  // A dynamic axis (flattened batch rows) is bounded at run time.
  int64_t staticSize = getData().getType().getDimSize(axis);
  Value axisSize =
      ShapedType::isDynamic(staticSize)
          ? tensor::DimOp::create(b, loc, data, axis).getResult()
          : arith::ConstantIndexOp::create(b, loc, staticSize).getResult();
  SmallVector<utils::IteratorType> par(type.getRank(),
                                       utils::IteratorType::parallel);
  Value out =
      linalg::GenericOp::create(
          b, loc, TypeRange{type}, ValueRange{indices}, ValueRange{init},
          ArrayRef<AffineMap>{idxMap, b.getMultiDimIdentityMap(type.getRank())},
          par,
          [&](OpBuilder &nb, Location l, ValueRange a) {
            // ONNX allows negative indices; anything else out of range is
            // an error, not a silent out-of-bounds read.
            Value row = checkedIndex(nb, l, a[0], axisSize,
                                     "Gather: index out of range");
            SmallVector<Value> coords;
            for (int64_t j = 0; j < dataRank; ++j) {
              if (j == axis)
                coords.push_back(row);
              else
                coords.push_back(linalg::IndexOp::create(
                    nb, l, j < axis ? j : j - 1 + idxRank));
            }
            linalg::YieldOp::create(
                nb, l,
                ValueRange{tensor::ExtractOp::create(nb, l, data, coords)});
          })
          .getResult(0);
  return SmallVector<Value>{out};
}

Results LayerNormOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  RankedTensorType type = getType();
  Value x = getInput();
  int64_t rank = type.getRank();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0)
    axis += rank;
  SmallVector<int64_t> dims;
  int64_t count = 1;
  for (int64_t d = axis; d < rank; ++d) {
    dims.push_back(d);
    count *= type.getDimSize(d);
  }
  MLIRContext *ctx = b.getContext();
  AffineMap id = b.getMultiDimIdentityMap(rank);
  SmallVector<AffineExpr> leading;
  for (int64_t d = 0; d < axis; ++d)
    leading.push_back(b.getAffineDimExpr(d));
  AffineMap red = AffineMap::get(rank, 0, leading, ctx);
  SmallVector<utils::IteratorType> par(rank, utils::IteratorType::parallel);
  auto generic =
      [&](ValueRange ins, ArrayRef<AffineMap> inMaps,
          function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
        return buildMappedElementwise(b, loc, type, ins, inMaps, x, body);
      };
  float invCount = 1.0f / static_cast<float>(count);
  Value sum = buildReduction(b, loc, x, dims, 0.0f, addF);
  Value centered = generic(
      {x, sum}, {id, red}, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value mean =
            arith::MulFOp::create(nb, l, a[1], f32Const(nb, l, invCount));
        return arith::SubFOp::create(nb, l, a[0], mean).getResult();
      });
  Value squares =
      generic({centered}, {id}, [](OpBuilder &nb, Location l, ValueRange a) {
        return arith::MulFOp::create(nb, l, a[0], a[0]).getResult();
      });
  Value sqSum = buildReduction(b, loc, squares, dims, 0.0f, addF);
  SmallVector<Value> ins = {centered, sqSum, getScale()};
  SmallVector<AffineMap> maps = {id, red,
                                 broadcastMap(ctx, getScale().getType(), type)};
  if (Value bias = getBias()) {
    ins.push_back(bias);
    maps.push_back(broadcastMap(ctx, getBias().getType(), type));
  }
  float eps = getEpsilon().convertToFloat();
  Value y = generic(ins, maps, [&](OpBuilder &nb, Location l, ValueRange a) {
    Value var = arith::MulFOp::create(nb, l, a[1], f32Const(nb, l, invCount));
    Value inv = math::RsqrtOp::create(
        nb, l, arith::AddFOp::create(nb, l, var, f32Const(nb, l, eps)));
    Value v = arith::MulFOp::create(
        nb, l, arith::MulFOp::create(nb, l, a[0], inv), a[2]);
    if (a.size() > 3)
      v = arith::AddFOp::create(nb, l, v, a[3]);
    return v;
  });
  return SmallVector<Value>{y};
}
