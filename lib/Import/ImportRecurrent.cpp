//===- ImportRecurrent.cpp - RNN, GRU and LSTM, unrolled over time --------===//
//
// ONNX's recurrent operators are imported unrolled: the input projection of
// every step as one matrix product, then, step by step, the recurrent
// product, the gates and the state update as nn ops. Backpropagation through
// time is then the VJPs of those ops, and the per-step activations the
// backward pass reads are kept as any framework keeps them: nothing
// recurrent-specific to differentiate or to distribute. The price is IR that
// grows with the sequence length (about 15 ops per step and direction), so
// the sequence length must be static; the batch may be dynamic.
//
// An absent initial state is zero, and the ops it would feed are left out
// (a null Value below stands for a zero tensor), so no zeros of the run-time
// batch are ever made.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "nn/NNOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/StringExtras.h"

#include <onnx/onnx_pb.h>

using namespace mlir;

namespace autodist::detail {
namespace {

enum class Cell { RNN, GRU, LSTM };

/// Gate blocks in W, R and each half of B: RNN one, GRU z r h, LSTM i o f c.
int64_t numGates(Cell c) { return c == Cell::RNN ? 1 : c == Cell::GRU ? 3 : 4; }
/// Activations per direction: RNN f, GRU f g, LSTM f g h.
int64_t numActivations(Cell c) {
  return c == Cell::RNN ? 1 : c == Cell::GRU ? 2 : 3;
}
SmallVector<StringRef> defaultActivations(Cell c) {
  if (c == Cell::RNN)
    return {"tanh"};
  if (c == Cell::GRU)
    return {"sigmoid", "tanh"};
  return {"sigmoid", "tanh", "tanh"};
}

/// An entry of `activations`, with its `activation_alpha`/`_beta`.
struct Activation {
  std::string name; // lower case
  float alpha = 0.0f, beta = 0.0f;
};

/// How many of `activation_alpha` and `activation_beta` activation `name`
/// takes, and their defaults (ONNX's, as onnxruntime applies them); false
/// when it is not supported.
bool activationParams(StringRef name, int &numAlpha, int &numBeta, float &alpha,
                      float &beta) {
  numAlpha = numBeta = 0;
  alpha = beta = 0.0f;
  if (name == "sigmoid" || name == "tanh" || name == "relu" ||
      name == "softsign" || name == "softplus")
    return true;
  if (name == "leakyrelu") {
    numAlpha = 1, alpha = 0.01f;
    return true;
  }
  if (name == "hardsigmoid") {
    numAlpha = numBeta = 1, alpha = 0.2f, beta = 0.5f;
    return true;
  }
  if (name == "affine" || name == "scaledtanh") {
    numAlpha = numBeta = 1, alpha = 1.0f, beta = name == "affine" ? 0.0f : 1.0f;
    return true;
  }
  return false;
}

/// Imports one RNN, GRU or LSTM node.
///
/// `sequence_lens` masks each step: past its length a sequence's output is
/// zero and its state is kept (for the reverse direction, kept at the
/// initial state until its last entry), so that variable lengths cost a
/// multiply per step and nothing else.
///
/// The op builders below return null after a failed build (reported as an
/// error naming the node) and then build nothing more; run() checks `bad`.
/// A null operand of add/mul stands for a zero tensor.
class Unroller {
public:
  Unroller(NodeImporter &n, Cell cell)
      : n(n), b(n.b), cell(cell), gates(numGates(cell)) {}

  /// Defines the node's outputs; null on success (the outputs are named).
  FailureOr<Value> run();

private:
  LogicalResult readAttributes();
  LogicalResult readInputs();
  /// Input `i` named `what` as an f32 tensor of `shape` (kDynamic: any
  /// size), static when `staticShape`; null when optional and absent.
  FailureOr<Value> input(int i, StringRef what, ArrayRef<int64_t> shape,
                         bool required, bool staticShape);
  /// Direction `d` over the whole sequence: the hidden state after each
  /// time step, in time order, and the last hidden and cell states.
  void direction(int64_t d, SmallVectorImpl<Value> &hs, Value &lastH,
                 Value &lastC);
  /// One LSTM step: the new hidden state; `c` becomes the new cell state.
  Value lstmStep(Value x, Value h, Value &c, Value rt, ArrayRef<Value> peep,
                 ArrayRef<Activation> f);
  Value gruStep(Value x, Value h, Value rtZR, Value rtH, Value rbH,
                ArrayRef<Activation> f);
  /// (t < sequence_lens) as f32 [batch, 1].
  Value stepMask(int64_t t);
  /// [dirs, batch, h] (layout 1: [batch, dirs, h]) of the per-direction
  /// states.
  Value stackStates(ArrayRef<Value> states);

  Value check(FailureOr<Value> v) {
    if (failed(v)) {
      bad = true;
      return {};
    }
    return *v;
  }
  Value activate(Value v, const Activation &f);
  Value clipped(Value v);
  Value add(Value x, Value y);
  Value sub(Value x, Value y);
  Value mul(Value x, Value y);
  Value matmul(Value x, Value y);
  Value scalar(float v);
  Value transpose(Value v, ArrayRef<int64_t> perm);
  Value squeeze(Value v, int64_t axis);
  Value unsqueeze(Value v, int64_t axis);
  Value slice(Value v, int64_t axis, int64_t start, int64_t end);
  SmallVector<Value> split(Value v, int64_t axis, ArrayRef<int64_t> sizes);
  Value concat(ArrayRef<Value> vs, int64_t axis);
  /// Entry `d` of dim 0 of `v` (null stays null).
  Value ofDirection(Value v, int64_t d);

  NodeImporter &n;
  OpBuilder &b;
  Cell cell;
  int64_t gates;
  int64_t dirs = 1, hidden = 0, seq = 0;
  bool reverseOnly = false, batchMajor = false, linearBeforeReset = false;
  bool bad = false;
  std::optional<float> clip;
  /// numActivations(cell) per direction.
  SmallVector<Activation> acts;
  /// X time-major ([seq, batch, input]), the initial states [dirs, batch, h].
  Value x, w, r, bias, h0, c0, peepholes;
  /// sequence_lens as f32 [batch], or null (every sequence is full).
  Value seqLens;
};

LogicalResult Unroller::readAttributes() {
  std::string dir = n.attrString("direction");
  if (dir == "bidirectional")
    dirs = 2;
  else if (dir == "reverse")
    reverseOnly = true;
  else if (dir != "forward") {
    n.error() << "attribute 'direction' = '" << dir
              << "' must be forward, reverse or bidirectional";
    return failure();
  }
  int64_t layout = n.attrInt("layout");
  if (layout != 0 && layout != 1) {
    n.error() << "attribute 'layout' = " << layout << " must be 0 or 1";
    return failure();
  }
  batchMajor = layout == 1;
  if (n.attr("clip")) {
    clip = detail::attrFloat(n.node, "clip", 0.0f);
    if (!(*clip > 0.0f)) {
      n.error() << "attribute 'clip' = " << *clip << " must be positive";
      return failure();
    }
  }
  if (cell == Cell::LSTM) {
    if (int64_t f = n.attrInt("input_forget"); f != 0) {
      n.error() << "attribute 'input_forget' = " << f
                << " (input and forget gates coupled) is not supported";
      return failure();
    }
  }
  if (cell == Cell::GRU)
    linearBeforeReset = n.attrInt("linear_before_reset") != 0;

  int64_t per = numActivations(cell);
  SmallVector<std::string> names;
  if (std::optional<std::vector<std::string>> given =
          n.attrStrings("activations")) {
    if (int64_t(given->size()) != per && int64_t(given->size()) != per * dirs) {
      n.error() << "attribute 'activations' has " << given->size()
                << " entries; " << n.node.op_type() << " takes " << per
                << " per direction";
      return failure();
    }
    for (const std::string &s : *given) {
      names.push_back(llvm::StringRef(s).lower());
      int numAlpha, numBeta;
      float alpha, beta;
      if (!activationParams(names.back(), numAlpha, numBeta, alpha, beta)) {
        n.error() << "activation '" << s
                  << "' is not supported (Sigmoid, Tanh, Relu, LeakyRelu, "
                     "HardSigmoid, Affine, ScaledTanh, Softsign, Softplus)";
        return failure();
      }
    }
  } else {
    for (StringRef s : defaultActivations(cell))
      names.push_back(s.str());
  }
  // One list for both directions means the same functions in each.
  while (int64_t(names.size()) < per * dirs)
    names.push_back(names[names.size() - per]);

  std::vector<float> alphas =
      n.attrFloats("activation_alpha").value_or(std::vector<float>());
  std::vector<float> betas =
      n.attrFloats("activation_beta").value_or(std::vector<float>());
  // The parameters are consumed in order by the functions that take them.
  size_t ai = 0, bi = 0;
  for (const std::string &name : names) {
    Activation a{name};
    int numAlpha, numBeta;
    activationParams(name, numAlpha, numBeta, a.alpha, a.beta); // checked

    if (numAlpha && ai < alphas.size())
      a.alpha = alphas[ai++];
    if (numBeta && bi < betas.size())
      a.beta = betas[bi++];
    acts.push_back(a);
  }
  return success();
}

FailureOr<Value> Unroller::input(int i, StringRef what, ArrayRef<int64_t> shape,
                                 bool required, bool staticShape) {
  if (!n.hasInput(i)) {
    if (required) {
      n.error() << "missing input '" << what << "'";
      return failure();
    }
    return Value();
  }
  FailureOr<Value> v = n.operand(i);
  if (failed(v))
    return failure();
  auto t = cast<RankedTensorType>(v->getType());
  bool ok = t.getElementType().isF32() &&
            t.getRank() == int64_t(shape.size()) &&
            (!staticShape || t.hasStaticShape());
  for (int64_t k = 0; ok && k < t.getRank(); ++k)
    ok = ShapedType::isDynamic(shape[k]) || t.isDynamicDim(k) ||
         t.getDimSize(k) == shape[k];
  if (ok)
    return *v;
  InFlightDiagnostic d = n.error();
  d << "input '" << what << "' has type " << t << "; expected "
    << (staticShape ? "a static shape " : "") << "[";
  llvm::interleaveComma(shape, d, [&](int64_t s) {
    if (ShapedType::isDynamic(s))
      d << "?";
    else
      d << s;
  });
  d << "] of float";
  return failure();
}

LogicalResult Unroller::readInputs() {
  const int64_t dyn = ShapedType::kDynamic;
  FailureOr<Value> xv = input(0, "X", {dyn, dyn, dyn}, true, false);
  if (failed(xv))
    return failure();
  auto xt = cast<RankedTensorType>(xv->getType());
  int64_t seqDim = batchMajor ? 1 : 0;
  seq = xt.getDimSize(seqDim);
  if (ShapedType::isDynamic(seq) || seq == 0) {
    n.error() << "the sequence length (dim " << seqDim
              << " of input 'X') must be static and non-zero: it is the "
                 "number of time steps the op is unrolled to (a dynamic one "
                 "can be fixed with --input-shape)";
    return failure();
  }
  int64_t inputSize = xt.getDimSize(2);
  if (ShapedType::isDynamic(inputSize)) {
    n.error() << "the input size (dim 2 of input 'X') must be static";
    return failure();
  }
  // hidden_size is optional in the schema: R's shape says it too.
  FailureOr<Value> rv = input(2, "R", {dirs, dyn, dyn}, true, true);
  if (failed(rv))
    return failure();
  hidden = cast<RankedTensorType>(rv->getType()).getDimSize(2);
  if (n.attr("hidden_size") && n.attrInt("hidden_size", 0) != hidden) {
    n.error() << "attribute 'hidden_size' = " << n.attrInt("hidden_size", 0)
              << " disagrees with input 'R' (hidden size " << hidden << ")";
    return failure();
  }
  int64_t gh = gates * hidden;
  int64_t batch = xt.getDimSize(batchMajor ? 0 : 1);
  SmallVector<int64_t> stateShape =
      batchMajor ? SmallVector<int64_t>{batch, dirs, hidden}
                 : SmallVector<int64_t>{dirs, batch, hidden};
  FailureOr<Value> wv = input(1, "W", {dirs, gh, inputSize}, true, true);
  if (failed(wv) || failed(input(2, "R", {dirs, gh, hidden}, true, true)))
    return failure();
  FailureOr<Value> bv = input(3, "B", {dirs, 2 * gh}, false, true);
  if (failed(bv))
    return failure();
  FailureOr<Value> hv = input(5, "initial_h", stateShape, false, false);
  if (failed(hv))
    return failure();
  x = *xv, w = *wv, r = *rv, bias = *bv, h0 = *hv;
  if (n.hasInput(4)) {
    FailureOr<Value> lens = n.operand(4);
    if (failed(lens))
      return failure();
    auto lt = cast<RankedTensorType>(lens->getType());
    if (!isa<IntegerType>(lt.getElementType()) ||
        lt.getElementType().isInteger(1) || lt.getRank() != 1 ||
        (!lt.isDynamicDim(0) && !ShapedType::isDynamic(batch) &&
         lt.getDimSize(0) != batch)) {
      n.error() << "input 'sequence_lens' has type " << lt
                << "; expected [batch] of int32";
      return failure();
    }
    seqLens = check(n.build<nn::CastOp>(
        {*lens}, {b.getNamedAttr("to", TypeAttr::get(b.getF32Type()))}));
  }
  if (cell == Cell::LSTM) {
    FailureOr<Value> cv = input(6, "initial_c", stateShape, false, false);
    if (failed(cv))
      return failure();
    FailureOr<Value> pv = input(7, "P", {dirs, 3 * hidden}, false, true);
    if (failed(pv))
      return failure();
    c0 = *cv, peepholes = *pv;
  }
  // Time-major from here on.
  if (batchMajor) {
    x = transpose(x, {1, 0, 2});
    if (h0)
      h0 = transpose(h0, {1, 0, 2});
    if (c0)
      c0 = transpose(c0, {1, 0, 2});
  }
  return failure(bad);
}

FailureOr<Value> Unroller::run() {
  if (failed(readAttributes()) || failed(readInputs()))
    return failure();
  bool wantY = n.node.output_size() > 0 && !n.node.output(0).empty();
  SmallVector<Value> ys, lastHs, lastCs;
  for (int64_t d = 0; d < dirs && !bad; ++d) {
    SmallVector<Value> hs;
    Value lastH, lastC;
    direction(d, hs, lastH, lastC);
    lastHs.push_back(lastH);
    lastCs.push_back(lastC);
    if (!wantY)
      continue;
    SmallVector<Value> steps;
    for (Value h : hs)
      steps.push_back(unsqueeze(h, 0));
    ys.push_back(unsqueeze(concat(steps, 0), 1));
  }
  // Y [seq, dirs, batch, h] (layout 1: [batch, seq, dirs, h]).
  Value y, yh, yc;
  if (wantY) {
    y = concat(ys, 1);
    if (batchMajor)
      y = transpose(y, {2, 0, 1, 3});
  }
  if (n.node.output_size() > 1 && !n.node.output(1).empty())
    yh = stackStates(lastHs);
  if (cell == Cell::LSTM && n.node.output_size() > 2 &&
      !n.node.output(2).empty())
    yc = stackStates(lastCs);
  if (bad)
    return failure();
  Value outputs[] = {y, yh, yc};
  for (auto [i, v] : llvm::enumerate(outputs))
    if (v)
      n.define(i, v);
  return Value();
}

Value Unroller::stackStates(ArrayRef<Value> states) {
  SmallVector<Value> parts;
  for (Value s : states)
    parts.push_back(unsqueeze(s, 0));
  Value all = concat(parts, 0);
  return batchMajor ? transpose(all, {1, 0, 2}) : all;
}

void Unroller::direction(int64_t d, SmallVectorImpl<Value> &hs, Value &lastH,
                         Value &lastC) {
  int64_t gh = gates * hidden;
  Value wd = ofDirection(w, d), rd = ofDirection(r, d),
        bd = ofDirection(bias, d), pd = ofDirection(peepholes, d);
  Value hCur = ofDirection(h0, d), cCur = ofDirection(c0, d);

  // The input projection of every step at once: [seq, batch, gates * h],
  // plus the biases that add to it: both halves of B, except GRU's
  // recurrent bias of the h gate (Rbh), which goes inside the reset gate.
  Value proj = matmul(x, transpose(wd, {1, 0}));
  Value rbH;
  if (bd) {
    Value wb = slice(bd, 0, 0, gh), rb = slice(bd, 0, gh, 2 * gh);
    if (cell != Cell::GRU) {
      proj = add(proj, add(wb, rb));
    } else {
      SmallVector<Value> wbParts = split(wb, 0, {2 * hidden, hidden});
      SmallVector<Value> rbParts = split(rb, 0, {2 * hidden, hidden});
      if (bad)
        return;
      proj = add(proj, concat({add(wbParts[0], rbParts[0]), wbParts[1]}, 0));
      rbH = rbParts[1];
    }
  }
  SmallVector<Value> steps = seq == 1
                                 ? SmallVector<Value>{proj}
                                 : split(proj, 0, SmallVector<int64_t>(seq, 1));
  for (Value &s : steps)
    s = squeeze(s, 0);

  // The recurrent weights, transposed once: [h, gates * h] (GRU: those of
  // the z and r gates and of the h gate apart).
  Value rt, rtH;
  if (cell == Cell::GRU) {
    rt = transpose(slice(rd, 0, 0, 2 * hidden), {1, 0});
    rtH = transpose(slice(rd, 0, 2 * hidden, 3 * hidden), {1, 0});
  } else {
    rt = transpose(rd, {1, 0});
  }
  SmallVector<Value> peep; // i, o, f
  if (pd)
    peep = split(pd, 0, {hidden, hidden, hidden});
  if (bad)
    return;
  ArrayRef<Activation> f = ArrayRef<Activation>(acts).slice(
      d * numActivations(cell), numActivations(cell));

  bool backward = reverseOnly || d == 1;
  hs.assign(seq, Value());
  for (int64_t k = 0; k < seq && !bad; ++k) {
    int64_t t = backward ? seq - 1 - k : k;
    Value hNext, cNext = cCur;
    if (cell == Cell::LSTM)
      hNext = lstmStep(steps[t], hCur, cNext, rt, peep, f);
    else if (cell == Cell::GRU)
      hNext = gruStep(steps[t], hCur, rt, rtH, rbH, f);
    else // H_t = f(X_t W^T + H_{t-1} R^T + Wb + Rb)
      hNext = activate(
          clipped(add(steps[t], hCur ? matmul(hCur, rt) : Value())), f[0]);
    if (!seqLens) {
      hCur = hNext, cCur = cNext;
      hs[t] = hCur;
      continue;
    }
    // Past its length a sequence's output is zero and its state stays;
    // going backward, its state stays the initial one until t = len - 1:
    // m = (t < len) per batch entry, [batch, 1].
    Value m = stepMask(t);
    hs[t] = mul(m, hNext);
    hCur = hCur ? add(hCur, mul(m, sub(hNext, hCur))) : hs[t];
    if (cell == Cell::LSTM)
      cCur = cCur ? add(cCur, mul(m, sub(cNext, cCur))) : mul(m, cNext);
  }
  lastH = hCur, lastC = cCur;
}

Value Unroller::stepMask(int64_t t) {
  if (bad)
    return {};
  Value m = check(n.build<nn::CompareOp>(
      {seqLens, scalar(float(t))},
      {b.getNamedAttr("predicate", b.getStringAttr("gt"))}));
  if (bad)
    return {};
  m = check(n.build<nn::CastOp>(
      {m}, {b.getNamedAttr("to", TypeAttr::get(b.getF32Type()))}));
  return unsqueeze(m, 1);
}

Value Unroller::lstmStep(Value xproj, Value h, Value &c, Value rt,
                         ArrayRef<Value> peep, ArrayRef<Activation> f) {
  SmallVector<Value> g = split(add(xproj, h ? matmul(h, rt) : Value()), 1,
                               {hidden, hidden, hidden, hidden});
  if (bad)
    return {};
  // ONNX's gate order: i, o, f, c. A gate is f(pre + peephole * state),
  // its pre-activation clipped.
  auto gate = [&](Value pre, int peepIndex, Value state, const Activation &fn) {
    if (!peep.empty() && state)
      pre = add(pre, mul(peep[peepIndex], state));
    return activate(clipped(pre), fn);
  };
  Value i = gate(g[0], 0, c, f[0]);
  Value fg = gate(g[2], 2, c, f[0]);
  Value cand = activate(clipped(g[3]), f[1]);
  // C_t = f * C_{t-1} + i * c~ ; H_t = o * h(C_t), o peeping at C_t.
  c = add(mul(fg, c), mul(i, cand));
  Value o = gate(g[1], 1, c, f[0]);
  return mul(o, activate(c, f[2]));
}

Value Unroller::gruStep(Value xproj, Value h, Value rtZR, Value rtH, Value rbH,
                        ArrayRef<Activation> f) {
  SmallVector<Value> xp = split(xproj, 1, {2 * hidden, hidden});
  if (bad)
    return {};
  SmallVector<Value> zr =
      split(add(xp[0], h ? matmul(h, rtZR) : Value()), 1, {hidden, hidden});
  if (bad)
    return {};
  Value z = activate(clipped(zr[0]), f[0]);
  Value rg = activate(clipped(zr[1]), f[0]);
  // h~ = g(Xh + r * (H Rh^T + Rbh)) with linear_before_reset, else
  // g(Xh + (r * H) Rh^T + Rbh).
  Value inner;
  if (linearBeforeReset) {
    inner = mul(rg, add(h ? matmul(h, rtH) : Value(), rbH));
  } else {
    Value rh = mul(rg, h);
    inner = add(rh ? matmul(rh, rtH) : Value(), rbH);
  }
  Value cand = activate(clipped(add(xp[1], inner)), f[1]);
  // H_t = (1 - z) * h~ + z * H_{t-1} = h~ + z * (H_{t-1} - h~).
  if (!h)
    return sub(cand, mul(z, cand));
  return add(cand, mul(z, sub(h, cand)));
}

Value Unroller::activate(Value v, const Activation &f) {
  if (bad)
    return {};
  const std::string &name = f.name;
  auto floatAttr = [&](const char *attr, float value) {
    return b.getNamedAttr(attr, b.getF32FloatAttr(value));
  };
  if (name == "sigmoid")
    return check(n.build<nn::SigmoidOp>({v}));
  if (name == "tanh")
    return check(n.build<nn::TanhOp>({v}));
  if (name == "relu")
    return check(n.build<nn::ReluOp>({v}));
  if (name == "leakyrelu")
    return check(n.build<nn::LeakyReluOp>({v}, {floatAttr("alpha", f.alpha)}));
  if (name == "hardsigmoid")
    return check(n.build<nn::HardSigmoidOp>(
        {v}, {floatAttr("alpha", f.alpha), floatAttr("beta", f.beta)}));
  if (name == "affine") // alpha * x + beta
    return add(mul(scalar(f.alpha), v), scalar(f.beta));
  if (name == "scaledtanh") // alpha * tanh(beta * x)
    return mul(scalar(f.alpha),
               check(n.build<nn::TanhOp>({mul(scalar(f.beta), v)})));
  if (name == "softsign") { // x / (1 + |x|)
    Value den = add(scalar(1.0f), check(n.build<nn::AbsOp>({v})));
    return bad ? Value() : check(n.build<nn::DivOp>({v, den}));
  }
  // softplus: log(1 + exp(x))
  Value s = add(scalar(1.0f), check(n.build<nn::ExpOp>({v})));
  return bad ? Value() : check(n.build<nn::LogOp>({s}));
}

Value Unroller::clipped(Value v) {
  if (!clip || bad)
    return v;
  return check(n.build<nn::ClipOp>(
      {v}, {b.getNamedAttr("min", b.getF32FloatAttr(-*clip)),
            b.getNamedAttr("max", b.getF32FloatAttr(*clip))}));
}

Value Unroller::add(Value x, Value y) {
  if (bad || !x || !y)
    return bad ? Value() : (x ? x : y);
  return check(n.build<nn::AddOp>({x, y}));
}

Value Unroller::sub(Value x, Value y) {
  return bad ? Value() : check(n.build<nn::SubOp>({x, y}));
}

Value Unroller::mul(Value x, Value y) {
  if (bad || !x || !y)
    return {};
  return check(n.build<nn::MulOp>({x, y}));
}

Value Unroller::matmul(Value x, Value y) {
  return bad ? Value() : check(n.build<nn::MatMulOp>({x, y}));
}

Value Unroller::scalar(float v) {
  auto type = RankedTensorType::get({}, b.getF32Type());
  return arith::ConstantOp::create(b, n.loc(),
                                   DenseElementsAttr::get(type, ArrayRef(v)));
}

Value Unroller::transpose(Value v, ArrayRef<int64_t> perm) {
  if (bad)
    return {};
  return check(n.build<nn::TransposeOp>(
      {v}, {b.getNamedAttr("perm", b.getDenseI64ArrayAttr(perm))}));
}

Value Unroller::squeeze(Value v, int64_t axis) {
  if (bad)
    return {};
  return check(n.build<nn::SqueezeOp>(
      {v}, {b.getNamedAttr("axes", b.getDenseI64ArrayAttr({axis}))}));
}

Value Unroller::unsqueeze(Value v, int64_t axis) {
  if (bad)
    return {};
  return check(n.build<nn::UnsqueezeOp>(
      {v}, {b.getNamedAttr("axes", b.getDenseI64ArrayAttr({axis}))}));
}

Value Unroller::slice(Value v, int64_t axis, int64_t start, int64_t end) {
  if (bad)
    return {};
  return check(n.build<nn::SliceOp>(
      {v}, {b.getNamedAttr("starts", b.getDenseI64ArrayAttr({start})),
            b.getNamedAttr("ends", b.getDenseI64ArrayAttr({end})),
            b.getNamedAttr("axes", b.getDenseI64ArrayAttr({axis})),
            b.getNamedAttr("steps", b.getDenseI64ArrayAttr({1}))}));
}

SmallVector<Value> Unroller::split(Value v, int64_t axis,
                                   ArrayRef<int64_t> sizes) {
  if (bad)
    return {};
  FailureOr<Operation *> op = n.buildOp<nn::SplitOp>(
      {v},
      {b.getNamedAttr("axis", b.getI64IntegerAttr(axis)),
       b.getNamedAttr("sizes", b.getDenseI64ArrayAttr(sizes))},
      sizes.size());
  if (failed(op)) {
    bad = true;
    return {};
  }
  return SmallVector<Value>((*op)->getResults());
}

Value Unroller::concat(ArrayRef<Value> vs, int64_t axis) {
  if (bad)
    return {};
  if (vs.size() == 1)
    return vs[0];
  return check(n.build<nn::ConcatOp>(
      vs, {b.getNamedAttr("axis", b.getI64IntegerAttr(axis))}));
}

Value Unroller::ofDirection(Value v, int64_t d) {
  if (!v || bad)
    return {};
  return squeeze(dirs == 1 ? v : slice(v, 0, d, d + 1), 0);
}

template <Cell C> FailureOr<Value> importRecurrent(NodeImporter &n) {
  return Unroller(n, C).run();
}

} // namespace

void registerRecurrentOps(OpRegistry &r) {
  const char *gradient = "X, W, R, B, initial_h (and LSTM's initial_c, P): "
                         "backpropagation through time, by the VJPs of the "
                         "unrolled ops";
  std::string common =
      "Unrolled at import: one `nn.matmul` for every step's input "
      "projection, then per step and direction the recurrent `nn.matmul`, "
      "the gates and the state update (about 15 ops), so the sequence "
      "length must be static (the batch may be dynamic). `direction` "
      "forward, reverse, bidirectional; `layout` 0 and 1 (PyTorch's "
      "`batch_first`); `clip`; `activations` Sigmoid, Tanh, Relu, "
      "LeakyRelu, HardSigmoid, Affine, ScaledTanh, Softsign, Softplus with "
      "`activation_alpha`/`activation_beta` consumed in order by the "
      "functions that take them; absent initial states are zero. "
      "`sequence_lens` (int32 or int64) masks the steps past each sequence's "
      "length";
  // The attributes all three take, with ONNX's defaults.
  auto attributes = [](std::vector<AttrSpec> extra) {
    std::vector<AttrSpec> a = {
        "activation_alpha",       "activation_beta", "activations", "clip",
        {"direction", "forward"}, "hidden_size",     {"layout", 0}};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  const char *gates = "unrolled (`nn.matmul`, `nn.sigmoid`, `nn.tanh`, ...)";
  r.add({"RNN",
         7,
         attributes({}),
         importRecurrent<Cell::RNN>,
         {},
         {"", "unrolled (`nn.matmul`, `nn.tanh`, ...)", gradient, common}});
  r.add({"GRU",
         7,
         attributes({{"linear_before_reset", 0}}),
         importRecurrent<Cell::GRU>,
         {},
         {"", gates, gradient,
          common + "; `linear_before_reset` 0 and 1 (PyTorch exports 1)"}});
  r.add({"LSTM",
         7,
         attributes({{"input_forget", 0}}),
         importRecurrent<Cell::LSTM>,
         {},
         {"", gates, gradient,
          common + "; peepholes `P`; `input_forget` = 1 is an error"}});
}

} // namespace autodist::detail
