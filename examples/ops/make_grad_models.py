#!/usr/bin/env python3
"""Write tiny ONNX models whose output is a scalar loss, one per
differentiable operator, for numeric gradient checks.

Each model computes ``y = op(x·W ...)`` from float32 inputs of shape
``[batch, 3]`` (``batch`` symbolic) and trainable float initializers (the
``W``s, plus any broadcast operand of the op), and reduces every term
``t`` it checks to ``sum(t * R)`` with ``R`` a fixed random ``Constant``
(not a parameter) shaped like ``t`` with dynamic dims set to 1, summing
the terms into output 0, a float32 scalar. So it compiles with
``autodist-compile M.onnx --train --loss=output``, and one SGD step with
``--lr=1`` moves each parameter by exactly minus its gradient.

For each model ``<name>.onnx`` it also writes ``<name>.npz`` with --samples
rows of each input: ``x`` standard normal, ``p`` uniform in [0.5, 1.5]
(positive, for Log, Sqrt, Pow, Div denominators).

Models (opset 17 unless noted):

  div, pow_const, pow, sqrt, neg, exp, log, sigmoid, tanh, erf, leaky_relu,
  gelu (opset 20), gelu_tanh (opset 20), where, cast, dropout (opset 13,
  ratio 0),
  softmax, log_softmax, reduce_sum, reduce_mean, reduce_max, transpose,
  squeeze, unsqueeze, concat, matmul_nd (N-D x 2-D, 1-D operands),
  matmul_batched (batch x batch, broadcast batch dims), slice (positive
  and negative steps), pad (a constant value, a crop, axes; opset 18),
  split (an unused output; num_outputs, opset 18),
  expand, trilu, clip (bound inputs, one absent or empty; opset 13),
  clip_opset10 (min/max attributes, opset 10), hard_sigmoid, hard_swish
  (opset 14), abs, min and max (three inputs, one broadcast; and a tie),
  cumsum (plain; exclusive and reverse; opset 14)

Example::

    python3 examples/ops/make_grad_models.py --out-dir grad
    autodist-compile grad/tanh.onnx --train --loss=output --optimizer=sgd \\
        --lr=1 -o tanh.train
    ./tanh.train --data=grad/tanh.npz --steps=1 --batch-size=4 --save=s.onnx
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


class Model:
    """One graph: inputs x and p ([batch, 3]), parameters, loss terms."""

    def __init__(self, rng):
        self.rng = rng
        self.nodes, self.inits, self.terms, self.count = [], [], [], 0
        self.used_inputs = set()

    def node(self, op, inputs, n_out=1, **attrs):
        self.count += 1
        outs = [f"{op.lower()}_{self.count}_{k}" for k in range(n_out)]
        self.nodes.append(helper.make_node(op, inputs, outs,
                                           name=f"{op}_{self.count}", **attrs))
        for i in inputs:
            if i in ("x", "p"):
                self.used_inputs.add(i)
        return outs[0] if n_out == 1 else outs

    def weight(self, shape, low=-1.0, high=1.0):
        name = f"w{len(self.inits)}"
        self.inits.append(numpy_helper.from_array(
            self.rng.uniform(low, high, size=shape).astype(np.float32), name))
        return name

    def const(self, array):
        """A Constant node: a fixed value, not a parameter."""
        self.count += 1
        out = f"const_{self.count}"
        self.nodes.append(helper.make_node(
            "Constant", [], [out], name=f"Constant_{self.count}",
            value=numpy_helper.from_array(np.asarray(array), out)))
        return out

    def linear(self, inp, n, low=-1.0, high=1.0):
        """inp · W with W [3, n] a parameter."""
        return self.node("MatMul", [inp, self.weight([3, n], low, high)])

    def reshape(self, v, shape):
        return self.node("Reshape", [v, self.const(np.array(shape, np.int64))])

    def term(self, v, shape):
        """Adds sum(v * R) to the loss; `shape` is v's shape, None for the
        batch dim."""
        rshape = [1 if d is None else d for d in shape]
        r = self.const(self.rng.standard_normal(rshape).astype(np.float32))
        self.terms.append(self.node("ReduceSum", [self.node("Mul", [v, r])],
                                    keepdims=0))

    def build(self, name, opset):
        loss = self.terms[0]
        for t in self.terms[1:]:
            loss = self.node("Add", [loss, t])
        self.nodes[-1].output[0] = "loss"
        inputs = [helper.make_tensor_value_info(i, F, ["batch", 3])
                  for i in ("x", "p") if i in self.used_inputs]
        graph = helper.make_graph(
            self.nodes, name, inputs,
            [helper.make_tensor_value_info("loss", F, [])], self.inits)
        model = helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = 8
        onnx.checker.check_model(model, full_check=True)
        return model


def div(m):
    q = m.node("Div", [m.linear("x", 4), m.linear("p", 4, 0.2, 1.0)])
    m.term(q, [None, 4])
    # Broadcast denominator [4] (a parameter).
    m.term(m.node("Div", [m.linear("x", 4), m.weight([4], 0.5, 1.5)]),
           [None, 4])


def pow_const(m):
    h = m.linear("x", 4)
    m.term(m.node("Pow", [h, m.const(np.float32(3.0))]), [None, 4])
    m.term(m.node("Pow", [h, m.const(np.array([2], np.int64))]), [None, 4])


def pow_(m):
    base = m.linear("p", 4, 0.2, 1.0)
    m.term(m.node("Pow", [base, m.linear("x", 4, -0.5, 0.5)]), [None, 4])
    m.term(m.node("Pow", [base, m.weight([4], -1.5, 1.5)]), [None, 4])


def unary(op, positive=False, opset_attrs=None):
    def make(m):
        h = m.linear("p", 4, 0.2, 1.0) if positive else m.linear("x", 4)
        m.term(m.node(op, [h], **(opset_attrs or {})), [None, 4])
    return make


def where(m):
    cond = m.const(np.array([True, False, False, True]))
    x = m.linear("x", 4)
    m.term(m.node("Where", [cond, x, m.weight([4])]), [None, 4])
    # Condition [batch, 4] read from the data: x > 0 via Equal/Cast is not
    # available, so a broadcast [1, 4] condition with a scalar y.
    cond2 = m.const(np.array([[False, True, True, False]]))
    m.term(m.node("Where", [cond2, m.weight([]), x]), [None, 4])


def cast(m):
    h = m.linear("x", 4)
    m.term(m.node("Cast", [h], to=TensorProto.FLOAT), [None, 4])
    # Through int64: no gradient (the loss is piecewise constant in h).
    as_int = m.node("Cast", [m.node("Mul", [h, m.const(np.float32(4.0))])],
                    to=TensorProto.INT64)
    m.term(m.node("Cast", [as_int], to=TensorProto.FLOAT), [None, 4])


def dropout(m):
    # Ratio 0: the training form's mask keeps everything at scale 1, which a
    # deterministic reference can check (masks: test/e2e/dropout.test).
    ratio = m.const(np.float32(0.0))
    m.term(m.node("Dropout", [m.linear("x", 4), ratio]), [None, 4])


def softmax_like(op):
    def make(m):
        m.term(m.node(op, [m.linear("x", 4)], axis=-1), [None, 4])
        h3 = m.reshape(m.linear("x", 12), [-1, 3, 4])
        m.term(m.node(op, [h3], axis=1), [None, 3, 4])
    return make


def reduce_(op, m):
    h3 = m.reshape(m.linear("x", 12), [-1, 3, 4])
    m.term(m.node(op, [h3], axes=[1], keepdims=0), [None, 4])
    m.term(m.node(op, [h3], axes=[-1], keepdims=1), [None, 3, 1])
    m.term(m.node(op, [h3], axes=[0], keepdims=0), [3, 4])
    m.term(m.node(op, [h3], keepdims=0), [])


def transpose(m):
    h3 = m.reshape(m.linear("x", 12), [-1, 3, 4])
    m.term(m.node("Transpose", [h3], perm=[2, 0, 1]), [4, None, 3])
    m.term(m.node("Transpose", [m.linear("x", 4)]), [4, None])


def squeeze(m):
    h = m.reshape(m.linear("x", 4), [-1, 1, 4, 1])
    m.term(m.node("Squeeze", [h, m.const(np.array([1, -1], np.int64))]),
           [None, 4])


def unsqueeze(m):
    h = m.linear("x", 4)
    m.term(m.node("Unsqueeze", [h, m.const(np.array([1, -1], np.int64))]),
           [None, 1, 4, 1])


def concat(m):
    a, b = m.linear("x", 4), m.linear("x", 2)
    m.term(m.node("Concat", [a, b, a], axis=1), [None, 10])
    c = m.linear("p", 4)
    m.term(m.node("Concat", [a, c], axis=0), [None, 4])
    w = m.weight([1, 4])
    m.term(m.node("Concat", [c, w], axis=-2), [None, 4])


def matmul_nd(m):
    a3 = m.reshape(m.linear("x", 12), [-1, 3, 4])
    m.term(m.node("MatMul", [a3, m.weight([4, 5])]), [None, 3, 5])
    m.term(m.node("MatMul", [a3, m.weight([4])]), [None, 3])
    m.term(m.node("MatMul", [m.weight([3]), a3]), [None, 4])
    m.term(m.node("MatMul", [m.weight([5]), m.weight([5])]), [])
    m.term(m.node("MatMul", [m.weight([4]), m.weight([4, 2])]), [2])


def matmul_batched(m):
    a3 = m.reshape(m.linear("x", 12), [-1, 3, 4])
    c3 = m.reshape(m.linear("p", 8), [-1, 4, 2])
    m.term(m.node("MatMul", [a3, c3]), [None, 3, 2])
    a4 = m.reshape(m.linear("x", 12), [-1, 1, 3, 4])
    m.term(m.node("MatMul", [a4, m.weight([2, 4, 5])]), [None, 2, 3, 5])
    m.term(m.node("MatMul", [m.weight([2, 1, 2, 3]), a3]), [2, None, 2, 4])


def ints(m, v):
    return m.const(np.array(v, np.int64))


def slice_(m):
    h3 = m.reshape(m.linear("x", 12), [-1, 3, 4])
    big = np.iinfo(np.int64).max
    m.term(m.node("Slice", [h3, ints(m, [1, 0]), ints(m, [big, 4]),
                            ints(m, [1, 2]), ints(m, [1, 2])]), [None, 2, 2])
    # Negative steps (one reversing a whole dim), negative start.
    m.term(m.node("Slice", [h3, ints(m, [-1, 2]), ints(m, [-big, 0]),
                            ints(m, [2, 1]), ints(m, [-2, -1])]), [None, 2, 2])
    m.term(m.node("Slice", [m.weight([4, 3]), ints(m, [1]), ints(m, [-1])]),
           [2, 3])


def pad(m):
    h3 = m.reshape(m.linear("x", 12), [-1, 3, 4])
    # Leading and trailing pads, a constant value; a crop (negative pad).
    m.term(m.node("Pad", [h3, ints(m, [0, 1, 0, 0, 2, 1]),
                          m.const(np.array(0.5, np.float32))]), [None, 6, 5])
    m.term(m.node("Pad", [h3, ints(m, [0, -1, 2, 0, 0, -1])]), [None, 2, 5])
    # Opset 18 axes: only the last dim.
    m.term(m.node("Pad", [m.weight([2, 3]), ints(m, [1, 2]), "",
                          ints(m, [-1])]), [2, 6])


def pad_modes(m):
    h4 = m.reshape(m.linear("x", 24), [-1, 2, 3, 4])
    # Edge (ReplicationPad2d) and reflect (ReflectionPad2d, the largest
    # pads a dim allows), and reflect along opset 18 axes.
    m.term(m.node("Pad", [h4, ints(m, [0, 0, 2, 1, 0, 0, 1, 3])], mode="edge"),
           [None, 2, 6, 8])
    m.term(m.node("Pad", [h4, ints(m, [0, 0, 2, 3, 0, 0, 1, 2])], mode="reflect"),
           [None, 2, 6, 9])
    m.term(m.node("Pad", [m.weight([3, 4]), ints(m, [1, 2]), "", ints(m, [-1])],
                  mode="reflect"), [3, 7])


def gather_scatter_nd(m):
    h3 = m.reshape(m.linear("x", 12), [-1, 3, 4])
    t = m.node("Transpose", [h3], perm=[1, 2, 0])                     # [3,4,B]
    # GatherND of a run-time value (repeated and negative tuples: their
    # gradients sum) and with batch_dims = 1 of a weight.
    g = m.node("GatherND", [t, m.const(np.array([[2], [0], [-1]], np.int64))])
    m.term(m.node("Transpose", [g], perm=[2, 0, 1]), [None, 3, 4])
    m.term(m.node("GatherND", [m.weight([2, 3, 4]),
                               m.const(np.array([[[2, 1]], [[0, 3]]], np.int64))],
                  batch_dims=1), [2, 1])
    # ScatterND none (data's gradient is zero where written) and add, of
    # run-time data and updates.
    u = m.node("Transpose", [m.reshape(m.linear("x", 8), [-1, 2, 4])], perm=[1, 2, 0])
    for red in ["none", "add"]:
        s = m.node("ScatterND", [t, m.const(np.array([[1], [2]], np.int64)), u],
                   reduction=red)
        m.term(m.node("Transpose", [s], perm=[2, 0, 1]), [None, 3, 4])


def split(m):
    h = m.linear("x", 7)
    a, _, c = m.node("Split", [h, ints(m, [2, 4, 1])], n_out=3, axis=1)
    m.term(a, [None, 2])                  # the middle output is unused
    m.term(c, [None, 1])
    w0, w1 = m.node("Split", [m.weight([2, 5])], n_out=2, axis=-1,
                    num_outputs=2)        # 3 and 2 (opset 18)
    m.term(w0, [2, 3])
    m.term(w1, [2, 2])


def expand(m):
    h = m.reshape(m.linear("x", 4), [-1, 1, 4])
    m.term(m.node("Expand", [h, ints(m, [3, 1])]), [None, 3, 4])
    m.term(m.node("Expand", [m.weight([3, 1]), ints(m, [2, 1, 4])]), [2, 3, 4])


def trilu(m):
    h3 = m.reshape(m.linear("x", 12), [-1, 3, 4])
    m.term(m.node("Trilu", [h3]), [None, 3, 4])
    m.term(m.node("Trilu", [h3, m.const(np.array(1, np.int64))], upper=0),
           [None, 3, 4])
    m.term(m.node("Trilu", [m.weight([4, 3]), m.const(np.array(-1, np.int64))]),
           [4, 3])


def clip(m):
    h = m.linear("x", 4)
    lo, hi = m.const(np.float32(-0.5)), m.const(np.float32(0.8))
    m.term(m.node("Clip", [h, lo, hi]), [None, 4])
    m.term(m.node("Clip", [m.linear("x", 4), lo]), [None, 4])      # no max
    m.term(m.node("Clip", [m.linear("x", 4), "", hi]), [None, 4])  # no min


def clip_opset10(m):
    m.term(m.node("Clip", [m.linear("x", 4)], min=-0.3, max=0.6), [None, 4])
    m.term(m.node("Clip", [m.linear("x", 4)], max=0.2), [None, 4])


def hard_sigmoid(m):
    m.term(m.node("HardSigmoid", [m.linear("x", 4)], alpha=0.5, beta=0.4),
           [None, 4])
    m.term(m.node("HardSigmoid", [m.linear("x", 4)]), [None, 4])
    # PyTorch's form over [-3, 3] and beyond.
    m.term(m.node("HardSigmoid", [m.linear("x", 4, -3.0, 3.0)],
                  alpha=1.0 / 6.0), [None, 4])


def hard_swish(m):
    # Weights in [-3, 3]: x W reaches all three pieces (|x W| > 3 too).
    m.term(m.node("HardSwish", [m.linear("x", 4, -3.0, 3.0)]), [None, 4])


def min_max(op):
    def make(m):
        # Two run-time operands and a broadcast parameter, three inputs
        # (ONNX's variadic form); no ties with random weights.
        m.term(m.node(op, [m.linear("x", 4), m.linear("p", 4),
                           m.weight([4], -0.5, 0.5)]), [None, 4])
        # Ties: an operand against itself, the gradient split in halves.
        h = m.linear("x", 4)
        m.term(m.node(op, [h, h]), [None, 4])
    return make


def cumsum(m):
    m.term(m.node("CumSum", [m.linear("x", 4), m.const(np.array(1, np.int64))]),
           [None, 4])
    m.term(m.node("CumSum", [m.linear("x", 4), m.const(np.array(-1, np.int64))],
                  exclusive=1, reverse=1), [None, 4])


MODELS = {
    "div": (div, 17),
    "pow_const": (pow_const, 17),
    "pow": (pow_, 17),
    "sqrt": (unary("Sqrt", positive=True), 17),
    "neg": (unary("Neg"), 17),
    "exp": (unary("Exp"), 17),
    "log": (unary("Log", positive=True), 17),
    "sigmoid": (unary("Sigmoid"), 17),
    "tanh": (unary("Tanh"), 17),
    "erf": (unary("Erf"), 17),
    "leaky_relu": (unary("LeakyRelu", opset_attrs={"alpha": 0.1}), 17),
    "gelu": (unary("Gelu"), 20),
    "gelu_tanh": (unary("Gelu", opset_attrs={"approximate": "tanh"}), 20),
    "where": (where, 17),
    "cast": (cast, 17),
    "dropout": (dropout, 13),
    "softmax": (softmax_like("Softmax"), 17),
    "log_softmax": (softmax_like("LogSoftmax"), 17),
    "reduce_sum": (lambda m: reduce_("ReduceSum", m), 11),
    "reduce_mean": (lambda m: reduce_("ReduceMean", m), 17),
    "reduce_max": (lambda m: reduce_("ReduceMax", m), 17),
    "transpose": (transpose, 17),
    "squeeze": (squeeze, 17),
    "unsqueeze": (unsqueeze, 17),
    "concat": (concat, 17),
    "matmul_nd": (matmul_nd, 17),
    "matmul_batched": (matmul_batched, 17),
    "slice": (slice_, 17),
    "pad": (pad, 18),
    "pad_modes": (pad_modes, 18),
    "gather_scatter_nd": (gather_scatter_nd, 16),
    "split": (split, 18),
    "expand": (expand, 17),
    "trilu": (trilu, 17),
    "clip": (clip, 13),
    "clip_opset10": (clip_opset10, 10),
    "hard_sigmoid": (hard_sigmoid, 17),
    "hard_swish": (hard_swish, 14),
    "abs": (unary("Abs"), 17),
    "min": (min_max("Min"), 17),
    "max": (min_max("Max"), 17),
    "cumsum": (cumsum, 14),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--samples", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", default="", help="comma-separated model names")
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    names = [n for n in args.only.split(",") if n] or list(MODELS)
    for i, name in enumerate(names):
        make, opset = MODELS[name]
        m = Model(np.random.default_rng(args.seed + 1000 * i))
        make(m)
        model = m.build(name, opset)
        onnx.save(model, os.path.join(args.out_dir, name + ".onnx"))
        rng = np.random.default_rng(args.seed + 1000 * i + 1)
        data = {}
        if "x" in m.used_inputs:
            data["x"] = rng.standard_normal([args.samples, 3]).astype(np.float32)
        if "p" in m.used_inputs:
            data["p"] = rng.uniform(0.5, 1.5, [args.samples, 3]).astype(
                np.float32)
        np.savez(os.path.join(args.out_dir, name + ".npz"), **data)
    print(f"wrote {len(names)} models to {args.out_dir}")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(1)
