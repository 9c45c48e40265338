//===- FoldShapes.cpp - import-time folding of shape subgraphs ------------===//
//
// Evaluates ONNX nodes on int64/bool constants (numpy semantics, ONNX's
// integer division truncating toward zero) so that the shape arithmetic
// exporters emit never reaches the compute IR.
//
//===----------------------------------------------------------------------===//

#include "FoldShapes.h"
#include "NodeAttributes.h"
#include "ValidateModel.h"
#include "nn/SliceBounds.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/MathExtras.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <functional>
#include <limits>
#include <map>

using namespace mlir;

namespace autodist::detail {

IntConstant readInts(const onnx::TensorProto &t) {
  IntConstant c;
  std::vector<int64_t> &v = c.values;
  c.dims.assign(t.dims().begin(), t.dims().end());
  c.isBool = t.data_type() == onnx::TensorProto::BOOL;
  c.isInt32 = t.data_type() == onnx::TensorProto::INT32;
  const std::string &raw = t.raw_data();
  if (c.isBool) {
    if (!raw.empty())
      for (char ch : raw)
        v.push_back(ch != 0);
    else
      for (int32_t x : t.int32_data())
        v.push_back(x != 0);
  } else if (t.data_type() == onnx::TensorProto::INT32) {
    if (!raw.empty()) {
      std::vector<int32_t> w(raw.size() / sizeof(int32_t));
      memcpy(w.data(), raw.data(), w.size() * sizeof(int32_t));
      v.assign(w.begin(), w.end());
    } else {
      v.assign(t.int32_data().begin(), t.int32_data().end());
    }
  } else if (!raw.empty()) {
    v.resize(raw.size() / sizeof(int64_t));
    memcpy(v.data(), raw.data(), v.size() * sizeof(int64_t));
  } else {
    v.assign(t.int64_data().begin(), t.int64_data().end());
  }
  for (int64_t &x : v)
    if (isUnknown(x))
      x = std::numeric_limits<int64_t>::min();
  return c;
}

namespace {

using Dims = std::vector<int64_t>;

int64_t numel(const Dims &dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

/// The most values one fold makes (an 8192 x 8192 mask): shape subgraphs
/// are small, and a crafted shape (ConstantOfShape of [2^40]) must not
/// exhaust memory or overflow a count.
constexpr int64_t kMaxFoldedValues = int64_t(1) << 26;

/// The row-major multi-index of flat position `flat` in `dims`.
Dims unflatten(int64_t flat, const Dims &dims) {
  Dims idx(dims.size());
  for (int64_t i = (int64_t)dims.size() - 1; i >= 0; --i) {
    idx[i] = dims[i] ? flat % dims[i] : 0;
    flat = dims[i] ? flat / dims[i] : 0;
  }
  return idx;
}

/// The value of `c` at result multi-index `idx` of a broadcast (aligned
/// right, size-1 dims read index 0).
int64_t broadcastAt(const IntConstant &c, const Dims &idx) {
  int64_t flat = 0, off = idx.size() - c.dims.size();
  for (size_t i = 0; i < c.dims.size(); ++i)
    flat = flat * c.dims[i] + (c.dims[i] == 1 ? 0 : idx[off + i]);
  return c.values[flat];
}

/// Numpy broadcast of shapes; nullopt when they do not broadcast.
std::optional<Dims> broadcastDims(const Dims &a, const Dims &b) {
  size_t rank = std::max(a.size(), b.size());
  Dims out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t y = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (x != y && x != 1 && y != 1)
      return std::nullopt;
    out[rank - 1 - i] = x == 1 ? y : x;
  }
  return out;
}

/// Normalizes axis `a` against `rank`; nullopt when out of range.
std::optional<int64_t> normAxis(int64_t a, int64_t rank) {
  if (a < -rank || a >= rank)
    return std::nullopt;
  return a < 0 ? a + rank : a;
}

/// The result of elementwise op `type` on `args`, some of them unknown:
/// known where it does not depend on them (a dim, never negative, is not
/// equal to a negative constant; Where picks a known branch), else
/// kUnknownValue.
int64_t foldUnknown(const std::string &type, const Dims &args) {
  if (type == "Equal" && args.size() == 2) {
    for (int i = 0; i < 2; ++i)
      if (multipleOfDim(args[i]) && !isUnknown(args[1 - i]) && args[1 - i] < 0)
        return 0;
  }
  // A multiple of a dynamic dim times a positive constant stays one.
  if (type == "Mul" && args.size() == 2) {
    for (int i = 0; i < 2; ++i) {
      std::optional<int64_t> k = multipleOfDim(args[i]);
      int64_t c = args[1 - i];
      if (k && !isUnknown(c) && c >= 1 && c <= kMaxDimMultiple / *k)
        return dimMultiple(*k * c);
    }
  }
  if (type == "Where" && args.size() == 3 && !isUnknown(args[0]))
    return args[0] ? args[1] : args[2];
  return kUnknownValue;
}

} // namespace

/// Folds one node; `in[i]` is input i (null where it is absent).
class Folder {
public:
  Folder(const onnx::NodeProto &node, const FoldContext &ctx,
         std::vector<const IntConstant *> in)
      : node(node), ctx(ctx), in(std::move(in)) {}

  /// As foldIntNode.
  FailureOr<bool> run(const FoldRule &rule, std::vector<IntConstant> &outputs);

  // The folds of the operators (FoldRule::fn).
  FailureOr<bool> identity(IntConstant &out);
  FailureOr<bool> cast(IntConstant &out);
  FailureOr<bool> expand(IntConstant &out);
  FailureOr<bool> shape(IntConstant &out);
  FailureOr<bool> gather(IntConstant &out);
  FailureOr<bool> slice(IntConstant &out);
  FailureOr<bool> concat(IntConstant &out);
  FailureOr<bool> reshape(IntConstant &out);
  FailureOr<bool> squeeze(bool unsqueeze, IntConstant &out);
  FailureOr<bool> range(IntConstant &out);
  FailureOr<bool> constantOfShape(IntConstant &out);
  FailureOr<bool> tile(IntConstant &out);
  FailureOr<bool> trilu(IntConstant &out);
  FailureOr<bool> transpose(IntConstant &out);
  /// The elementwise ops (Add, Equal, Where, ...), by the node's type.
  FailureOr<bool> binary(IntConstant &out);

private:
  FailureOr<bool> fail() { return failure(); }
  /// Checks that a result of shape `dims` can be folded: no negative dim,
  /// at most kMaxFoldedValues values.
  LogicalResult checkResultShape(const Dims &dims);
  /// Axes from the `axes` attribute or constant input `i`.
  std::optional<Dims> axes(size_t i) {
    if (const onnx::AttributeProto *a = findAttr(node, "axes"))
      return Dims(a->ints().begin(), a->ints().end());
    if (i < in.size() && in[i])
      return in[i]->values;
    return std::nullopt;
  }
  FailureOr<bool>
  elementwise(const std::function<std::optional<int64_t>(const Dims &)> &fn,
              bool isBool, IntConstant &out);

  const onnx::NodeProto &node;
  const FoldContext &ctx;
  std::vector<const IntConstant *> in;
};

LogicalResult Folder::checkResultShape(const Dims &dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) {
      ctx.error() << "negative dim " << d << " in the shape "
                  << shapeString(dims);
      return failure();
    }
  }
  for (int64_t d : dims) {
    if (d == 0)
      return success();
    if (n > kMaxFoldedValues / d) {
      ctx.error() << "the shape " << shapeString(dims) << " has more than "
                  << kMaxFoldedValues << " values to fold";
      return failure();
    }
    n *= d;
  }
  return success();
}

FailureOr<bool> Folder::elementwise(
    const std::function<std::optional<int64_t>(const Dims &)> &fn, bool isBool,
    IntConstant &out) {
  Dims dims;
  for (const IntConstant *c : in) {
    if (!c)
      return false;
    auto b = broadcastDims(dims, c->dims);
    if (!b) {
      ctx.error() << "int64 operands do not broadcast";
      return fail();
    }
    dims = *b;
  }
  if (failed(checkResultShape(dims)))
    return fail();
  out.dims = dims;
  out.isBool = isBool;
  // int32 operands give an int32 result (comparisons a bool one), computed
  // in int64 and wrapped to 32 bits as int32 arithmetic wraps.
  out.isInt32 = !isBool && llvm::any_of(in, [](const IntConstant *c) {
    return c->isInt32;
  });
  for (int64_t f = 0, n = numel(dims); f < n; ++f) {
    Dims idx = unflatten(f, dims);
    Dims args;
    for (const IntConstant *c : in)
      args.push_back(broadcastAt(*c, idx));
    if (llvm::any_of(args, isUnknown)) {
      out.values.push_back(foldUnknown(node.op_type(), args));
      continue;
    }
    std::optional<int64_t> v = fn(args);
    if (!v) {
      ctx.error() << "integer division by zero or int64 overflow";
      return fail();
    }
    out.values.push_back(out.isInt32 ? static_cast<int32_t>(*v) : *v);
  }
  return true;
}

static constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

/// `op(a[0], a[1])`, or std::nullopt where it overflows (llvm::AddOverflow
/// and its siblings return non-zero then).
static std::optional<int64_t>
checked(int64_t (*op)(int64_t, int64_t, int64_t &), const Dims &a) {
  int64_t r;
  if (op(a[0], a[1], r))
    return std::nullopt;
  return r;
}

FailureOr<bool> Folder::binary(IntConstant &out) {
  const std::string &type = node.op_type();
  using Fn = std::function<std::optional<int64_t>(const Dims &)>;
  bool fmod = attrInt(node, "fmod", 0) != 0;
  static const std::map<std::string, std::pair<Fn, bool>> table = {
      // The values come from the model: a result past int64 is an error
      // (std::nullopt), not signed overflow.
      {"Add",
       {[](const Dims &a) { return checked(llvm::AddOverflow<int64_t>, a); },
        false}},
      {"Sub",
       {[](const Dims &a) { return checked(llvm::SubOverflow<int64_t>, a); },
        false}},
      {"Mul",
       {[](const Dims &a) { return checked(llvm::MulOverflow<int64_t>, a); },
        false}},
      // ONNX integer division truncates toward zero (as C++).
      {"Div",
       {[](const Dims &a) -> std::optional<int64_t> {
          if (a[1] == 0 || (a[0] == kMin && a[1] == -1))
            return std::nullopt;
          return a[0] / a[1];
        },
        false}},
      {"Equal", {[](const Dims &a) -> int64_t { return a[0] == a[1]; }, true}},
      {"Less", {[](const Dims &a) -> int64_t { return a[0] < a[1]; }, true}},
      {"Greater", {[](const Dims &a) -> int64_t { return a[0] > a[1]; }, true}},
      {"LessOrEqual",
       {[](const Dims &a) -> int64_t { return a[0] <= a[1]; }, true}},
      {"GreaterOrEqual",
       {[](const Dims &a) -> int64_t { return a[0] >= a[1]; }, true}},
      {"And", {[](const Dims &a) -> int64_t { return a[0] && a[1]; }, true}},
      {"Or", {[](const Dims &a) -> int64_t { return a[0] || a[1]; }, true}},
      {"Xor", {[](const Dims &a) -> int64_t { return !a[0] != !a[1]; }, true}},
      {"Neg",
       {[](const Dims &a) -> std::optional<int64_t> {
          if (a[0] == kMin)
            return std::nullopt;
          return -a[0];
        },
        false}},
      {"Abs",
       {[](const Dims &a) -> std::optional<int64_t> {
          if (a[0] == kMin)
            return std::nullopt;
          return a[0] < 0 ? -a[0] : a[0];
        },
        false}},
      {"Not", {[](const Dims &a) -> int64_t { return !a[0]; }, true}},
      {"Where", {[](const Dims &a) { return a[0] ? a[1] : a[2]; }, false}},
      {"Min",
       {[](const Dims &a) { return *std::min_element(a.begin(), a.end()); },
        false}},
      {"Max",
       {[](const Dims &a) { return *std::max_element(a.begin(), a.end()); },
        false}},
  };
  if (type == "Mod") {
    if (in.size() != 2)
      return false;
    // fmod = 0: the sign of the divisor (Python); 1: of the dividend (C).
    return elementwise(
        [fmod](const Dims &a) -> std::optional<int64_t> {
          if (a[1] == 0)
            return std::nullopt;
          if (a[1] == -1) // INT64_MIN % -1 overflows in C++
            return 0;
          int64_t r = a[0] % a[1];
          if (!fmod && r != 0 && ((r < 0) != (a[1] < 0)))
            r += a[1];
          return r;
        },
        false, out);
  }
  auto it = table.find(type);
  if (it == table.end())
    return false;
  size_t arity = type == "Where" ? 3
                 : type == "Neg" || type == "Abs" || type == "Not" ||
                         type == "Min" || type == "Max"
                     ? 1
                     : 2;
  if (in.size() < arity || (arity != 1 && in.size() != arity))
    return false;
  bool isBool = it->second.second;
  if (type == "Where") {
    if (in.size() != 3 || !in[0] || !in[0]->isBool)
      return false;
    isBool = in[1] && in[1]->isBool;
  }
  return elementwise(it->second.first, isBool, out);
}

FailureOr<bool> Folder::shape(IntConstant &out) {
  std::optional<Dims> dims;
  if (in[0])
    dims = in[0]->dims;
  else if (auto s = ctx.shapeOf(node.input(0)))
    dims = *s;
  if (!dims)
    return false;
  int64_t rank = dims->size();
  if (node.op_type() == "Size") {
    bool dynamic = llvm::any_of(*dims, ShapedType::isDynamic);
    out.values = {dynamic ? kUnknownDim : numel(*dims)};
    return true;
  }
  // Opset 15: start/end select a range of dims, clamped like a slice.
  int64_t start = attrInt(node, "start", 0), end = attrInt(node, "end", rank);
  if (start < 0)
    start += rank;
  if (end < 0)
    end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  for (int64_t i = start; i < end; ++i)
    out.values.push_back(ShapedType::isDynamic((*dims)[i]) ? kUnknownDim
                                                           : (*dims)[i]);
  out.dims = {(int64_t)out.values.size()};
  return true;
}

FailureOr<bool> Folder::gather(IntConstant &out) {
  const IntConstant &data = *in[0], &idx = *in[1];
  int64_t rank = data.dims.size();
  std::optional<int64_t> axis = normAxis(attrInt(node, "axis", 0), rank);
  if (!axis) {
    ctx.error() << "attribute 'axis' = " << attrInt(node, "axis", 0)
                << " is out of range for rank " << rank;
    return fail();
  }
  int64_t n = data.dims[*axis];
  Dims outer(data.dims.begin(), data.dims.begin() + *axis);
  Dims inner(data.dims.begin() + *axis + 1, data.dims.end());
  int64_t o = numel(outer), k = numel(inner);
  out.dims = outer;
  out.dims.insert(out.dims.end(), idx.dims.begin(), idx.dims.end());
  out.dims.insert(out.dims.end(), inner.begin(), inner.end());
  out.isBool = data.isBool;
  out.isInt32 = data.isInt32;
  for (int64_t a = 0; a < o; ++a) {
    for (int64_t i : idx.values) {
      if (i < -n || i >= n) {
        ctx.error() << "index " << i << " is out of range for dim " << n;
        return fail();
      }
      if (i < 0)
        i += n;
      for (int64_t c = 0; c < k; ++c)
        out.values.push_back(data.values[(a * n + i) * k + c]);
    }
  }
  return true;
}

FailureOr<bool> Folder::slice(IntConstant &out) {
  const IntConstant &data = *in[0];
  int64_t rank = data.dims.size();
  Dims starts, ends, axes, steps;
  if (ctx.opset < 10) {
    const onnx::AttributeProto *s = findAttr(node, "starts"),
                               *e = findAttr(node, "ends");
    if (!s || !e)
      return false;
    starts.assign(s->ints().begin(), s->ints().end());
    ends.assign(e->ints().begin(), e->ints().end());
    if (const onnx::AttributeProto *a = findAttr(node, "axes"))
      axes.assign(a->ints().begin(), a->ints().end());
  } else {
    if (in.size() < 3 || !in[1] || !in[2])
      return false;
    starts = in[1]->values;
    ends = in[2]->values;
    if (in.size() > 3 && in[3])
      axes = in[3]->values;
    if (in.size() > 4 && in[4])
      steps = in[4]->values;
  }
  if (axes.empty())
    for (int64_t i = 0; i < (int64_t)starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  std::string error;
  auto slices = nn::resolveSlice(data.dims, starts, ends, axes, steps, error);
  if (failed(slices)) {
    ctx.error() << error;
    return fail();
  }
  for (const nn::DimSlice &s : *slices)
    out.dims.push_back(s.size);
  out.isBool = data.isBool;
  out.isInt32 = data.isInt32;
  for (int64_t f = 0, n = numel(out.dims); f < n; ++f) {
    Dims idx = unflatten(f, out.dims);
    int64_t flat = 0;
    for (int64_t i = 0; i < rank; ++i)
      flat = flat * data.dims[i] + (*slices)[i].offset +
             (*slices)[i].step * idx[i];
    out.values.push_back(data.values[flat]);
  }
  return true;
}

FailureOr<bool> Folder::concat(IntConstant &out) {
  const IntConstant &first = *in[0];
  int64_t rank = first.dims.size();
  std::optional<int64_t> axis = normAxis(attrInt(node, "axis", 0), rank);
  if (!axis) {
    ctx.error() << "attribute 'axis' is out of range for rank " << rank;
    return fail();
  }
  out.dims = first.dims;
  out.dims[*axis] = 0;
  out.isBool = first.isBool;
  out.isInt32 = first.isInt32;
  for (const IntConstant *c : in) {
    if (c->dims.size() != (size_t)rank) {
      ctx.error() << "int64 operands differ in rank";
      return fail();
    }
    out.dims[*axis] += c->dims[*axis];
  }
  int64_t outer = numel(Dims(first.dims.begin(), first.dims.begin() + *axis));
  for (int64_t o = 0; o < outer; ++o) {
    for (const IntConstant *c : in) {
      int64_t block = numel(Dims(c->dims.begin() + *axis, c->dims.end()));
      out.values.insert(out.values.end(), c->values.begin() + o * block,
                        c->values.begin() + (o + 1) * block);
    }
  }
  return true;
}

FailureOr<bool> Folder::reshape(IntConstant &out) {
  const IntConstant &data = *in[0];
  out = data;
  if (node.op_type() == "Flatten") {
    int64_t rank = data.dims.size(), axis = attrInt(node, "axis", 1);
    if (axis < 0)
      axis += rank;
    out.dims = {numel(Dims(data.dims.begin(), data.dims.begin() + axis)),
                numel(Dims(data.dims.begin() + axis, data.dims.end()))};
    return true;
  }
  Dims shape = in[1]->values;
  bool allowzero = attrInt(node, "allowzero", 0) != 0;
  int64_t infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !allowzero) {
      if (i >= data.dims.size()) {
        ctx.error() << "shape entry " << i << " copies a dim the data lacks";
        return fail();
      }
      shape[i] = data.dims[i];
    }
    if (shape[i] == -1 && infer < 0)
      infer = i;
  }
  Dims knownDims = shape;
  if (infer >= 0)
    knownDims[infer] = 1;
  if (failed(checkResultShape(knownDims)))
    return fail();
  int64_t known = numel(knownDims);
  int64_t total = numel(data.dims);
  if (infer >= 0)
    shape[infer] = known ? total / known : 0;
  if (numel(shape) != total) {
    ctx.error() << "cannot reshape " << total << " int64 values";
    return fail();
  }
  out.dims = shape;
  return true;
}

FailureOr<bool> Folder::squeeze(bool unsqueeze, IntConstant &out) {
  const IntConstant &data = *in[0];
  out = data;
  std::optional<Dims> ax = axes(1);
  int64_t rank = data.dims.size();
  if (unsqueeze) {
    if (!ax)
      return false;
    int64_t outRank = rank + ax->size();
    std::vector<bool> inserted(outRank, false);
    for (int64_t a : *ax) {
      std::optional<int64_t> n = normAxis(a, outRank);
      if (!n || inserted[*n]) {
        ctx.error() << "axis " << a << " is out of range or repeated";
        return fail();
      }
      inserted[*n] = true;
    }
    out.dims.clear();
    for (int64_t i = 0, j = 0; i < outRank; ++i)
      out.dims.push_back(inserted[i] ? 1 : data.dims[j++]);
    return true;
  }
  std::vector<bool> removed(rank, false);
  if (!ax) {
    for (int64_t i = 0; i < rank; ++i)
      removed[i] = data.dims[i] == 1;
  } else {
    for (int64_t a : *ax) {
      std::optional<int64_t> n = normAxis(a, rank);
      if (!n || data.dims[*n] != 1) {
        ctx.error() << "cannot squeeze axis " << a;
        return fail();
      }
      removed[*n] = true;
    }
  }
  out.dims.clear();
  for (int64_t i = 0; i < rank; ++i)
    if (!removed[i])
      out.dims.push_back(data.dims[i]);
  return true;
}

FailureOr<bool> Folder::range(IntConstant &out) {
  if (in.size() != 3 || !in[0] || !in[1] || !in[2])
    return false;
  for (const IntConstant *c : in)
    if (c->values.size() != 1) {
      ctx.error() << "start, limit and delta must be scalars";
      return fail();
    }
  int64_t start = in[0]->values[0], limit = in[1]->values[0],
          delta = in[2]->values[0];
  if (delta == 0) {
    ctx.error() << "delta is 0";
    return fail();
  }
  // In 128 bits: limit - start and the rounding overflow int64.
  __int128 span = (__int128)limit - start;
  __int128 count =
      delta > 0 ? (span + delta - 1) / delta : (span + delta + 1) / delta;
  if (count > kMaxFoldedValues) {
    ctx.error() << "the range has more than " << kMaxFoldedValues
                << " values to fold";
    return fail();
  }
  int64_t n = std::max<int64_t>((int64_t)count, 0);
  // The type of the inputs (ONNX: all three of one type).
  out.isInt32 = in[0]->isInt32;
  for (int64_t i = 0; i < n; ++i)
    out.values.push_back(start + i * delta);
  out.dims = {n};
  return true;
}

FailureOr<bool> Folder::constantOfShape(IntConstant &out) {
  const onnx::AttributeProto *value = findAttr(node, "value");
  if (!value || !value->has_t())
    return false; // the default is float 0
  const onnx::TensorProto &t = value->t();
  if (t.data_type() != onnx::TensorProto::INT64 &&
      t.data_type() != onnx::TensorProto::INT32 &&
      t.data_type() != onnx::TensorProto::BOOL)
    return false;
  IntConstant v = readInts(t);
  if (v.values.size() != 1) {
    ctx.error() << "attribute 'value' must hold one value";
    return fail();
  }
  // A shape that reads the dynamic batch: computed at run time (the import
  // handler), or an error there.
  if (in[0]->hasUnknown())
    return false;
  out.dims = in[0]->values;
  if (failed(checkResultShape(out.dims)))
    return fail();
  out.isBool = v.isBool;
  out.isInt32 = v.isInt32;
  out.values.assign(numel(out.dims), v.values[0]);
  return true;
}

FailureOr<bool> Folder::tile(IntConstant &out) {
  const IntConstant &data = *in[0];
  const Dims &reps = in[1]->values;
  if (reps.size() != data.dims.size()) {
    ctx.error() << "repeats has " << reps.size() << " entries for rank "
                << data.dims.size();
    return fail();
  }
  out.isBool = data.isBool;
  out.isInt32 = data.isInt32;
  for (size_t i = 0; i < reps.size(); ++i) {
    // Both at most kMaxFoldedValues (2^26): the product fits.
    if (failed(checkResultShape({reps[i]})))
      return fail();
    out.dims.push_back(data.dims[i] * reps[i]);
  }
  if (failed(checkResultShape(out.dims)))
    return fail();
  for (int64_t f = 0, n = numel(out.dims); f < n; ++f) {
    Dims idx = unflatten(f, out.dims);
    int64_t flat = 0;
    for (size_t i = 0; i < idx.size(); ++i)
      flat = flat * data.dims[i] + idx[i] % data.dims[i];
    out.values.push_back(data.values[flat]);
  }
  return true;
}

/// Trilu of a constant (the causal masks of exported decoders): keeps
/// j - i >= k (upper) or j - i <= k (lower) in the last two dims.
FailureOr<bool> Folder::trilu(IntConstant &out) {
  const IntConstant &data = *in[0];
  if (data.dims.size() < 2) {
    ctx.error() << "input must have rank >= 2";
    return fail();
  }
  int64_t k = 0;
  if (in.size() > 1 && in[1]) {
    if (in[1]->values.size() != 1) {
      ctx.error() << "k must be a scalar";
      return fail();
    }
    k = in[1]->values[0];
  }
  bool upper = attrInt(node, "upper", 1) != 0;
  out = data;
  int64_t rows = data.dims[data.dims.size() - 2];
  int64_t cols = data.dims.back();
  for (int64_t f = 0, n = numel(data.dims); f < n; ++f) {
    int64_t i = (f / cols) % rows, j = f % cols;
    if (upper ? j - i < k : j - i > k)
      out.values[f] = 0;
  }
  return true;
}

/// Transpose by `perm` (default: the dims reversed).
FailureOr<bool> Folder::transpose(IntConstant &out) {
  const IntConstant &data = *in[0];
  int64_t rank = data.dims.size();
  Dims perm;
  if (std::optional<std::vector<int64_t>> p = attrInts(node, "perm"))
    perm = *p;
  else
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  std::vector<bool> seen(rank, false);
  bool valid = (int64_t)perm.size() == rank;
  for (int64_t p : perm) {
    valid = valid && p >= 0 && p < rank && !seen[p];
    if (valid)
      seen[p] = true;
  }
  if (!valid) {
    ctx.error() << "attribute 'perm' is not a permutation of 0.." << rank - 1;
    return fail();
  }
  out.isBool = data.isBool;
  out.isInt32 = data.isInt32;
  out.dims.clear();
  for (int64_t p : perm)
    out.dims.push_back(data.dims[p]);
  int64_t n = numel(data.dims);
  out.values.assign(n, 0);
  // Row-major strides of the input, read in the result's order.
  Dims stride(rank, 1);
  for (int64_t i = rank - 2; i >= 0; --i)
    stride[i] = stride[i + 1] * data.dims[i + 1];
  for (int64_t f = 0; f < n; ++f) {
    int64_t rest = f, src = 0;
    for (int64_t i = rank - 1; i >= 0; --i) {
      int64_t d = out.dims[i];
      src += (rest % d) * stride[perm[i]];
      rest /= d;
    }
    out.values[f] = data.values[src];
  }
  return true;
}

FailureOr<bool> Folder::run(const FoldRule &rule,
                            std::vector<IntConstant> &outputs) {
  if (node.output_size() < 1)
    return false;
  // Only Shape and Size read a non-constant input (its type).
  for (auto [i, c] : llvm::enumerate(in))
    if (!c && !node.input(i).empty() && !(rule.readsShape && i == 0))
      return false;
  if (in.empty() || (!in[0] && !rule.readsShape) || in.size() < rule.minInputs)
    return false;
  // readInts takes an initializer's or Constant's values as the model gives
  // them; every fold below indexes them by its dims.
  for (const IntConstant *c : in) {
    if (c && static_cast<int64_t>(c->values.size()) != numel(c->dims)) {
      ctx.error() << "an int64 input holds " << c->values.size()
                  << " values, but its dims have " << numel(c->dims)
                  << " elements";
      return fail();
    }
  }
  // Inputs that give indices, shapes or bounds must be known entirely.
  if (rule.paramsFrom >= 0) {
    for (size_t i = rule.paramsFrom; i < in.size(); ++i) {
      if (in[i] && in[i]->hasUnknown()) {
        if (rule.paramsAtRunTime)
          return false;
        ctx.error() << "input " << i
                    << " depends on a dynamic dim; give the graph input's "
                       "shape with --input-shape";
        return failure();
      }
    }
  }
  IntConstant out;
  FailureOr<bool> done = rule.fn(*this, out);
  if (failed(done) || !*done)
    return done;
  outputs.assign({std::move(out)});
  return true;
}

FailureOr<bool> Folder::identity(IntConstant &out) {
  out = *in[0];
  return true;
}

FailureOr<bool> Folder::cast(IntConstant &out) {
  int64_t to = attrInt(node, "to", 0);
  out = *in[0];
  if (to == onnx::TensorProto::INT64 || to == onnx::TensorProto::INT32) {
    out.isBool = false;
    out.isInt32 = to == onnx::TensorProto::INT32;
    if (out.isInt32) // int64 to int32 wraps
      for (int64_t &v : out.values)
        if (!isUnknown(v))
          v = static_cast<int32_t>(v);
    return true;
  }
  if (to == onnx::TensorProto::BOOL) {
    for (int64_t &v : out.values)
      if (!isUnknown(v))
        v = v != 0;
    out.isBool = true;
    out.isInt32 = false;
    return true;
  }
  return false;
}

FailureOr<bool> Folder::expand(IntConstant &out) {
  IntConstant shape;
  shape.dims = in[1]->values;
  auto dims = broadcastDims(in[0]->dims, shape.dims);
  if (!dims) {
    ctx.error() << "cannot expand the int64 constant to the shape";
    return failure();
  }
  if (failed(checkResultShape(*dims)))
    return failure();
  out.dims = *dims;
  out.isBool = in[0]->isBool;
  out.isInt32 = in[0]->isInt32;
  for (int64_t f = 0, n = numel(*dims); f < n; ++f)
    out.values.push_back(broadcastAt(*in[0], unflatten(f, *dims)));
  return true;
}

FailureOr<bool> foldIntNode(const onnx::NodeProto &node, const FoldRule &rule,
                            const FoldContext &ctx,
                            std::vector<IntConstant> &outputs) {
  if (!rule.fn)
    return false;
  std::vector<const IntConstant *> in;
  for (const std::string &name : node.input())
    in.push_back(name.empty() ? nullptr : ctx.constant(name));
  return Folder(node, ctx, std::move(in)).run(rule, outputs);
}

namespace fold {
FailureOr<bool> identity(Folder &f, IntConstant &out) {
  return f.identity(out);
}
FailureOr<bool> cast(Folder &f, IntConstant &out) { return f.cast(out); }
FailureOr<bool> shape(Folder &f, IntConstant &out) { return f.shape(out); }
FailureOr<bool> gather(Folder &f, IntConstant &out) { return f.gather(out); }
FailureOr<bool> slice(Folder &f, IntConstant &out) { return f.slice(out); }
FailureOr<bool> squeeze(Folder &f, IntConstant &out) {
  return f.squeeze(false, out);
}
FailureOr<bool> unsqueeze(Folder &f, IntConstant &out) {
  return f.squeeze(true, out);
}
FailureOr<bool> concat(Folder &f, IntConstant &out) { return f.concat(out); }
FailureOr<bool> reshape(Folder &f, IntConstant &out) { return f.reshape(out); }
FailureOr<bool> expand(Folder &f, IntConstant &out) { return f.expand(out); }
FailureOr<bool> range(Folder &f, IntConstant &out) { return f.range(out); }
FailureOr<bool> constantOfShape(Folder &f, IntConstant &out) {
  return f.constantOfShape(out);
}
FailureOr<bool> tile(Folder &f, IntConstant &out) { return f.tile(out); }
FailureOr<bool> trilu(Folder &f, IntConstant &out) { return f.trilu(out); }
FailureOr<bool> transpose(Folder &f, IntConstant &out) {
  return f.transpose(out);
}
FailureOr<bool> elementwise(Folder &f, IntConstant &out) {
  return f.binary(out);
}
} // namespace fold

} // namespace autodist::detail
