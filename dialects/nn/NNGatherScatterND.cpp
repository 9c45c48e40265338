//===- NNGatherScatterND.cpp - nn.gather_nd, nn.scatter_nd ----------------===//
//
// ONNX GatherND and ScatterND (on run-time values): type inference,
// verifiers, VJPs and lowerings of nn.gather_nd, its gradient
// nn.gather_nd_grad (a scatter-add), nn.scatter_nd and the gradient of its
// data, nn.scatter_nd_data_grad. Both address data by
// index tuples: the indices' last dim k names the first k (after the batch
// dims) data dims, the rest of the data is a slice.
//
//===----------------------------------------------------------------------===//

#include "nn/NNOps.h"
#include "nn/NNShapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace autodist::nn;

using Results = FailureOr<SmallVector<Value>>;

namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// The shape ONNX gives GatherND's result (and ScatterND's updates):
/// indices.shape[:-1] + data.shape[b + k:], or failure with a reason.
FailureOr<SmallVector<int64_t>> slicedShape(RankedTensorType data,
                                            RankedTensorType indices, int64_t b,
                                            std::string &why) {
  int64_t r = data.getRank(), q = indices.getRank();
  if (q < 1 || indices.isDynamicDim(q - 1)) {
    why = "the indices need a static last dim (the tuple size)";
    return failure();
  }
  int64_t k = indices.getDimSize(q - 1);
  if (b < 0 || b >= q || b > r || k < 1 || b + k > r) {
    why = "tuple size " + std::to_string(k) + " with " + std::to_string(b) +
          " batch dims does not fit data of rank " + std::to_string(r) +
          " and indices of rank " + std::to_string(q);
    return failure();
  }
  SmallVector<int64_t> shape(indices.getShape().drop_back());
  llvm::append_range(shape, data.getShape().drop_front(b + k));
  return shape;
}

/// The data coordinates of element `ivs` of a gathered (or scattered)
/// slice: the `b` batch coordinates, the `k` entries of the index tuple at
/// `ivs[:q-1]` (checked against the data's static dims) and the slice's.
SmallVector<Value> dataCoords(OpBuilder &b, Location loc, Value indices,
                              RankedTensorType data, int64_t batchDims,
                              ValueRange ivs, StringRef what) {
  RankedTensorType it = typeOf(indices);
  int64_t q = it.getRank(), k = it.getDimSize(q - 1);
  SmallVector<Value> coords(ivs.begin(), ivs.begin() + batchDims);
  SmallVector<Value> at(ivs.begin(), ivs.begin() + (q - 1));
  at.push_back(Value());
  for (int64_t j = 0; j < k; ++j) {
    at.back() = arith::ConstantIndexOp::create(b, loc, j);
    Value index = tensor::ExtractOp::create(b, loc, indices, at);
    coords.push_back(checkedIndex(b, loc, index, data.getDimSize(batchDims + j),
                                  (what + ": index out of range").str()));
  }
  coords.append(ivs.begin() + (q - 1), ivs.end());
  return coords;
}

/// The index-addressed data dims must be static (their sizes check the
/// indices).
LogicalResult checkAddressedDims(Operation *op, RankedTensorType data,
                                 int64_t from, int64_t k) {
  for (int64_t d = from; d < from + k; ++d)
    if (data.isDynamicDim(d))
      return op->emitOpError("indexes the dynamic data dim ") << d;
  return success();
}

/// Loops over every element of `shapeOf` (its dims, dynamic ones read at
/// run time) carrying `init`; `body` returns the new carried value.
Value loopOver(
    OpBuilder &b, Location loc, Value shapeOf, Value init,
    function_ref<Value(OpBuilder &, Location, ValueRange, Value)> body) {
  int64_t rank = typeOf(shapeOf).getRank();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> lbs(rank, zero), steps(rank, one), ubs;
  for (int64_t i = 0; i < rank; ++i)
    ubs.push_back(tensor::DimOp::create(b, loc, shapeOf, i));
  scf::LoopNest nest =
      scf::buildLoopNest(b, loc, lbs, ubs, steps, ValueRange{init},
                         [&](OpBuilder &nb, Location l, ValueRange ivs,
                             ValueRange acc) -> scf::ValueVector {
                           return {body(nb, l, ivs, acc[0])};
                         });
  return nest.results.front();
}

} // namespace

//===----------------------------------------------------------------------===//
// GatherNDOp
//===----------------------------------------------------------------------===//

LogicalResult GatherNDOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           ValueRange operands,
                                           DictionaryAttr attrs,
                                           OpaqueProperties props, RegionRange,
                                           SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  RankedTensorType data = typeOf(op.getData());
  std::string why;
  FailureOr<SmallVector<int64_t>> shape =
      slicedShape(data, typeOf(op.getIndices()), op.getBatchDims(), why);
  if (failed(shape))
    return emitOptionalError(loc, "nn.gather_nd: ", why);
  results.push_back(RankedTensorType::get(*shape, data.getElementType()));
  return success();
}

LogicalResult GatherNDOp::verify() {
  RankedTensorType data = getData().getType(), indices = getIndices().getType();
  int64_t b = getBatchDims();
  for (int64_t d = 0; d < b; ++d)
    if (!data.isDynamicDim(d) && !indices.isDynamicDim(d) &&
        data.getDimSize(d) != indices.getDimSize(d))
      return emitOpError("batch dim ")
             << d << " differs: data " << data.getDimSize(d) << ", indices "
             << indices.getDimSize(d);
  int64_t k = indices.getDimSize(indices.getRank() - 1);
  return checkAddressedDims(*this, data, b, k);
}

LogicalResult GatherNDOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                   SmallVectorImpl<Value> &operandGrads) {
  if (!getData().getType().getElementType().isF32())
    return emitOpError("gradient of a gather of non-f32 data");
  Value dd = GatherNDGradOp::create(b, getLoc(), resultGrads[0], getIndices(),
                                    getData(), getBatchDimsAttr());
  operandGrads.assign({dd, Value()});
  return success();
}

Results GatherNDOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  RankedTensorType type = getType();
  Value data = getData(), indices = getIndices();
  int64_t rank = type.getRank(), q = typeOf(indices).getRank();
  int64_t shift = getBatchDims() + typeOf(indices).getDimSize(q - 1) - (q - 1);
  SmallVector<Value> dyn;
  for (int64_t i = 0; i < rank; ++i)
    if (type.isDynamicDim(i))
      dyn.push_back(i < q - 1 ? tensor::DimOp::create(b, loc, indices, i)
                              : tensor::DimOp::create(b, loc, data, i + shift));
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(),
                                       type.getElementType(), dyn);
  Value out =
      linalg::GenericOp::create(
          b, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
          ArrayRef<AffineMap>{b.getMultiDimIdentityMap(rank)},
          SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange) {
            SmallVector<Value> ivs;
            for (int64_t i = 0; i < rank; ++i)
              ivs.push_back(linalg::IndexOp::create(nb, l, i));
            SmallVector<Value> coords = dataCoords(
                nb, l, indices, typeOf(data), getBatchDims(), ivs, "GatherND");
            linalg::YieldOp::create(
                nb, l,
                ValueRange{tensor::ExtractOp::create(nb, l, data, coords)});
          })
          .getResult(0);
  return SmallVector<Value>{out};
}

//===----------------------------------------------------------------------===//
// GatherNDGradOp
//===----------------------------------------------------------------------===//

LogicalResult
GatherNDGradOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                 ValueRange operands, DictionaryAttr attrs,
                                 OpaqueProperties props, RegionRange,
                                 SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  results.push_back(typeOf(op.getData()));
  return success();
}

Results GatherNDGradOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  RankedTensorType type = getType();
  Value dy = getGrad(), indices = getIndices();
  SmallVector<Value> dyn;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (type.isDynamicDim(i))
      dyn.push_back(tensor::DimOp::create(b, loc, getData(), i));
  Value empty =
      tensor::EmptyOp::create(b, loc, type.getShape(), b.getF32Type(), dyn);
  Value zeros = linalg::FillOp::create(b, loc, f32Const(b, loc, 0.0f), empty)
                    .getResult(0);
  // Each gradient element added where it was gathered from, in place.
  return SmallVector<Value>{loopOver(
      b, loc, dy, zeros,
      [&](OpBuilder &nb, Location l, ValueRange ivs, Value acc) -> Value {
        SmallVector<Value> coords =
            dataCoords(nb, l, indices, type, getBatchDims(), ivs, "GatherND");
        Value sum = arith::AddFOp::create(
            nb, l, tensor::ExtractOp::create(nb, l, acc, coords),
            tensor::ExtractOp::create(nb, l, dy, ivs));
        return tensor::InsertOp::create(nb, l, sum, acc, coords);
      })};
}

//===----------------------------------------------------------------------===//
// ScatterNDOp
//===----------------------------------------------------------------------===//

LogicalResult ScatterNDOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location>,
                                            ValueRange operands,
                                            DictionaryAttr attrs,
                                            OpaqueProperties props, RegionRange,
                                            SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  results.push_back(typeOf(op.getData()));
  return success();
}

LogicalResult ScatterNDOp::verify() {
  StringRef red = getReduction();
  if (red != "none" && red != "add" && red != "mul" && red != "max" &&
      red != "min")
    return emitOpError("reduction '")
           << red << "' must be none, add, mul, max or min";
  RankedTensorType data = getData().getType(), upd = getUpdates().getType();
  if (data.getElementType() != upd.getElementType())
    return emitOpError("updates of type ")
           << upd << " for data of type " << data;
  std::string why;
  FailureOr<SmallVector<int64_t>> want =
      slicedShape(data, getIndices().getType(), 0, why);
  if (failed(want))
    return emitOpError(why);
  if ((int64_t)want->size() != upd.getRank())
    return emitOpError("updates of rank ")
           << upd.getRank() << ", expected " << want->size()
           << " (indices.shape[:-1] + data.shape[k:])";
  for (auto [i, w] : llvm::enumerate(*want))
    if (!ShapedType::isDynamic(w) && !upd.isDynamicDim(i) &&
        w != upd.getDimSize(i))
      return emitOpError("updates dim ")
             << i << " is " << upd.getDimSize(i) << ", expected " << w
             << " (indices.shape[:-1] + data.shape[k:])";
  int64_t k = getIndices().getType().getShape().back();
  return checkAddressedDims(*this, data, 0, k);
}

LogicalResult ScatterNDOp::buildVJP(OpBuilder &b, ArrayRef<Value> resultGrads,
                                    SmallVectorImpl<Value> &operandGrads) {
  StringRef red = getReduction();
  if (red != "none" && red != "add")
    return emitOpError("has no gradient with reduction '")
           << red << "' (only none and add)";
  Location loc = getLoc();
  Value dy = resultGrads[0];
  // Each update's gradient is the result's at its place.
  Value du =
      GatherNDOp::create(b, loc, dy, getIndices(), b.getI64IntegerAttr(0));
  Value dd = dy;
  if (red == "none") // overwritten positions get nothing
    dd = ScatterNDDataGradOp::create(b, loc, dy, getIndices(), getUpdates());
  operandGrads.assign({dd, Value(), du});
  return success();
}

Results ScatterNDOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  RankedTensorType type = getType();
  Value indices = getIndices(), updates = getUpdates();
  StringRef red = getReduction();
  bool isFloat = isa<FloatType>(type.getElementType());
  // The index tuples in row-major order, each slice element in place.
  return SmallVector<Value>{loopOver(
      b, loc, updates, getData(),
      [&](OpBuilder &nb, Location l, ValueRange ivs, Value acc) -> Value {
        SmallVector<Value> coords =
            dataCoords(nb, l, indices, type, 0, ivs, "ScatterND");
        Value u = tensor::ExtractOp::create(nb, l, updates, ivs);
        if (red != "none") {
          Value old = tensor::ExtractOp::create(nb, l, acc, coords);
          if (red == "add")
            u = isFloat ? Value(arith::AddFOp::create(nb, l, old, u))
                        : Value(arith::AddIOp::create(nb, l, old, u));
          else if (red == "mul")
            u = isFloat ? Value(arith::MulFOp::create(nb, l, old, u))
                        : Value(arith::MulIOp::create(nb, l, old, u));
          else if (red == "max")
            u = isFloat ? Value(arith::MaximumFOp::create(nb, l, old, u))
                        : Value(arith::MaxSIOp::create(nb, l, old, u));
          else
            u = isFloat ? Value(arith::MinimumFOp::create(nb, l, old, u))
                        : Value(arith::MinSIOp::create(nb, l, old, u));
        }
        return tensor::InsertOp::create(nb, l, u, acc, coords);
      })};
}

//===----------------------------------------------------------------------===//
// ScatterNDDataGradOp
//===----------------------------------------------------------------------===//

LogicalResult
ScatterNDDataGradOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                      ValueRange operands, DictionaryAttr attrs,
                                      OpaqueProperties props, RegionRange,
                                      SmallVectorImpl<Type> &results) {
  Adaptor op(operands, attrs, props);
  results.push_back(typeOf(op.getGrad()));
  return success();
}

Results ScatterNDDataGradOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  RankedTensorType type = getType();
  Value indices = getIndices();
  return SmallVector<Value>{loopOver(
      b, loc, getUpdates(), getGrad(),
      [&](OpBuilder &nb, Location l, ValueRange ivs, Value acc) -> Value {
        SmallVector<Value> coords =
            dataCoords(nb, l, indices, type, 0, ivs, "ScatterND");
        return tensor::InsertOp::create(nb, l, f32Const(nb, l, 0.0f), acc,
                                        coords);
      })};
}
