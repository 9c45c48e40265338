//===- NNEmbeddingBagLowering.cpp - embedding bags to loops ---------------===//
//
// nn.embedding_bag and nn.embedding_bag_grad as scf.for loops over the bags
// and, within a bag, over its ids: each step reads (or, for the gradient,
// adds into) one table row as a slice, so the work is that of touching the
// bag's rows once. The bounds are checked (cf.assert) where the offsets and
// ids are read: a bad offset or id is an error, not an out-of-bounds access.
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

Value indexConst(OpBuilder &b, Location l, int64_t v) {
  return arith::ConstantIndexOp::create(b, l, v);
}

Value toIndex(OpBuilder &b, Location l, Value v) {
  return arith::IndexCastOp::create(b, l, b.getIndexType(), v);
}

Value cmp(OpBuilder &b, Location l, arith::CmpIPredicate p, Value x, Value y) {
  return arith::CmpIOp::create(b, l, p, x, y);
}

/// The ids [start, end) of bag `bag`, checked against the ids' size.
std::pair<Value, Value> bagBounds(OpBuilder &b, Location l, Value ids,
                                  Value offsets, Value bag) {
  Value n = tensor::DimOp::create(b, l, ids, 0);
  Value k = tensor::DimOp::create(b, l, offsets, 0);
  Value start = toIndex(b, l, tensor::ExtractOp::create(b, l, offsets, bag));
  // The next bag's start, or, past the last offset, the number of ids.
  Value next = arith::AddIOp::create(b, l, bag, indexConst(b, l, 1));
  Value hasNext = cmp(b, l, arith::CmpIPredicate::ult, next, k);
  Value readable = arith::SelectOp::create(b, l, hasNext, next, bag);
  Value end = arith::SelectOp::create(
      b, l, hasNext,
      toIndex(b, l, tensor::ExtractOp::create(b, l, offsets, readable)), n);
  using P = arith::CmpIPredicate;
  Value ok = arith::AndIOp::create(
      b, l,
      arith::AndIOp::create(b, l, cmp(b, l, P::sge, start, indexConst(b, l, 0)),
                            cmp(b, l, P::sle, start, end)),
      cmp(b, l, P::sle, end, n));
  cf::AssertOp::create(b, l, ok,
                       "EmbeddingBag: offsets must be non-decreasing and "
                       "within the number of ids");
  return {start, end};
}

/// Row `j`'s table row index: the id, negative ones from the end, checked.
Value tableRow(OpBuilder &b, Location l, Value ids, Value j, int64_t rows) {
  Value id = tensor::ExtractOp::create(b, l, ids, j);
  return checkedIndex(b, l, id, rows, "EmbeddingBag: id out of range");
}

/// The offsets, sizes and strides of row `row` of the 2-D `matrix`.
struct RowSlice {
  SmallVector<OpFoldResult> offsets, sizes, strides;
  RowSlice(OpBuilder &b, Location l, Value matrix, Value row)
      : offsets{row, b.getIndexAttr(0)}, sizes{b.getIndexAttr(1),
                                               tensorDim(b, l, matrix, 1)},
        strides(2, b.getIndexAttr(1)) {}
};

/// Row `row` of the 2-D `matrix` as a 1-D slice of type `rowType`.
Value extractRow(OpBuilder &b, Location l, Value matrix, Value row,
                 RankedTensorType rowType) {
  RowSlice r(b, l, matrix, row);
  return tensor::ExtractSliceOp::create(b, l, rowType, matrix, r.offsets,
                                        r.sizes, r.strides);
}

Value insertRow(OpBuilder &b, Location l, Value rowValue, Value matrix,
                Value row) {
  RowSlice r(b, l, matrix, row);
  return tensor::InsertSliceOp::create(b, l, rowValue, matrix, r.offsets,
                                       r.sizes, r.strides);
}

/// An elementwise linalg.generic over 1-D tensors: `ins` read, `outs`
/// updated in place, `body` given the scalars of ins then outs.
SmallVector<Value> rowwise(
    OpBuilder &b, Location l, ValueRange ins, ValueRange outs,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)> body) {
  AffineMap id = b.getMultiDimIdentityMap(1);
  SmallVector<AffineMap> maps(ins.size() + outs.size(), id);
  SmallVector<Type> types;
  for (Value o : outs)
    types.push_back(o.getType());
  auto op = linalg::GenericOp::create(
      b, l, types, ins, outs, maps,
      SmallVector<utils::IteratorType>{utils::IteratorType::parallel},
      [&](OpBuilder &nb, Location nl, ValueRange a) {
        linalg::YieldOp::create(nb, nl, body(nb, nl, a));
      });
  return SmallVector<Value>(op.getResults());
}

/// 1 / max(end - start, 1) as f32: the scale of a mean over a bag (an
/// empty bag's sum is 0 already).
Value inverseCount(OpBuilder &b, Location l, Value start, Value end) {
  Value count = arith::SubIOp::create(b, l, end, start);
  count = arith::MaxSIOp::create(b, l, count, indexConst(b, l, 1));
  Value asInt = arith::IndexCastOp::create(b, l, b.getI64Type(), count);
  Value asFloat = arith::SIToFPOp::create(b, l, b.getF32Type(), asInt);
  return arith::DivFOp::create(b, l, f32Const(b, l, 1.0f), asFloat);
}

/// A zero-filled f32 tensor of `type`, dynamic dims from `dyn`.
Value zeros(OpBuilder &b, Location l, RankedTensorType type, ValueRange dyn) {
  Value empty =
      tensor::EmptyOp::create(b, l, type.getShape(), b.getF32Type(), dyn);
  return linalg::FillOp::create(b, l, f32Const(b, l, 0.0f), empty).getResult(0);
}

} // namespace

Results EmbeddingBagOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  RankedTensorType type = getType();
  Value w = getWeight(), ids = getIds(), offsets = getOffsets();
  int64_t rows = getWeight().getType().getDimSize(0);
  StringRef mode = getMode();
  Value k = tensor::DimOp::create(b, loc, offsets, 0);
  Value bags = k;
  if (getIncludeLastOffset()) {
    cf::AssertOp::create(
        b, loc,
        cmp(b, loc, arith::CmpIPredicate::sge, k, indexConst(b, loc, 1)),
        "EmbeddingBag: include_last_offset needs an offset");
    bags = arith::SubIOp::create(b, loc, k, indexConst(b, loc, 1));
  }
  SmallVector<Value> dyn;
  if (type.isDynamicDim(0))
    dyn.push_back(bags);
  if (type.isDynamicDim(1))
    dyn.push_back(tensor::DimOp::create(b, loc, w, 1));
  Value init = zeros(b, loc, type, dyn);
  auto rowType = RankedTensorType::get({type.getDimSize(1)}, b.getF32Type());
  auto outer = scf::ForOp::create(
      b, loc, indexConst(b, loc, 0), bags, indexConst(b, loc, 1),
      ValueRange{init},
      [&](OpBuilder &ob, Location l, Value bag, ValueRange out) {
        auto [start, end] = bagBounds(ob, l, ids, offsets, bag);
        Value acc0 = extractRow(ob, l, out[0], bag, rowType);
        auto inner = scf::ForOp::create(
            ob, l, start, end, indexConst(ob, l, 1), ValueRange{acc0},
            [&](OpBuilder &ib, Location il, Value j, ValueRange acc) {
              Value r = tableRow(ib, il, ids, j, rows);
              Value row = extractRow(ib, il, w, r, rowType);
              Value first = cmp(ib, il, arith::CmpIPredicate::eq, j, start);
              Value next = rowwise(
                  ib, il, ValueRange{row}, ValueRange{acc[0]},
                  [&](OpBuilder &eb, Location el,
                      ValueRange a) -> SmallVector<Value> {
                    if (mode != "max")
                      return {arith::AddFOp::create(eb, el, a[1], a[0])};
                    Value m = arith::MaximumFOp::create(eb, el, a[1], a[0]);
                    return {arith::SelectOp::create(eb, el, first, a[0], m)};
                  })[0];
              scf::YieldOp::create(ib, il, next);
            });
        Value bagRow = inner.getResult(0);
        if (mode == "mean") {
          Value scale = inverseCount(ob, l, start, end);
          bagRow =
              rowwise(ob, l, ValueRange{}, ValueRange{bagRow},
                      [&](OpBuilder &eb, Location el,
                          ValueRange a) -> SmallVector<Value> {
                        return {arith::MulFOp::create(eb, el, a[0], scale)};
                      })[0];
        }
        scf::YieldOp::create(ob, l, insertRow(ob, l, bagRow, out[0], bag));
      });
  return SmallVector<Value>{outer.getResult(0)};
}

Results EmbeddingBagGradOp::lowerToLinalg(OpBuilder &b) {
  Location loc = getLoc();
  RankedTensorType type = getType();
  Value dy = getGrad(), ids = getIds(), offsets = getOffsets();
  int64_t rows = type.getDimSize(0);
  StringRef mode = getMode();
  bool isMax = mode == "max";
  Value w = isMax ? getMaxInputs()[0] : Value();
  Value result = isMax ? getMaxInputs()[1] : Value();
  SmallVector<Value> dyn;
  if (type.isDynamicDim(1))
    dyn.push_back(tensor::DimOp::create(b, loc, dy, 1));
  Value init = zeros(b, loc, type, dyn);
  auto rowType = RankedTensorType::get({type.getDimSize(1)}, b.getF32Type());
  Value bags = tensor::DimOp::create(b, loc, dy, 0);
  // The dynamic size of a row, if any.
  auto rowDyn = [&](OpBuilder &ob, Location l) {
    SmallVector<Value> d;
    if (rowType.isDynamicDim(0))
      d.push_back(tensor::DimOp::create(ob, l, dy, 1));
    return d;
  };
  auto outer = scf::ForOp::create(
      b, loc, indexConst(b, loc, 0), bags, indexConst(b, loc, 1),
      ValueRange{init},
      [&](OpBuilder &ob, Location l, Value bag, ValueRange dw) {
        auto [start, end] = bagBounds(ob, l, ids, offsets, bag);
        Value g = extractRow(ob, l, dy, bag, rowType);
        SmallVector<Value> carried = {dw[0]};
        Value maxRow;
        if (mode == "mean") {
          Value scale = inverseCount(ob, l, start, end);
          Value scaled = tensor::EmptyOp::create(
              ob, l, rowType.getShape(), ob.getF32Type(), rowDyn(ob, l));
          g = rowwise(ob, l, ValueRange{g}, ValueRange{scaled},
                      [&](OpBuilder &eb, Location el,
                          ValueRange a) -> SmallVector<Value> {
                        return {arith::MulFOp::create(eb, el, a[0], scale)};
                      })[0];
        } else if (isMax) {
          // Per element, whether an earlier row of the bag took it.
          maxRow = extractRow(ob, l, result, bag, rowType);
          carried.push_back(zeros(ob, l, rowType, rowDyn(ob, l)));
        }
        auto inner = scf::ForOp::create(
            ob, l, start, end, indexConst(ob, l, 1), carried,
            [&](OpBuilder &ib, Location il, Value j, ValueRange acc) {
              Value r = tableRow(ib, il, ids, j, rows);
              Value dest = extractRow(ib, il, acc[0], r, rowType);
              SmallVector<Value> next;
              if (!isMax) {
                next = rowwise(ib, il, ValueRange{g}, ValueRange{dest},
                               [&](OpBuilder &eb, Location el,
                                   ValueRange a) -> SmallVector<Value> {
                                 return {
                                     arith::AddFOp::create(eb, el, a[1], a[0])};
                               });
              } else {
                Value row = extractRow(ib, il, w, r, rowType);
                next = rowwise(
                    ib, il, ValueRange{row, maxRow, g},
                    ValueRange{dest, acc[1]},
                    [&](OpBuilder &eb, Location el,
                        ValueRange a) -> SmallVector<Value> {
                      // a: table, max, grad, dest, taken
                      Value free = arith::CmpFOp::create(
                          eb, el, arith::CmpFPredicate::OEQ, a[4],
                          f32Const(eb, el, 0.0f));
                      Value isMaxRow = arith::CmpFOp::create(
                          eb, el, arith::CmpFPredicate::OEQ, a[0], a[1]);
                      Value hit = arith::AndIOp::create(eb, el, free, isMaxRow);
                      Value sum = arith::AddFOp::create(eb, el, a[3], a[2]);
                      return {arith::SelectOp::create(eb, el, hit, sum, a[3]),
                              arith::SelectOp::create(
                                  eb, el, hit, f32Const(eb, el, 1.0f), a[4])};
                    });
              }
              SmallVector<Value> yielded = {
                  insertRow(ib, il, next[0], acc[0], r)};
              if (isMax)
                yielded.push_back(next[1]);
              scf::YieldOp::create(ib, il, yielded);
            });
        scf::YieldOp::create(ob, l, inner.getResult(0));
      });
  return SmallVector<Value>{outer.getResult(0)};
}
