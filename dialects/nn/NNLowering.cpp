//===- NNLowering.cpp - lowering of nn ops to linalg on tensors -----------===//
//
// Each op lowers itself (LowerToLinalgOpInterface). Contractions become
// linalg.matmul (later mapped to a BLAS call), everything else
// linalg.generic/reduce with arith/math bodies.
//
//===----------------------------------------------------------------------===//

#include "nn/NNOps.h"
#include "nn/NNShapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

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

Results MatMulOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  Value empty = emptyMatrix(b, loc, getType(), getA(), false, getB(), false);
  return SmallVector<Value>{
      buildMatmul(b, loc, getA(), getB(), false, false, zeros(b, loc, empty))};
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

Results AddOp::lowerToLinalg(OpBuilder &b) {
  return lowerBinary<arith::AddFOp>(b, *this);
}
Results SubOp::lowerToLinalg(OpBuilder &b) {
  return lowerBinary<arith::SubFOp>(b, *this);
}
Results MulOp::lowerToLinalg(OpBuilder &b) {
  return lowerBinary<arith::MulFOp>(b, *this);
}

Results ReluOp::lowerToLinalg(OpBuilder &b) {
  return SmallVector<Value>{buildElementwise(
      b, getLoc(), getType(), {getInput()},
      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        return arith::MaximumFOp::create(nb, l, a[0], f32Const(nb, l, 0.0f));
      })};
}

Results ReluGradOp::lowerToLinalg(OpBuilder &b) {
  return SmallVector<Value>{buildElementwise(
      b, getLoc(), getType(), {getGrad(), getInput()},
      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value zero = f32Const(nb, l, 0.0f);
        Value pos =
            arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT, a[1], zero);
        return arith::SelectOp::create(nb, l, pos, a[0], zero);
      })};
}

Results IdentityOp::lowerToLinalg(OpBuilder &) {
  return SmallVector<Value>{getInput()};
}

Results SgdUpdateOp::lowerToLinalg(OpBuilder &b) {
  return SmallVector<Value>{
      buildElementwise(b, getLoc(), getType(), {getParam(), getGrad(), getLr()},
                       [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                         Value step = arith::MulFOp::create(nb, l, a[2], a[1]);
                         return arith::SubFOp::create(nb, l, a[0], step);
                       })};
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
  return lowerReshape(b, *this, getInput());
}

static Value addF(OpBuilder &b, Location l, Value x, Value y) {
  return arith::AddFOp::create(b, l, x, y);
}

Results ReduceSumOp::lowerToLinalg(OpBuilder &b) {
  int64_t rank = typeOf(getInput()).getRank();
  SmallVector<int64_t> dims;
  for (int64_t a : getAxes())
    dims.push_back(a < 0 ? a + rank : a);
  llvm::sort(dims);
  Value sum = buildReduction(b, getLoc(), getInput(), dims, 0.0f, addF);
  return lowerReshape(b, *this, sum);
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

Results SoftmaxCrossEntropyLossOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  Value x = getLogits(), labels = getLabels();
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
  Value x = getLogits();
  SoftmaxParts sm = buildSoftmaxParts(b, loc, x);
  // scale = grad / N, read once outside the loop nest.
  Value g = tensor::ExtractOp::create(b, loc, getGrad(), ValueRange{});
  Value scaleV = arith::DivFOp::create(b, loc, g, batchSizeF32(b, loc, x));
  auto type = getType();
  SmallVector<utils::IteratorType> par(2, utils::IteratorType::parallel);
  Value out =
      linalg::GenericOp::create(
          b, loc, TypeRange{type},
          ValueRange{sm.shiftedExp, sm.rowSum, getLabels()},
          ValueRange{emptyLike(b, loc, type, {x})},
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
  return SmallVector<Value>{out};
}
