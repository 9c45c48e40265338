//===- ImportReduction.cpp - ReduceSum/Mean/Max, ArgMax/Min, CumSum ------===//

#include "Importer.h"
#include "nn/NNOps.h"

#include <type_traits>

using namespace mlir;

namespace autodist::detail {
namespace {

/// Fails, naming the first, unless every attribute `names` is 0 or 1.
LogicalResult checkFlags(NodeImporter &n, ArrayRef<StringRef> names) {
  for (StringRef name : names) {
    int64_t v = n.attrInt(name);
    if (v != 0 && v != 1) {
      n.error() << "attribute '" << name << "' must be 0 or 1";
      return failure();
    }
  }
  return success();
}

template <typename OpTy> FailureOr<Value> importReduce(NodeImporter &n) {
  FailureOr<Value> x = n.operand(0);
  if (failed(x))
    return failure();
  if (failed(checkFlags(n, {"keepdims", "noop_with_empty_axes"})))
    return failure();
  int64_t keepdims = n.attrInt("keepdims");
  int64_t noop = n.attrInt("noop_with_empty_axes");
  OpBuilder &b = n.b;
  std::optional<std::vector<int64_t>> axes;
  std::optional<Value> runTime =
      n.attr("axes") ? std::nullopt : n.runTimeIndexVector(1);
  if (runTime &&
      cast<RankedTensorType>(runTime->getType()).getDimSize(0) == 0) {
    axes = std::vector<int64_t>{}; // empty whatever its values: as absent
  } else if (runTime && std::is_same_v<OpTy, nn::ReduceSumOp>) {
    // Axes read at run time: the declared output shape, checked by the
    // program against the one the axes give.
    FailureOr<std::vector<int64_t>> shape = n.declaredShape(0, "axes");
    if (failed(shape))
      return failure();
    return n.build<nn::ReduceSumDynamicOp>(
        {*x, *runTime},
        {b.getNamedAttr("keepdims", b.getBoolAttr(keepdims)),
         b.getNamedAttr("shape", b.getDenseI64ArrayAttr(*shape))});
  } else {
    auto a = n.axes(1);
    if (failed(a))
      return failure();
    axes = *a;
  }
  return n.build<OpTy>(
      {*x}, {b.getNamedAttr("axes", b.getDenseI64ArrayAttr(
                                        axes.value_or(std::vector<int64_t>{}))),
             b.getNamedAttr("keepdims", b.getBoolAttr(keepdims)),
             b.getNamedAttr("noop_with_empty_axes", b.getBoolAttr(noop))});
}

/// CumSum: the axis is a constant scalar input (int64 or int32).
FailureOr<Value> importCumSum(NodeImporter &n) {
  FailureOr<Value> x = n.operand(0);
  if (failed(x))
    return failure();
  int64_t rank = cast<RankedTensorType>(x->getType()).getRank();
  int64_t a = 0;
  SmallVector<Value> operands = {*x};
  if (!n.intConstant(1)) {
    // An axis computed at run time (a graph input): a scalar operand.
    FailureOr<Value> axis = n.operand(1);
    if (failed(axis))
      return failure();
    auto t = dyn_cast<RankedTensorType>(axis->getType());
    if (!t || t.getRank() != 0 ||
        !(t.getElementType().isSignlessInteger(64) ||
          t.getElementType().isSignlessInteger(32))) {
      n.error() << "input 'axis' must be an int64 or int32 scalar, got "
                << axis->getType();
      return failure();
    }
    if (rank == 0) {
      n.error() << "the input must have rank >= 1";
      return failure();
    }
    operands.push_back(*axis);
  } else {
    FailureOr<std::vector<int64_t>> axis = n.constInput(1, "axis");
    if (failed(axis))
      return failure();
    if (axis->size() != 1) {
      n.error() << "input 'axis' must be a scalar";
      return failure();
    }
    a = (*axis)[0];
    if (a < -rank || a >= rank) {
      n.error() << "axis " << a << " is out of range for rank " << rank;
      return failure();
    }
    if (a < 0)
      a += rank;
  }
  if (failed(checkFlags(n, {"exclusive", "reverse"})))
    return failure();
  int64_t exclusive = n.attrInt("exclusive"), reverse = n.attrInt("reverse");
  OpBuilder &b = n.b;
  return n.build<nn::CumSumOp>(
      operands, {b.getNamedAttr("axis", b.getI64IntegerAttr(a)),
                 b.getNamedAttr("exclusive", b.getBoolAttr(exclusive)),
                 b.getNamedAttr("reverse", b.getBoolAttr(reverse))});
}

/// ArgMax, ArgMin: a constant axis (negative counts from the end).
template <typename OpTy> FailureOr<Value> importArg(NodeImporter &n) {
  FailureOr<Value> x = n.operand(0);
  if (failed(x))
    return failure();
  int64_t rank = cast<RankedTensorType>(x->getType()).getRank();
  int64_t axis = n.attrInt("axis"), keepdims = n.attrInt("keepdims"),
          last = n.attrInt("select_last_index");
  if (axis < -rank || axis >= rank) {
    n.error() << "axis " << axis << " is out of range for rank " << rank;
    return failure();
  }
  if (failed(checkFlags(n, {"keepdims", "select_last_index"})))
    return failure();
  OpBuilder &b = n.b;
  return n.build<OpTy>(
      {*x}, {b.getNamedAttr("axis",
                            b.getI64IntegerAttr(axis < 0 ? axis + rank : axis)),
             b.getNamedAttr("keepdims", b.getBoolAttr(keepdims)),
             b.getNamedAttr("select_last_index", b.getBoolAttr(last))});
}

std::vector<AttrSpec> reduceAttributes() {
  return {"axes", {"keepdims", 1}, {"noop_with_empty_axes", 0}};
}

} // namespace

void registerReductionOps(OpRegistry &r) {
  r.add({"ReduceSum",
         7,
         reduceAttributes(),
         importReduce<nn::ReduceSumOp>,
         {},
         {"", "`nn.reduce_sum`", "yes (`nn.broadcast_like`)",
          "`axes` attribute (opset < 13) or constant int64 `axes` input (13+; "
          "either form is accepted at any opset, not both), `keepdims` (0/1, "
          "default 1), `noop_with_empty_axes` (0/1). Empty or absent axes "
          "reduce over all dims, or with `noop_with_empty_axes=1` return the "
          "input. A run-time axes input (a graph input) needs the output "
          "shape declared in the model: `nn.reduce_sum_dynamic` to that "
          "shape, summing each dim the axes name at run time and checking "
          "the shape (no gradient)"}});
  const char *meanMaxGradient =
      "Mean: broadcast, divided by the reduced count (at run time over a "
      "dynamic dim). Max: to the positions equal to the max, split evenly "
      "among ties (as `torch.amax`)";
  const char *meanMaxNotes =
      "as ReduceSum; axes input from opset 18. The mean over a dynamic dim "
      "divides by its run-time size; ReduceMax of NaN is NaN";
  r.add({"ReduceMean",
         7,
         reduceAttributes(),
         importReduce<nn::ReduceMeanOp>,
         {},
         {"", "`nn.reduce_mean`", meanMaxGradient, meanMaxNotes}});
  r.add({"ReduceMax",
         7,
         reduceAttributes(),
         importReduce<nn::ReduceMaxOp>,
         {},
         {"", "`nn.reduce_max`", meanMaxGradient, meanMaxNotes}});
  const char *argNotes =
      "`axis` (negative counts from the end), `keepdims` (0/1, default 1), "
      "`select_last_index` (0/1, opset 12+: the last index among ties "
      "instead of the first). Float and signed integer inputs; a NaN counts "
      "as the extreme (the first NaN, as numpy and PyTorch)";
  r.add({"ArgMax",
         1,
         {{"axis", 0}, {"keepdims", 1}, {"select_last_index", 0}},
         importArg<nn::ArgMaxOp>,
         {},
         {"", "`nn.arg_max`", "none (an int64 index)", argNotes}});
  r.add({"ArgMin",
         1,
         {{"axis", 0}, {"keepdims", 1}, {"select_last_index", 0}},
         importArg<nn::ArgMinOp>,
         {},
         {"", "`nn.arg_min`", "none (an int64 index)", argNotes}});
  r.add({"CumSum",
         11,
         {{"exclusive", 0}, {"reverse", 0}},
         importCumSum,
         {},
         {"", "`nn.cumsum`",
          "yes (the cumulative sum of the gradient in the other direction)",
          "scalar `axis` input (int64 or int32, negative counts from the "
          "end): a constant, or computed at run time (a switch over the "
          "rank's axes; outside [-rank, rank) the program stops); "
          "`exclusive` and `reverse` (0/1). Any float or integer type "
          "(integers wrap); a loop over the axis, one slice per step"}});
}

} // namespace autodist::detail
