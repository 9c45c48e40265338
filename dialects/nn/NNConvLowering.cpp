//===- NNConvLowering.cpp - conv, pooling, batch norm to linalg -----------===//
//
// Convolutions and poolings become linalg's named NCHW ops on an input
// padded explicitly: the padding is a filled tensor with the input copied
// into its interior (linalg.copy into a slice, which bufferizes in place;
// tensor.pad would copy through a strided memref.copy runtime call).
//
//===----------------------------------------------------------------------===//

#include "nn/NNOps.h"
#include "nn/NNShapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/Sequence.h"

#include <limits>

using namespace mlir;
using namespace autodist::nn;

using Results = FailureOr<SmallVector<Value>>;

static RankedTensorType typeOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// Dim `i` of `v`: its static size or a tensor.dim.
static OpFoldResult dimOf(OpBuilder &b, Location loc, Value v, int64_t i) {
  auto t = typeOf(v);
  if (!t.isDynamicDim(i))
    return b.getIndexAttr(t.getDimSize(i));
  return tensor::DimOp::create(b, loc, v, i).getResult();
}

/// An empty tensor of `type` whose dynamic dims (the batch) are those of
/// `like`, dim for dim.
static Value emptyFrom(OpBuilder &b, Location loc, RankedTensorType type,
                       Value like) {
  SmallVector<Value> dyn;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (type.isDynamicDim(i))
      dyn.push_back(tensor::DimOp::create(b, loc, like, i));
  return tensor::EmptyOp::create(b, loc, type.getShape(), b.getF32Type(), dyn);
}

static Value filled(OpBuilder &b, Location loc, Value empty, float v) {
  return linalg::FillOp::create(b, loc, f32Const(b, loc, v), empty)
      .getResult(0);
}

/// `x` (NCHW) padded by `pads` = [top, left, bottom, right] with `value`.
static Value padSpatial(OpBuilder &b, Location loc, Value x,
                        ArrayRef<int64_t> pads, float value) {
  if (llvm::all_of(pads, [](int64_t p) { return p == 0; }))
    return x;
  auto t = typeOf(x);
  SmallVector<int64_t> shape(t.getShape());
  shape[2] += pads[0] + pads[2];
  shape[3] += pads[1] + pads[3];
  auto paddedType = RankedTensorType::get(shape, b.getF32Type());
  Value padded = filled(b, loc, emptyFrom(b, loc, paddedType, x), value);
  SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0), b.getIndexAttr(0),
                                       b.getIndexAttr(pads[0]),
                                       b.getIndexAttr(pads[1])};
  SmallVector<OpFoldResult> sizes, strides(4, b.getIndexAttr(1));
  for (int64_t i = 0; i < 4; ++i)
    sizes.push_back(dimOf(b, loc, x, i));
  Value slice = tensor::ExtractSliceOp::create(b, loc, t, padded, offsets,
                                               sizes, strides);
  Value copied =
      linalg::CopyOp::create(b, loc, ValueRange{x}, ValueRange{slice})
          .getResult(0);
  return tensor::InsertSliceOp::create(b, loc, copied, padded, offsets, sizes,
                                       strides);
}

/// Splits dim `dim` of `v` into `[outer, size / outer]`.
static Value splitDim(OpBuilder &b, Location loc, Value v, int64_t dim,
                      int64_t outer) {
  auto t = typeOf(v);
  SmallVector<int64_t> shape(t.getShape().take_front(dim));
  shape.push_back(outer);
  shape.push_back(t.getDimSize(dim) / outer);
  llvm::append_range(shape, t.getShape().drop_front(dim + 1));
  SmallVector<ReassociationIndices> re;
  for (int64_t i = 0; i < t.getRank(); ++i) {
    if (i < dim)
      re.push_back({i});
    else if (i == dim)
      re.push_back({i, i + 1});
    else
      re.push_back({i + 1});
  }
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, b.getF32Type()), v, re);
}

//===----------------------------------------------------------------------===//
// ConvOp
//===----------------------------------------------------------------------===//

Results ConvOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  RankedTensorType type = getType();
  Value x = padSpatial(b, loc, getInput(), getPads(), 0.0f);
  Value init = filled(b, loc, emptyFrom(b, loc, type, getInput()), 0.0f);
  Attribute strides = b.getI64TensorAttr(getStrides());
  Attribute dilations = b.getI64TensorAttr(getDilations());
  int64_t g = getGroup();
  Value conv;
  if (g == 1) {
    conv = linalg::Conv2DNchwFchwOp::create(
               b, loc, TypeRange{type}, ValueRange{x, getWeight()},
               ValueRange{init}, strides, dilations)
               .getResult(0);
  } else {
    // [N, G, C/G, H, W] * [G, M/G, C/G, kH, kW] -> [N, G, M/G, OH, OW].
    Value xg = splitDim(b, loc, x, 1, g);
    Value wg = splitDim(b, loc, getWeight(), 0, g);
    Value initg = splitDim(b, loc, init, 1, g);
    Value convg = linalg::Conv2DNgchwGfchwOp::create(
                      b, loc, TypeRange{initg.getType()}, ValueRange{xg, wg},
                      ValueRange{initg}, strides, dilations)
                      .getResult(0);
    SmallVector<ReassociationIndices> re = {{0}, {1, 2}, {3}, {4}};
    conv = tensor::CollapseShapeOp::create(b, loc, type, convg, re);
  }
  if (!getBias())
    return SmallVector<Value>{conv};
  // The bias is added after the sum, as onnxruntime does (accumulating into
  // it would round differently).
  MLIRContext *ctx = b.getContext();
  AffineMap id = b.getMultiDimIdentityMap(4);
  AffineMap channel = AffineMap::get(4, 0, {b.getAffineDimExpr(1)}, ctx);
  SmallVector<utils::IteratorType> par(4, utils::IteratorType::parallel);
  return SmallVector<Value>{
      linalg::GenericOp::create(
          b, loc, TypeRange{type}, ValueRange{conv, getBias()},
          ValueRange{emptyFrom(b, loc, type, getInput())},
          ArrayRef<AffineMap>{id, channel, id}, par,
          [](OpBuilder &nb, Location l, ValueRange a) {
            linalg::YieldOp::create(
                nb, l, ValueRange{arith::AddFOp::create(nb, l, a[0], a[1])});
          })
          .getResult(0)};
}

//===----------------------------------------------------------------------===//
// MaxPoolOp, AveragePoolOp
//===----------------------------------------------------------------------===//

Results MaxPoolOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  RankedTensorType type = getType();
  float ninf = -std::numeric_limits<float>::infinity();
  Value x = padSpatial(b, loc, getInput(), getPads(), ninf);
  Value init = filled(b, loc, emptyFrom(b, loc, type, getInput()), ninf);
  // The window operand only carries the kernel shape.
  Value window =
      tensor::EmptyOp::create(b, loc, getKernelShape(), b.getF32Type());
  return SmallVector<Value>{
      linalg::PoolingNchwMaxOp::create(
          b, loc, TypeRange{type}, ValueRange{x, window}, ValueRange{init},
          b.getI64TensorAttr(getStrides()), b.getI64TensorAttr(getDilations()))
          .getResult(0)};
}

Results AveragePoolOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  RankedTensorType type = getType();
  ArrayRef<int64_t> k = getKernelShape(), s = getStrides(), p = getPads(),
                    d = getDilations();
  Value x = padSpatial(b, loc, getInput(), p, 0.0f);
  Value init = filled(b, loc, emptyFrom(b, loc, type, getInput()), 0.0f);
  Value window = tensor::EmptyOp::create(b, loc, k, b.getF32Type());
  Value sum =
      linalg::PoolingNchwSumOp::create(
          b, loc, TypeRange{type}, ValueRange{x, window}, ValueRange{init},
          b.getI64TensorAttr(s), b.getI64TensorAttr(d))
          .getResult(0);
  auto divide = [](OpBuilder &nb, Location l, ValueRange a) -> Value {
    return arith::DivFOp::create(nb, l, a[0], a[1]);
  };
  bool padded = llvm::any_of(p, [](int64_t v) { return v != 0; });
  if (getCountIncludePad() || !padded) {
    Value n = f32Const(b, loc, static_cast<float>(k[0] * k[1]));
    return SmallVector<Value>{
        buildElementwise(b, loc, type, {sum},
                         [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                           return arith::DivFOp::create(nb, l, a[0], n);
                         })};
  }
  // Without the padding: per output position, the number of window
  // positions inside the input (spatial dims are static), as an [OH, OW]
  // constant that broadcasts over N and C.
  auto inShape = typeOf(getInput()).getShape();
  int64_t oh = type.getDimSize(2), ow = type.getDimSize(3);
  auto inside = [&](int dim, int64_t o) {
    int64_t n = 0;
    for (int64_t j = 0; j < k[dim]; ++j) {
      int64_t i = o * s[dim] - p[dim] + j * d[dim];
      n += i >= 0 && i < inShape[2 + dim];
    }
    return n;
  };
  SmallVector<float> counts;
  for (int64_t i = 0; i < oh; ++i)
    for (int64_t j = 0; j < ow; ++j)
      counts.push_back(static_cast<float>(
          std::max<int64_t>(inside(0, i) * inside(1, j), 1)));
  auto countType = RankedTensorType::get({oh, ow}, b.getF32Type());
  Value countT = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(countType, ArrayRef<float>(counts)));
  return SmallVector<Value>{
      buildElementwise(b, loc, type, {sum, countT}, divide)};
}

//===----------------------------------------------------------------------===//
// GlobalAveragePoolOp
//===----------------------------------------------------------------------===//

Results GlobalAveragePoolOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  Value x = getInput();
  auto t = typeOf(x);
  SmallVector<int64_t> dims =
      llvm::to_vector(llvm::seq<int64_t>(2, t.getRank()));
  int64_t count = 1;
  for (int64_t dim : dims)
    count *= t.getDimSize(dim);
  Value sum = buildReduction(
      b, loc, x, dims, 0.0f,
      [](OpBuilder &nb, Location l, Value v, Value acc) -> Value {
        return arith::AddFOp::create(nb, l, v, acc);
      });
  Value n = f32Const(b, loc, static_cast<float>(count));
  Value mean =
      buildElementwise(b, loc, typeOf(sum), {sum},
                       [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                         return arith::DivFOp::create(nb, l, a[0], n);
                       });
  FailureOr<Value> out = reshapeTensor(b, loc, mean, getType());
  if (failed(out))
    return emitOpError("cannot reshape the mean ")
           << mean.getType() << " to " << getType();
  return SmallVector<Value>{*out};
}

//===----------------------------------------------------------------------===//
// BatchNormOp
//===----------------------------------------------------------------------===//

Results BatchNormOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  RankedTensorType type = getType();
  float epsilon = getEpsilon().convertToFloat();
  auto channels = RankedTensorType::get({type.getDimSize(1)}, b.getF32Type());
  // Per channel, as onnxruntime: s = 1 / sqrt(var + eps) * scale and
  // shift = bias - mean * s.
  Value s = buildElementwise(
      b, loc, channels, {getScale(), getVar()},
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value v = arith::AddFOp::create(nb, l, a[1], f32Const(nb, l, epsilon));
        Value inv = arith::DivFOp::create(nb, l, f32Const(nb, l, 1.0f),
                                          math::SqrtOp::create(nb, l, v));
        return arith::MulFOp::create(nb, l, inv, a[0]);
      });
  Value shift = buildElementwise(
      b, loc, channels, {getBias(), getMean(), s},
      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        return arith::SubFOp::create(nb, l, a[0],
                                     arith::MulFOp::create(nb, l, a[1], a[2]));
      });
  int64_t rank = type.getRank();
  MLIRContext *ctx = b.getContext();
  AffineMap id = b.getMultiDimIdentityMap(rank);
  AffineMap channel = AffineMap::get(rank, 0, {b.getAffineDimExpr(1)}, ctx);
  SmallVector<utils::IteratorType> par(rank, utils::IteratorType::parallel);
  Value y = linalg::GenericOp::create(
                b, loc, TypeRange{type}, ValueRange{getInput(), s, shift},
                ValueRange{emptyFrom(b, loc, type, getInput())},
                ArrayRef<AffineMap>{id, channel, channel, id}, par,
                [](OpBuilder &nb, Location l, ValueRange a) {
                  Value m = arith::MulFOp::create(nb, l, a[0], a[1]);
                  linalg::YieldOp::create(
                      nb, l, ValueRange{arith::AddFOp::create(nb, l, m, a[2])});
                })
                .getResult(0);
  return SmallVector<Value>{y};
}
