//===- ImportElementwise.cpp - arithmetic, activations, compare, Cast -----===//
//
// Elementwise operators. On int64/bool constants (shape arithmetic) most of
// them fold at import (FoldShapes.cpp); some exist only in that form.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "nn/NNOps.h"

#include "mlir/IR/TypeUtilities.h"

#include <limits>

#include <onnx/onnx_pb.h>

using namespace mlir;

namespace autodist::detail {
namespace {

FailureOr<Value> importPow(NodeImporter &n) {
  FailureOr<Value> x = n.operand(0), y = n.operand(1);
  if (failed(x) || failed(y))
    return failure();
  Value e = *y;
  // ONNX's exponent may have another type than the base: that of a float
  // base is cast to the base's type (an integer one exactly below 2^24 for
  // f32), an integer one of an integer base to the base's type; an f32 or
  // f64 exponent of an integer base stays (nn.pow applies it in f64), a
  // 16-bit float one becomes f32 (exactly).
  Type base = getElementTypeOrSelf(x->getType());
  Type exp = getElementTypeOrSelf(e.getType());
  if (base.isUnsignedInteger()) {
    n.error() << "an unsigned integer base is not supported";
    return failure();
  }
  Type want = isa<FloatType>(base)         ? base
              : exp.isF32() || exp.isF64() ? exp
              : isa<FloatType>(exp)        ? Type(n.b.getF32Type())
                                           : base;
  if (exp != want && !exp.isSignlessInteger(1)) {
    FailureOr<Value> c =
        n.build<nn::CastOp>({e}, {n.b.getNamedAttr("to", TypeAttr::get(want))});
    if (failed(c))
      return failure();
    e = *c;
  }
  return n.build<nn::PowOp>({*x, e});
}

/// A one-operand op whose f32 attributes `names` are the node's (with the
/// registry's defaults).
template <typename OpTy>
FailureOr<Value> importUnaryWithFloats(NodeImporter &n,
                                       ArrayRef<const char *> names) {
  FailureOr<Value> x = n.operand(0);
  if (failed(x))
    return failure();
  SmallVector<NamedAttribute> attrs;
  for (const char *name : names)
    attrs.push_back(
        n.b.getNamedAttr(name, n.b.getF32FloatAttr(n.attrFloat(name))));
  return n.build<OpTy>({*x}, attrs);
}

FailureOr<Value> importLeakyRelu(NodeImporter &n) {
  return importUnaryWithFloats<nn::LeakyReluOp>(n, {"alpha"});
}

FailureOr<Value> importHardSigmoid(NodeImporter &n) {
  return importUnaryWithFloats<nn::HardSigmoidOp>(n, {"alpha", "beta"});
}

/// Input `i` (named `what`) as a constant float scalar, `dflt` when it is
/// absent or empty; an error when it is given but not a constant.
FailureOr<float> constScalarInput(NodeImporter &n, int i, StringRef what,
                                  float dflt) {
  if (!n.hasInput(i))
    return dflt;
  FailureOr<std::optional<std::vector<float>>> v = n.constFloats(i);
  if (failed(v))
    return failure();
  if (!*v || (*v)->size() != 1) {
    n.error() << "input '" << what << "' must be a constant float scalar";
    return failure();
  }
  return (**v)[0];
}

/// Whether Clip's input `x` is float and each bound given is a constant
/// (the nn.clip form, with its gradient exactly as PyTorch's clamp).
bool hasConstantFloatBounds(NodeImporter &n, Value x) {
  if (!isa<FloatType>(getElementTypeOrSelf(x.getType())))
    return false;
  for (int i = 1; i <= 2; ++i) {
    FailureOr<std::optional<std::vector<float>>> v = n.constFloats(i);
    if (n.hasInput(i) && (failed(v) || !*v))
      return false;
  }
  return true;
}

/// Clip with a run-time bound, or of integers: max(x, min), then min(., max),
/// as numpy's clip (min > max gives max). Each bound given is a scalar of
/// x's type.
FailureOr<Value> importClipAsMinMax(NodeImporter &n, Value x) {
  Value y = x;
  for (int k = 0; k < 2; ++k) {
    if (!n.hasInput(k + 1))
      continue;
    FailureOr<Value> bound = n.operand(k + 1);
    if (failed(bound))
      return failure();
    auto t = cast<RankedTensorType>(bound->getType());
    if (t.getRank() > 1 || !t.hasStaticShape() || t.getNumElements() != 1) {
      n.error() << "input '" << (k ? "max" : "min")
                << "' must be a scalar, got shape "
                << shapeString(t.getShape());
      return failure();
    }
    if (t.getRank() == 1) {
      FailureOr<Value> scalar = n.build<nn::ReshapeOp>(
          {*bound}, {n.b.getNamedAttr("shape", n.b.getDenseI64ArrayAttr({}))});
      if (failed(scalar))
        return failure();
      bound = scalar;
    }
    FailureOr<Value> next =
        k ? n.build<nn::MinOp>({y, *bound}) : n.build<nn::MaxOp>({y, *bound});
    if (failed(next))
      return failure();
    y = *next;
  }
  return y;
}

FailureOr<Value> importClip(NodeImporter &n) {
  FailureOr<Value> x = n.operand(0);
  if (failed(x))
    return failure();
  // The bounds: attributes before opset 11, constant inputs 1 and 2 since
  // (nn.clip has them as attributes, so they get no gradient); an absent
  // bound is infinite.
  float bounds[] = {n.attrFloat("min"), n.attrFloat("max")};
  const char *names[] = {"min", "max"};
  bool attrForm = n.opset() < 11;
  if (!attrForm && !hasConstantFloatBounds(n, *x))
    return importClipAsMinMax(n, *x);
  for (int k = 0; k < 2; ++k) {
    if (!attrForm && n.attr(names[k])) {
      n.error() << "attribute '" << names[k] << "' is not part of opset "
                << n.opset() << " Clip (input " << k + 1 << " since opset 11)";
      return failure();
    }
    if (attrForm && n.hasInput(k + 1)) {
      n.error() << "input '" << names[k]
                << "' needs opset 11 (an attribute before)";
      return failure();
    }
    FailureOr<float> v = constScalarInput(n, k + 1, names[k], bounds[k]);
    if (failed(v))
      return failure();
    bounds[k] = *v;
  }
  return n.build<nn::ClipOp>(
      {*x}, {n.b.getNamedAttr("min", n.b.getF32FloatAttr(bounds[0])),
             n.b.getNamedAttr("max", n.b.getF32FloatAttr(bounds[1]))});
}

FailureOr<Value> importGelu(NodeImporter &n) {
  FailureOr<Value> x = n.operand(0);
  if (failed(x))
    return failure();
  std::string approx = n.attrString("approximate");
  if (approx != "none" && approx != "tanh") {
    n.error() << "attribute 'approximate' = '" << approx
              << "' is not supported (none, tanh)";
    return failure();
  }
  return n.build<nn::GeluOp>(
      {*x}, {n.b.getNamedAttr("approximate", n.b.getStringAttr(approx))});
}

/// Less, LessOrEqual, Greater, GreaterOrEqual: nn.compare with `predicate`.
template <const char *Predicate>
FailureOr<Value> importCompare(NodeImporter &n) {
  FailureOr<Value> x = n.operand(0), y = n.operand(1);
  if (failed(x) || failed(y))
    return failure();
  return n.build<nn::CompareOp>(
      {*x, *y}, {n.b.getNamedAttr("predicate", n.b.getStringAttr(Predicate))});
}
constexpr char kLt[] = "lt", kLe[] = "le", kGt[] = "gt", kGe[] = "ge";

/// And, Or, Xor: nn.logical with `kind`.
template <const char *Kind> FailureOr<Value> importLogical(NodeImporter &n) {
  FailureOr<Value> x = n.operand(0), y = n.operand(1);
  if (failed(x) || failed(y))
    return failure();
  return n.build<nn::LogicalOp>(
      {*x, *y}, {n.b.getNamedAttr("kind", n.b.getStringAttr(Kind))});
}
constexpr char kAnd[] = "and", kOr[] = "or", kXor[] = "xor";

/// Min, Max: variadic in ONNX (one or more inputs, all broadcast), a chain
/// of binary nn ops here.
template <typename OpTy> FailureOr<Value> importVariadic(NodeImporter &n) {
  if (n.node.input_size() == 0) {
    n.error() << "needs at least one input";
    return failure();
  }
  FailureOr<Value> acc = n.operand(0);
  for (int i = 1; i < n.node.input_size() && succeeded(acc); ++i) {
    FailureOr<Value> next = n.operand(i);
    if (failed(next))
      return failure();
    acc = n.build<OpTy>({*acc, *next});
  }
  return acc;
}

FailureOr<Value> importMod(NodeImporter &n) {
  FailureOr<Value> x = n.operand(0), y = n.operand(1);
  if (failed(x) || failed(y))
    return failure();
  int64_t fmod = n.attrInt("fmod");
  if (fmod != 0 && fmod != 1) {
    n.error() << "attribute 'fmod' = " << fmod << " must be 0 or 1";
    return failure();
  }
  if (!fmod && isa<FloatType>(getElementTypeOrSelf(x->getType()))) {
    n.error() << "fmod = 0 on float inputs is invalid ONNX (float Mod needs "
                 "fmod = 1)";
    return failure();
  }
  return n.build<nn::ModOp>({*x, *y},
                            {n.b.getNamedAttr("fmod", n.b.getBoolAttr(fmod))});
}

FailureOr<Value> importWhere(NodeImporter &n) {
  FailureOr<Value> c = n.operand(0), x = n.operand(1), y = n.operand(2);
  if (failed(c) || failed(x) || failed(y))
    return failure();
  return n.build<nn::WhereOp>({*c, *x, *y});
}

FailureOr<Value> importCast(NodeImporter &n) {
  const onnx::AttributeProto *to = n.attr("to");
  if (!to) {
    n.error() << "attribute 'to' is missing";
    return failure();
  }
  const onnx::TensorProto *d = n.doubleConstant(0);
  if (d && to->i() == onnx::TensorProto::FLOAT) {
    // Rounded to nearest, exactly what the Cast computes. (To another type,
    // the constant is read as f64 data and cast at run time.)
    std::vector<double> v = readDoubles(*d);
    std::vector<float> f(v.begin(), v.end());
    return n.floatConstant(f32Tensor(n.b.getContext(), *d), f);
  }
  FailureOr<Value> x = n.operand(0);
  if (failed(x))
    return failure();
  Type elem = elementTypeOf(n.b.getContext(), to->i());
  if (!elem) {
    n.error() << "attribute 'to' = " << dataTypeName(to->i())
              << " is not supported (" << kSupportedElementTypes << ")";
    return failure();
  }
  return n.build<nn::CastOp>({*x},
                             {n.b.getNamedAttr("to", TypeAttr::get(elem))});
}

FailureOr<Value> importDropout(NodeImporter &n) {
  FailureOr<Value> x = n.operand(0);
  if (failed(x))
    return failure();
  // The ratio: attribute before opset 12, constant input 1 since (a Constant
  // node or, as some exporters write it, a float initializer); 0.5 if absent.
  // A ratio computed at run time (a graph input) is carried along: the
  // inference form does not read it, the training step refuses it.
  float ratio = n.attrFloat("ratio");
  SmallVector<Value> operands = {*x};
  if (n.opset() >= 12 && n.hasInput(1)) {
    FailureOr<std::optional<std::vector<float>>> v = n.constFloats(1);
    if (failed(v))
      return failure();
    if (*v) {
      if ((*v)->size() != 1) {
        n.error() << "input 'ratio' must be a constant float scalar";
        return failure();
      }
      ratio = (**v)[0];
    } else {
      FailureOr<Value> r = n.operand(1);
      if (failed(r))
        return failure();
      auto t = dyn_cast<RankedTensorType>(r->getType());
      if (!t || !t.getElementType().isF32() || t.getRank() != 0) {
        n.error() << "input 'ratio' must be a float32 scalar, got "
                  << r->getType();
        return failure();
      }
      operands.push_back(*r);
    }
  }
  if (!(ratio >= 0.0f && ratio < 1.0f)) {
    n.error() << "ratio " << ratio << " is outside [0, 1)";
    return failure();
  }
  // training_mode, when given, must be a constant: inference (the forward
  // pass) is the identity and the training step applies the mask either
  // way, as torch's eval() and train() do.
  if (n.hasInput(2)) {
    const IntConstant *mode = n.intConstant(2);
    if (!mode || mode->values.size() != 1) {
      n.error() << "input 'training_mode' must be a constant bool";
      return failure();
    }
  }
  bool wantsMask = n.node.output_size() > 1 && !n.node.output(1).empty();
  if (wantsMask && n.opset() < 12) {
    n.error() << "output 'mask' of opset " << n.opset()
              << " Dropout is not supported (unspecified in inference "
                 "before opset 12)";
    return failure();
  }
  FailureOr<Operation *> op = n.buildOp<nn::DropoutOp>(
      operands, {n.b.getNamedAttr("ratio", n.b.getF32FloatAttr(ratio))}, 2);
  if (failed(op))
    return failure();
  if (wantsMask)
    n.define(1, (*op)->getResult(1));
  return (*op)->getResult(0);
}

constexpr FoldRule kFoldElementwise{fold::elementwise};

const char *kFloatOnly = "float only";
const char *kFloatOrInt64 =
    "float, double, float16 or bfloat16 (computed in that type), or int64, "
    "int32, int16 or int8 (wrapping on overflow; no gradient); both inputs "
    "of one type; folded on integer constants";

/// The registry entry of a boolean operator (nn.logical, nn.not): run time
/// on bool tensors, folded on bool constants.
OpSpec logical(const char *name, ImportFn import, const char *nnOp) {
  return {name,
          7,
          {},
          import,
          kFoldElementwise,
          {"", nnOp, "none (bool)",
           "bool inputs (broadcast); folded on bool constants"}};
}

/// The registry entry of an ordering comparison: run time on f32/i64
/// (nn.compare), folded on int64 constants.
OpSpec comparison(const char *name, int64_t since, ImportFn import,
                  const char *predicate) {
  return {name,
          since,
          {},
          import,
          kFoldElementwise,
          {"", "`nn.compare`", "none (bool result)",
           std::string("`predicate = \"") + predicate +
               "\"`. operands of one float or signed integer type; `bool` "
               "result; "
               "a comparison with NaN is false; folded on int64 constants"}};
}

} // namespace

void registerElementwiseOps(OpRegistry &r) {
  r.add({"Add",
         7,
         {},
         importBinary<nn::AddOp>,
         kFoldElementwise,
         {"", "`nn.add`", "both operands, summed over broadcast dims",
          kFloatOrInt64}});
  r.add({"Sub",
         7,
         {},
         importBinary<nn::SubOp>,
         kFoldElementwise,
         {"", "`nn.sub`", "both operands, summed over broadcast dims",
          kFloatOrInt64}});
  r.add({"Mul",
         7,
         {},
         importBinary<nn::MulOp>,
         kFoldElementwise,
         {"", "`nn.mul`", "both operands, summed over broadcast dims",
          kFloatOrInt64}});
  r.add({"Div",
         7,
         {},
         importBinary<nn::DivOp>,
         kFoldElementwise,
         {"", "`nn.div`",
          "both operands (`g / b`, `-g y / b`), summed over broadcast dims",
          "a float type, or a signed integer type truncating toward zero (a "
          "zero divisor gives 0, no gradient); both inputs of one type; "
          "folded on int64 constants"}});
  r.add({"Pow",
         7,
         {},
         importPow,
         {},
         {"", "`nn.pow`",
          "base (`g e a^(e-1)`) and exponent (`g y log a`, 0 where `a = 0`); "
          "none for a constant exponent",
          "float-type base with an exponent cast to its type (`powf`: a "
          "negative base with a non-integer exponent gives NaN); signed "
          "integer base with an integer exponent (exact power, wrapping; a "
          "negative exponent gives 0 but for bases 1 and -1) or a float one "
          "(computed in f64, truncated toward zero, as numpy); the result "
          "has the base's type; unsigned exponents are not supported"}});
  r.add({"Relu",
         6,
         {},
         importUnary<nn::ReluOp>,
         {},
         {"", "`nn.relu`", "yes (0 at `x = 0`)", ""}});
  const char *fromResult =
      "yes, from the forward result where it is cheaper (`0.5 g / y`, `g y`, "
      "`g y (1 - y)`, `g (1 - y^2)`)";
  r.add({"Sqrt",
         6,
         {},
         importUnary<nn::SqrtOp>,
         {},
         {"", "`nn.sqrt`", fromResult, kFloatOnly}});
  r.add({"Neg",
         6,
         {},
         importUnary<nn::NegOp>,
         kFoldElementwise,
         {"", "`nn.neg`", "yes (`-g`)", kFloatOrInt64}});
  r.add({"Exp",
         6,
         {},
         importUnary<nn::ExpOp>,
         {},
         {"", "`nn.exp`", fromResult, kFloatOnly}});
  r.add({"Log",
         6,
         {},
         importUnary<nn::LogOp>,
         {},
         {"", "`nn.log`", fromResult, kFloatOnly}});
  r.add({"Sigmoid",
         6,
         {},
         importUnary<nn::SigmoidOp>,
         {},
         {"", "`nn.sigmoid`", fromResult, kFloatOnly}});
  r.add({"Tanh",
         6,
         {},
         importUnary<nn::TanhOp>,
         {},
         {"", "`nn.tanh`", fromResult, kFloatOnly}});
  r.add({"Erf",
         9,
         {},
         importUnary<nn::ErfOp>,
         {},
         {"", "`nn.erf`", "yes (`2/sqrt(pi) exp(-x^2)`)",
          "rational approximation in arith (within 4e-7 relative of erf): "
          "`math.erf` has no LLVM lowering"}});
  r.add({"LeakyRelu",
         6,
         {{"alpha", 0.01f}},
         importLeakyRelu,
         {},
         {"", "`nn.leaky_relu`",
          "yes (`nn.relu_grad {alpha}`; `alpha g` at `x = 0`, as PyTorch)",
          "`alpha` (default 0.01, finite)"}});
  r.add({"Clip",
         11,
         {{"min", -std::numeric_limits<float>::infinity()},
          {"max", std::numeric_limits<float>::infinity()}},
         importClip,
         {},
         {" (attribute form 7-10)", "`nn.clip` (or `nn.max` + `nn.min`)",
          "the input (`nn.clip_grad`: `g` where `min < x < max`, 0 at the "
          "bounds, as PyTorch's hardtanh/ReLU6); none for constant bounds; "
          "run-time ones: those of `nn.max` / `nn.min`, the bounds' too",
          "float, or (through `nn.max`/`nn.min`) any float or signed integer "
          "type. Bounds: attributes `min`/`max` before "
          "opset 11, scalar inputs 1 and 2 since; an absent or empty one "
          "is no bound. Constant float bounds (a `Constant` or a float "
          "initializer; `min <= max`, neither NaN) give `nn.clip`; run-time "
          "bounds or integer inputs give `nn.max` with min, then `nn.min` "
          "with max (as numpy: `min > max` gives max; their gradients "
          "also reach the bounds). NaN inputs propagate. PyTorch's ReLU6 "
          "exports as Clip(0, 6)"}});
  r.add({"HardSigmoid",
         6,
         {{"alpha", 0.2f}, {"beta", 0.5f}},
         importHardSigmoid,
         {},
         {"", "`nn.hard_sigmoid`",
          "yes (`nn.hard_sigmoid_grad`: `alpha g` where `0 < alpha x + beta "
          "< 1`, 0 at the kinks, as PyTorch)",
          "`alpha` (default 0.2), `beta` (default 0.5), both finite; "
          "PyTorch's Hardsigmoid exports with `alpha = 1/6`"}});
  r.add({"HardSwish",
         14,
         {},
         importUnary<nn::HardSwishOp>,
         {},
         {"", "`nn.hard_swish`",
          "yes (`nn.hard_swish_grad`, as PyTorch's hardswish_backward: 0 "
          "where `x < -3`, `g (x/3 + 0.5)` where `-3 <= x <= 3`, `g` above)",
          "`x * max(0, min(1, x/6 + 0.5))`, float only"}});
  r.add({"Gelu",
         20,
         {{"approximate", "none"}},
         importGelu,
         {},
         {"", "`nn.gelu`", "yes, both forms (fused `nn.gelu_grad`)",
          "`approximate` = `none` (erf form, default) or `tanh`. Exporters' "
          "decompositions (Div/Erf/Add/Mul, Pow/Tanh) import as those ops"}});
  r.add({"Equal",
         7,
         {},
         importBinary<nn::EqualOp>,
         kFoldElementwise,
         {"", "`nn.equal`", "none (bool result)",
          "operands of one type (any float, signed integer or bool type); "
          "`bool` result; NaN is unequal to everything"}});
  r.add({"Where",
         9,
         {},
         importWhere,
         kFoldElementwise,
         {"", "`nn.where`",
          "X and Y (summed over broadcast dims); none for the condition",
          "`bool` condition; X and Y of the same type (any supported type); "
          "all three broadcast"}});
  r.add({"Cast",
         7,
         {"to", {"saturate", 1}},
         importCast,
         {fold::cast},
         {"", "`nn.cast`",
          "f32 to f32: identity; to or from an integer/bool type: none",
          "`to` = FLOAT, DOUBLE, FLOAT16, BFLOAT16, INT64, INT32, INT16, INT8 "
          "or BOOL (unsigned, string and float8 types are errors). Between "
          "floats: rounded to nearest even (DOUBLE to BFLOAT16 through "
          "FLOAT); float to an integer truncates toward zero (out of range is "
          "undefined, as in ONNX); between integers: sign-extended or "
          "wrapped; to bool "
          "is `x != 0` (NaN is true); bool to number is 0/1. A DOUBLE "
          "`Constant` cast to FLOAT is folded. `saturate` is "
          "accepted (it only concerns float8). A cast of an int64/int32/bool "
          "constant is folded (see Shape arithmetic)"}});
  r.add(
      {"Dropout", 7, {{"ratio", 0.5f}, "seed"}, importDropout, {}, {"", "`nn.dropout`", "mask * scale * upstream (`nn.masked_scale` with the forward's mask)", R"(Inference (`@forward`, `--eval`, `--inputs`): the identity, `mask` all true, as torch's `eval()`. The training step (`--train`) applies dropout, as torch's `train()`: each element is dropped with probability `ratio` and the kept ones are scaled by `1 / (1 - ratio)` (`nn.dropout_mask` + `nn.masked_scale`); the `mask` output is the mask applied. `ratio`: attribute before opset 12, input since (a `Constant` or a float initializer; default 0.5; must be in [0, 1)). A `ratio` computed at run time (a graph input, a float32 scalar) is accepted for inference, which does not read it; the training step refuses it (it needs a constant ratio). `training_mode` (opset 12+), if given, must be a constant bool; it does not change either behavior. Masks come from a stateless generator keyed by (`--seed`, rank, step, dropout index) (docs/user-guide.md); the `seed` attribute is ignored. Before opset 12 the `mask` output is unspecified in inference (onnxruntime returns all false) and is rejected if used)"}});
  r.add({"Mod",
         10,
         {{"fmod", 0}},
         importMod,
         kFoldElementwise,
         {"", "`nn.mod`", "none",
          "signed integers: `fmod = 0` (default) takes the divisor's sign "
          "(Python `%`), `fmod = 1` the dividend's (C `fmod`); float types "
          "need `fmod = 1`. A zero divisor gives 0 on integers, NaN on "
          "floats. Folded on int64 constants"}});
  r.add({"Abs",
         6,
         {},
         importUnary<nn::AbsOp>,
         kFoldElementwise,
         {"", "`nn.abs`", "yes (`g sign(x)`, 0 at `x = 0` as PyTorch)",
          kFloatOrInt64}});
  const char *extremum =
      "each input gets the gradient where it is chosen, halved on ties (as "
      "PyTorch's minimum/maximum), summed over broadcast dims";
  const char *extremumLimits =
      "one or more inputs (a chain of binary ops), all broadcast; a float "
      "type (NaN propagates) or a signed integer type, one type; folded on "
      "int64 constants";
  r.add({"Min",
         8,
         {},
         importVariadic<nn::MinOp>,
         kFoldElementwise,
         {"", "`nn.min`", extremum, extremumLimits}});
  r.add({"Max",
         8,
         {},
         importVariadic<nn::MaxOp>,
         kFoldElementwise,
         {"", "`nn.max`", extremum, extremumLimits}});
  r.add(comparison("Less", 7, importCompare<kLt>, "lt"));
  r.add(comparison("Greater", 7, importCompare<kGt>, "gt"));
  r.add(comparison("LessOrEqual", 12, importCompare<kLe>, "le"));
  r.add(comparison("GreaterOrEqual", 12, importCompare<kGe>, "ge"));
  OpSpec notSpec = logical("Not", importUnary<nn::NotOp>, "`nn.not`");
  notSpec.sinceOpset = 1; // unchanged since opset 1
  r.add(notSpec);
  r.add(logical("And", importLogical<kAnd>, "`nn.logical`"));
  r.add(logical("Or", importLogical<kOr>, "`nn.logical`"));
  r.add(logical("Xor", importLogical<kXor>, "`nn.logical`"));
}

} // namespace autodist::detail
