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
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType(),
                                 dyn);
}

/// `empty` filled with `v` (converted to its element type: f32, or the
/// bf16/f16 operands of --precision).
static Value filled(OpBuilder &b, Location loc, Value empty, float v) {
  Type e = typeOf(empty).getElementType();
  Value c = f32Const(b, loc, v);
  if (!e.isF32())
    c = arith::ConstantOp::create(b, loc, b.getFloatAttr(e, v));
  return linalg::FillOp::create(b, loc, c, empty).getResult(0);
}

using BodyFn =
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>;

/// A linalg.generic over `numDims` loops writing into `outs`.
static SmallVector<Value> generic(OpBuilder &b, Location loc, ValueRange ins,
                                  ValueRange outs, ArrayRef<AffineMap> maps,
                                  ArrayRef<utils::IteratorType> iters,
                                  BodyFn body) {
  auto op = linalg::GenericOp::create(
      b, loc, outs.getTypes(), ins, outs, maps, iters,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        linalg::YieldOp::create(nb, l, body(nb, l, a));
      });
  return SmallVector<Value>(op.getResults());
}

/// `iters` with `numPar` parallel loops followed by `numRed` reductions.
static SmallVector<utils::IteratorType> loops(int64_t numPar, int64_t numRed) {
  SmallVector<utils::IteratorType> it(numPar, utils::IteratorType::parallel);
  it.append(numRed, utils::IteratorType::reduction);
  return it;
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
  auto paddedType = RankedTensorType::get(shape, t.getElementType());
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

/// Per output position of a 2-D window op, the number of window positions
/// inside the input (at least 1), as an `[OH, OW]` f32 constant.
static Value windowCounts(OpBuilder &b, Location loc, ArrayRef<int64_t> in,
                          ArrayRef<int64_t> out, ArrayRef<int64_t> k,
                          ArrayRef<int64_t> s, ArrayRef<int64_t> p,
                          ArrayRef<int64_t> d) {
  auto inside = [&](int dim, int64_t o) {
    int64_t n = 0;
    for (int64_t j = 0; j < k[dim]; ++j) {
      int64_t i = o * s[dim] - p[dim] + j * d[dim];
      n += i >= 0 && i < in[dim];
    }
    return n;
  };
  SmallVector<float> counts;
  for (int64_t i = 0; i < out[0]; ++i)
    for (int64_t j = 0; j < out[1]; ++j)
      counts.push_back(static_cast<float>(
          std::max<int64_t>(inside(0, i) * inside(1, j), 1)));
  auto countType = RankedTensorType::get({out[0], out[1]}, b.getF32Type());
  return arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(countType, ArrayRef<float>(counts)));
}

//===----------------------------------------------------------------------===//
// Convolution as a contraction (im2col)
//===----------------------------------------------------------------------===//
//
// The columns of the whole batch are one matrix `[C * kH * kW, N * OH * OW]`,
// so that a convolution (group 1) and both its gradients are each one sgemm
// over the batch: per-sample products of the small spatial sizes of deep
// layers (a 512 x 4608 weight times a 1-column input) are matrix-vector
// products that repack the weight for every sample. The products come out
// channels-first (`[M, N, OH, OW]`); one transpose per convolution (and per
// output gradient) converts between that and NCHW.

/// An empty tensor of `shape` whose dynamic dims are the batch size (dim
/// 0) of `like`; its elements are `element`'s, f32 when null.
static Value emptyBatched(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                          Value like, Type element = {}) {
  SmallVector<Value> dyn;
  for (int64_t size : shape)
    if (ShapedType::isDynamic(size))
      dyn.push_back(tensor::DimOp::create(b, loc, like, 0));
  return tensor::EmptyOp::create(b, loc, shape,
                                 element ? element : b.getF32Type(), dyn);
}

/// `v` `[A, B, H, W]` with its first two dims swapped, `[B, A, H, W]`; plus
/// `bias[b]` when given (the batch dim may be dynamic on either side).
static Value swapOuterDims(OpBuilder &b, Location loc, Value v,
                           Value bias = {}) {
  MLIRContext *ctx = b.getContext();
  auto t = typeOf(v);
  SmallVector<int64_t> shape = {t.getDimSize(1), t.getDimSize(0),
                                t.getDimSize(2), t.getDimSize(3)};
  SmallVector<Value> dyn;
  for (int64_t i : {1, 0})
    if (t.isDynamicDim(i))
      dyn.push_back(tensor::DimOp::create(b, loc, v, i));
  Value out = tensor::EmptyOp::create(b, loc, shape, t.getElementType(), dyn);
  AffineExpr i0, i1, h, w;
  bindDims(ctx, i0, i1, h, w);
  SmallVector<Value> ins = {v};
  SmallVector<AffineMap> maps = {AffineMap::get(4, 0, {i1, i0, h, w}, ctx)};
  if (bias) {
    ins.push_back(bias);
    maps.push_back(AffineMap::get(4, 0, {i1}, ctx));
  }
  maps.push_back(b.getMultiDimIdentityMap(4));
  return linalg::GenericOp::create(
             b, loc, TypeRange{out.getType()}, ins, ValueRange{out}, maps,
             SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location l, ValueRange a) {
               Value r =
                   bias ? arith::AddFOp::create(nb, l, a[0], a[1]).getResult()
                        : a[0];
               linalg::YieldOp::create(nb, l, ValueRange{r});
             })
      .getResult(0);
}

/// Collapses `[A, B, H, W]` to `[A, B * H * W]`.
static Value collapseInner(OpBuilder &b, Location loc, Value v) {
  auto t = typeOf(v);
  int64_t inner = t.getDimSize(2) * t.getDimSize(3);
  int64_t cols =
      t.isDynamicDim(1) ? ShapedType::kDynamic : t.getDimSize(1) * inner;
  return tensor::CollapseShapeOp::create(
      b, loc,
      RankedTensorType::get({t.getDimSize(0), cols}, t.getElementType()), v,
      ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}});
}

/// The columns `[C * kH * kW, N * OH * OW]` of a padded NCHW input `xp`:
/// `col[(c, kh, kw), (n, oh, ow)] = xp[n, c, oh * s + kh * d, ow * s + kw *
/// d]`.
static Value im2col(OpBuilder &b, Location loc, Value xp, ArrayRef<int64_t> k,
                    ArrayRef<int64_t> out, ArrayRef<int64_t> s,
                    ArrayRef<int64_t> d) {
  MLIRContext *ctx = b.getContext();
  auto t = typeOf(xp);
  int64_t n = t.getDimSize(0), c = t.getDimSize(1);
  SmallVector<int64_t> fullShape = {c, k[0], k[1], n, out[0], out[1]};
  AffineExpr ci, kh, kw, ni, oh, ow;
  bindDims(ctx, ci, kh, kw, ni, oh, ow);
  SmallVector<AffineMap> maps = {
      AffineMap::get(
          6, 0, {ni, ci, oh * s[0] + kh * d[0], ow * s[1] + kw * d[1]}, ctx),
      b.getMultiDimIdentityMap(6)};
  Value full = generic(
      b, loc, {xp}, {emptyBatched(b, loc, fullShape, xp, t.getElementType())},
      maps, loops(6, 0), [](OpBuilder &, Location, ValueRange a) {
        return SmallVector<Value>{a[0]};
      })[0];
  int64_t cols =
      ShapedType::isDynamic(n) ? ShapedType::kDynamic : n * out[0] * out[1];
  return tensor::CollapseShapeOp::create(
      b, loc,
      RankedTensorType::get({c * k[0] * k[1], cols}, t.getElementType()), full,
      ArrayRef<ReassociationIndices>{{0, 1, 2}, {3, 4, 5}});
}

/// `C = op(A) * op(B)` for rank-2 `a` and `b` as a linalg.contract, with
/// `transA`/`transB` read off the indexing maps (one sgemm).
static Value matmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                    bool transA, bool transB) {
  MLIRContext *ctx = b.getContext();
  auto lt = typeOf(lhs), rt = typeOf(rhs);
  int64_t rows = lt.getDimSize(transA ? 1 : 0);
  int64_t cols = rt.getDimSize(transB ? 0 : 1);
  SmallVector<Value> dyn;
  if (ShapedType::isDynamic(rows))
    dyn.push_back(tensor::DimOp::create(b, loc, lhs, transA ? 1 : 0));
  if (ShapedType::isDynamic(cols))
    dyn.push_back(tensor::DimOp::create(b, loc, rhs, transB ? 0 : 1));
  Value init = filled(
      b, loc,
      tensor::EmptyOp::create(b, loc, {rows, cols}, b.getF32Type(), dyn), 0.0f);
  AffineExpr i, j, kk;
  bindDims(ctx, i, j, kk);
  SmallVector<AffineMap> maps = {
      AffineMap::get(3, 0, {transA ? kk : i, transA ? i : kk}, ctx),
      AffineMap::get(3, 0, {transB ? j : kk, transB ? kk : j}, ctx),
      AffineMap::get(3, 0, {i, j}, ctx)};
  return linalg::ContractOp::create(b, loc, TypeRange{init.getType()},
                                    ValueRange{lhs, rhs}, ValueRange{init},
                                    b.getAffineMapArrayAttr(maps))
      .getResult(0);
}

/// `w` `[M, C, kH, kW]` as `[M, C * kH * kW]`.
static Value weightMatrix(OpBuilder &b, Location loc, Value w) {
  ArrayRef<int64_t> ws = typeOf(w).getShape();
  return tensor::CollapseShapeOp::create(
      b, loc,
      RankedTensorType::get({ws[0], ws[1] * ws[2] * ws[3]},
                            typeOf(w).getElementType()),
      w, ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}});
}

/// `y[n, m, oh, ow] = sum_{c, kh, kw} w[m, c, kh, kw] * xp[n, c, oh * s +
/// kh * d, ow * s + kw * d] (+ bias[m])` (`xp` padded NCHW, `w` `[M, C, kH,
/// kW]`, no groups): one sgemm `[M, CkHkW] x [CkHkW, N OH OW]` over the
/// im2col columns, transposed to NCHW with the bias added on the way.
static Value convContraction(OpBuilder &b, Location loc, Value xp, Value w,
                             Value bias, RankedTensorType type,
                             ArrayRef<int64_t> s, ArrayRef<int64_t> d) {
  ArrayRef<int64_t> ws = typeOf(w).getShape();
  int64_t oh = type.getDimSize(2), ow = type.getDimSize(3);
  Value col = im2col(b, loc, xp, ws.drop_front(2), {oh, ow}, s, d);
  Value yT = matmul(b, loc, weightMatrix(b, loc, w), col, false, false);
  auto yT4Type = RankedTensorType::get({ws[0], type.getDimSize(0), oh, ow},
                                       b.getF32Type());
  Value yT4 = tensor::ExpandShapeOp::create(
      b, loc, yT4Type, yT, ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}});
  return swapOuterDims(b, loc, yT4, bias);
}

//===----------------------------------------------------------------------===//
// ConvOp
//===----------------------------------------------------------------------===//

Results ConvOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  RankedTensorType type = getType();
  Value x = padSpatial(b, loc, getInput(), getPads(), 0.0f);
  int64_t g = getGroup();
  // The bias is added after the sum, as onnxruntime does (accumulating into
  // it would round differently).
  if (g == 1)
    return SmallVector<Value>{convContraction(
        b, loc, x, getWeight(), getBias(), type, getStrides(), getDilations())};
  Value init = filled(b, loc, emptyFrom(b, loc, type, getInput()), 0.0f);
  Attribute strides = b.getI64TensorAttr(getStrides());
  Attribute dilations = b.getI64TensorAttr(getDilations());
  // [N, G, C/G, H, W] * [G, M/G, C/G, kH, kW] -> [N, G, M/G, OH, OW].
  Value xg = splitDim(b, loc, x, 1, g);
  Value wg = splitDim(b, loc, getWeight(), 0, g);
  Value initg = splitDim(b, loc, init, 1, g);
  Value convg = linalg::Conv2DNgchwGfchwOp::create(
                    b, loc, TypeRange{initg.getType()}, ValueRange{xg, wg},
                    ValueRange{initg}, strides, dilations)
                    .getResult(0);
  SmallVector<ReassociationIndices> re = {{0}, {1, 2}, {3}, {4}};
  Value conv = tensor::CollapseShapeOp::create(b, loc, type, convg, re);
  if (!getBias())
    return SmallVector<Value>{conv};
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
  Value countT =
      windowCounts(b, loc, typeOf(getInput()).getShape().drop_front(2),
                   type.getShape().drop_front(2), k, s, p, d);
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

//===----------------------------------------------------------------------===//
// Gradient ops and the training form of batch normalization
//===----------------------------------------------------------------------===//

/// An NCHW tensor of spatial size `size` filled with `fill`, holding `v`
/// (NCHW) at rows `front[0] + i * strides[0]` and columns
/// `front[1] + j * strides[1]`: `v` dilated by the strides and padded.
static Value dilatePad(OpBuilder &b, Location loc, Value v,
                       ArrayRef<int64_t> strides, ArrayRef<int64_t> front,
                       ArrayRef<int64_t> size, TypedAttr fill) {
  auto t = typeOf(v);
  SmallVector<int64_t> shape = {t.getDimSize(0), t.getDimSize(1), size[0],
                                size[1]};
  SmallVector<Value> dyn;
  if (t.isDynamicDim(0))
    dyn.push_back(tensor::DimOp::create(b, loc, v, 0));
  Value empty = tensor::EmptyOp::create(b, loc, shape, t.getElementType(), dyn);
  Value filledT =
      linalg::FillOp::create(
          b, loc, ValueRange{arith::ConstantOp::create(b, loc, fill)},
          ValueRange{empty})
          .getResult(0);
  SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0), b.getIndexAttr(0),
                                       b.getIndexAttr(front[0]),
                                       b.getIndexAttr(front[1])};
  SmallVector<OpFoldResult> sizes;
  for (int64_t i = 0; i < 4; ++i)
    sizes.push_back(dimOf(b, loc, v, i));
  SmallVector<OpFoldResult> steps = {b.getIndexAttr(1), b.getIndexAttr(1),
                                     b.getIndexAttr(strides[0]),
                                     b.getIndexAttr(strides[1])};
  Value slice =
      tensor::ExtractSliceOp::create(b, loc, t, filledT, offsets, sizes, steps);
  Value copied =
      linalg::CopyOp::create(b, loc, ValueRange{v}, ValueRange{slice})
          .getResult(0);
  return tensor::InsertSliceOp::create(b, loc, copied, filledT, offsets, sizes,
                                       steps);
}

/// The interior `[N, C, H, W]` of a gradient `[N, C, Hp, Wp]` of the padded
/// input: the padding's gradient is dropped.
static Value unpad(OpBuilder &b, Location loc, Value padded,
                   RankedTensorType type, ArrayRef<int64_t> pads) {
  if (llvm::all_of(pads, [](int64_t p) { return p == 0; }))
    return padded;
  SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0), b.getIndexAttr(0),
                                       b.getIndexAttr(pads[0]),
                                       b.getIndexAttr(pads[1])};
  SmallVector<OpFoldResult> sizes = {
      dimOf(b, loc, padded, 0), b.getIndexAttr(type.getDimSize(1)),
      b.getIndexAttr(type.getDimSize(2)), b.getIndexAttr(type.getDimSize(3))};
  SmallVector<OpFoldResult> steps(4, b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, type, padded, offsets, sizes,
                                        steps);
}

/// `hp + (k - 1 - kh) * d`: the row of the dilated, padded output gradient
/// (dilatePad with front `(k - 1) * d`) whose window reaches padded input
/// row `hp` at kernel row `kh`.
static AffineExpr flippedRow(AffineExpr hp, AffineExpr kh, int64_t k,
                             int64_t d) {
  return hp + (k - 1) * d - kh * d;
}

/// The gradient `[N, C, Hp, Wp]` of a padded NCHW input from the gradient
/// `dcol` `[C * kH * kW, N * OH * OW]` of its im2col columns (col2im): each
/// column entry is added to the input position it was read from, one
/// strided slice of the input per kernel position. `like` supplies the batch
/// size.
static Value col2im(OpBuilder &b, Location loc, Value dcol, Value like,
                    int64_t c, ArrayRef<int64_t> k, ArrayRef<int64_t> out,
                    ArrayRef<int64_t> padded, ArrayRef<int64_t> s,
                    ArrayRef<int64_t> d) {
  MLIRContext *ctx = b.getContext();
  int64_t n = typeOf(like).getDimSize(0);
  auto col6Type =
      RankedTensorType::get({c, k[0], k[1], n, out[0], out[1]}, b.getF32Type());
  Value col6 = tensor::ExpandShapeOp::create(
      b, loc, col6Type, dcol,
      ArrayRef<ReassociationIndices>{{0, 1, 2}, {3, 4, 5}});
  Value dxp = filled(
      b, loc, emptyBatched(b, loc, {n, c, padded[0], padded[1]}, like), 0.0f);
  auto sliceType =
      RankedTensorType::get({n, c, out[0], out[1]}, b.getF32Type());
  SmallVector<OpFoldResult> sizes = {dimOf(b, loc, like, 0), b.getIndexAttr(c),
                                     b.getIndexAttr(out[0]),
                                     b.getIndexAttr(out[1])};
  SmallVector<OpFoldResult> steps = {b.getIndexAttr(1), b.getIndexAttr(1),
                                     b.getIndexAttr(s[0]),
                                     b.getIndexAttr(s[1])};
  AffineExpr ni, ci, oh, ow;
  bindDims(ctx, ni, ci, oh, ow);
  for (int64_t i = 0; i < k[0]; ++i) {
    for (int64_t j = 0; j < k[1]; ++j) {
      SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0), b.getIndexAttr(0),
                                           b.getIndexAttr(i * d[0]),
                                           b.getIndexAttr(j * d[1])};
      Value view = tensor::ExtractSliceOp::create(b, loc, sliceType, dxp,
                                                  offsets, sizes, steps);
      AffineExpr ki = getAffineConstantExpr(i, ctx),
                 kj = getAffineConstantExpr(j, ctx);
      SmallVector<AffineMap> maps = {
          AffineMap::get(4, 0, {ci, ki, kj, ni, oh, ow}, ctx),
          b.getMultiDimIdentityMap(4)};
      Value sum = generic(b, loc, {col6}, {view}, maps, loops(4, 0),
                          [](OpBuilder &nb, Location l, ValueRange a) {
                            return SmallVector<Value>{
                                arith::AddFOp::create(nb, l, a[1], a[0])};
                          })[0];
      dxp = tensor::InsertSliceOp::create(b, loc, sum, dxp, offsets, sizes,
                                          steps);
    }
  }
  return dxp;
}

Results ConvInputGradOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  MLIRContext *ctx = b.getContext();
  RankedTensorType type = getType();
  Value w = getWeight();
  auto ws = typeOf(w).getShape();
  ArrayRef<int64_t> s = getStrides(), p = getPads(), d = getDilations();
  ArrayRef<int64_t> in = getInputSize();
  int64_t g = getGroup(), k[2] = {ws[2], ws[3]};
  int64_t padded[2] = {in[0] + p[0] + p[2], in[1] + p[1] + p[3]};
  if (g == 1) {
    // dcol = w^T dy: the gradient of the forward's im2col columns, one
    // sgemm `[CkHkW, M] x [M, N OH OW]`, then added into the input
    // positions the columns were read from.
    Value dyT = collapseInner(b, loc, swapOuterDims(b, loc, getGrad()));
    Value dcol = matmul(b, loc, weightMatrix(b, loc, w), dyT,
                        /*transA=*/true, /*transB=*/false);
    ArrayRef<int64_t> out = typeOf(getGrad()).getShape().drop_front(2);
    Value dxp = col2im(b, loc, dcol, getGrad(), ws[1], k, out, padded, s, d);
    return SmallVector<Value>{unpad(b, loc, dxp, type, p)};
  }
  int64_t front[2] = {(k[0] - 1) * d[0], (k[1] - 1) * d[1]};
  Value dyd = dilatePad(b, loc, getGrad(), s, front,
                        {padded[0] + front[0], padded[1] + front[1]},
                        b.getF32FloatAttr(0.0f));
  // dxp[n, g, cg, hp, wp] = sum_{mg, kh, kw} dyd[n, g, mg, flipped rows]
  //                                          * w[g, mg, cg, kh, kw].
  Value dydG = splitDim(b, loc, dyd, 1, g);
  Value wG = splitDim(b, loc, w, 0, g);
  auto outType = RankedTensorType::get(
      {type.getDimSize(0), g, ws[1], padded[0], padded[1]}, b.getF32Type());
  Value init = filled(b, loc, emptyFrom(b, loc, outType, getGrad()), 0.0f);
  AffineExpr n, gi, cg, hp, wp, mg, kh, kw;
  bindDims(ctx, n, gi, cg, hp, wp, mg, kh, kw);
  SmallVector<AffineMap> maps = {
      AffineMap::get(8, 0,
                     {n, gi, mg, flippedRow(hp, kh, k[0], d[0]),
                      flippedRow(wp, kw, k[1], d[1])},
                     ctx),
      AffineMap::get(8, 0, {gi, mg, cg, kh, kw}, ctx),
      AffineMap::get(8, 0, {n, gi, cg, hp, wp}, ctx)};
  Value dxp = generic(b, loc, {dydG, wG}, {init}, maps, loops(5, 3),
                      [](OpBuilder &nb, Location l, ValueRange a) {
                        Value m = arith::MulFOp::create(nb, l, a[0], a[1]);
                        return SmallVector<Value>{
                            arith::AddFOp::create(nb, l, a[2], m)};
                      })[0];
  auto paddedType = RankedTensorType::get(
      {type.getDimSize(0), type.getDimSize(1), padded[0], padded[1]},
      b.getF32Type());
  SmallVector<ReassociationIndices> re = {{0}, {1, 2}, {3}, {4}};
  Value collapsed =
      tensor::CollapseShapeOp::create(b, loc, paddedType, dxp, re);
  return SmallVector<Value>{unpad(b, loc, collapsed, type, p)};
}

Results ConvWeightGradOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  MLIRContext *ctx = b.getContext();
  RankedTensorType type = getType();
  ArrayRef<int64_t> s = getStrides(), d = getDilations();
  int64_t g = getGroup();
  if (g == 1) {
    // dw[m, (c, kh, kw)] = sum_{(n, p)} dy[n, m, p] * col[(c, kh, kw), (n, p)]
    // over the forward's im2col columns (the same ops, so CSE shares them):
    // one sgemm `[M, N OH OW] x [N OH OW, CkHkW]`.
    Value dy = getGrad();
    ArrayRef<int64_t> out = typeOf(dy).getShape().drop_front(2);
    Value xp = padSpatial(b, loc, getInput(), getPads(), 0.0f);
    Value col = im2col(b, loc, xp, type.getShape().drop_front(2), out, s, d);
    Value dyT = collapseInner(b, loc, swapOuterDims(b, loc, dy));
    Value dw2 = matmul(b, loc, dyT, col, /*transA=*/false, /*transB=*/true);
    return SmallVector<Value>{
        tensor::ExpandShapeOp::create(
            b, loc, type, dw2, ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}})
            .getResult()};
  }
  // dw[g, mg, cg, kh, kw] = sum_{n, oh, ow} xp[n, g, cg, oh * s + kh * d, ..]
  //                                        * dy[n, g, mg, oh, ow].
  Value xG =
      splitDim(b, loc, padSpatial(b, loc, getInput(), getPads(), 0.0f), 1, g);
  Value dyG = splitDim(b, loc, getGrad(), 1, g);
  auto outType =
      RankedTensorType::get({g, type.getDimSize(0) / g, type.getDimSize(1),
                             type.getDimSize(2), type.getDimSize(3)},
                            b.getF32Type());
  Value init = filled(b, loc, emptyFrom(b, loc, outType, getInput()), 0.0f);
  AffineExpr gi, mg, cg, kh, kw, n, oh, ow;
  bindDims(ctx, gi, mg, cg, kh, kw, n, oh, ow);
  SmallVector<AffineMap> maps = {
      AffineMap::get(
          8, 0, {n, gi, cg, oh * s[0] + kh * d[0], ow * s[1] + kw * d[1]}, ctx),
      AffineMap::get(8, 0, {n, gi, mg, oh, ow}, ctx),
      AffineMap::get(8, 0, {gi, mg, cg, kh, kw}, ctx)};
  Value dw = generic(b, loc, {xG, dyG}, {init}, maps, loops(5, 3),
                     [](OpBuilder &nb, Location l, ValueRange a) {
                       Value m = arith::MulFOp::create(nb, l, a[0], a[1]);
                       return SmallVector<Value>{
                           arith::AddFOp::create(nb, l, a[2], m)};
                     })[0];
  SmallVector<ReassociationIndices> re = {{0, 1}, {2}, {3}, {4}};
  return SmallVector<Value>{
      tensor::CollapseShapeOp::create(b, loc, type, dw, re).getResult()};
}

/// The gradient of a padded NCHW input `[N, C, Hp, Wp]` from window values
/// `dyd` (the output gradient dilated and padded by dilatePad), summing per
/// position the windows that reach it; `select(args, kh * kW + kw)` says
/// whether a window's value goes to its kernel position (kh, kw).
static Value
scatterWindows(OpBuilder &b, Location loc, ValueRange ins, Value like,
               int64_t channels, ArrayRef<int64_t> padded, ArrayRef<int64_t> k,
               ArrayRef<int64_t> d,
               function_ref<Value(OpBuilder &, Location, ValueRange, Value)>
                   contribution) {
  MLIRContext *ctx = b.getContext();
  auto outType = RankedTensorType::get(
      {typeOf(like).getDimSize(0), channels, padded[0], padded[1]},
      b.getF32Type());
  Value init = filled(b, loc, emptyFrom(b, loc, outType, like), 0.0f);
  AffineExpr n, c, hp, wp, kh, kw;
  bindDims(ctx, n, c, hp, wp, kh, kw);
  AffineMap in = AffineMap::get(
      6, 0,
      {n, c, flippedRow(hp, kh, k[0], d[0]), flippedRow(wp, kw, k[1], d[1])},
      ctx);
  SmallVector<AffineMap> maps(ins.size(), in);
  // The window operand only carries the kernel loops' sizes.
  SmallVector<Value> operands(ins);
  operands.push_back(tensor::EmptyOp::create(b, loc, k, b.getF32Type()));
  maps.push_back(AffineMap::get(6, 0, {kh, kw}, ctx));
  maps.push_back(AffineMap::get(6, 0, {n, c, hp, wp}, ctx));
  int64_t kW = k[1];
  return generic(
      b, loc, operands, {init}, maps, loops(4, 2),
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value kh = linalg::IndexOp::create(nb, l, 4);
        Value kw = linalg::IndexOp::create(nb, l, 5);
        Value kidx = arith::AddIOp::create(
            nb, l,
            arith::MulIOp::create(nb, l, kh,
                                  arith::ConstantIndexOp::create(nb, l, kW)),
            kw);
        Value v = contribution(nb, l, a.drop_back(2), kidx);
        return SmallVector<Value>{arith::AddFOp::create(nb, l, a.back(), v)};
      })[0];
}

/// Whether the windows of a 2-D window op tile its input exactly: kernel
/// equal to the strides, no padding, no dilation, `in = out * strides`.
static bool windowsTile(ArrayRef<int64_t> in, ArrayRef<int64_t> out,
                        ArrayRef<int64_t> k, ArrayRef<int64_t> s,
                        ArrayRef<int64_t> p, ArrayRef<int64_t> d) {
  return k == s && llvm::all_of(p, [](int64_t v) { return v == 0; }) &&
         llvm::all_of(d, [](int64_t v) { return v == 1; }) &&
         in[0] == out[0] * s[0] && in[1] == out[1] * s[1];
}

/// The input gradient `[N, C, H, W]` of a max pooling whose windows tile
/// the input (windowsTile): every input position lies in exactly one
/// window and gets its gradient `dy` if it is the window's maximum
/// (`arg`, the window position `kh * kW + kw`), else 0. One pass over the
/// input, reading the window's values at `(h / kH, w / kW)`.
static Value tiledWindowGrad(OpBuilder &b, Location loc, Value dy, Value arg,
                             RankedTensorType type, ArrayRef<int64_t> k) {
  MLIRContext *ctx = b.getContext();
  AffineExpr n, c, h, w;
  bindDims(ctx, n, c, h, w);
  AffineMap window =
      AffineMap::get(4, 0, {n, c, h.floorDiv(k[0]), w.floorDiv(k[1])}, ctx);
  return generic(
      b, loc, {dy, arg}, {emptyFrom(b, loc, type, dy)},
      {window, window, b.getMultiDimIdentityMap(4)}, loops(4, 0),
      [&](OpBuilder &nb, Location l, ValueRange a) {
        auto offset = [&](int64_t dim) -> Value {
          return arith::RemUIOp::create(
              nb, l, linalg::IndexOp::create(nb, l, dim),
              arith::ConstantIndexOp::create(nb, l, k[dim - 2]));
        };
        Value row = offset(2), col = offset(3);
        Value kidx = arith::AddIOp::create(
            nb, l,
            arith::MulIOp::create(nb, l, row,
                                  arith::ConstantIndexOp::create(nb, l, k[1])),
            col);
        kidx = arith::IndexCastOp::create(nb, l, nb.getI64Type(), kidx);
        Value hit =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, a[1], kidx);
        return SmallVector<Value>{
            arith::SelectOp::create(nb, l, hit, a[0], f32Const(nb, l, 0.0f))};
      })[0];
}

/// Per window of a max pooling of `input` (output shape `outShape`, its
/// dynamic batch that of `like`): the position of the window's maximum as
/// `position` computes it in the loop body (from linalg.index: n, c, oh, ow,
/// kh, kw), the first in row-major window order on ties, NaN winning as in
/// PyTorch; -1 where nothing beats -inf.
static Value windowArgMax(OpBuilder &b, Location loc, Value input,
                          ArrayRef<int64_t> outShape, Value like,
                          ArrayRef<int64_t> k, ArrayRef<int64_t> s,
                          ArrayRef<int64_t> p, ArrayRef<int64_t> d,
                          function_ref<Value(OpBuilder &, Location)> position) {
  MLIRContext *ctx = b.getContext();
  float ninf = -std::numeric_limits<float>::infinity();
  Value xp = padSpatial(b, loc, input, p, ninf);
  auto maxType = RankedTensorType::get(outShape, b.getF32Type());
  Value maxInit = filled(b, loc, emptyFrom(b, loc, maxType, like), ninf);
  Value argEmpty = tensor::EmptyOp::create(
      b, loc, outShape, b.getI64Type(),
      ShapedType::isDynamic(outShape[0])
          ? SmallVector<Value>{tensor::DimOp::create(b, loc, like, 0)}
          : SmallVector<Value>{});
  Value argInit =
      linalg::FillOp::create(
          b, loc, ValueRange{arith::ConstantIntOp::create(b, loc, -1, 64)},
          ValueRange{argEmpty})
          .getResult(0);
  AffineExpr n, c, oh, ow, kh, kw;
  bindDims(ctx, n, c, oh, ow, kh, kw);
  AffineMap out = AffineMap::get(6, 0, {n, c, oh, ow}, ctx);
  SmallVector<AffineMap> maps = {
      AffineMap::get(6, 0, {n, c, oh * s[0] + kh * d[0], ow * s[1] + kw * d[1]},
                     ctx),
      AffineMap::get(6, 0, {kh, kw}, ctx), out, out};
  Value window = tensor::EmptyOp::create(b, loc, k, b.getF32Type());
  return generic(
      b, loc, {xp, window}, {maxInit, argInit}, maps, loops(4, 2),
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value v = a[0], mx = a[2], at = a[3];
        Value take = arith::OrIOp::create(
            nb, l,
            arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT, v, mx),
            arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNO, v, v));
        Value pos =
            arith::IndexCastOp::create(nb, l, nb.getI64Type(), position(nb, l));
        return SmallVector<Value>{
            arith::SelectOp::create(nb, l, take, v, mx),
            arith::SelectOp::create(nb, l, take, pos, at)};
      })[1];
}

/// `a * m + c` on index values, `m` a constant.
static Value mulAdd(OpBuilder &b, Location loc, Value a, int64_t m, Value c) {
  return arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, a,
                            arith::ConstantIndexOp::create(b, loc, m)),
      c);
}

Results MaxPoolIndicesOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  ArrayRef<int64_t> k = getKernelShape(), s = getStrides(), p = getPads(),
                    d = getDilations();
  ArrayRef<int64_t> in = typeOf(getInput()).getShape();
  int64_t C = in[1], H = in[2], W = in[3];
  bool columnMajor = getStorageOrder() == 1;
  // The input position of window element (kh, kw): oh * s + kh * d - pad.
  auto position = [&](OpBuilder &nb, Location l) -> Value {
    auto idx = [&](int64_t dim) -> Value {
      return linalg::IndexOp::create(nb, l, dim);
    };
    // Each value in its own statement: the IR's order must not depend on
    // the compiler's order of evaluating arguments.
    auto at = [&](int64_t outDim, int64_t kDim, int64_t i) -> Value {
      Value o = idx(outDim), kk = idx(kDim);
      Value dil = arith::ConstantIndexOp::create(nb, l, d[i]);
      Value v = mulAdd(nb, l, o, s[i], arith::MulIOp::create(nb, l, kk, dil));
      Value pad = arith::ConstantIndexOp::create(nb, l, p[i]);
      return arith::SubIOp::create(nb, l, v, pad);
    };
    Value h = at(2, 4, 0);
    Value w = at(3, 5, 1);
    Value n = idx(0), c = idx(1);
    Value plane = mulAdd(nb, l, n, C, c); // n * C + c
    return columnMajor ? mulAdd(nb, l, mulAdd(nb, l, plane, W, w), H, h)
                       : mulAdd(nb, l, mulAdd(nb, l, plane, H, h), W, w);
  };
  return SmallVector<Value>{windowArgMax(b, loc, getInput(),
                                         getType().getShape(), getInput(), k, s,
                                         p, d, position)};
}

Results MaxPoolGradOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  RankedTensorType type = getType();
  Value dy = getGrad();
  auto gType = typeOf(dy);
  ArrayRef<int64_t> k = getKernelShape(), s = getStrides(), p = getPads(),
                    d = getDilations();
  // 1. Each window's maximum and its first position (kh * kW + kw; -1 if
  // nothing beats -inf), with NaN winning as in PyTorch.
  int64_t kW = k[1];
  Value arg = windowArgMax(b, loc, getInput(), gType.getShape(), dy, k, s, p, d,
                           [&](OpBuilder &nb, Location l) -> Value {
                             Value kh = linalg::IndexOp::create(nb, l, 4);
                             Value kw = linalg::IndexOp::create(nb, l, 5);
                             return mulAdd(nb, l, kh, kW, kw);
                           });
  // 2. Each input position receives the gradients of the windows whose
  // maximum it is.
  if (windowsTile(type.getShape().drop_front(2), gType.getShape().drop_front(2),
                  k, s, p, d))
    return SmallVector<Value>{tiledWindowGrad(b, loc, dy, arg, type, k)};
  int64_t padded[2] = {type.getDimSize(2) + p[0] + p[2],
                       type.getDimSize(3) + p[1] + p[3]};
  int64_t front[2] = {(k[0] - 1) * d[0], (k[1] - 1) * d[1]};
  SmallVector<int64_t> size = {padded[0] + front[0], padded[1] + front[1]};
  Value dyd = dilatePad(b, loc, dy, s, front, size, b.getF32FloatAttr(0.0f));
  Value argd = dilatePad(b, loc, arg, s, front, size, b.getI64IntegerAttr(-1));
  Value dxp = scatterWindows(
      b, loc, {dyd, argd}, dy, type.getDimSize(1), padded, k, d,
      [](OpBuilder &nb, Location l, ValueRange a, Value kidx) -> Value {
        Value at = arith::IndexCastOp::create(nb, l, nb.getI64Type(), kidx);
        Value hit =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, a[1], at);
        return arith::SelectOp::create(nb, l, hit, a[0], f32Const(nb, l, 0.0f));
      });
  return SmallVector<Value>{unpad(b, loc, dxp, type, p)};
}

Results AveragePoolGradOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  RankedTensorType type = getType();
  Value dy = getGrad();
  auto gType = typeOf(dy);
  ArrayRef<int64_t> k = getKernelShape(), s = getStrides(), p = getPads(),
                    d = getDilations(), in = getInputSize();
  // Each output's gradient divided by its window's divisor (as the
  // forward), then spread over the window.
  bool paddedIn = llvm::any_of(p, [](int64_t v) { return v != 0; });
  Value divisor = getCountIncludePad() || !paddedIn
                      ? f32Const(b, loc, static_cast<float>(k[0] * k[1]))
                      : windowCounts(b, loc, in, gType.getShape().drop_front(2),
                                     k, s, p, d);
  Value scaled;
  if (isa<RankedTensorType>(divisor.getType()))
    scaled = buildElementwise(
        b, loc, gType, {dy, divisor},
        [](OpBuilder &nb, Location l, ValueRange a) {
          return arith::DivFOp::create(nb, l, a[0], a[1]).getResult();
        });
  else
    scaled = buildElementwise(
        b, loc, gType, {dy}, [&](OpBuilder &nb, Location l, ValueRange a) {
          return arith::DivFOp::create(nb, l, a[0], divisor).getResult();
        });
  int64_t padded[2] = {in[0] + p[0] + p[2], in[1] + p[1] + p[3]};
  int64_t front[2] = {(k[0] - 1) * d[0], (k[1] - 1) * d[1]};
  Value dyd = dilatePad(b, loc, scaled, s, front,
                        {padded[0] + front[0], padded[1] + front[1]},
                        b.getF32FloatAttr(0.0f));
  Value dxp = scatterWindows(
      b, loc, {dyd}, dy, type.getDimSize(1), padded, k, d,
      [](OpBuilder &, Location, ValueRange a, Value) { return a[0]; });
  return SmallVector<Value>{unpad(b, loc, dxp, type, p)};
}

/// The number of values per channel of `x` (all dims but 1) as an f32
/// scalar (the batch dim may be dynamic).
static Value perChannelCount(OpBuilder &b, Location loc, Value x) {
  auto t = typeOf(x);
  int64_t staticCount = 1;
  Value count;
  for (int64_t i = 0; i < t.getRank(); ++i) {
    if (i == 1)
      continue;
    if (!t.isDynamicDim(i)) {
      staticCount *= t.getDimSize(i);
      continue;
    }
    Value dim = tensor::DimOp::create(b, loc, x, i);
    dim = arith::IndexCastOp::create(b, loc, b.getI64Type(), dim);
    dim = arith::SIToFPOp::create(b, loc, b.getF32Type(), dim);
    count = count ? arith::MulFOp::create(b, loc, count, dim) : dim;
  }
  Value c = f32Const(b, loc, static_cast<float>(staticCount));
  return count ? arith::MulFOp::create(b, loc, count, c).getResult() : c;
}

/// Sums `body(values of ins)` per channel (dim 1) of the NCHW-like `ins`;
/// per-channel inputs (rank 1) are read at the channel. The sum accumulates
/// in f64 (as PyTorch's CPU batch norm does): batch statistics over large
/// batches would otherwise carry f32 rounding of the whole sum.
static Value
channelSum(OpBuilder &b, Location loc, ValueRange ins,
           function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = typeOf(ins[0]).getRank();
  int64_t c = typeOf(ins[0]).getDimSize(1);
  Value zero = arith::ConstantOp::create(b, loc, b.getF64FloatAttr(0.0));
  Value acc =
      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{c}, b.getF64Type());
  Value init = linalg::FillOp::create(b, loc, ValueRange{zero}, ValueRange{acc})
                   .getResult(0);
  // Loop order: channel first (parallel), then the others (reduced).
  SmallVector<AffineExpr> full = {b.getAffineDimExpr(1), b.getAffineDimExpr(0)};
  for (int64_t i = 2; i < rank; ++i)
    full.push_back(b.getAffineDimExpr(i));
  AffineMap fullMap = AffineMap::get(rank, 0, full, ctx);
  AffineMap chMap = AffineMap::get(rank, 0, {b.getAffineDimExpr(0)}, ctx);
  SmallVector<AffineMap> maps;
  for (Value v : ins)
    maps.push_back(typeOf(v).getRank() == 1 ? chMap : fullMap);
  maps.push_back(chMap);
  Value sum = generic(
      b, loc, ins, {init}, maps, loops(1, rank - 1),
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value v = arith::ExtFOp::create(nb, l, nb.getF64Type(),
                                        body(nb, l, a.drop_back()));
        return SmallVector<Value>{arith::AddFOp::create(nb, l, a.back(), v)};
      })[0];
  AffineMap id = b.getMultiDimIdentityMap(1);
  Value out =
      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{c}, b.getF32Type());
  return generic(b, loc, {sum}, {out}, {id, id}, loops(1, 0),
                 [&](OpBuilder &nb, Location l, ValueRange a) {
                   return SmallVector<Value>{
                       arith::TruncFOp::create(nb, l, nb.getF32Type(), a[0])};
                 })[0];
}

/// `body` elementwise over an `[N, C, ...]` tensor like `like`, with rank-1
/// inputs read per channel.
static Value
channelwise(OpBuilder &b, Location loc, Value like, ValueRange ins,
            function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  MLIRContext *ctx = b.getContext();
  RankedTensorType type = typeOf(like);
  int64_t rank = type.getRank();
  AffineMap id = b.getMultiDimIdentityMap(rank);
  AffineMap ch = AffineMap::get(rank, 0, {b.getAffineDimExpr(1)}, ctx);
  SmallVector<AffineMap> maps;
  for (Value v : ins)
    maps.push_back(typeOf(v).getRank() == 1 ? ch : id);
  maps.push_back(id);
  return generic(b, loc, ins, {emptyFrom(b, loc, type, like)}, maps,
                 loops(rank, 0), [&](OpBuilder &nb, Location l, ValueRange a) {
                   return SmallVector<Value>{body(nb, l, a.drop_back())};
                 })[0];
}

/// `body` elementwise over per-channel tensors `[C]`.
static Value
perChannel(OpBuilder &b, Location loc, ValueRange ins,
           function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  return buildElementwise(b, loc, typeOf(ins[0]), ins, body);
}

/// The scalar of a `[1]` count.
static Value countOf(OpBuilder &b, Location loc, Value count) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  return tensor::ExtractOp::create(b, loc, count, ValueRange{zero});
}

/// Per-channel `sum / n`.
static Value channelMean(OpBuilder &b, Location loc, Value sum, Value n) {
  return perChannel(b, loc, {sum},
                    [&](OpBuilder &nb, Location l, ValueRange a) {
                      return arith::DivFOp::create(nb, l, a[0], n).getResult();
                    });
}

/// Per-channel sum of `(x - mean)^2`.
static Value channelSqDev(OpBuilder &b, Location loc, Value x, Value mean) {
  return channelSum(b, loc, {x, mean},
                    [](OpBuilder &nb, Location l, ValueRange a) {
                      Value c = arith::SubFOp::create(nb, l, a[0], a[1]);
                      return arith::MulFOp::create(nb, l, c, c).getResult();
                    });
}

/// Per-channel sum of `dy * (x - mean)`.
static Value channelGradDev(OpBuilder &b, Location loc, Value dy, Value x,
                            Value mean) {
  return channelSum(b, loc, {dy, x, mean},
                    [](OpBuilder &nb, Location l, ValueRange a) {
                      Value c = arith::SubFOp::create(nb, l, a[1], a[2]);
                      return arith::MulFOp::create(nb, l, a[0], c).getResult();
                    });
}

static Value channelTotal(OpBuilder &b, Location loc, Value x) {
  return channelSum(b, loc, {x},
                    [](OpBuilder &, Location, ValueRange a) { return a[0]; });
}

/// A sum over the global batch reaching the lowering: only dist-synchronize
/// knows the ranks to all-reduce it over, and a local sum would silently give
/// per-rank statistics.
static Results unsynchronizedGlobalBatch(Operation *op) {
  return op->emitOpError("sums over the global batch (global_batch) are not "
                         "synchronized: run dist-synchronize first");
}

Results BatchNormSumOp::lowerToLinalg(OpBuilder &b) {
  if (getGlobalBatch())
    return unsynchronizedGlobalBatch(*this);
  Location loc = getLoc();
  Value n = perChannelCount(b, loc, getInput());
  Value count = tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({1}, b.getF32Type()), ValueRange{n});
  return SmallVector<Value>{channelTotal(b, loc, getInput()), count};
}

Results BatchNormSqDevOp::lowerToLinalg(OpBuilder &b) {
  if (getGlobalBatch())
    return unsynchronizedGlobalBatch(*this);
  Location loc = getLoc();
  Value mean = channelMean(b, loc, getSum(), countOf(b, loc, getCount()));
  return SmallVector<Value>{channelSqDev(b, loc, getInput(), mean)};
}

Results BatchNormGradSumsOp::lowerToLinalg(OpBuilder &b) {
  if (getGlobalBatch())
    return unsynchronizedGlobalBatch(*this);
  Location loc = getLoc();
  return SmallVector<Value>{
      channelTotal(b, loc, getGrad()),
      channelGradDev(b, loc, getGrad(), getInput(), getMean())};
}

Results BatchNormTrainOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  Value x = getInput();
  float eps = getEpsilon().convertToFloat();
  float mom = getMomentum().convertToFloat();
  // This rank's statistics, or the global batch's (sum, sq_dev, count).
  ValueRange global = getGlobalStats();
  Value n =
      global.empty() ? perChannelCount(b, loc, x) : countOf(b, loc, global[2]);
  Value sum = global.empty() ? channelTotal(b, loc, x) : global[0];
  Value mean = channelMean(b, loc, sum, n);
  Value sq = global.empty() ? channelSqDev(b, loc, x, mean) : global[1];
  Value var =
      perChannel(b, loc, {sq}, [&](OpBuilder &nb, Location l, ValueRange a) {
        return arith::DivFOp::create(nb, l, a[0], n).getResult();
      });
  // y = (x - mean) * (1 / sqrt(var + eps) * scale) + bias.
  Value s = perChannel(
      b, loc, {var, getScale()}, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value v = arith::AddFOp::create(nb, l, a[0], f32Const(nb, l, eps));
        Value inv = arith::DivFOp::create(nb, l, f32Const(nb, l, 1.0f),
                                          math::SqrtOp::create(nb, l, v));
        return arith::MulFOp::create(nb, l, inv, a[1]).getResult();
      });
  Value y =
      channelwise(b, loc, x, {x, mean, s, getBias()},
                  [](OpBuilder &nb, Location l, ValueRange a) {
                    Value c = arith::SubFOp::create(nb, l, a[0], a[1]);
                    Value m = arith::MulFOp::create(nb, l, c, a[2]);
                    return arith::AddFOp::create(nb, l, m, a[3]).getResult();
                  });
  // Running statistics (the variance unbiased: * n / (n - 1)).
  auto blend = [&](OpBuilder &nb, Location l, Value running, Value batch) {
    Value r = arith::MulFOp::create(nb, l, running, f32Const(nb, l, mom));
    Value bt = arith::MulFOp::create(nb, l, batch, f32Const(nb, l, 1.0f - mom));
    return arith::AddFOp::create(nb, l, r, bt).getResult();
  };
  Value newMean = perChannel(b, loc, {getMean(), mean},
                             [&](OpBuilder &nb, Location l, ValueRange a) {
                               return blend(nb, l, a[0], a[1]);
                             });
  Value nm1 = arith::SubFOp::create(b, loc, n, f32Const(b, loc, 1.0f));
  bool unbiased = getUnbiasedRunningVar();
  Value newVar = perChannel(
      b, loc, {getVar(), var}, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value batchVar =
            unbiased ? arith::DivFOp::create(
                           nb, l, arith::MulFOp::create(nb, l, a[1], n), nm1)
                           .getResult()
                     : a[1];
        return blend(nb, l, a[0], batchVar);
      });
  return SmallVector<Value>{y, newMean, newVar, mean, var};
}

Results BatchNormGradOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  Value dy = getGrad(), x = getInput();
  float eps = getEpsilon().convertToFloat();
  Value istd = perChannel(
      b, loc, {getVar()}, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value v = arith::AddFOp::create(nb, l, a[0], f32Const(nb, l, eps));
        return arith::DivFOp::create(nb, l, f32Const(nb, l, 1.0f),
                                     math::SqrtOp::create(nb, l, v))
            .getResult();
      });
  Value sdy = channelTotal(b, loc, dy);
  Value sdyx = channelGradDev(b, loc, dy, x, getMean());
  Value dscale = perChannel(
      b, loc, {sdyx, istd}, [](OpBuilder &nb, Location l, ValueRange a) {
        return arith::MulFOp::create(nb, l, a[0], a[1]).getResult();
      });
  Value k = perChannel(
      b, loc, {getScale(), istd}, [](OpBuilder &nb, Location l, ValueRange a) {
        return arith::MulFOp::create(nb, l, a[0], a[1]).getResult();
      });
  if (!getTrainingMode()) {
    Value dx = channelwise(
        b, loc, x, {dy, k}, [](OpBuilder &nb, Location l, ValueRange a) {
          return arith::MulFOp::create(nb, l, a[0], a[1]).getResult();
        });
    return SmallVector<Value>{dx, dscale, sdy};
  }
  // Batch statistics: dx = k * (dy - sum(dy) / n - (x - mean) * istd^2 *
  // sum(dy * (x - mean)) / n), the sums and n over the global batch when
  // the statistics were.
  ValueRange global = getGlobalSums();
  Value n =
      global.empty() ? perChannelCount(b, loc, x) : countOf(b, loc, global[2]);
  Value a = channelMean(b, loc, global.empty() ? sdy : global[0], n);
  Value c = perChannel(b, loc, {global.empty() ? sdyx : global[1], istd},
                       [&](OpBuilder &nb, Location l, ValueRange v) {
                         Value i2 = arith::MulFOp::create(nb, l, v[1], v[1]);
                         Value t = arith::MulFOp::create(nb, l, v[0], i2);
                         return arith::DivFOp::create(nb, l, t, n).getResult();
                       });
  Value dx =
      channelwise(b, loc, x, {dy, x, getMean(), k, a, c},
                  [](OpBuilder &nb, Location l, ValueRange v) {
                    Value xc = arith::SubFOp::create(nb, l, v[1], v[2]);
                    Value t = arith::SubFOp::create(nb, l, v[0], v[4]);
                    t = arith::SubFOp::create(
                        nb, l, t, arith::MulFOp::create(nb, l, xc, v[5]));
                    return arith::MulFOp::create(nb, l, v[3], t).getResult();
                  });
  return SmallVector<Value>{dx, dscale, sdy};
}
