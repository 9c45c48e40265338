//===- NNDynamicShapeLowering.cpp - run-time axes and bounds to linalg ----===//
//
// LowerToLinalgOpInterface of the ops of NNDynamicShapeOps.td. Each computes
// its ONNX result shape from the run-time axes or bounds in scalar arith
// (ranks are static, so the loops over dims unroll here), asserts it
// against the declared result type, then moves the data: a tensor.reshape
// for (Un)Squeeze, an scf.if per dim for ReduceSum, a gather-style
// linalg.generic for Slice.
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

/// Scalar index arithmetic for one op, and its checks: a cf.assert whose
/// message names the ONNX op and the node.
class Scalars {
public:
  Scalars(OpBuilder &b, Operation *op, StringRef onnxOp)
      : b(b), loc(op->getLoc()), prefix(onnxOp.str() + ": ") {
    if (auto name = dyn_cast<NameLoc>(loc))
      suffix = " (node '" + name.getName().str() + "')";
  }

  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value flag(bool v) {
    return arith::ConstantOp::create(b, loc,
                                     b.getIntegerAttr(b.getI1Type(), v));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivSIOp::create(b, loc, x, y); }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value max(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value clamp(Value x, Value lo, Value hi) { return min(max(x, lo), hi); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value eq(Value x, Value y) { return cmp(arith::CmpIPredicate::eq, x, y); }
  Value lt(Value x, Value y) { return cmp(arith::CmpIPredicate::slt, x, y); }
  Value both(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value either(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value no(Value x) { return arith::XOrIOp::create(b, loc, x, flag(true)); }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  /// Entry `k` of the 1-D int64/int32 tensor `t`, as an index.
  Value entry(Value t, int64_t k) {
    Value v = tensor::ExtractOp::create(b, loc, t, ValueRange{c(k)});
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  }
  /// Dim `d` of `t`, a constant when static.
  Value dim(Value t, int64_t d) {
    auto type = cast<RankedTensorType>(t.getType());
    if (!type.isDynamicDim(d))
      return c(type.getDimSize(d));
    return tensor::DimOp::create(b, loc, t, d);
  }
  /// Stops the program with `what` unless `ok`.
  void check(Value ok, const Twine &what) {
    cf::AssertOp::create(b, loc, ok, prefix + what.str() + suffix);
  }

  OpBuilder &b;
  Location loc;

private:
  std::string prefix, suffix;
};

/// The length of the 1-D tensor `t` (static: the verifiers check it).
int64_t lengthOf(Value t) {
  return cast<RankedTensorType>(t.getType()).getDimSize(0);
}

/// `axes` (negative counting from the end) as positions in [0, rank);
/// stops the program when one is out of range.
SmallVector<Value> normalizedAxes(Scalars &s, Value axes, int64_t rank) {
  SmallVector<Value> out;
  for (int64_t i = 0; i < lengthOf(axes); ++i) {
    Value a = s.entry(axes, i);
    s.check(s.both(s.cmp(arith::CmpIPredicate::sge, a, s.c(-rank)),
                   s.lt(a, s.c(rank))),
            "an axis is out of range for rank " + Twine(rank));
    out.push_back(s.select(s.lt(a, s.c(0)), s.add(a, s.c(rank)), a));
  }
  return out;
}

/// Per position in [0, rank), whether `axes` names it; stops the program
/// when an axis is out of range or repeated.
SmallVector<Value> axisMask(Scalars &s, Value axes, int64_t rank) {
  SmallVector<Value> norm = normalizedAxes(s, axes, rank), mask;
  Value count = s.c(0);
  for (int64_t j = 0; j < rank; ++j) {
    Value named = s.flag(false);
    for (Value a : norm)
      named = s.either(named, s.eq(a, s.c(j)));
    mask.push_back(named);
    count = s.add(count, s.select(named, s.c(1), s.c(0)));
  }
  s.check(s.eq(count, s.c(norm.size())), "an axis is repeated");
  return mask;
}

/// The dims of `input` that `removed` does not mark, in order: the first
/// `count` of them (the caller checks that there are that many).
SmallVector<Value> keptDims(Scalars &s, Value input, ArrayRef<Value> removed,
                            int64_t count) {
  SmallVector<Value> pos, dims;
  Value kept = s.c(0);
  for (Value r : removed) {
    pos.push_back(kept);
    kept = s.add(kept, s.select(r, s.c(0), s.c(1)));
  }
  for (int64_t p = 0; p < count; ++p) {
    Value d = s.c(0);
    for (auto [j, r] : llvm::enumerate(removed))
      d = s.select(s.both(s.no(r), s.eq(pos[j], s.c(p))), s.dim(input, j), d);
    dims.push_back(d);
  }
  return dims;
}

/// The number of marks in `mask`, as an index.
Value countOf(Scalars &s, ArrayRef<Value> mask) {
  Value n = s.c(0);
  for (Value m : mask)
    n = s.add(n, s.select(m, s.c(1), s.c(0)));
  return n;
}

/// Stops the program unless `dims` (computed at run time) agree with the
/// static dims of the declared result `type`.
void checkDims(Scalars &s, ArrayRef<Value> dims, RankedTensorType type) {
  for (auto [j, d] : llvm::enumerate(dims))
    if (!type.isDynamicDim(j))
      s.check(s.eq(d, s.c(type.getDimSize(j))),
              "the run-time inputs give result dim " + Twine(j) +
                  " another size than the declared output shape " +
                  shapeStr(type.getShape()));
}

/// `input` reshaped to `type`, whose dims are `dims`.
Value reshapeTo(OpBuilder &b, Location loc, Value input, ArrayRef<Value> dims,
                RankedTensorType type) {
  Value shape = tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({(int64_t)dims.size()}, b.getIndexType()),
      dims);
  return tensor::ReshapeOp::create(b, loc, type, input, shape);
}

} // namespace

Results UnsqueezeDynamicOp::lowerToLinalg(OpBuilder &b) {
  Scalars s(b, *this, "Unsqueeze");
  int64_t rank = getType().getRank();
  int64_t inRank = getInput().getType().getRank();
  SmallVector<Value> mask = axisMask(s, getAxes(), rank), dims;
  // Result dim j is 1 at an axis, else the next input dim.
  Value next = s.c(0);
  for (int64_t j = 0; j < rank; ++j) {
    Value d = s.c(1);
    if (inRank > 0)
      d = tensor::DimOp::create(b, s.loc, getInput(),
                                s.min(next, s.c(inRank - 1)));
    dims.push_back(s.select(mask[j], s.c(1), d));
    next = s.add(next, s.select(mask[j], s.c(0), s.c(1)));
  }
  checkDims(s, dims, getType());
  return SmallVector<Value>{reshapeTo(b, s.loc, getInput(), dims, getType())};
}

Results SqueezeDynamicOp::lowerToLinalg(OpBuilder &b) {
  Scalars s(b, *this, "Squeeze");
  Value input = getInput();
  int64_t inRank = getInput().getType().getRank();
  SmallVector<Value> mask = axisMask(s, getAxes(), inRank);
  for (auto [j, m] : llvm::enumerate(mask))
    s.check(s.either(s.no(m), s.eq(s.dim(input, j), s.c(1))),
            "squeezes a dim whose size is not 1");
  SmallVector<Value> dims = keptDims(s, input, mask, getType().getRank());
  checkDims(s, dims, getType());
  return SmallVector<Value>{reshapeTo(b, s.loc, input, dims, getType())};
}

Results ReduceSumDynamicOp::lowerToLinalg(OpBuilder &b) {
  Scalars s(b, *this, "ReduceSum");
  Location loc = s.loc;
  Value input = getInput();
  int64_t rank = getInput().getType().getRank();
  SmallVector<Value> mask = axisMask(s, getAxes(), rank);
  // Sum each dim the axes name, keeping it with size 1: the dims vary at
  // run time, so the sums are of a tensor with every dim dynamic.
  auto dynamic = RankedTensorType::get(
      SmallVector<int64_t>(rank, ShapedType::kDynamic), b.getF32Type());
  Value t = input;
  if (t.getType() != dynamic)
    t = tensor::CastOp::create(b, loc, dynamic, t);
  for (int64_t j = 0; j < rank; ++j) {
    Value from = t;
    auto sumDim = [&](OpBuilder &nb, Location l) {
      Value sum = buildReduction(
          nb, l, from, {j}, 0.0f,
          [](OpBuilder &ob, Location ol, Value x, Value acc) -> Value {
            return arith::AddFOp::create(ob, ol, x, acc);
          });
      Scalars ns(nb, *this, "ReduceSum");
      SmallVector<Value> dims;
      for (int64_t i = 0; i < rank; ++i)
        dims.push_back(i == j ? ns.c(1) : ns.dim(from, i));
      scf::YieldOp::create(nb, l, reshapeTo(nb, l, sum, dims, dynamic));
    };
    auto keep = [&](OpBuilder &nb, Location l) {
      scf::YieldOp::create(nb, l, from);
    };
    t = scf::IfOp::create(b, loc, mask[j], sumDim, keep).getResult(0);
  }
  SmallVector<Value> dims;
  int64_t outRank = getType().getRank();
  if (getKeepdims()) {
    for (int64_t j = 0; j < rank; ++j)
      dims.push_back(s.dim(t, j));
  } else {
    s.check(s.eq(countOf(s, mask), s.c(rank - outRank)),
            "the axes remove another number of dims than the declared "
            "output shape " +
                shapeStr(getType().getShape()));
    dims = keptDims(s, input, mask, outRank);
  }
  checkDims(s, dims, getType());
  return SmallVector<Value>{reshapeTo(b, loc, t, dims, getType())};
}

Results SliceDynamicOp::lowerToLinalg(OpBuilder &b) {
  Scalars s(b, *this, "Slice");
  Location loc = s.loc;
  Value input = getInput();
  int64_t rank = getInput().getType().getRank();
  int64_t k = lengthOf(getStarts());
  SmallVector<Value> axes = normalizedAxes(s, getAxes(), rank);
  SmallVector<Value> named(rank, s.flag(false));
  SmallVector<Value> starts, steps, sizes;
  for (int64_t j = 0; j < rank; ++j) {
    // An axis the inputs do not name is taken whole.
    Value d = s.dim(input, j), start = s.c(0), end = d, step = s.c(1);
    Value isNamed = s.flag(false);
    for (int64_t i = 0; i < k; ++i) {
      Value here = s.eq(axes[i], s.c(j));
      isNamed = s.either(isNamed, here);
      start = s.select(here, s.entry(getStarts(), i), start);
      end = s.select(here, s.entry(getEnds(), i), end);
      step = s.select(here, s.entry(getSteps(), i), step);
    }
    named[j] = isNamed;
    s.check(s.no(s.eq(step, s.c(0))), "a step is 0");
    // ONNX: negative bounds count from the end, then clamp to the dim
    // ([0, d] forwards, [-1, d - 1] backwards).
    start = s.select(s.lt(start, s.c(0)), s.add(start, d), start);
    end = s.select(s.lt(end, s.c(0)), s.add(end, d), end);
    Value forwards = s.lt(s.c(0), step);
    Value last = s.sub(d, s.c(1));
    start = s.select(forwards, s.clamp(start, s.c(0), d),
                     s.clamp(start, s.c(0), last));
    end = s.select(forwards, s.clamp(end, s.c(0), d),
                   s.clamp(end, s.c(-1), last));
    Value span = s.select(forwards, s.sub(end, start), s.sub(start, end));
    Value stride = s.select(forwards, step, s.sub(s.c(0), step));
    // ceil(span / stride) without overflow for huge strides.
    Value size =
        s.select(s.lt(s.c(0), span),
                 s.add(s.div(s.sub(span, s.c(1)), stride), s.c(1)), s.c(0));
    starts.push_back(start);
    steps.push_back(step);
    sizes.push_back(size);
  }
  s.check(s.eq(countOf(s, named), s.c(k)), "an axis is repeated");
  RankedTensorType type = getType();
  checkDims(s, sizes, type);
  SmallVector<Value> dynamicSizes;
  for (int64_t j = 0; j < rank; ++j)
    if (type.isDynamicDim(j))
      dynamicSizes.push_back(sizes[j]);
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(),
                                       type.getElementType(), dynamicSizes);
  SmallVector<utils::IteratorType> parallel(rank,
                                            utils::IteratorType::parallel);
  Value out =
      linalg::GenericOp::create(
          b, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
          ArrayRef<AffineMap>{b.getMultiDimIdentityMap(rank)}, parallel,
          [&](OpBuilder &nb, Location l, ValueRange) {
            SmallVector<Value> at;
            for (int64_t j = 0; j < rank; ++j) {
              Value i = linalg::IndexOp::create(nb, l, j);
              at.push_back(arith::AddIOp::create(
                  nb, l, starts[j], arith::MulIOp::create(nb, l, steps[j], i)));
            }
            linalg::YieldOp::create(
                nb, l, tensor::ExtractOp::create(nb, l, input, at).getResult());
          })
          .getResult(0);
  return SmallVector<Value>{out};
}

Results RangeOp::lowerToLinalg(OpBuilder &b) {
  Scalars s(b, *this, "Range");
  Location loc = getLoc();
  Type elem = getType().getElementType();
  auto scalar = [&](Value t) -> Value {
    Value v = tensor::ExtractOp::create(b, loc, t, ValueRange{});
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  };
  Value start = scalar(getStart()), limit = scalar(getLimit()),
        delta = scalar(getDelta());
  s.check(s.no(s.eq(delta, s.c(0))), "delta is 0");
  Value count = s.max(
      arith::CeilDivSIOp::create(b, loc, s.sub(limit, start), delta), s.c(0));
  Value empty = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{ShapedType::kDynamic}, elem, ValueRange{count});
  auto map = b.getMultiDimIdentityMap(1);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{empty.getType()}, ValueRange{}, ValueRange{empty},
      ArrayRef<AffineMap>{map},
      ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
      [&](OpBuilder &nb, Location l, ValueRange) {
        Value i = linalg::IndexOp::create(nb, l, 0);
        Value v = arith::AddIOp::create(nb, l, start,
                                        arith::MulIOp::create(nb, l, i, delta));
        linalg::YieldOp::create(
            nb, l, arith::IndexCastOp::create(nb, l, elem, v).getResult());
      });
  return SmallVector<Value>{generic.getResult(0)};
}
