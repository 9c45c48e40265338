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
#include "llvm/ADT/Sequence.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace autodist::nn;

#include "nn/NNInterfaces.cpp.inc"

namespace {
RankedTensorType f32Tensor(MLIRContext *ctx, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, Float32Type::get(ctx));
}

RankedTensorType tensorOf(ArrayRef<int64_t> shape, Type elementType) {
  return RankedTensorType::get(shape, elementType);
}

RankedTensorType rankedType(Value v) {
  return cast<RankedTensorType>(v.getType());
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

/// A contraction's operands share one element type (f32, bf16 or f16).
static LogicalResult verifyContractionOperands(Operation *op, Value a,
                                               Value b) {
  Type ea = rankedType(a).getElementType(), eb = rankedType(b).getElementType();
  if (ea != eb)
    return op->emitOpError("operands must have the same element type, got ")
           << ea << " and " << eb;
  return success();
}

LogicalResult GemmOp::verify() {
  if (getAlpha().convertToFloat() == 0.0f)
    return emitOpError("alpha must be non-zero");
  return verifyContractionOperands(*this, getA(), getB());
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
  if (a.getRank() < 1 || b.getRank() < 1)
    return emitOptionalError(loc,
                             "nn.matmul operands must be at least 1-D, "
                             "got ",
                             a.getRank(), "-D and ", b.getRank(), "-D");
  // numpy matmul: a 1-D a is [1, K] and a 1-D b is [K, 1], the unit dim
  // dropped from the result; leading dims broadcast.
  ArrayRef<int64_t> as = a.getShape(), bs = b.getShape();
  int64_t ka = as.back();
  int64_t kb = bs.size() == 1 ? bs[0] : bs[bs.size() - 2];
  if (!dimsCompatible(ka, kb))
    return emitOptionalError(loc, "nn.matmul inner dims differ: ", shapeStr(as),
                             " x ", shapeStr(bs));
  ArrayRef<int64_t> aBatch = as.drop_back(std::min<size_t>(as.size(), 2));
  ArrayRef<int64_t> bBatch = bs.drop_back(std::min<size_t>(bs.size(), 2));
  auto batch = broadcastShapes(aBatch, bBatch);
  if (failed(batch))
    return emitOptionalError(loc, "nn.matmul batch dims do not broadcast: ",
                             shapeStr(as), " x ", shapeStr(bs));
  SmallVector<int64_t> out = *batch;
  if (as.size() >= 2)
    out.push_back(as[as.size() - 2]);
  if (bs.size() >= 2)
    out.push_back(bs.back());
  results.push_back(f32Tensor(ctx, out));
  return success();
}

LogicalResult MatMulOp::verify() {
  return verifyContractionOperands(*this, getA(), getB());
}

//===----------------------------------------------------------------------===//
// Binary elementwise ops
//===----------------------------------------------------------------------===//

static LogicalResult inferBroadcast(MLIRContext *ctx,
                                    std::optional<Location> loc,
                                    StringRef opName, ValueRange operands,
                                    SmallVectorImpl<Type> &results) {
  auto lt = rankedType(operands[0]), rt = rankedType(operands[1]);
  if (lt.getElementType() != rt.getElementType())
    return emitOptionalError(loc, opName,
                             " operands have different element types: ",
                             lt.getElementType(), " and ", rt.getElementType());
  auto l = lt.getShape(), r = rt.getShape();
  auto shape = broadcastShapes(l, r);
  if (failed(shape))
    return emitOptionalError(loc, opName,
                             " operands do not broadcast: ", shapeStr(l),
                             " and ", shapeStr(r));
  results.push_back(tensorOf(*shape, lt.getElementType()));
  return success();
}

#define NN_INFER_BROADCAST(CLASS, NAME)                                        \
  LogicalResult CLASS::inferReturnTypes(                                       \
      MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,      \
      DictionaryAttr, OpaqueProperties, RegionRange,                           \
      SmallVectorImpl<Type> &results) {                                        \
    return inferBroadcast(ctx, loc, NAME, operands, results);                  \
  }
#define NN_BINARY_OP(CLASS, NAME)                                              \
  NN_INFER_BROADCAST(CLASS, NAME)                                              \
  LogicalResult CLASS::verify() { return success(); }
NN_BINARY_OP(AddOp, "nn.add")
NN_BINARY_OP(SubOp, "nn.sub")
NN_BINARY_OP(MulOp, "nn.mul")
NN_BINARY_OP(DivOp, "nn.div")
NN_BINARY_OP(MinOp, "nn.min")
NN_BINARY_OP(MaxOp, "nn.max")
NN_INFER_BROADCAST(ModOp, "nn.mod")
NN_INFER_BROADCAST(LogicalOp, "nn.logical")
#undef NN_BINARY_OP
#undef NN_INFER_BROADCAST

/// nn.pow: the base's type; an integer base may take an f32 or f64 exponent.
LogicalResult PowOp::inferReturnTypes(MLIRContext *ctx,
                                      std::optional<Location> loc,
                                      ValueRange operands, DictionaryAttr,
                                      OpaqueProperties, RegionRange,
                                      SmallVectorImpl<Type> &results) {
  auto lt = rankedType(operands[0]), rt = rankedType(operands[1]);
  Type base = lt.getElementType(), exp = rt.getElementType();
  if (base != exp && !(isa<IntegerType>(base) && (exp.isF32() || exp.isF64())))
    return emitOptionalError(
        loc, "nn.pow exponent of type ", exp, " for a base of type ", base,
        " (the base's type, or f32 or f64 for an integer base)");
  auto shape = broadcastShapes(lt.getShape(), rt.getShape());
  if (failed(shape))
    return emitOptionalError(
        loc, "nn.pow operands do not broadcast: ", shapeStr(lt.getShape()),
        " and ", shapeStr(rt.getShape()));
  results.push_back(tensorOf(*shape, base));
  return success();
}

LogicalResult PowOp::verify() { return success(); }

LogicalResult ModOp::verify() {
  if (!getFmod() && isa<FloatType>(getLhs().getType().getElementType()))
    return emitOpError(
        "on floats needs fmod = true (the sign of the dividend)");
  return success();
}

LogicalResult CumSumOp::verify() {
  int64_t rank = getInput().getType().getRank();
  if (getRuntimeAxis()) {
    if (rank == 0)
      return emitOpError("needs rank >= 1");
    return success();
  }
  if (getAxis() < 0 || getAxis() >= rank)
    return emitOpError("axis ")
           << getAxis() << " is not in [0, " << rank << ")";
  return success();
}

LogicalResult LogicalOp::verify() {
  if (!llvm::is_contained({"and", "or", "xor"}, getKind()))
    return emitOpError("kind must be and, or or xor, got '")
           << getKind() << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

/// Fails unless `v`, attribute `name` of `op`, is finite.
static LogicalResult verifyFinite(Operation *op, StringRef name, APFloat v) {
  if (!v.isFinite())
    return op->emitOpError() << name << " must be finite";
  return success();
}

/// The bounds of nn.clip and nn.clip_grad: ordered, not NaN (infinite is
/// an absent bound).
static LogicalResult verifyClipBounds(Operation *op, APFloat min, APFloat max) {
  if (min.isNaN() || max.isNaN())
    return op->emitOpError("min and max must not be NaN");
  if (min.convertToFloat() > max.convertToFloat())
    return op->emitOpError()
           << "min (" << min.convertToFloat() << ") is greater than max ("
           << max.convertToFloat() << ")";
  return success();
}

LogicalResult LeakyReluOp::verify() {
  return verifyFinite(*this, "alpha", getAlpha());
}

LogicalResult ClipOp::verify() {
  return verifyClipBounds(*this, getMin(), getMax());
}

LogicalResult HardSigmoidOp::verify() {
  return success(succeeded(verifyFinite(*this, "alpha", getAlpha())) &&
                 succeeded(verifyFinite(*this, "beta", getBeta())));
}

LogicalResult GeluOp::verify() {
  if (getApproximate() != "none" && getApproximate() != "tanh")
    return emitOpError("approximate must be \"none\" or \"tanh\", got \"")
           << getApproximate() << "\"";
  return success();
}

//===----------------------------------------------------------------------===//
// Comparison, select, cast, dropout
//===----------------------------------------------------------------------===//

/// The i1 result type of comparison `op` on `operands` (same element type,
/// broadcast shapes).
static LogicalResult inferComparison(MLIRContext *ctx, StringRef op,
                                     std::optional<Location> loc,
                                     ValueRange operands,
                                     SmallVectorImpl<Type> &results) {
  auto l = rankedType(operands[0]), r = rankedType(operands[1]);
  if (l.getElementType() != r.getElementType())
    return emitOptionalError(loc, op,
                             " operands have different element "
                             "types: ",
                             l.getElementType(), " and ", r.getElementType());
  auto shape = broadcastShapes(l.getShape(), r.getShape());
  if (failed(shape))
    return emitOptionalError(
        loc, op, " operands do not broadcast: ", shapeStr(l.getShape()),
        " and ", shapeStr(r.getShape()));
  results.push_back(tensorOf(*shape, IntegerType::get(ctx, 1)));
  return success();
}

LogicalResult EqualOp::inferReturnTypes(MLIRContext *ctx,
                                        std::optional<Location> loc,
                                        ValueRange operands, DictionaryAttr,
                                        OpaqueProperties, RegionRange,
                                        SmallVectorImpl<Type> &results) {
  return inferComparison(ctx, "nn.equal", loc, operands, results);
}

LogicalResult EqualOp::verify() { return success(); }

LogicalResult CompareOp::inferReturnTypes(MLIRContext *ctx,
                                          std::optional<Location> loc,
                                          ValueRange operands, DictionaryAttr,
                                          OpaqueProperties, RegionRange,
                                          SmallVectorImpl<Type> &results) {
  return inferComparison(ctx, "nn.compare", loc, operands, results);
}

LogicalResult CompareOp::verify() {
  if (!llvm::is_contained({"lt", "le", "gt", "ge"}, getPredicate()))
    return emitOpError("predicate must be lt, le, gt or ge, got '")
           << getPredicate() << "'";
  if (getLhs().getType().getElementType().isInteger(1))
    return emitOpError("compares f32, i64 or i32 operands, not i1");
  return success();
}

LogicalResult WhereOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        ValueRange operands, DictionaryAttr,
                                        OpaqueProperties, RegionRange,
                                        SmallVectorImpl<Type> &results) {
  auto c = rankedType(operands[0]), x = rankedType(operands[1]),
       y = rankedType(operands[2]);
  if (x.getElementType() != y.getElementType())
    return emitOptionalError(loc,
                             "nn.where x and y have different element "
                             "types: ",
                             x.getElementType(), " and ", y.getElementType());
  auto xy = broadcastShapes(x.getShape(), y.getShape());
  FailureOr<SmallVector<int64_t>> shape = failure();
  if (succeeded(xy))
    shape = broadcastShapes(c.getShape(), *xy);
  if (failed(shape))
    return emitOptionalError(
        loc, "nn.where operands do not broadcast: ", shapeStr(c.getShape()),
        ", ", shapeStr(x.getShape()), " and ", shapeStr(y.getShape()));
  results.push_back(tensorOf(*shape, x.getElementType()));
  return success();
}

LogicalResult WhereOp::verify() { return success(); }

/// The element types nn.cast converts between.
static bool isCastType(Type t) {
  return t.isF32() || t.isF64() || t.isF16() || t.isBF16() ||
         t.isSignlessInteger(64) || t.isSignlessInteger(32) ||
         t.isSignlessInteger(16) || t.isSignlessInteger(8) ||
         t.isSignlessInteger(1) ||
         (t.isUnsignedInteger() && t.getIntOrFloatBitWidth() >= 8);
}

LogicalResult CastOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       ValueRange operands,
                                       DictionaryAttr attrs,
                                       OpaqueProperties props, RegionRange,
                                       SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  Type to = op.getTo();
  if (!isCastType(to))
    return emitOptionalError(loc, "nn.cast to ", to,
                             " is not supported (f32, i64, i32 or i1)");
  results.push_back(tensorOf(rankedType(op.getInput()).getShape(), to));
  return success();
}

LogicalResult CastOp::verify() {
  if (!isCastType(getTo()))
    return emitOpError("cannot cast to ")
           << getTo()
           << " (f32, f64, f16, bf16, i64, i32, i16, i8, i1 or ui8..ui64)";
  return success();
}

LogicalResult DropoutOp::inferReturnTypes(MLIRContext *ctx,
                                          std::optional<Location>,
                                          ValueRange operands, DictionaryAttr,
                                          OpaqueProperties, RegionRange,
                                          SmallVectorImpl<Type> &results) {
  auto t = rankedType(operands[0]);
  results.push_back(t);
  results.push_back(tensorOf(t.getShape(), IntegerType::get(ctx, 1)));
  return success();
}

LogicalResult DropoutOp::verify() {
  float ratio = getRatio().convertToFloat();
  if (!(ratio >= 0.0f && ratio < 1.0f))
    return emitOpError("ratio must be in [0, 1), got ") << ratio;
  if (Value r = getRuntimeRatio())
    if (rankedType(r).getRank() != 0)
      return emitOpError("runtime_ratio must be a scalar (rank 0), got ")
             << r.getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Softmax, LogSoftmax
//===----------------------------------------------------------------------===//

static LogicalResult verifyAxis(Operation *op, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return op->emitOpError("axis ")
           << axis << " is out of range for rank " << rank;
  return success();
}

LogicalResult SoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getType().getRank());
}

LogicalResult LogSoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getType().getRank());
}

//===----------------------------------------------------------------------===//
// FlattenOp
//===----------------------------------------------------------------------===//

/// Product of dims, dynamic if any is; failure if it overflows int64 (the
/// dims come from the model, e.g. a Reshape's shape initializer).
static FailureOr<int64_t> product(ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims) {
    if (ShapedType::isDynamic(d))
      return ShapedType::kDynamic;
    if (llvm::MulOverflow(p, d, p))
      return failure();
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
  FailureOr<int64_t> outer = product(shape.take_front(axis));
  FailureOr<int64_t> inner = product(shape.drop_front(axis));
  if (failed(outer) || failed(inner))
    return emitOptionalError(loc, "nn.flatten input ", shapeStr(shape),
                             " has more elements than int64 can count");
  results.push_back(RankedTensorType::get(
      {*outer, *inner}, rankedType(op.getInput()).getElementType()));
  return success();
}

LogicalResult FlattenOp::verify() { return success(); }

//===----------------------------------------------------------------------===//
// ArgMaxOp, ArgMinOp
//===----------------------------------------------------------------------===//

/// The input's shape with `axis` kept as 1 or dropped, of i64 indices.
template <typename OpTy>
static LogicalResult inferArg(MLIRContext *ctx, std::optional<Location> loc,
                              ValueRange operands, DictionaryAttr attrs,
                              OpaqueProperties props,
                              SmallVectorImpl<Type> &results) {
  typename OpTy::Adaptor op(operands, attrs, props);
  auto shape = rankedType(op.getInput()).getShape();
  int64_t axis = op.getAxis(), rank = shape.size();
  if (axis < 0 || axis >= rank)
    return emitOptionalError(loc, OpTy::getOperationName(), " axis ", axis,
                             " is out of range for rank ", rank);
  SmallVector<int64_t> out;
  for (auto [i, d] : llvm::enumerate(shape))
    if ((int64_t)i != axis)
      out.push_back(d);
    else if (op.getKeepdims())
      out.push_back(1);
  results.push_back(RankedTensorType::get(out, IntegerType::get(ctx, 64)));
  return success();
}

/// A reduction over an empty axis has no index to return.
static LogicalResult verifyArg(Operation *op, Value input, int64_t axis) {
  if (rankedType(input).getDimSize(axis) == 0)
    return op->emitOpError("reduces an axis of size 0");
  return success();
}

#define ARG_OP(Op)                                                             \
  LogicalResult Op::inferReturnTypes(                                          \
      MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,      \
      DictionaryAttr attrs, OpaqueProperties props, RegionRange,               \
      SmallVectorImpl<Type> &results) {                                        \
    return inferArg<Op>(ctx, loc, operands, attrs, props, results);            \
  }                                                                            \
  LogicalResult Op::verify() { return verifyArg(*this, getInput(), getAxis()); }

ARG_OP(ArgMaxOp)
ARG_OP(ArgMinOp)
#undef ARG_OP

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
  auto tooLarge = [&](ArrayRef<int64_t> shape) {
    return emitOptionalError(loc, "nn.reshape shape ", shapeStr(shape),
                             " has more elements than int64 can count");
  };
  FailureOr<int64_t> checkedTotal = product(in);
  if (failed(checkedTotal))
    return tooLarge(in);
  int64_t total = *checkedTotal;
  int64_t known = 1;
  bool knownStatic = true;
  for (auto [i, d] : llvm::enumerate(out)) {
    if ((int)i == inferred)
      continue;
    if (ShapedType::isDynamic(d))
      knownStatic = false;
    else if (llvm::MulOverflow(known, d, known))
      return tooLarge(out);
  }
  if (!ShapedType::isDynamic(total) && knownStatic) {
    if (known == 0 || total % known != 0 || (inferred < 0 && total != known))
      return emitOptionalError(loc, "nn.reshape cannot reshape ", shapeStr(in),
                               " into ", shapeStr(out));
    if (inferred >= 0)
      out[inferred] = total / known;
  } else if (inferred >= 0) {
    // Dynamic dims copied in place (`0`) are on both sides and cancel:
    // `[T, B, 2, H]` to `[0, 0, -1]` is `[T, B, 2 H]`.
    int64_t staticIn = 1, staticOut = 1;
    bool cancels = true;
    for (auto [i, d] : llvm::enumerate(in)) {
      bool copied = i < target.size() && target[i] == 0;
      if (ShapedType::isDynamic(d) && !copied)
        cancels = false;
      else if (!ShapedType::isDynamic(d) &&
               llvm::MulOverflow(staticIn, d, staticIn))
        return tooLarge(in);
    }
    for (auto [i, d] : llvm::enumerate(out)) {
      bool copied = target[i] == 0;
      if ((int)i == inferred || (copied && ShapedType::isDynamic(d)))
        continue;
      if (ShapedType::isDynamic(d))
        cancels = false;
      else if (llvm::MulOverflow(staticOut, d, staticOut))
        return tooLarge(out);
    }
    if (cancels) {
      if (staticOut == 0 || staticIn % staticOut != 0)
        return emitOptionalError(loc, "nn.reshape cannot reshape ",
                                 shapeStr(in), " into ", shapeStr(out));
      out[inferred] = staticIn / staticOut;
    }
  }
  results.push_back(
      RankedTensorType::get(out, rankedType(op.getInput()).getElementType()));
  return success();
}

LogicalResult ReshapeOp::verify() {
  if (llvm::count(getShape(), -1) > 1)
    return emitOpError("shape has more than one -1");
  if (Value sizes = getSizes()) {
    auto t = cast<RankedTensorType>(sizes.getType());
    if (t.getRank() != 1 || t.getDimSize(0) != (int64_t)getShape().size())
      return emitOpError("sizes must be a tensor<")
             << getShape().size() << "xi64> (one entry per result dim), got "
             << t;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// Normalizes `axes` against `rank`: non-negative, sorted, unique.
static FailureOr<SmallVector<int64_t>>
normalizeAxes(std::optional<Location> loc, StringRef opName,
              ArrayRef<int64_t> axes, int64_t rank) {
  SmallVector<int64_t> out;
  for (int64_t a : axes) {
    if (a < -rank || a >= rank)
      return emitOptionalError(loc, opName, " axis ", a,
                               " is out of range for rank ", rank);
    int64_t n = a < 0 ? a + rank : a;
    if (llvm::is_contained(out, n))
      return emitOptionalError(loc, opName, " axis ", a, " is repeated");
    out.push_back(n);
  }
  llvm::sort(out);
  return out;
}

/// The reduced dims of a reduction with ONNX's empty-axes rules.
static SmallVector<int64_t> reducedDims(ArrayRef<int64_t> normalized,
                                        int64_t rank, bool noop) {
  if (!normalized.empty() || noop)
    return SmallVector<int64_t>(normalized);
  return llvm::to_vector(llvm::seq<int64_t>(0, rank));
}

template <typename OpTy>
static LogicalResult inferReduce(MLIRContext *ctx, std::optional<Location> loc,
                                 ValueRange operands, DictionaryAttr attrs,
                                 OpaqueProperties props,
                                 SmallVectorImpl<Type> &results) {
  typename OpTy::Adaptor op(operands, attrs, props);
  auto in = rankedType(op.getInput()).getShape();
  int64_t rank = in.size();
  auto axes = normalizeAxes(loc, OpTy::getOperationName(), op.getAxes(), rank);
  if (failed(axes))
    return failure();
  SmallVector<int64_t> dims =
      reducedDims(*axes, rank, op.getNoopWithEmptyAxes());
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < rank; ++i) {
    if (!llvm::is_contained(dims, i))
      out.push_back(in[i]);
    else if (op.getKeepdims())
      out.push_back(1);
  }
  results.push_back(f32Tensor(ctx, out));
  return success();
}

#define NN_REDUCE_OP(CLASS)                                                    \
  LogicalResult CLASS::inferReturnTypes(                                       \
      MLIRContext *ctx, std::optional<Location> loc, ValueRange operands,      \
      DictionaryAttr attrs, OpaqueProperties props, RegionRange,               \
      SmallVectorImpl<Type> &results) {                                        \
    return inferReduce<CLASS>(ctx, loc, operands, attrs, props, results);      \
  }                                                                            \
  LogicalResult CLASS::verify() { return success(); }                          \
  SmallVector<int64_t> CLASS::getReducedDims() {                               \
    int64_t rank = getInput().getType().getRank();                             \
    auto axes = normalizeAxes(std::nullopt, "", getAxes(), rank);              \
    return reducedDims(succeeded(axes) ? *axes : SmallVector<int64_t>(), rank, \
                       getNoopWithEmptyAxes());                                \
  }
NN_REDUCE_OP(ReduceSumOp)
NN_REDUCE_OP(ReduceMeanOp)
NN_REDUCE_OP(ReduceMaxOp)
#undef NN_REDUCE_OP

//===----------------------------------------------------------------------===//
// TransposeOp, SqueezeOp, UnsqueezeOp, ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            ValueRange operands,
                                            DictionaryAttr attrs,
                                            OpaqueProperties props, RegionRange,
                                            SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  auto in = rankedType(op.getInput());
  ArrayRef<int64_t> perm = op.getPerm();
  int64_t rank = in.getRank();
  if ((int64_t)perm.size() != rank)
    return emitOptionalError(loc, "nn.transpose perm has ", perm.size(),
                             " entries for rank ", rank);
  SmallVector<int64_t> out;
  SmallVector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return emitOptionalError(loc,
                               "nn.transpose perm is not a permutation "
                               "of 0..",
                               rank - 1);
    seen[p] = true;
    out.push_back(in.getDimSize(p));
  }
  results.push_back(tensorOf(out, in.getElementType()));
  return success();
}

LogicalResult TransposeOp::verify() { return success(); }

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          ValueRange operands,
                                          DictionaryAttr attrs,
                                          OpaqueProperties props, RegionRange,
                                          SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  auto in = rankedType(op.getInput());
  auto axes = normalizeAxes(loc, "nn.squeeze", op.getAxes(), in.getRank());
  if (failed(axes))
    return failure();
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < in.getRank(); ++i) {
    if (!llvm::is_contained(*axes, i)) {
      out.push_back(in.getDimSize(i));
      continue;
    }
    if (in.getDimSize(i) != 1)
      return emitOptionalError(loc, "nn.squeeze dim ", i, " of ",
                               shapeStr(in.getShape()), " is not a static 1");
  }
  results.push_back(tensorOf(out, in.getElementType()));
  return success();
}

LogicalResult SqueezeOp::verify() { return success(); }

LogicalResult UnsqueezeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            ValueRange operands,
                                            DictionaryAttr attrs,
                                            OpaqueProperties props, RegionRange,
                                            SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  auto in = rankedType(op.getInput());
  int64_t outRank = in.getRank() + op.getAxes().size();
  auto axes = normalizeAxes(loc, "nn.unsqueeze", op.getAxes(), outRank);
  if (failed(axes))
    return failure();
  SmallVector<int64_t> out;
  int64_t j = 0;
  for (int64_t i = 0; i < outRank; ++i)
    out.push_back(llvm::is_contained(*axes, i) ? 1 : in.getDimSize(j++));
  results.push_back(tensorOf(out, in.getElementType()));
  return success();
}

LogicalResult UnsqueezeOp::verify() { return success(); }

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         ValueRange operands,
                                         DictionaryAttr attrs,
                                         OpaqueProperties props, RegionRange,
                                         SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  ValueRange inputs = op.getInputs();
  if (inputs.empty())
    return emitOptionalError(loc, "nn.concat needs at least one operand");
  auto first = rankedType(inputs[0]);
  int64_t rank = first.getRank();
  int64_t axis = op.getAxis();
  if (axis < -rank || axis >= rank)
    return emitOptionalError(loc, "nn.concat axis ", axis,
                             " is out of range for rank ", rank);
  if (axis < 0)
    axis += rank;
  SmallVector<int64_t> out(first.getShape());
  for (Value v : inputs.drop_front()) {
    auto t = rankedType(v);
    if (t.getElementType() != first.getElementType() || t.getRank() != rank)
      return emitOptionalError(loc,
                               "nn.concat operands differ in rank or "
                               "element type: ",
                               first, " and ", t);
    for (int64_t i = 0; i < rank; ++i) {
      int64_t d = t.getDimSize(i);
      if (i == axis) {
        out[i] = ShapedType::isDynamic(out[i]) || ShapedType::isDynamic(d)
                     ? ShapedType::kDynamic
                     : out[i] + d;
        continue;
      }
      if (!dimsCompatible(out[i], d))
        return emitOptionalError(
            loc, "nn.concat operands differ in dim ", i,
            " (not the axis): ", shapeStr(first.getShape()), " and ",
            shapeStr(t.getShape()));
      if (ShapedType::isDynamic(out[i]))
        out[i] = d;
    }
  }
  results.push_back(tensorOf(out, first.getElementType()));
  return success();
}

LogicalResult ConcatOp::verify() { return success(); }

//===----------------------------------------------------------------------===//
// Embeddings and normalization
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         ValueRange operands,
                                         DictionaryAttr attrs,
                                         OpaqueProperties props, RegionRange,
                                         SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  auto data = rankedType(op.getData());
  auto indices = rankedType(op.getIndices());
  int64_t rank = data.getRank(), axis = op.getAxis();
  if (rank == 0 || axis < -rank || axis >= rank)
    return emitOptionalError(loc, "nn.gather axis ", axis,
                             " is out of range for rank ", rank);
  if (axis < 0)
    axis += rank;
  SmallVector<int64_t> out(data.getShape().take_front(axis));
  llvm::append_range(out, indices.getShape());
  llvm::append_range(out, data.getShape().drop_front(axis + 1));
  results.push_back(tensorOf(out, data.getElementType()));
  return success();
}

LogicalResult GatherOp::verify() { return success(); }

std::optional<int64_t> GatherOp::getIndexBound(unsigned index) {
  if (index != 1)
    return std::nullopt;
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0)
    axis += getData().getType().getRank();
  int64_t size = getData().getType().getDimSize(axis);
  if (ShapedType::isDynamic(size))
    return std::nullopt; // known at run time only (checked there)
  return size;
}

bool GatherOp::isSparseOperand(unsigned index) {
  // An embedding lookup: a few rows of the table are read.
  int64_t axis = static_cast<int64_t>(getAxis());
  return index == 0 && (axis == 0 || axis == -getData().getType().getRank());
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            ValueRange operands,
                                            DictionaryAttr attrs,
                                            OpaqueProperties props, RegionRange,
                                            SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  auto x = rankedType(op.getInput());
  int64_t rank = x.getRank(), axis = op.getAxis();
  if (axis < -rank || axis >= rank)
    return emitOptionalError(loc, "nn.layer_norm axis ", axis,
                             " is out of range for rank ", rank);
  if (axis < 0)
    axis += rank;
  ArrayRef<int64_t> normalized = x.getShape().drop_front(axis);
  for (Value v : {op.getScale(), op.getBias()}) {
    if (!v)
      continue;
    auto shape = rankedType(v).getShape();
    auto bc = broadcastShapes(shape, normalized);
    if (shape.size() > normalized.size() || failed(bc) ||
        ArrayRef<int64_t>(*bc) != normalized)
      return emitOptionalError(loc, "nn.layer_norm scale/bias of shape ",
                               shapeStr(shape), " does not broadcast to ",
                               shapeStr(normalized));
  }
  for (int64_t d : normalized)
    if (ShapedType::isDynamic(d))
      return emitOptionalError(loc,
                               "nn.layer_norm normalizes over a dynamic "
                               "dim of ",
                               shapeStr(x.getShape()));
  results.push_back(x);
  return success();
}

LogicalResult LayerNormOp::verify() {
  if (!(getEpsilon().convertToFloat() >= 0.0f))
    return emitOpError("epsilon must be >= 0");
  return success();
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

/// Checks logits `[N, C]` against labels `[N]`.
static LogicalResult checkLogitsLabels(std::optional<Location> loc,
                                       StringRef opName, Value logits,
                                       Value labels) {
  auto l = rankedType(logits), y = rankedType(labels);
  if (l.getRank() < 2)
    return emitOptionalError(loc, opName,
                             " expects logits [N..., C] of rank >= 2, got ",
                             shapeStr(l.getShape()));
  bool match = y.getRank() == l.getRank() - 1;
  for (int64_t i = 0; match && i < y.getRank(); ++i)
    match = dimsCompatible(l.getDimSize(i), y.getDimSize(i));
  if (!match)
    return emitOptionalError(loc, opName, " has logits ",
                             shapeStr(l.getShape()), " but labels ",
                             shapeStr(y.getShape()),
                             " (labels must be the logits' shape without the "
                             "class dim)");
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

/// The upstream gradient of an elementwise op's gradient has its input's
/// shape.
static LogicalResult verifyGradShape(Operation *op, Value grad, Value input) {
  if (failed(verifyCompatibleShape(grad.getType(), input.getType())))
    return op->emitOpError("grad and input shapes differ");
  return success();
}

LogicalResult ReluGradOp::verify() {
  if (failed(verifyGradShape(*this, getGrad(), getInput())))
    return failure();
  return verifyFinite(*this, "alpha", getAlpha());
}

LogicalResult ClipGradOp::verify() {
  if (failed(verifyGradShape(*this, getGrad(), getInput())))
    return failure();
  return verifyClipBounds(*this, getMin(), getMax());
}

LogicalResult HardSigmoidGradOp::verify() {
  return success(succeeded(verifyGradShape(*this, getGrad(), getInput())) &&
                 succeeded(verifyFinite(*this, "alpha", getAlpha())) &&
                 succeeded(verifyFinite(*this, "beta", getBeta())));
}

LogicalResult HardSwishGradOp::verify() {
  return verifyGradShape(*this, getGrad(), getInput());
}

LogicalResult GeluGradOp::verify() {
  if (failed(verifyGradShape(*this, getGrad(), getInput())))
    return failure();
  if (getApproximate() != "none" && getApproximate() != "tanh")
    return emitOpError("approximate must be \"none\" or \"tanh\", got \"")
           << getApproximate() << "\"";
  return success();
}

LogicalResult SoftmaxGradOp::verify() {
  if (failed(verifyCompatibleShape(getGrad().getType(), getOutput().getType())))
    return emitOpError("grad and output shapes differ");
  return verifyAxis(*this, getAxis(), getType().getRank());
}

LogicalResult
BroadcastLikeOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                                  ValueRange operands, DictionaryAttr,
                                  OpaqueProperties, RegionRange,
                                  SmallVectorImpl<Type> &results) {
  auto in = rankedType(operands[0]), like = rankedType(operands[1]);
  int64_t extra = like.getRank() - in.getRank();
  bool ok = extra >= 0;
  for (int64_t i = 0; ok && i < in.getRank(); ++i) {
    int64_t d = in.getDimSize(i);
    ok = d == 1 || dimsCompatible(d, like.getDimSize(i + extra));
  }
  if (!ok)
    return emitOptionalError(loc, "nn.broadcast_like cannot broadcast ",
                             shapeStr(in.getShape()), " to ",
                             shapeStr(like.getShape()));
  results.push_back(f32Tensor(ctx, like.getShape()));
  return success();
}

LogicalResult BroadcastLikeOp::verify() { return success(); }

LogicalResult
ConcatGradOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location> loc,
                               ValueRange operands, DictionaryAttr attrs,
                               OpaqueProperties props, RegionRange,
                               SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  auto grad = rankedType(op.getGrad());
  int64_t rank = grad.getRank();
  int64_t axis = op.getAxis();
  if (axis < -rank || axis >= rank)
    return emitOptionalError(loc, "nn.concat_grad axis ", axis,
                             " is out of range for rank ", rank);
  if (axis < 0)
    axis += rank;
  int64_t total = 0;
  for (Value v : op.getInputs()) {
    auto t = rankedType(v);
    if (t.getRank() != rank)
      return emitOptionalError(loc, "nn.concat_grad operand ", t,
                               " differs in rank from the gradient ", grad);
    for (int64_t i = 0; i < rank; ++i)
      if (i != axis && !dimsCompatible(t.getDimSize(i), grad.getDimSize(i)))
        return emitOptionalError(loc, "nn.concat_grad operand ", t,
                                 " differs from the gradient ", grad,
                                 " in dim ", i);
    int64_t d = t.getDimSize(axis);
    total = ShapedType::isDynamic(total) || ShapedType::isDynamic(d)
                ? ShapedType::kDynamic
                : total + d;
    results.push_back(f32Tensor(ctx, t.getShape()));
  }
  if (!dimsCompatible(total, grad.getDimSize(axis)))
    return emitOptionalError(loc,
                             "nn.concat_grad operands do not add up to "
                             "the gradient's dim ",
                             axis, " of ", grad);
  return success();
}

LogicalResult ConcatGradOp::verify() { return success(); }

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

//===----------------------------------------------------------------------===//
// More losses and optimizers
//===----------------------------------------------------------------------===//

LogicalResult MseLossOp::inferReturnTypes(MLIRContext *ctx,
                                          std::optional<Location> loc,
                                          ValueRange operands, DictionaryAttr,
                                          OpaqueProperties, RegionRange,
                                          SmallVectorImpl<Type> &results) {
  if (failed(
          verifyCompatibleShape(operands[0].getType(), operands[1].getType())))
    return emitOptionalError(
        loc, "nn.mse_loss prediction ",
        shapeStr(rankedType(operands[0]).getShape()), " and target ",
        shapeStr(rankedType(operands[1]).getShape()), " differ");
  results.push_back(f32Tensor(ctx, {}));
  return success();
}

LogicalResult MseLossOp::verify() { return success(); }

LogicalResult MseLossGradOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              ValueRange operands,
                                              DictionaryAttr, OpaqueProperties,
                                              RegionRange,
                                              SmallVectorImpl<Type> &results) {
  if (failed(
          verifyCompatibleShape(operands[1].getType(), operands[2].getType())))
    return emitOptionalError(loc, "nn.mse_loss_grad shapes differ");
  results.push_back(operands[1].getType());
  return success();
}

LogicalResult MseLossGradOp::verify() { return success(); }

LogicalResult MomentumUpdateOp::verify() {
  if (getMomentum().convertToFloat() < 0.0f)
    return emitOpError("momentum must be >= 0");
  if (getWeightDecay().convertToFloat() < 0.0f)
    return emitOpError("weight_decay must be >= 0");
  return success();
}

Value MomentumUpdateOp::getUpdatedParam() { return getParam(); }
OpOperand &MomentumUpdateOp::getGradOperand() { return getGradMutable(); }

LogicalResult AdamUpdateOp::verify() {
  for (auto [name, beta] :
       {std::pair<StringRef, float>("beta1", getBeta1().convertToFloat()),
        {"beta2", getBeta2().convertToFloat()}})
    if (!(beta >= 0.0f && beta < 1.0f))
      return emitOpError(name) << " must be in [0, 1), got " << beta;
  if (!(getEpsilon().convertToFloat() > 0.0f))
    return emitOpError("epsilon must be > 0");
  if (getWeightDecay().convertToFloat() < 0.0f)
    return emitOpError("weight_decay must be >= 0");
  return success();
}

Value AdamUpdateOp::getUpdatedParam() { return getParam(); }
OpOperand &AdamUpdateOp::getGradOperand() { return getGradMutable(); }

LogicalResult ClipByGlobalNormOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands, DictionaryAttr,
    OpaqueProperties, RegionRange, SmallVectorImpl<Type> &results) {
  llvm::append_range(results, operands.getTypes());
  return success();
}

LogicalResult ClipByGlobalNormOp::verify() {
  if (getGrads().empty())
    return emitOpError("needs at least one gradient");
  if (!(getMaxNorm().convertToFloat() > 0.0f))
    return emitOpError("max_norm must be > 0");
  return success();
}

OpOperand &ClipByGlobalNormOp::getSourceGradient(unsigned index) {
  return getGradsMutable()[index];
}

LogicalResult
UnscaleGradientsOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location>,
                                     ValueRange operands, DictionaryAttr,
                                     OpaqueProperties, RegionRange,
                                     SmallVectorImpl<Type> &results) {
  llvm::append_range(results, operands.drop_front().getTypes());
  results.push_back(tensorOf({}, IntegerType::get(ctx, 1)));
  return success();
}

LogicalResult UnscaleGradientsOp::verify() {
  if (getGrads().empty())
    return emitOpError("needs at least one gradient");
  return success();
}

OpOperand &UnscaleGradientsOp::getSourceGradient(unsigned index) {
  return getGradsMutable()[index];
}

LogicalResult UpdateLossScaleOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location>, ValueRange, DictionaryAttr,
    OpaqueProperties, RegionRange, SmallVectorImpl<Type> &results) {
  results.push_back(f32Tensor(ctx, {}));
  results.push_back(f32Tensor(ctx, {}));
  return success();
}

LogicalResult UpdateLossScaleOp::verify() {
  if (!(getGrowthFactor().convertToFloat() > 1.0f))
    return emitOpError("growth_factor must be > 1");
  float backoff = getBackoffFactor().convertToFloat();
  if (!(backoff > 0.0f && backoff < 1.0f))
    return emitOpError("backoff_factor must be in (0, 1)");
  if (getGrowthInterval() < 1)
    return emitOpError("growth_interval must be >= 1");
  return success();
}

#define GET_OP_CLASSES
#include "nn/NNOps.cpp.inc"
