//===- ImportShape.cpp - data movement: reshape, slice, gather, ... -------===//
//
// Operators that move data without arithmetic. Of int64/bool constants
// (exporters' shape arithmetic) they fold at import (FoldShapes.cpp); Shape
// and Size always do.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "nn/NNOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace autodist::detail {
namespace {

FailureOr<Value> importTranspose(NodeImporter &n) {
  FailureOr<Value> x = n.operand(0);
  if (failed(x))
    return failure();
  std::vector<int64_t> perm;
  if (std::optional<std::vector<int64_t>> p = n.attrInts("perm")) {
    perm = *p;
  } else {
    for (int64_t i = cast<RankedTensorType>(x->getType()).getRank() - 1; i >= 0;
         --i)
      perm.push_back(i);
  }
  return n.build<nn::TransposeOp>(
      {*x}, {n.b.getNamedAttr("perm", n.b.getDenseI64ArrayAttr(perm))});
}

template <bool Unsqueeze> FailureOr<Value> importSqueeze(NodeImporter &n) {
  FailureOr<Value> x = n.operand(0);
  if (failed(x))
    return failure();
  // Axes read at run time (opset 13+): the declared output shape, checked
  // by the program against the one the axes give.
  if (!n.attr("axes"))
    if (std::optional<Value> runTime = n.runTimeIndexVector(1)) {
      FailureOr<std::vector<int64_t>> shape = n.declaredShape(0, "axes");
      if (failed(shape))
        return failure();
      NamedAttribute attr =
          n.b.getNamedAttr("shape", n.b.getDenseI64ArrayAttr(*shape));
      if (Unsqueeze)
        return n.build<nn::UnsqueezeDynamicOp>({*x, *runTime}, {attr});
      return n.build<nn::SqueezeDynamicOp>({*x, *runTime}, {attr});
    }
  auto axes = n.axes(1);
  if (failed(axes))
    return failure();
  std::vector<int64_t> list;
  if (axes->has_value()) {
    list = **axes;
  } else if (Unsqueeze) {
    n.error() << "needs axes (attribute 'axes' or the axes input)";
    return failure();
  } else {
    // No axes: every static size-1 dim (a dynamic dim is never squeezed).
    auto shape = cast<RankedTensorType>(x->getType()).getShape();
    for (auto [i, d] : llvm::enumerate(shape))
      if (d == 1)
        list.push_back(i);
  }
  NamedAttribute attr =
      n.b.getNamedAttr("axes", n.b.getDenseI64ArrayAttr(list));
  if (Unsqueeze)
    return n.build<nn::UnsqueezeOp>({*x}, {attr});
  return n.build<nn::SqueezeOp>({*x}, {attr});
}

FailureOr<Value> importConcat(NodeImporter &n) {
  if (!n.attr("axis")) {
    n.error() << "attribute 'axis' is missing";
    return failure();
  }
  FailureOr<SmallVector<Value>> ins = n.operands();
  if (failed(ins))
    return failure();
  return n.build<nn::ConcatOp>(
      *ins,
      {n.b.getNamedAttr("axis", n.b.getI64IntegerAttr(n.attrInt("axis", 0)))});
}

FailureOr<Value> importGather(NodeImporter &n) {
  FailureOr<Value> data = n.operand(0), indices = n.operand(1);
  if (failed(data) || failed(indices))
    return failure();
  return n.build<nn::GatherOp>(
      {*data, *indices},
      {n.b.getNamedAttr("axis", n.b.getI64IntegerAttr(n.attrInt("axis")))});
}

FailureOr<Value> importGatherElements(NodeImporter &n) {
  FailureOr<Value> data = n.operand(0), indices = n.operand(1);
  if (failed(data) || failed(indices))
    return failure();
  return n.build<nn::GatherElementsOp>(
      {*data, *indices},
      {n.b.getNamedAttr("axis", n.b.getI64IntegerAttr(n.attrInt("axis")))});
}

FailureOr<Value> importFlatten(NodeImporter &n) {
  FailureOr<Value> x = n.operand(0);
  if (failed(x))
    return failure();
  return n.build<nn::FlattenOp>(
      {*x},
      {n.b.getNamedAttr("axis", n.b.getI64IntegerAttr(n.attrInt("axis")))});
}

/// The index of the (first) dynamic dim of `t`.
int64_t dynamicAxis(RankedTensorType t) {
  for (int64_t i = 0; i < t.getRank(); ++i)
    if (t.isDynamicDim(i))
      return i;
  return -1;
}

/// Whether `op` may change the extent of axis `axis` of its operand (a
/// concat, slice, split or pad along it).
bool actsOnAxis(Operation *op, int64_t axis, int64_t rank) {
  auto norm = [&](int64_t a) { return a < 0 ? a + rank : a; };
  if (auto c = dyn_cast<nn::ConcatOp>(op))
    return norm(c.getAxis()) == axis;
  if (auto s = dyn_cast<nn::SplitOp>(op))
    return norm(s.getAxis()) == axis;
  if (auto s = dyn_cast<nn::SliceOp>(op))
    return llvm::any_of(s.getAxes(),
                        [&](int64_t a) { return norm(a) == axis; });
  if (auto p = dyn_cast<nn::PadOp>(op)) {
    ArrayRef<int64_t> pads = p.getPads();
    return pads.size() == size_t(2 * rank) &&
           (pads[axis] != 0 || pads[axis + rank] != 0);
  }
  return false;
}

/// The one dynamic dim of `v` as a multiple of the batch, where the IR
/// shows it: a reshape or flatten that folded static dims into it (`x.view(
/// -1, d)` of `[B, L, d]` is `[L B, d]`), through ops whose result keeps an
/// operand's dynamic extent. 1 where it does not (the batch itself, or an
/// op that may change the extent): the guess that nn.reshape's run-time
/// check then guards, as any resolution of a dynamic reshape.
int64_t batchMultiple(Value v) {
  auto staticElements = [](RankedTensorType t) {
    int64_t n = 1;
    for (int64_t d : t.getShape())
      if (!ShapedType::isDynamic(d))
        n *= d;
    return n;
  };
  int64_t num = 1, den = 1;
  for (int depth = 0; depth < 256; ++depth) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    Operation *op = v.getDefiningOp();
    if (!t || t.getNumDynamicDims() != 1 || !op)
      break;
    if (actsOnAxis(op, dynamicAxis(t), t.getRank()))
      return 1;
    Value from;
    for (Value operand : op->getOperands()) {
      auto ot = dyn_cast<RankedTensorType>(operand.getType());
      if (ot && ot.getNumDynamicDims() == 1) {
        from = operand;
        break;
      }
    }
    if (!from)
      return 1;
    if (isa<nn::ReshapeOp, nn::FlattenOp>(op)) {
      num *= staticElements(cast<RankedTensorType>(from.getType()));
      den *= staticElements(t);
    }
    v = from;
  }
  if (den == 0 || num % den != 0)
    return 1;
  return num / den;
}

/// Reshape's constant shape input; one entry unknown at import (the batch
/// dim read by Shape) becomes -1. One unknown entry beside a -1
/// (`x.view(b, -1, heads, d)`) on an input with one dynamic dim is resolved
/// assuming the unknown entry is that dim (or k times it, when it is
/// known to be a multiple: `x.view(b * heads, -1, d)`); `check` is then set
/// to the run-time shape, which the program compares with the resolution.
FailureOr<std::vector<int64_t>> reshapeTarget(NodeImporter &n, Value input,
                                              Value &check) {
  const IntConstant *c = n.intConstant(1);
  if (c && !c->isBool) {
    std::vector<int64_t> shape = c->values;
    int64_t unknowns = llvm::count_if(shape, isUnknown);
    // Exporters read the batch dim with Shape; unknown, it is inferred.
    if (unknowns == 1 && !llvm::is_contained(shape, -1)) {
      for (int64_t &d : shape)
        if (isUnknown(d))
          d = -1;
      return shape;
    }
    auto in = cast<RankedTensorType>(input.getType());
    std::optional<Value> sizes = n.runTimeValue(1);
    if (unknowns == 1 && llvm::count(shape, -1) == 1 &&
        in.getNumDynamicDims() == 1 && sizes) {
      // Static elements of the input against the known entries (0 copies
      // a static input dim; copying the dynamic one is not resolved).
      int64_t staticIn = batchMultiple(input), known = 1;
      bool resolvable = true;
      for (int64_t d : in.getShape())
        if (!ShapedType::isDynamic(d))
          staticIn *= d;
      for (auto [i, d] : llvm::enumerate(shape)) {
        if (isUnknown(d) || d == -1)
          continue;
        int64_t v = d;
        if (d == 0) {
          if (i >= (size_t)in.getRank() || in.isDynamicDim(i)) {
            resolvable = false;
            break;
          }
          v = in.getDimSize(i);
        }
        known *= v;
      }
      for (int64_t d : shape)
        if (isUnknown(d))
          known *= multipleOfDim(d).value_or(1);
      if (resolvable && known > 0 && staticIn % known == 0) {
        for (int64_t &d : shape)
          d = d == -1 ? staticIn / known : isUnknown(d) ? -1 : d;
        check = *sizes;
        return shape;
      }
    }
  }
  if (std::optional<Value> sizes = n.runTimeIndexVector(1)) {
    // A shape read at run time (a graph input): the output shape the model
    // declares, which the program checks against it.
    FailureOr<std::vector<int64_t>> declared = n.declaredShape(0, "shape");
    if (failed(declared))
      return failure();
    auto t = cast<RankedTensorType>(sizes->getType());
    if (!t.getElementType().isSignlessInteger(64) ||
        t.getDimSize(0) != (int64_t)declared->size() ||
        llvm::count(*declared, -1) > 1) {
      n.error() << "the run-time shape input (" << t
                << ") does not fit the declared output shape "
                << listString(*declared)
                << " (int64, one entry per dim, at most one unknown dim)";
      return failure();
    }
    check = *sizes;
    return *declared;
  }
  return n.constInput(1, "shape");
}

FailureOr<Value> importReshape(NodeImporter &n) {
  FailureOr<Value> x = n.operand(0);
  if (failed(x))
    return failure();
  Value check;
  FailureOr<std::vector<int64_t>> shape = reshapeTarget(n, *x, check);
  if (failed(shape))
    return failure();
  if (n.attrInt("allowzero") != 0) {
    n.error() << "allowzero=1 is not supported";
    return failure();
  }
  SmallVector<Value> operands = {*x};
  if (check)
    operands.push_back(check);
  return n.build<nn::ReshapeOp>(
      operands, {n.b.getNamedAttr("shape", n.b.getDenseI64ArrayAttr(*shape))});
}

/// An nn.slice of `x` with these attributes (type inference reports bad
/// ones, naming the node).
FailureOr<Value> buildSlice(NodeImporter &n, Value x, ArrayRef<int64_t> starts,
                            ArrayRef<int64_t> ends, ArrayRef<int64_t> axes,
                            ArrayRef<int64_t> steps) {
  OpBuilder &b = n.b;
  return n.build<nn::SliceOp>(
      {x}, {b.getNamedAttr("starts", b.getDenseI64ArrayAttr(starts)),
            b.getNamedAttr("ends", b.getDenseI64ArrayAttr(ends)),
            b.getNamedAttr("axes", b.getDenseI64ArrayAttr(axes)),
            b.getNamedAttr("steps", b.getDenseI64ArrayAttr(steps))});
}

/// Slice whose starts, ends, axes or steps are read at run time: an
/// nn.slice_dynamic to the declared output shape (checked by the program),
/// with ONNX's default axes and steps as constants.
FailureOr<Value> sliceAtRunTime(NodeImporter &n, Value x) {
  FailureOr<std::vector<int64_t>> shape =
      n.declaredShape(0, "starts, ends, axes or steps");
  if (failed(shape))
    return failure();
  SmallVector<Value> operands = {x};
  for (int i = 1; i <= 4; ++i) {
    if (n.hasInput(i)) {
      FailureOr<Value> v = n.operand(i);
      if (failed(v))
        return failure();
      operands.push_back(*v);
      continue;
    }
    // Absent axes are 0, 1, ...; absent steps 1.
    int64_t k = cast<RankedTensorType>(operands[1].getType()).getDimSize(0);
    std::vector<int64_t> values;
    for (int64_t j = 0; j < k; ++j)
      values.push_back(i == 3 ? j : 1);
    auto type = RankedTensorType::get({k}, n.b.getI64Type());
    operands.push_back(arith::ConstantOp::create(
        n.b, n.loc(), DenseIntElementsAttr::get(type, ArrayRef(values))));
  }
  return n.build<nn::SliceDynamicOp>(
      operands, {n.b.getNamedAttr("shape", n.b.getDenseI64ArrayAttr(*shape))});
}

FailureOr<Value> importSlice(NodeImporter &n) {
  FailureOr<Value> x = n.operand(0);
  if (failed(x))
    return failure();
  std::vector<int64_t> starts, ends, axes, steps;
  if (n.opset() < 10) {
    std::optional<std::vector<int64_t>> s = n.attrInts("starts"),
                                        e = n.attrInts("ends");
    if (!s || !e) {
      n.error() << "attributes 'starts' and 'ends' are required";
      return failure();
    }
    starts = *s;
    ends = *e;
    if (std::optional<std::vector<int64_t>> a = n.attrInts("axes"))
      axes = *a;
  } else {
    if (n.attr("starts") || n.attr("ends") || n.attr("axes")) {
      n.error() << "attributes 'starts', 'ends' and 'axes' are inputs "
                   "since opset 10";
      return failure();
    }
    for (int i = 1; i <= 4; ++i)
      if (n.runTimeIndexVector(i))
        return sliceAtRunTime(n, *x);
    FailureOr<std::vector<int64_t>> s = n.constInput(1, "starts");
    if (failed(s))
      return failure();
    FailureOr<std::vector<int64_t>> e = n.constInput(2, "ends");
    if (failed(e))
      return failure();
    starts = *s;
    ends = *e;
    if (n.hasInput(3)) {
      FailureOr<std::vector<int64_t>> a = n.constInput(3, "axes");
      if (failed(a))
        return failure();
      axes = *a;
    }
    if (n.hasInput(4)) {
      FailureOr<std::vector<int64_t>> st = n.constInput(4, "steps");
      if (failed(st))
        return failure();
      steps = *st;
    }
  }
  if (axes.empty())
    for (int64_t i = 0; i < (int64_t)starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  return buildSlice(n, *x, starts, ends, axes, steps);
}

/// Pad in `edge` or `reflect` mode, as np.pad: axis by axis, `x` becomes
/// the concatenation of 1-wide slices of itself (the first or last entry
/// repeated, or the entries mirrored without the edge) around it, so the
/// gradient is the slices' and the concatenation's. `pads` are >= 0.
FailureOr<Value> padBySlices(NodeImporter &n, Value x, StringRef mode,
                             ArrayRef<int64_t> pads) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  for (int64_t i = 0; i < rank; ++i) {
    int64_t lo = pads[i], hi = pads[rank + i];
    if (!lo && !hi)
      continue;
    int64_t dim = type.getDimSize(i);
    bool reflect = mode == "reflect";
    if (reflect ? (lo >= dim || hi >= dim) : dim < 1) {
      n.error() << "mode '" << mode << "' pads dim " << i << " (size " << dim
                << ") by " << lo << " and " << hi
                << (reflect ? ": reflect pads must be smaller than the dim"
                            : ": edge padding needs a non-empty dim");
      return failure();
    }
    auto entry = [&](int64_t at) {
      return buildSlice(n, x, {at}, {at + 1}, {i}, {1});
    };
    SmallVector<Value> pieces;
    for (int64_t k = lo; k >= 1; --k) {
      FailureOr<Value> s = entry(reflect ? k : 0);
      if (failed(s))
        return failure();
      pieces.push_back(*s);
    }
    pieces.push_back(x);
    for (int64_t k = 1; k <= hi; ++k) {
      FailureOr<Value> s = entry(reflect ? dim - 1 - k : dim - 1);
      if (failed(s))
        return failure();
      pieces.push_back(*s);
    }
    FailureOr<Value> joined = n.build<nn::ConcatOp>(
        pieces, {n.b.getNamedAttr("axis", n.b.getI64IntegerAttr(i))});
    if (failed(joined))
      return failure();
    x = *joined;
    type = cast<RankedTensorType>(x.getType());
  }
  return x;
}

/// Pad: negative pads (crops) become an nn.slice, the rest an nn.pad of
/// `constant_value` (0 when not given) in constant mode, slices and
/// concatenations in edge and reflect mode (padBySlices).
FailureOr<Value> importPad(NodeImporter &n) {
  FailureOr<Value> x = n.operand(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  std::string mode = n.attrString("mode");
  if (mode != "constant" && mode != "edge" && mode != "reflect") {
    n.error() << "mode '" << mode
              << "' is not supported (constant, edge, reflect)";
    return failure();
  }
  if (mode == "constant" && !type.getElementType().isF32()) {
    n.error() << "input of type " << type.getElementType()
              << " is not supported in constant mode (float32 only)";
    return failure();
  }
  int64_t rank = type.getRank();
  std::vector<int64_t> given;
  float value = 0.0f;
  std::vector<int64_t> axes;
  if (n.opset() < 11) {
    std::optional<std::vector<int64_t>> p = n.attrInts("pads");
    if (!p) {
      n.error() << "attribute 'pads' is required";
      return failure();
    }
    given = *p;
    value = n.attrFloat("value");
  } else {
    if (n.attr("pads") || n.attr("value")) {
      n.error() << "attributes 'pads' and 'value' are inputs since opset 11";
      return failure();
    }
    FailureOr<std::vector<int64_t>> p = n.constInput(1, "pads");
    if (failed(p))
      return failure();
    given = *p;
    FailureOr<std::optional<std::vector<float>>> v = n.constFloats(2);
    if (failed(v))
      return failure();
    if (n.hasInput(2) && !*v) {
      n.error() << "input 'constant_value' must be a float32 constant";
      return failure();
    }
    if (*v && (*v)->size() != 1) {
      n.error() << "input 'constant_value' must be a scalar";
      return failure();
    }
    if (*v)
      value = (**v)[0];
    FailureOr<std::optional<std::vector<int64_t>>> a = n.axes(3);
    if (failed(a))
      return failure();
    if (*a)
      axes = **a;
  }
  if (axes.empty())
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  int64_t na = axes.size();
  if ((int64_t)given.size() != 2 * na) {
    n.error() << "has " << given.size() << " pads for " << na
              << " axes (2 x axes expected)";
    return failure();
  }
  std::vector<int64_t> pads(2 * rank, 0);
  std::vector<bool> seen(rank, false);
  for (int64_t k = 0; k < na; ++k) {
    int64_t a = axes[k] < 0 ? axes[k] + rank : axes[k];
    if (a < 0 || a >= rank || seen[a]) {
      n.error() << "axis " << axes[k] << " is out of range or repeated";
      return failure();
    }
    seen[a] = true;
    pads[a] = given[k];
    pads[rank + a] = given[na + k];
  }
  OpBuilder &b = n.b;
  std::vector<int64_t> starts, ends, sliceAxes;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t lo = pads[i], hi = pads[rank + i];
    if ((lo || hi) && type.isDynamicDim(i)) {
      n.error() << "padding the dynamic dim " << i
                << " is not supported (give it a size with --input-shape)";
      return failure();
    }
    if (lo >= 0 && hi >= 0)
      continue;
    if (mode != "constant") {
      n.error() << "negative pads (crops) are not supported in mode '" << mode
                << "'";
      return failure();
    }
    int64_t dim = type.getDimSize(i);
    if (-std::min<int64_t>(lo, 0) - std::min<int64_t>(hi, 0) > dim) {
      n.error() << "pads of dim " << i << " crop more than its " << dim
                << " entries";
      return failure();
    }
    starts.push_back(std::max<int64_t>(-lo, 0));
    ends.push_back(dim - std::max<int64_t>(-hi, 0));
    sliceAxes.push_back(i);
    pads[i] = std::max<int64_t>(lo, 0);
    pads[rank + i] = std::max<int64_t>(hi, 0);
  }
  Value in = *x;
  if (!sliceAxes.empty()) {
    std::vector<int64_t> steps(sliceAxes.size(), 1);
    FailureOr<Value> sliced = buildSlice(n, in, starts, ends, sliceAxes, steps);
    if (failed(sliced))
      return failure();
    in = *sliced;
  }
  if (mode != "constant")
    return padBySlices(n, in, mode, pads);
  return n.build<nn::PadOp>(
      {in}, {b.getNamedAttr("pads", b.getDenseI64ArrayAttr(pads)),
             b.getNamedAttr("value", b.getF32FloatAttr(value))});
}

FailureOr<Value> importSplit(NodeImporter &n) {
  FailureOr<Value> x = n.operand(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  int64_t rank = type.getRank(), axis = n.attrInt("axis");
  if (axis < -rank || axis >= rank) {
    n.error() << "attribute 'axis' = " << axis << " is out of range for rank "
              << rank;
    return failure();
  }
  int64_t dim = type.getDimSize(axis < 0 ? axis + rank : axis);
  int64_t count = n.node.output_size();
  std::vector<int64_t> sizes;
  std::optional<std::vector<int64_t>> splitAttr = n.attrInts("split");
  const onnx::AttributeProto *numOutputs = n.attr("num_outputs");
  if (splitAttr && n.hasInput(1)) {
    n.error() << "attribute 'split' and the split input are both given";
    return failure();
  }
  if (n.hasInput(1)) {
    FailureOr<std::vector<int64_t>> s = n.constInput(1, "split");
    if (failed(s))
      return failure();
    sizes = *s;
  } else if (splitAttr) {
    sizes = *splitAttr;
  } else {
    if (ShapedType::isDynamic(dim)) {
      n.error() << "splits dynamic dim " << axis;
      return failure();
    }
    int64_t wanted = n.attrInt("num_outputs", count);
    if (numOutputs && wanted != count) {
      n.error() << "attribute 'num_outputs' = " << wanted
                << " differs from the number of outputs " << count;
      return failure();
    }
    // Opset 18 num_outputs: chunks of ceil(dim / n), the last one smaller;
    // before, equal parts.
    int64_t chunk = numOutputs ? (dim + count - 1) / count : dim / count;
    if (count < 1 || (!numOutputs && dim % count != 0) ||
        chunk * (count - 1) >= dim) {
      n.error() << "cannot split dim " << axis << " of size " << dim << " into "
                << count << " parts";
      return failure();
    }
    sizes.assign(count - 1, chunk);
    sizes.push_back(dim - chunk * (count - 1));
  }
  if ((int64_t)sizes.size() != count) {
    n.error() << "has " << count << " outputs but " << sizes.size()
              << " split sizes";
    return failure();
  }
  FailureOr<Operation *> op = n.buildOp<nn::SplitOp>(
      {*x},
      {n.b.getNamedAttr("axis", n.b.getI64IntegerAttr(axis)),
       n.b.getNamedAttr("sizes", n.b.getDenseI64ArrayAttr(sizes))},
      count);
  if (failed(op))
    return failure();
  for (int64_t i = 0; i < count; ++i)
    n.define(i, (*op)->getResult(i));
  return Value();
}

/// Expand's constant shape input; an unknown entry (the batch read by
/// Shape) against a dynamic dim of `input` becomes 1.
FailureOr<std::vector<int64_t>> expandTarget(NodeImporter &n, Value input) {
  const IntConstant *c = n.intConstant(1);
  if (c && !c->isBool) {
    std::vector<int64_t> shape = c->values;
    // An unknown entry (read from the batch) against a dynamic dim of the
    // input keeps that dim: broadcasting leaves it as it is.
    auto in = cast<RankedTensorType>(input.getType()).getShape();
    int64_t off = (int64_t)shape.size() - (int64_t)in.size();
    bool resolved = true;
    for (auto [i, d] : llvm::enumerate(shape)) {
      if (!isUnknown(d))
        continue;
      int64_t j = (int64_t)i - off;
      if (j >= 0 && ShapedType::isDynamic(in[j]))
        d = 1;
      else
        resolved = false;
    }
    if (resolved)
      return shape;
  }
  return n.constInput(1, "shape");
}

FailureOr<Value> importExpand(NodeImporter &n) {
  FailureOr<Value> x = n.operand(0);
  if (failed(x))
    return failure();
  // Expand to the dynamic batch (ViT's class token, Llama's causal mask):
  // entries read at run time.
  if (auto rt = n.runTimeShape(1)) {
    auto in = cast<RankedTensorType>(x->getType()).getShape();
    std::vector<int64_t> shape = rt->first;
    int64_t off = (int64_t)shape.size() - (int64_t)in.size();
    bool needsRunTime = false;
    for (auto [i, d] : llvm::enumerate(shape)) {
      int64_t j = (int64_t)i - off;
      // Against a dynamic input dim, a 1 keeps it (as expandTarget does).
      if (d == -1 && j >= 0 && ShapedType::isDynamic(in[j]))
        d = 1;
      else if (d == -1)
        needsRunTime = true;
    }
    if (needsRunTime)
      return n.build<nn::ExpandOp>(
          {*x, rt->second},
          {n.b.getNamedAttr("shape", n.b.getDenseI64ArrayAttr(shape))});
  }
  FailureOr<std::vector<int64_t>> shape = expandTarget(n, *x);
  if (failed(shape))
    return failure();
  return n.build<nn::ExpandOp>(
      {*x}, {n.b.getNamedAttr("shape", n.b.getDenseI64ArrayAttr(*shape))});
}

/// Tile with constant repeats: x [d0, d1, ...] unsqueezed to [1, d0, 1, d1,
/// ...], expanded to [r0, d0, r1, d1, ...] and reshaped to [r0 d0, r1 d1,
/// ...] (block k of axis i is the whole input, as Tile), so the gradient is
/// theirs (a sum over the copies). A dynamic dim (the batch) takes the -1.
FailureOr<Value> tileConstant(NodeImporter &n, Value x,
                              ArrayRef<int64_t> repeats) {
  ArrayRef<int64_t> in = cast<RankedTensorType>(x.getType()).getShape();
  std::vector<int64_t> axes, expand, target;
  int dynamic = 0;
  for (auto [i, r] : llvm::enumerate(repeats)) {
    axes.push_back(2 * i);
    expand.insert(expand.end(), {r, 1});
    dynamic += ShapedType::isDynamic(in[i]);
    target.push_back(ShapedType::isDynamic(in[i]) ? -1 : r * in[i]);
  }
  if (llvm::all_of(repeats, [](int64_t r) { return r == 1; }))
    return x;
  if (dynamic && llvm::is_contained(repeats, 0)) {
    n.error() << "input 'repeats' = " << listString(repeats)
              << " has a 0 beside a dynamic dim (not supported)";
    return failure();
  }
  if (dynamic > 1) {
    n.error() << "a Tile of an input with " << dynamic
              << " dynamic dims is not supported (at most one: give the "
                 "others with --input-shape)";
    return failure();
  }
  OpBuilder &b = n.b;
  FailureOr<Value> lifted = n.build<nn::UnsqueezeOp>(
      {x}, {b.getNamedAttr("axes", b.getDenseI64ArrayAttr(axes))});
  if (failed(lifted))
    return failure();
  FailureOr<Value> copies = n.build<nn::ExpandOp>(
      {*lifted}, {b.getNamedAttr("shape", b.getDenseI64ArrayAttr(expand))});
  if (failed(copies))
    return failure();
  return n.build<nn::ReshapeOp>(
      {*copies}, {b.getNamedAttr("shape", b.getDenseI64ArrayAttr(target))});
}

/// Tile: constant repeats (tileConstant), or repeats that read the batch at
/// run time (`x.repeat(bsz, 1, 1)`, GPT-J) of dims of size 1, which are
/// then an nn.expand to the run-time repeats after the constant ones.
FailureOr<Value> importTile(NodeImporter &n) {
  FailureOr<Value> x = n.operand(0);
  if (failed(x))
    return failure();
  ArrayRef<int64_t> in = cast<RankedTensorType>(x->getType()).getShape();
  std::vector<int64_t> repeats;
  Value runTime;
  if (auto rt = n.runTimeShape(1)) {
    repeats = rt->first;
    runTime = rt->second;
  } else {
    FailureOr<std::vector<int64_t>> c = n.constInput(1, "repeats");
    if (failed(c))
      return failure();
    repeats = *c;
  }
  if (repeats.size() != in.size()) {
    n.error() << "input 'repeats' has " << repeats.size()
              << " values for an input of rank " << in.size();
    return failure();
  }
  std::vector<int64_t> constant = repeats, expand(repeats.size(), 1);
  for (auto [i, r] : llvm::enumerate(repeats)) {
    if (runTime && r == -1) {
      if (in[i] != 1) {
        n.error() << "a repeat known only at run time (the batch) of dim " << i
                  << " of size "
                  << (ShapedType::isDynamic(in[i]) ? "?"
                                                   : std::to_string(in[i]))
                  << " is not supported (only of a dim of size 1)";
        return failure();
      }
      constant[i] = 1;
      expand[i] = -1;
    } else if (r < 0) {
      n.error() << "input 'repeats' = " << listString(repeats)
                << " has a negative value";
      return failure();
    }
  }
  FailureOr<Value> tiled = tileConstant(n, *x, constant);
  if (failed(tiled) || !runTime)
    return tiled;
  return n.build<nn::ExpandOp>(
      {*tiled, runTime},
      {n.b.getNamedAttr("shape", n.b.getDenseI64ArrayAttr(expand))});
}

FailureOr<Value> importTrilu(NodeImporter &n) {
  FailureOr<Value> x = n.operand(0);
  if (failed(x))
    return failure();
  int64_t k = 0;
  SmallVector<Value> operands = {*x};
  if (n.hasInput(1) && !n.intConstant(1)) {
    // k computed at run time (a graph input): an int64 scalar operand.
    FailureOr<Value> kv = n.operand(1);
    if (failed(kv))
      return failure();
    auto t = dyn_cast<RankedTensorType>(kv->getType());
    if (!t || t.getRank() != 0 || !t.getElementType().isSignlessInteger(64)) {
      n.error() << "the k input must be an int64 scalar, got " << kv->getType();
      return failure();
    }
    operands.push_back(*kv);
  } else if (n.hasInput(1)) {
    FailureOr<std::vector<int64_t>> kv = n.constInput(1, "k");
    if (failed(kv))
      return failure();
    if (kv->size() != 1) {
      n.error() << "the k input must be a scalar";
      return failure();
    }
    k = (*kv)[0];
  }
  int64_t upper = n.attrInt("upper");
  if (upper != 0 && upper != 1) {
    n.error() << "attribute 'upper' = " << upper
              << " is not supported (0 or 1)";
    return failure();
  }
  return n.build<nn::TriluOp>(
      operands, {n.b.getNamedAttr("upper", n.b.getBoolAttr(upper)),
                 n.b.getNamedAttr("k", n.b.getI64IntegerAttr(k))});
}

/// A Shape that reads a dynamic dim: nn.shape, for the ops that need the
/// dim at run time (Shape folds whenever its dims are static, and reaches
/// here only as a run-time shadow, see Importer::importRunTimeShadow).
FailureOr<Value> importShape(NodeImporter &n) {
  FailureOr<Value> x = n.operand(0);
  if (failed(x))
    return failure();
  int64_t rank = cast<RankedTensorType>(x->getType()).getRank();
  // start/end (opset 15) count from the end when negative and are clamped.
  auto clamp = [&](int64_t v) {
    if (v < 0)
      v += rank;
    return std::min(std::max<int64_t>(v, 0), rank);
  };
  int64_t start = clamp(n.attrInt("start", 0));
  int64_t end = std::max(start, clamp(n.attrInt("end", rank)));
  return n.build<nn::ShapeOp>(
      {*x}, {n.b.getNamedAttr("start", n.b.getI64IntegerAttr(start)),
             n.b.getNamedAttr("end", n.b.getI64IntegerAttr(end))});
}

/// Size folds whenever its input is known (FoldShapes.cpp).
FailureOr<Value> importShapeOf(NodeImporter &n) {
  if (failed(n.operand(0)))
    return failure();
  n.error() << "cannot be folded";
  return failure();
}

} // namespace

void registerShapeOps(OpRegistry &r) {
  r.add({"Transpose",
         7,
         {"perm"},
         importTranspose,
         {fold::transpose},
         {"", "`nn.transpose`", "yes (inverse permutation)",
          "`perm` (default: reversed dims); any element type. Of an int64 "
          "constant: folded"}});
  r.add({"Squeeze",
         7,
         {"axes"},
         importSqueeze<false>,
         {fold::squeeze, 1, 1},
         {"", "`nn.squeeze`", "yes (Unsqueeze)",
          "`axes` attribute (opset < 13) or constant input (13+). Each axis "
          "must be a static 1: squeezing the dynamic batch dim is an error. "
          "Without axes, the static size-1 dims are removed (a dynamic dim is "
          "never squeezed, even if it is 1 at run time). A run-time axes input "
          "(a graph input, 13+) needs the output shape declared in the model: "
          "`nn.squeeze_dynamic` to that shape, which the executable checks "
          "against the axes (no gradient)"}});
  r.add({"Unsqueeze",
         7,
         {"axes"},
         importSqueeze<true>,
         {fold::unsqueeze, 1, 1},
         {"", "`nn.unsqueeze`", "yes (Squeeze)",
          "`axes` attribute (opset < 13) or constant input (13+), required; "
          "negative axes count from the end of the result. Of int64 "
          "constants: folded (any axes). A run-time axes input (a graph input, "
          "13+) needs the output shape declared in the model: "
          "`nn.unsqueeze_dynamic` to that shape, which the executable checks "
          "against the axes (no gradient)"}});
  r.add({"Concat",
         7,
         {"axis"},
         importConcat,
         {fold::concat},
         {"", "`nn.concat`", "every float operand (`nn.concat_grad` slices)",
          "`axis` (required); operands of one rank and element type. Of int64 "
          "constants (shape arithmetic): folded, any rank"}});
  r.add({"Flatten",
         7,
         {{"axis", 1}},
         importFlatten,
         {fold::reshape},
         {"", "`nn.flatten`", "yes", "`axis`; any element type"}});
  r.add({"Reshape",
         7,
         {{"allowzero", 0}},
         importReshape,
         {fold::reshape, 2, 1},
         {"", "`nn.reshape`", "yes",
          "Constant int64 shape (`0` copies a dim, one `-1`); `allowzero=1` "
          "is an error. An entry read from the dynamic batch is inferred "
          "when it is the only unknown; beside a `-1` (`x.view(b, -1, h, "
          "d)`) the `-1` is resolved taking the batch entry for the input's "
          "dynamic dim, and the executable checks that at run time (a "
          "failed check stops it with a message naming the node). Any "
          "element type (float, int64 token ids, bool masks). A reshape "
          "that is not a collapse/expand goes through 1-D, so the result "
          "may have at most one dynamic dim. A shape read at run time (a "
          "graph input) needs the output shape declared in the model, "
          "which the executable checks against it"}});
  r.add(
      {"Slice",
       10,
       {"starts", "ends", "axes"},
       importSlice,
       {fold::slice, 1, 1},
       {" (attribute form 7-9)", "`nn.slice`",
        "yes (`nn.slice_grad`: the gradient inserted into zeros of the "
        "input's shape; reversed first along a negative-step axis)",
        R"(`starts`, `ends`, optional `axes` (negative count from the end, no repeats) and `steps` as constant int64 inputs (opset 10+) or attributes (before 10). Negative starts/ends count from the end; out-of-range values, `INT64_MAX` and `INT64_MIN` ends are clamped as ONNX specifies (empty slices allowed). Steps are non-zero; negative steps walk backwards. The sliced dims must be static (slicing the dynamic batch dim is an error). Positive steps lower to `tensor.extract_slice` (a view), negative ones to a `linalg.generic`. Of an int64 constant: folded. Bounds read at run time (graph inputs, int64 or int32) need the output shape declared in the model: `nn.slice_dynamic` to that shape, which the executable checks against the bounds; no gradient)"}});
  r.add({"Pad",
         11,
         {{"mode", "constant"}, "pads", {"value", 0.0f}},
         importPad,
         {},
         {" (attribute form 2-10; `axes` 18+)",
          "`nn.pad`; `nn.concat` of `nn.slice`s (edge, reflect)",
          "yes (`nn.slice` of the gradient where the input was placed; edge "
          "and reflect: the slices' and `nn.concat`'s gradients, summed)",
          "`constant`, `edge` and `reflect` modes (`wrap`: an error); `pads` "
          "a constant int64 input (11+) or attribute (before 11), "
          "`constant_value` a constant float32 scalar (default 0; constant "
          "mode only reads it), optional constant `axes` (18+). Constant "
          "mode: float32 data; negative pads crop (an `nn.slice` first); "
          "lowers to `linalg.fill` and `tensor.insert_slice`. Edge and "
          "reflect mode (PyTorch's ReplicationPad and ReflectionPad): "
          "float32, int64, int32 or bool data, pads >= 0 (reflect: smaller "
          "than the dim), imported axis by axis as in np.pad as an "
          "`nn.concat` of 1-wide `nn.slice`s around the input, so the "
          "gradient is theirs. Padding the dynamic batch dim is an "
          "error"}});
  r.add({"Split",
         7,
         {{"axis", 0}, "split", "num_outputs"},
         importSplit,
         {},
         {" (`num_outputs` 18+)", "`nn.split`",
          "yes (the outputs' gradients concatenated, zeros for an unused "
          "output)",
          "`axis`; sizes from the constant `split` input (13+), the `split` "
          "attribute (before 13), `num_outputs` (18+: chunks of `ceil(dim / "
          "n)`, the last one smaller), or equal parts (an uneven dim is an "
          "error). The split dim must be static. Lowers to "
          "`tensor.extract_slice`s"}});
  r.add({"Expand",
         8,
         {},
         importExpand,
         {fold::expand, 2, 1, false, /*paramsAtRunTime=*/true},
         {"", "`nn.expand`", "yes (summed over the broadcast dims)",
          "constant int64 `shape` input; bidirectional numpy broadcast (a 1 in "
          "`shape` keeps the input's dim; fewer dims than the input is fine). "
          "An entry read from the dynamic batch (ViT's class token, Llama's "
          "causal mask) is taken at run time. A dynamic input dim can only "
          "meet a 1 or such an entry. Any element type. Of an int64 "
          "constant: folded"}});
  r.add({"Trilu",
         14,
         {{"upper", 1}},
         importTrilu,
         {fold::trilu, 1, 0},
         {"", "`nn.trilu`", "yes (the same triangle of the gradient)",
          "`upper` (0/1, default 1), optional int64 scalar `k` input "
          "(constant, or computed at run time); rank "
          ">= 2, any element type (float, int64, bool: a causal mask)"}});
  r.add({"Gather",
         7,
         {{"axis", 0}},
         importGather,
         {fold::gather, 2, 1},
         {"", "`nn.gather`",
          "data (`nn.gather_grad`: scatter-add into zeros of the data's shape, "
          "lowered to loops over the indices adding each gradient slice in "
          "place, so it costs one read of the gradient; repeated indices "
          "sum); indices none",
          "see the embedding notes in "
          "[reference/nn-dialect.md](reference/nn-dialect.md)"}});
  r.add({"GatherElements",
         11,
         {{"axis", 0}},
         importGatherElements,
         {},
         {"", "`nn.gather_elements`",
          "data (`nn.gather_elements_grad`: each gradient element added at "
          "its index, repeated indices sum); indices none",
          "`torch.gather`. Any data element type, int64/int32 indices of the "
          "data's rank (their dims other than `axis` may be smaller); the "
          "data's dim `axis` static; negative indices count from the end, "
          "out-of-range ones stop the program"}});
  r.add({"Identity",
         7,
         {},
         importUnary<nn::IdentityOp>,
         {fold::identity},
         {"", "`nn.identity`", "yes",
          "any element type. Of an int64 constant: folded"}});
  r.add({"Shape",
         7,
         {"start", "end"},
         importShape,
         {fold::shape, 1, -1, /*readsShape=*/true},
         {" (`start`/`end` 15+)", "— (folded), `nn.shape`", "—",
          "an int64 constant at import where the dims it reads are static. "
          "A dynamic dim (the batch) stays unknown at import and is read at "
          "run time (`nn.shape`) by the ops that need its value: Expand, "
          "ConstantOfShape, Reshape (see their rows); ops that need it at "
          "import (Range, Slice bounds, axes) are errors naming the node "
          "(give the size with `--input-shape`). `start`/`end` are clamped "
          "as ONNX specifies"}});
  r.add({"Size",
         7,
         {},
         importShapeOf,
         {fold::shape, 1, -1, /*readsShape=*/true},
         {"", "— (folded)", "—", "int64 constant; all dims static"}});
  r.add({"Tile",
         7,
         {},
         importTile,
         {fold::tile, 2, 1},
         {"", "`nn.unsqueeze` + `nn.expand` + `nn.reshape`",
          "yes (theirs: the copies' gradients summed)",
          "constant int64 `repeats` (one per dim, >= 0), or repeats that "
          "read the batch at run time (`x.repeat(bsz, 1, 1)`) of dims of "
          "size 1 (an `nn.expand` then); any element type; at most one "
          "dynamic dim (the batch). Of int64/bool constants (shape "
          "arithmetic): folded"}});
}

} // namespace autodist::detail
