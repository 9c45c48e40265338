//===- NNShapeUtils.cpp - shape helpers shared by nn ops ------------------===//

#include "nn/NNShapeUtils.h"
#include "nn/NNOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "llvm/ADT/Sequence.h"

using namespace mlir;

namespace autodist::nn {

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

bool dimsCompatible(int64_t a, int64_t b) {
  return a == b || ShapedType::isDynamic(a) || ShapedType::isDynamic(b);
}

FailureOr<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> lhs,
                                                ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t l = i < lhs.size() ? lhs[lhs.size() - 1 - i] : 1;
    int64_t r = i < rhs.size() ? rhs[rhs.size() - 1 - i] : 1;
    int64_t &o = out[rank - 1 - i];
    if (l == 1)
      o = r;
    else if (r == 1)
      o = l;
    else if (ShapedType::isDynamic(l))
      o = r;
    else if (ShapedType::isDynamic(r) || l == r)
      o = l;
    else
      return failure();
  }
  return out;
}

Value sumToShape(OpBuilder &b, Location loc, Value grad,
                 RankedTensorType target) {
  auto gradType = cast<RankedTensorType>(grad.getType());
  if (gradType.getShape() == target.getShape())
    return grad;
  int64_t extra = gradType.getRank() - target.getRank();
  SmallVector<int64_t> axes;
  for (int64_t i = 0; i < gradType.getRank(); ++i) {
    if (i < extra ||
        (target.getDimSize(i - extra) == 1 && gradType.getDimSize(i) != 1))
      axes.push_back(i);
  }
  Value sum = grad;
  if (!axes.empty())
    sum = ReduceSumOp::create(b, loc, grad, b.getDenseI64ArrayAttr(axes),
                              b.getBoolAttr(false), b.getBoolAttr(false));
  if (cast<RankedTensorType>(sum.getType()).getShape() == target.getShape())
    return sum;
  // Only size-1 dims differ now; 0 copies the (possibly dynamic) dims.
  SmallVector<int64_t> shape;
  for (int64_t d : target.getShape())
    shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
  return ReshapeOp::create(b, loc, sum, Value(), b.getDenseI64ArrayAttr(shape));
}

Value emptyLike(OpBuilder &b, Location loc, RankedTensorType type,
                ValueRange sources) {
  SmallVector<Value> dynSizes;
  int64_t rank = type.getRank();
  for (int64_t i = 0; i < rank; ++i) {
    if (!type.isDynamicDim(i))
      continue;
    Value size;
    for (Value src : sources) {
      auto st = cast<RankedTensorType>(src.getType());
      int64_t j = i - (rank - st.getRank());
      if (j >= 0 && st.isDynamicDim(j)) {
        size = tensor::DimOp::create(b, loc, src, j);
        break;
      }
    }
    assert(size && "dynamic result dim with no dynamic source dim");
    dynSizes.push_back(size);
  }
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType(),
                                 dynSizes);
}

/// The indexing map reading `operand` (rank r) broadcast into an iteration
/// space of rank R: aligned right, static size-1 dims read index 0.
AffineMap broadcastMap(MLIRContext *ctx, RankedTensorType operand,
                       RankedTensorType result) {
  int64_t r = operand.getRank(), R = result.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t j = 0; j < r; ++j) {
    int64_t i = j + (R - r);
    if (operand.getDimSize(j) == 1 && result.getDimSize(i) != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(i, ctx));
  }
  return AffineMap::get(R, 0, exprs, ctx);
}

Value buildElementwise(
    OpBuilder &b, Location loc, RankedTensorType resultType, ValueRange inputs,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body, Value init) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value in : inputs)
    maps.push_back(
        broadcastMap(ctx, cast<RankedTensorType>(in.getType()), resultType));
  maps.push_back(b.getMultiDimIdentityMap(resultType.getRank()));
  if (!init)
    init = emptyLike(b, loc, resultType, inputs);
  SmallVector<utils::IteratorType> iters(resultType.getRank(),
                                         utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value v = body(nb, nloc, args.drop_back());
        linalg::YieldOp::create(nb, nloc, v);
      });
  return generic.getResult(0);
}

SmallVector<Value> buildElementwiseResults(
    OpBuilder &b, Location loc, RankedTensorType resultType, ValueRange inputs,
    unsigned numResults,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)> body) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value in : inputs)
    maps.push_back(
        broadcastMap(ctx, cast<RankedTensorType>(in.getType()), resultType));
  SmallVector<Value> inits;
  for (unsigned i = 0; i < numResults; ++i) {
    maps.push_back(b.getMultiDimIdentityMap(resultType.getRank()));
    inits.push_back(emptyLike(b, loc, resultType, inputs));
  }
  SmallVector<utils::IteratorType> iters(resultType.getRank(),
                                         utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, SmallVector<Type>(numResults, resultType), inputs, inits, maps,
      iters, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        SmallVector<Value> v = body(nb, nloc, args.drop_back(numResults));
        assert(v.size() == numResults && "one scalar per result");
        linalg::YieldOp::create(nb, nloc, v);
      });
  return SmallVector<Value>(generic.getResults());
}

Value buildMappedElementwise(
    OpBuilder &b, Location loc, RankedTensorType type, ValueRange inputs,
    ArrayRef<AffineMap> maps, Value like,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<AffineMap> all(maps);
  all.push_back(b.getMultiDimIdentityMap(type.getRank()));
  SmallVector<utils::IteratorType> par(type.getRank(),
                                       utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, inputs,
             ValueRange{emptyLike(b, loc, type, {like})}, all, par,
             [&](OpBuilder &nb, Location l, ValueRange a) {
               linalg::YieldOp::create(nb, l,
                                       ValueRange{body(nb, l, a.drop_back())});
             })
      .getResult(0);
}

Value wrapNegativeIndex(OpBuilder &b, Location loc, Value index, int64_t size) {
  // In the index's own width (i64, or i32 for ONNX's int32 indices).
  Value n = arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(index.getType(), size));
  return wrapNegativeIndex(b, loc, index, n);
}

Value wrapNegativeIndex(OpBuilder &b, Location loc, Value index, Value n) {
  Type t = index.getType();
  if (n.getType() != t)
    n = arith::IndexCastOp::create(b, loc, t, n);
  Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, 0));
  Value neg =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index, zero);
  return arith::SelectOp::create(
      b, loc, neg, arith::AddIOp::create(b, loc, index, n), index);
}

Value checkedIndex(OpBuilder &b, Location loc, Value index, int64_t size,
                   StringRef message) {
  Value n = arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(index.getType(), size));
  return checkedIndex(b, loc, index, n, message);
}

Value checkedIndex(OpBuilder &b, Location loc, Value index, Value size,
                   StringRef message) {
  Type t = index.getType();
  Value bound = size.getType() == t
                    ? size
                    : arith::IndexCastOp::create(b, loc, t, size).getResult();
  Value wrapped = wrapNegativeIndex(b, loc, index, bound);
  Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, 0));
  Value inRange = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, wrapped, zero),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, wrapped, bound));
  cf::AssertOp::create(b, loc, inRange, message);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), wrapped);
}

OpFoldResult tensorDim(OpBuilder &b, Location loc, Value v, int64_t d) {
  auto t = cast<RankedTensorType>(v.getType());
  if (!t.isDynamicDim(d))
    return b.getIndexAttr(t.getDimSize(d));
  return tensor::DimOp::create(b, loc, v, d).getResult();
}

Value f32Const(OpBuilder &b, Location loc, float v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
}

Value buildReduction(
    OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> dims, float init,
    function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  auto inType = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> outShape;
  SmallVector<Value> dynSizes;
  for (int64_t i = 0; i < inType.getRank(); ++i) {
    if (llvm::is_contained(dims, i))
      continue;
    outShape.push_back(inType.getDimSize(i));
    if (inType.isDynamicDim(i))
      dynSizes.push_back(tensor::DimOp::create(b, loc, input, i));
  }
  Value empty = tensor::EmptyOp::create(b, loc, outShape,
                                        inType.getElementType(), dynSizes);
  Value filled = linalg::FillOp::create(b, loc, f32Const(b, loc, init), empty)
                     .getResult(0);
  auto reduce = linalg::ReduceOp::create(
      b, loc, ValueRange{input}, ValueRange{filled}, dims,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, combine(nb, nloc, args[0], args[1]));
      });
  return reduce.getResult(0);
}

FailureOr<Value> reshapeTensor(OpBuilder &b, Location loc, Value input,
                               RankedTensorType resultType) {
  auto inType = cast<RankedTensorType>(input.getType());
  if (inType == resultType)
    return input;
  if (inType.getRank() > resultType.getRank()) {
    if (auto re = getReassociationIndicesForCollapse(inType.getShape(),
                                                     resultType.getShape()))
      return tensor::CollapseShapeOp::create(b, loc, resultType, input, *re)
          .getResult();
  } else if (inType.getRank() < resultType.getRank()) {
    if (auto re = getReassociationIndicesForCollapse(resultType.getShape(),
                                                     inType.getShape()))
      return tensor::ExpandShapeOp::create(b, loc, resultType, input, *re)
          .getResult();
  }
  // Otherwise through 1-D: collapse everything, expand into the result
  // (needs at most one dynamic result dim, which expand_shape infers).
  if (resultType.getNumDynamicDims() <= 1 && inType.getRank() >= 1 &&
      resultType.getRank() >= 1) {
    Value flat = input;
    if (inType.getRank() > 1) {
      auto flatType = RankedTensorType::get({inType.hasStaticShape()
                                                 ? inType.getNumElements()
                                                 : ShapedType::kDynamic},
                                            inType.getElementType());
      SmallVector<ReassociationIndices> all = {
          llvm::to_vector(llvm::seq<int64_t>(0, inType.getRank()))};
      flat = tensor::CollapseShapeOp::create(b, loc, flatType, input, all);
    }
    if (resultType.getRank() == 1)
      return tensor::CastOp::create(b, loc, resultType, flat).getResult();
    SmallVector<ReassociationIndices> out = {
        llvm::to_vector(llvm::seq<int64_t>(0, resultType.getRank()))};
    return tensor::ExpandShapeOp::create(b, loc, resultType, flat, out)
        .getResult();
  }
  if (!resultType.hasStaticShape())
    return failure();
  auto shapeType =
      RankedTensorType::get({resultType.getRank()}, b.getI64Type());
  Value shape = arith::ConstantOp::create(
      b, loc, DenseIntElementsAttr::get(shapeType, resultType.getShape()));
  return tensor::ReshapeOp::create(b, loc, resultType, input, shape)
      .getResult();
}

} // namespace autodist::nn
