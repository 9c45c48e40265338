//===- NNTrainingOps.cpp - dropout's training form ------------------------===//
//
// nn.dropout's training form (StochasticOpInterface): nn.dropout_mask, a
// keep mask from a stateless counter-based generator (splitmix64), and
// nn.masked_scale, which applies it; their types, verifiers, gradient and
// lowering.
//
//===----------------------------------------------------------------------===//

#include "nn/NNOps.h"
#include "nn/NNShapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace autodist::nn;

using Results = FailureOr<SmallVector<Value>>;

namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// splitmix64's increment (the golden ratio in 64 bits).
constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

/// Builds i64 arithmetic (wrapping) for the generator.
struct Int64Builder {
  OpBuilder &b;
  Location loc;

  Value c(uint64_t v) {
    return arith::ConstantIntOp::create(b, loc, static_cast<int64_t>(v), 64);
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value xorShift(Value x, unsigned s) {
    return arith::XOrIOp::create(b, loc, x,
                                 arith::ShRUIOp::create(b, loc, x, c(s)));
  }
  /// splitmix64's finalizer.
  Value mix(Value z) {
    z = mul(xorShift(z, 30), c(0xBF58476D1CE4E5B9ull));
    z = mul(xorShift(z, 27), c(0x94D049BB133111EBull));
    return xorShift(z, 31);
  }
  /// mix(acc + v * golden).
  Value absorb(Value acc, Value v) { return mix(add(acc, mul(v, c(kGolden)))); }
};

/// The scalar of a rank-0 tensor.
Value scalarOf(OpBuilder &b, Location loc, Value t) {
  return tensor::ExtractOp::create(b, loc, t, ValueRange{});
}

} // namespace

//===----------------------------------------------------------------------===//
// nn.dropout's training form
//===----------------------------------------------------------------------===//

LogicalResult DropoutOp::buildTrainingForm(OpBuilder &b, Value seed, Value rank,
                                           Value step, int64_t stream,
                                           SmallVectorImpl<Value> &results) {
  Location loc = getLoc();
  if (getRuntimeRatio())
    return emitOpError("has its ratio given at run time (a graph input); the "
                       "training step needs a constant ratio (a Constant or "
                       "an initializer)");
  float ratio = getRatio().convertToFloat();
  Value mask =
      DropoutMaskOp::create(b, loc, getInput(), seed, rank, step,
                            getRatioAttr(), b.getI64IntegerAttr(stream));
  // ONNX: scale = 1 / (1 - ratio).
  float scale = 1.0f / (1.0f - ratio);
  Value out =
      MaskedScaleOp::create(b, loc, getInput(), mask, b.getF32FloatAttr(scale));
  results.assign({out, mask});
  return success();
}

//===----------------------------------------------------------------------===//
// DropoutMaskOp
//===----------------------------------------------------------------------===//

LogicalResult DropoutMaskOp::inferReturnTypes(MLIRContext *ctx,
                                              std::optional<Location>,
                                              ValueRange operands,
                                              DictionaryAttr, OpaqueProperties,
                                              RegionRange,
                                              SmallVectorImpl<Type> &results) {
  results.push_back(RankedTensorType::get(typeOf(operands[0]).getShape(),
                                          IntegerType::get(ctx, 1)));
  return success();
}

LogicalResult DropoutMaskOp::verify() {
  float ratio = getRatio().convertToFloat();
  if (!(ratio >= 0.0f && ratio < 1.0f))
    return emitOpError("ratio must be in [0, 1), got ") << ratio;
  if (static_cast<int64_t>(getStream()) < 0)
    return emitOpError("stream must be >= 0");
  return success();
}

Results DropoutMaskOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  Int64Builder i64{b, loc};
  // The per-op key: seed, rank, step and stream absorbed in turn.
  Value stepInt = arith::FPToSIOp::create(b, loc, b.getI64Type(),
                                          scalarOf(b, loc, getStep()));
  Value key = i64.mix(i64.add(scalarOf(b, loc, getSeed()), i64.c(kGolden)));
  key = i64.absorb(key, scalarOf(b, loc, getRank()));
  key = i64.absorb(key, stepInt);
  key = i64.absorb(key, i64.c(static_cast<uint64_t>(getStream())));
  // Keep iff the top 24 bits of the element's hash reach the threshold.
  auto threshold = static_cast<uint64_t>(
      std::llround(getRatio().convertToDouble() * double(1 << 24)));
  // Row-major strides of the (possibly dynamic) shape, as i64.
  Value x = getInput();
  RankedTensorType type = typeOf(x);
  int64_t r = type.getRank();
  SmallVector<Value> strides(r);
  Value stride = i64.c(1);
  for (int64_t d = r - 1; d >= 0; --d) {
    strides[d] = stride;
    Value size =
        type.isDynamicDim(d)
            ? arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                         tensor::DimOp::create(b, loc, x, d))
                  .getResult()
            : i64.c(static_cast<uint64_t>(type.getDimSize(d)));
    stride = i64.mul(stride, size);
  }
  Value mask = buildMappedElementwise(
      b, loc, getType(), {}, {}, x,
      [&](OpBuilder &nb, Location l, ValueRange) -> Value {
        Int64Builder e{nb, l};
        Value idx = e.c(1);
        for (int64_t d = 0; d < r; ++d) {
          Value i = arith::IndexCastOp::create(
              nb, l, nb.getI64Type(), linalg::IndexOp::create(nb, l, d));
          idx = e.add(idx, e.mul(i, strides[d]));
        }
        Value bits = arith::ShRUIOp::create(nb, l, e.absorb(key, idx), e.c(40));
        return arith::CmpIOp::create(nb, l, arith::CmpIPredicate::uge, bits,
                                     e.c(threshold));
      });
  return SmallVector<Value>{mask};
}

//===----------------------------------------------------------------------===//
// MaskedScaleOp
//===----------------------------------------------------------------------===//

LogicalResult MaskedScaleOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands, DictionaryAttr,
    OpaqueProperties, RegionRange, SmallVectorImpl<Type> &results) {
  results.push_back(typeOf(operands[0]));
  return success();
}

LogicalResult MaskedScaleOp::verify() {
  auto in = getInput().getType(), mask = getMask().getType();
  if (in.getRank() != mask.getRank() ||
      !llvm::all_of(llvm::zip(in.getShape(), mask.getShape()), [](auto p) {
        return dimsCompatible(std::get<0>(p), std::get<1>(p));
      }))
    return emitOpError("mask shape ")
           << shapeStr(mask.getShape()) << " differs from input shape "
           << shapeStr(in.getShape());
  return success();
}

LogicalResult MaskedScaleOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                      SmallVectorImpl<Value> &operandGrads) {
  // d(mask ? x * s : 0)/dx = mask ? s : 0: the same mask and scale.
  Value dx = MaskedScaleOp::create(b, getLoc(), resultGrads[0], getMask(),
                                   getScaleAttr());
  operandGrads.assign({dx, Value()});
  return success();
}

Results MaskedScaleOp::lowerToLinalg(OpBuilder &b) {
  float scale = getScale().convertToFloat();
  return SmallVector<Value>{buildElementwise(
      b, getLoc(), getType(), {getInput(), getMask()},
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value kept = arith::MulFOp::create(nb, l, a[0], f32Const(nb, l, scale));
        return arith::SelectOp::create(nb, l, a[1], kept,
                                       f32Const(nb, l, 0.0f));
      })};
}
