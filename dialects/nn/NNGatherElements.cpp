//===- NNGatherElements.cpp - nn.gather_elements and its gradient ---------===//
//
// ONNX GatherElements (torch.gather): type inference, verifier, VJP and
// lowering of nn.gather_elements, and nn.gather_elements_grad (a
// scatter-add of the result's gradient into zeros of the data's shape).
//
//===----------------------------------------------------------------------===//

#include "nn/NNOps.h"
#include "nn/NNShapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace autodist::nn;

using Results = FailureOr<SmallVector<Value>>;

namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// `axis` normalized against `rank` (the verifier checked the range).
int64_t normalizedAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

/// Asserts that the indices' dims other than `axis` fit the data's (ONNX
/// lets them be smaller); only dims not known statically are checked here.
void checkIndexDims(OpBuilder &b, Location l, Value indices, Value data,
                    int64_t axis) {
  RankedTensorType it = typeOf(indices), dt = typeOf(data);
  for (int64_t i = 0; i < it.getRank(); ++i) {
    if (i == axis || (!it.isDynamicDim(i) && !dt.isDynamicDim(i)))
      continue;
    Value fits = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ule,
                                       tensor::DimOp::create(b, l, indices, i),
                                       tensor::DimOp::create(b, l, data, i));
    cf::AssertOp::create(
        b, l, fits, "GatherElements: the indices are larger than the data");
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// GatherElementsOp
//===----------------------------------------------------------------------===//

LogicalResult
GatherElementsOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                   ValueRange operands, DictionaryAttr attrs,
                                   OpaqueProperties props, RegionRange,
                                   SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  RankedTensorType data = typeOf(op.getData());
  RankedTensorType indices = typeOf(op.getIndices());
  int64_t rank = data.getRank();
  if (indices.getRank() != rank)
    return emitOptionalError(loc, "nn.gather_elements indices of rank ",
                             indices.getRank(), " for data of rank ", rank,
                             " (they must be equal)");
  results.push_back(
      RankedTensorType::get(indices.getShape(), data.getElementType()));
  return success();
}

LogicalResult GatherElementsOp::verify() {
  RankedTensorType data = getData().getType();
  RankedTensorType indices = getIndices().getType();
  int64_t rank = data.getRank(), axis = getAxis();
  if (indices.getRank() != rank)
    return emitOpError("indices of rank ")
           << indices.getRank() << " for data of rank " << rank
           << " (they must be equal)";
  if (rank == 0 || axis < -rank || axis >= rank)
    return emitOpError("axis ") << axis << " is out of range for rank " << rank;
  axis = normalizedAxis(axis, rank);
  if (data.isDynamicDim(axis))
    return emitOpError("gathers along dynamic dim ") << axis;
  for (int64_t i = 0; i < rank; ++i)
    if (i != axis && !data.isDynamicDim(i) && !indices.isDynamicDim(i) &&
        indices.getDimSize(i) > data.getDimSize(i))
      return emitOpError("indices dim ")
             << i << " (" << indices.getDimSize(i)
             << ") is larger than the data's (" << data.getDimSize(i) << ")";
  return success();
}

LogicalResult GatherElementsOp::buildVJP(OpBuilder &b,
                                         ArrayRef<Value> resultGrads,
                                         SmallVectorImpl<Value> &operandGrads) {
  if (!getData().getType().getElementType().isF32())
    return emitOpError("gradient of a gather of non-f32 data");
  int64_t axis = normalizedAxis(getAxis(), getData().getType().getRank());
  Value dd =
      GatherElementsGradOp::create(b, getLoc(), resultGrads[0], getIndices(),
                                   getData(), b.getI64IntegerAttr(axis));
  operandGrads.assign({dd, Value()});
  return success();
}

Results GatherElementsOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  RankedTensorType type = getType();
  Value data = getData(), indices = getIndices();
  int64_t rank = type.getRank();
  int64_t axis = normalizedAxis(getAxis(), rank);
  int64_t axisSize = getData().getType().getDimSize(axis);
  checkIndexDims(b, loc, indices, data, axis);
  SmallVector<Value> dyn;
  for (int64_t i = 0; i < rank; ++i)
    if (type.isDynamicDim(i))
      dyn.push_back(tensor::DimOp::create(b, loc, indices, i));
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(),
                                       type.getElementType(), dyn);
  AffineMap id = b.getMultiDimIdentityMap(rank);
  Value out =
      linalg::GenericOp::create(
          b, loc, TypeRange{type}, ValueRange{indices}, ValueRange{init},
          ArrayRef<AffineMap>{id, id},
          SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange a) {
            SmallVector<Value> coords;
            for (int64_t i = 0; i < rank; ++i)
              coords.push_back(
                  i == axis ? checkedIndex(nb, l, a[0], axisSize,
                                           "GatherElements: index out of range")
                            : Value(linalg::IndexOp::create(nb, l, i)));
            linalg::YieldOp::create(
                nb, l,
                ValueRange{tensor::ExtractOp::create(nb, l, data, coords)});
          })
          .getResult(0);
  return SmallVector<Value>{out};
}

//===----------------------------------------------------------------------===//
// GatherElementsGradOp
//===----------------------------------------------------------------------===//

LogicalResult GatherElementsGradOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, ValueRange operands,
    DictionaryAttr attrs, OpaqueProperties props, RegionRange,
    SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  RankedTensorType data = typeOf(op.getData());
  if (typeOf(op.getGrad()).getShape() != typeOf(op.getIndices()).getShape())
    return emitOptionalError(loc, "nn.gather_elements_grad grad and indices "
                                  "must have one shape");
  results.push_back(data);
  return success();
}

Results GatherElementsGradOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  RankedTensorType type = getType();
  Value dy = getGrad(), indices = getIndices();
  int64_t rank = type.getRank();
  int64_t axis = normalizedAxis(getAxis(), rank);
  int64_t axisSize = type.getDimSize(axis);
  SmallVector<Value> dyn;
  for (int64_t i = 0; i < rank; ++i)
    if (type.isDynamicDim(i))
      dyn.push_back(tensor::DimOp::create(b, loc, getData(), i));
  Value empty =
      tensor::EmptyOp::create(b, loc, type.getShape(), b.getF32Type(), dyn);
  Value init = linalg::FillOp::create(b, loc, f32Const(b, loc, 0.0f), empty)
                   .getResult(0);
  // One element per index: dd[i..., idx, k...] += dy[i..., j, k...], as
  // loops carrying the result (bufferized in place).
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> lbs(rank, zero), steps(rank, one), ubs;
  for (int64_t i = 0; i < rank; ++i)
    ubs.push_back(tensor::DimOp::create(b, loc, indices, i));
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, ValueRange{init},
      [&](OpBuilder &nb, Location l, ValueRange ivs,
          ValueRange acc) -> scf::ValueVector {
        Value index = tensor::ExtractOp::create(nb, l, indices, ivs);
        SmallVector<Value> coords(ivs.begin(), ivs.end());
        coords[axis] = checkedIndex(nb, l, index, axisSize,
                                    "GatherElements: index out of range");
        Value sum = arith::AddFOp::create(
            nb, l, tensor::ExtractOp::create(nb, l, acc[0], coords),
            tensor::ExtractOp::create(nb, l, dy, ivs));
        return {tensor::InsertOp::create(nb, l, sum, acc[0], coords)};
      });
  return SmallVector<Value>{nest.results.front()};
}
