#!/usr/bin/env python3
"""Write small ONNX models, one per operator family, for import and e2e tests.

Each model has float32 inputs whose first dim is the symbolic ``batch``
(dynamic in the compiled program), a graph output 0 with that leading batch
dim, and combines every op of its family into output 0 so that a wrong op
changes the answer. Weights are float initializers drawn from
``numpy.random.default_rng(seed)``; int64/bool initializers are constants
(axes, exponents, masks). Every model passes ``onnx.checker`` and runs in
onnxruntime.

Families (file ``<name>.onnx`` in --out-dir):

  unary            Neg Exp Log Sqrt Sigmoid Tanh Erf LeakyRelu   (opset 17)
  binary           Div Pow (f32 and int64 exponents), broadcasting (opset 17)
  gelu             Gelu, approximate none and tanh               (opset 20)
  gelu_decomposed  the exporters' Div/Erf/Add/Mul and Pow/Tanh forms (17)
  where_equal_cast Equal (f32, int64) Where Cast f32<->i64<->bool (opset 17)
  dropout          Dropout (ratio, training_mode=false inputs, mask) (13)
  dropout_opset10  Dropout with the ratio attribute, no mask      (opset 10)
  softmax          Softmax LogSoftmax along inner/middle axes     (opset 13)
  softmax_opset11  Softmax LogSoftmax with flatten-to-2D semantics (opset 11)
  reduce_attr      ReduceSum/Mean/Max, axes attribute, keepdims   (opset 11)
  reduce_input     ReduceSum/Mean/Max, axes input, noop_with_empty_axes (18)
  transpose        Transpose with perm and with the default perm  (opset 17)
  squeeze_attr     Squeeze/Unsqueeze with the axes attribute      (opset 11)
  squeeze_input    Squeeze/Unsqueeze with the axes input, Squeeze without
                   axes                                           (opset 13)
  concat           Concat of two inputs and a computed tensor     (opset 17)
  matmul_nd        MatMul N-D x 2-D, broadcast batch, batch x batch, 1-D
                                                                  (opset 17)
  slice_ops        Slice with axes/steps inputs, negative steps, clamped and
                   INT64_MAX ends, the whole batch dim, a weight  (opset 13)
  slice_opset9     Slice with starts/ends/axes attributes         (opset 9)
  pad_ops          Pad + AveragePool (PyTorch's AvgPool2d), a constant
                   value with crops along axes                    (opset 18)
  pad_opset10      Pad with the pads/value attributes             (opset 10)
  pad_modes        Pad in edge and reflect mode (PyTorch's ReplicationPad2d
                   and ReflectionPad2d), on axes, of int64 too    (opset 18)
  transpose_fold   a Reshape target through Transpose of an int64 constant
                                                                  (opset 13)
  split_ops        Split with the split input, equal parts, of a weight
                                                                  (opset 13)
  split_opset18    Split with num_outputs (short last chunk)      (opset 18)
  expand_ops       Expand, bidirectional broadcast                (opset 13)
  trilu_ops        Trilu upper/lower with k, on float, int64 and bool
                   (causal masks into Where)                      (opset 14)
  shape_fold       exporters' shape subgraphs folded at import: Shape(start)
                   -> Gather -> Div/Mul -> Unsqueeze -> Concat -> Reshape,
                   Shape -> Slice -> Concat, ConstantOfShape -> Mul ->
                   Equal -> Where -> Expand (also of the batch dim read
                   by Shape), int/float Range, float ConstantOfShape,
                   Min/Max/Squeeze/Sub/Cast                   (opset 15)
  shape_batch      reads the batch dim through Shape -> Gather; metadata
                   autodist.test.input_shape = x:4x6x4 tells op-models.test
                   to compile it with that --input-shape      (opset 13)
  constant_forms   Constant's value_float(s)/value_int(s), an INT32 tensor
                                                                  (opset 13)
  dynamic_batch    Expand/ConstantOfShape (float, int64)/Reshape to shapes
                   read from the dynamic batch, without --input-shape
                                                                  (opset 15)
  cumsum_int32     CumSum on float (exclusive, reverse, int32 axis) and on
                   int32 (RoBERTa's position ids), int32 arithmetic, Cast
                   to/from INT32, Gather with int32 indices      (opset 14)
  int_arith        run-time int64 Add/Sub/Mul/Div/Mod (both signs)/Neg/Abs/
                   Min/Max, bool And/Or/Xor/Not, float Min/Max (variadic),
                   Abs, Mod                                       (opset 17)
  hard_activations Clip with constant bound inputs (ReLU6, one bound absent,
                   an empty min, a float-initializer max), HardSigmoid
                   (PyTorch's alpha = 1/6 and another), HardSwish  (opset 14)
  recurrent        LSTM (bidirectional, peepholes, clip, initial
                   states, int32 sequence_lens), GRU (reverse, both
                   linear_before_reset, activations with alpha/beta), RNN
                   (bidirectional, Relu/ScaledTanh/Affine)       (opset 14)
  scatter_nd_const ScatterND on constants (computed at import): every
                   reduction, negative indices, slices          (opset 18)
  int32_input      an int32 graph input: Gather, int32 Mul, Cast  (opset 14)
  lstm_small       a 2-step LSTM (its unrolled IR: test/Import/recurrent.test)
                                                                  (opset 14)
  clip_tile        Clip with computed bounds and of int64; Tile of the
                   input, of a parameter and to the run-time batch;
                   GatherElements at run-time indices            (opset 13)
  pow_types        Pow of int64 bases with int64, int32 (negative too) and
                   float exponents; a float base with an int64 one (opset 15)
  unary_opset6     Abs, Sqrt, Neg, Exp, Sigmoid, Tanh, LeakyRelu, Relu,
                   HardSigmoid, Log at opset 6                    (opset 6)
  hard_activations_opset10
                   Clip with min/max attributes (both, one), HardSigmoid
                   with its defaults and others                  (opset 10)
  maxpool_indices  MaxPool's Indices output: pads, storage_order = 1 with
                   ceil_mode, 1-D                                 (opset 13)
  gather_scatter_nd
                   GatherND (batch_dims 0, 1) and ScatterND (none, add,
                   mul) on run-time values                        (opset 16)

With ``--bad`` it writes instead models the importer must reject (an
unknown attribute, unsupported attribute values, non-constant axes, ...),
each with the offending node named ``bad``.

Example::

    python3 examples/ops/make_op_models.py --out-dir ops
    python3 examples/ops/make_op_data.py --model ops/unary.onnx --out unary.npz
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


class Builder:
    """Collects nodes and initializers of one graph."""

    def __init__(self, rng):
        self.rng = rng
        self.nodes, self.inits, self.count = [], [], 0

    def node(self, op, inputs, n_out=1, **attrs):
        self.count += 1
        outs = [f"{op.lower()}_{self.count}_{i}" for i in range(n_out)]
        self.nodes.append(helper.make_node(op, inputs, outs,
                                           name=f"{op}_{self.count}", **attrs))
        return outs[0] if n_out == 1 else outs

    def weight(self, name, shape, low=-1.0, high=1.0):
        self.inits.append(numpy_helper.from_array(
            self.rng.uniform(low, high, size=shape).astype(np.float32), name))
        return name

    def const(self, name, array):
        """An int64/bool/float initializer with fixed values."""
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def scalar(self, value, dtype=np.float32):
        """A Constant node (not a parameter) holding a scalar."""
        self.count += 1
        out = f"const_{self.count}"
        self.nodes.append(helper.make_node(
            "Constant", [], [out], name=f"Constant_{self.count}",
            value=numpy_helper.from_array(np.asarray(value, dtype=dtype))))
        return out

    def sum(self, *xs):
        acc = xs[0]
        for x in xs[1:]:
            acc = self.node("Add", [acc, x])
        return acc

    def model(self, name, inputs, output, out_shape, opset):
        # The node that computes `output` writes graph output 0, "y".
        for n in self.nodes:
            for k, o in enumerate(n.output):
                if o == output:
                    n.output[k] = "y"
            for k, i in enumerate(n.input):
                if i == output:
                    n.input[k] = "y"
        # An input is (name, shape) for float32, or (name, shape, type).
        graph = helper.make_graph(
            self.nodes, name,
            [helper.make_tensor_value_info(i[0], i[2] if len(i) > 2 else F, i[1])
             for i in inputs],
            [helper.make_tensor_value_info("y", F, out_shape)],
            initializer=self.inits)
        ir = 8 if opset <= 17 else 9
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              ir_version=ir, producer_name="make_op_models")
        onnx.checker.check_model(m, full_check=True)
        return m


B = "batch"


def unary(b):
    x = "x"
    n = b.node("Neg", [x])
    softplus = b.node("Log", [b.node("Add", [b.node("Exp", [n]), b.scalar(1.0)])])
    hyp = b.node("Sqrt", [b.node("Add", [b.node("Mul", [x, x]), b.scalar(1.0)])])
    y = b.sum(b.node("Sigmoid", [x]), b.node("Tanh", [x]), b.node("Erf", [x]),
              b.node("LeakyRelu", [x], alpha=0.2), b.node("LeakyRelu", [n]),
              softplus, hyp)
    return b.model("unary", [(x, [B, 3, 4])], y, [B, 3, 4], 17)


def binary(b):
    x = "x"
    w = b.weight("w", [4], 0.5, 2.0)
    pos = b.node("Add", [b.node("Mul", [x, x]), b.scalar(0.5)])
    y = b.sum(b.node("Div", [x, w]),                     # [B,3,4] / [4]
              b.node("Div", [b.scalar(1.0), pos]),        # scalar / tensor
              b.node("Pow", [pos, b.weight("e", [3, 1], 0.5, 1.5)]),
              b.node("Pow", [x, b.scalar(3.0)]),          # negative base
              b.node("Pow", [x, b.const("two", np.array(2, np.int64))]))
    return b.model("binary", [(x, [B, 3, 4])], y, [B, 3, 4], 17)


def gelu(b):
    x = "x"
    y = b.sum(b.node("Gelu", [x]), b.node("Gelu", [x], approximate="tanh"))
    return b.model("gelu", [(x, [B, 8])], y, [B, 8], 20)


def gelu_decomposed(b):
    x = "x"
    # torch's erf form: x * 0.5 * (1 + erf(x / sqrt(2)))
    e = b.node("Erf", [b.node("Div", [x, b.scalar(1.4142135623730951)])])
    g1 = b.node("Mul", [b.node("Mul", [x, b.scalar(0.5)]),
                        b.node("Add", [e, b.scalar(1.0)])])
    # the tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    p = b.node("Pow", [x, b.scalar(3.0)])
    inner = b.node("Mul", [b.node("Add", [x, b.node("Mul", [p, b.scalar(0.044715)])]),
                           b.scalar(0.7978845608028654)])
    g2 = b.node("Mul", [b.node("Mul", [b.scalar(0.5), x]),
                        b.node("Add", [b.scalar(1.0), b.node("Tanh", [inner])])])
    y = b.sum(g1, g2)
    return b.model("gelu_decomposed", [(x, [B, 8])], y, [B, 8], 17)


def where_equal_cast(b):
    x = "x"
    # f32 -> i64 truncates toward zero; compare with int64 constants.
    q = b.node("Cast", [b.node("Mul", [x, b.scalar(2.0)])], to=TensorProto.INT64)
    eq_i = b.node("Equal", [q, b.const("ints", np.array([0, 1, -1, 2, 0, -2], np.int64))])
    qf = b.node("Cast", [q], to=TensorProto.FLOAT)
    eq_f = b.node("Equal", [qf, b.scalar(0.0)])
    nz = b.node("Cast", [q], to=TensorProto.BOOL)                # i64 -> bool
    fz = b.node("Cast", [b.node("Cast", [x], to=TensorProto.BOOL)],
                to=TensorProto.INT64)                            # f32 -> bool -> i64
    w1 = b.node("Where", [eq_i, x, b.node("Neg", [x])])
    w2 = b.node("Where", [eq_f, b.scalar(10.0), qf])             # broadcast
    w3 = b.node("Where", [b.const("mask", np.array([True, False, True, True, False, False])),
                          qf, x])
    y = b.sum(w1, w2, w3, b.node("Cast", [nz], to=TensorProto.FLOAT),
              b.node("Cast", [fz], to=F))
    return b.model("where_equal_cast", [(x, [B, 6])], y, [B, 6], 17)


def dropout(b):
    x = "x"
    out, mask = b.node("Dropout", [x, b.scalar(0.3), b.scalar(False, np.bool_)],
                       n_out=2, seed=3)
    y = b.node("Mul", [out, b.node("Cast", [mask], to=F)])
    return b.model("dropout", [(x, [B, 5])], y, [B, 5], 13)


def dropout_opset10(b):
    x = "x"
    # Before opset 12 the mask is unspecified in inference (not imported).
    y = b.node("Neg", [b.node("Dropout", [x], ratio=0.25)])
    return b.model("dropout_opset10", [(x, [B, 5])], y, [B, 5], 10)


def softmax(b):
    x = "x"
    y = b.sum(b.node("Softmax", [x], axis=1), b.node("LogSoftmax", [x]),
              b.node("Softmax", [x]), b.node("LogSoftmax", [x], axis=-2))
    return b.model("softmax", [(x, [B, 3, 5])], y, [B, 3, 5], 13)


def softmax_opset11(b):
    x = "x"
    # Opset < 13: over the flattened dims [axis, rank); default axis 1.
    y = b.sum(b.node("Softmax", [x]), b.node("LogSoftmax", [x], axis=2),
              b.node("Softmax", [x], axis=-1))
    return b.model("softmax_opset11", [(x, [B, 3, 5])], y, [B, 3, 5], 11)


def reduce_attr(b):
    x = "x"
    s = b.node("ReduceSum", [x], axes=[2])                          # [B,3,1,5]
    m = b.node("ReduceMean", [x], axes=[-1, 2], keepdims=0)         # [B,3]
    mx = b.node("ReduceMax", [x], axes=[1, 3])                      # [B,1,4,1]
    m4 = b.node("Reshape", [m, b.const("shape", np.array([0, 3, 1, 1], np.int64))])
    y = b.sum(s, mx, m4)
    return b.model("reduce_attr", [(x, [B, 3, 4, 5])], y, [B, 3, 4, 5], 11)


def reduce_input(b):
    x = "x"
    s = b.node("ReduceSum", [x, b.const("ax_s", np.array([-1], np.int64))])   # [B,3,1]
    m = b.node("ReduceMean", [x, b.const("ax_m", np.array([1], np.int64))],
               keepdims=0)                                                  # [B,4]
    mx = b.node("ReduceMax", [x, b.const("ax_x", np.array([2, 1], np.int64))])  # [B,1,1]
    noop = b.node("ReduceSum", [x], noop_with_empty_axes=1)                  # x
    # No axes: over all dims (of a weight: the runtime runs the batch in
    # chunks, so a reduction over the batch dim would differ from ORT's).
    w = b.weight("w", [3, 4])
    allm = b.node("ReduceMean", [w], keepdims=0)                             # []
    allx = b.node("ReduceMax", [w, b.const("ax_e", np.zeros([0], np.int64))])  # [1,1]
    m3 = b.node("Unsqueeze", [m, b.const("ax_u", np.array([1], np.int64))])   # [B,1,4]
    y = b.sum(s, m3, mx, noop, allm, allx)
    return b.model("reduce_input", [(x, [B, 3, 4])], y, [B, 3, 4], 18)


def transpose(b):
    x = "x"
    t = b.node("Transpose", [x], perm=[0, 2, 1])                     # [B,4,3]
    c = b.node("Transpose", [b.weight("c", [3, 4])])                 # [4,3]
    t4 = b.node("Transpose", [b.node("Reshape", [x, b.const("s", np.array([-1, 2, 2, 3], np.int64))])],
                perm=[0, 3, 1, 2])                                   # [B,3,2,2]
    back = b.node("Reshape", [t4, b.const("s2", np.array([-1, 4, 3], np.int64))])
    y = b.sum(t, c, back)
    return b.model("transpose", [(x, [B, 3, 4])], y, [B, 4, 3], 17)


def squeeze_attr(b):
    x = "x"
    s = b.node("Squeeze", [x], axes=[1])                             # [B,4]
    u = b.node("Unsqueeze", [s], axes=[1, -1])                       # [B,1,4,1]
    s2 = b.node("Squeeze", [u], axes=[-1, 1])                        # [B,4]
    y = b.sum(s2, b.node("Squeeze", [b.weight("w", [1, 4, 1])], axes=[0, 2]))
    return b.model("squeeze_attr", [(x, [B, 1, 4])], y, [B, 4], 11)


def squeeze_input(b):
    x = "x"
    s = b.node("Squeeze", [x, b.const("a1", np.array([1], np.int64))])   # [B,4]
    u = b.node("Unsqueeze", [s, b.const("a2", np.array([2, 1], np.int64))])  # [B,1,1,4]
    s2 = b.node("Squeeze", [u, b.const("a3", np.array([1], np.int64))])   # [B,1,4]
    w = b.node("Squeeze", [b.weight("w", [1, 4, 1])])                    # [4]
    y = b.sum(b.node("Squeeze", [s2, b.const("a4", np.array([-2], np.int64))]), w)
    return b.model("squeeze_input", [(x, [B, 1, 4])], y, [B, 4], 13)


def concat(b):
    x, z = "x", "z"
    c = b.node("Concat", [x, b.node("Neg", [x]), z], axis=1)                # [B,9]
    w = b.weight("w", [2, 9])
    xs = b.node("Unsqueeze", [c, b.const("ax", np.array([1], np.int64))])  # [B,1,9]
    c2 = b.node("Concat", [xs, b.node("Add", [xs, w])], axis=-2)            # [B,3,9]
    y = b.node("ReduceSum", [c2, b.const("axr", np.array([1], np.int64))], keepdims=0)
    y = b.sum(y, c)
    return b.model("concat", [(x, [B, 4]), (z, [B, 1])], y, [B, 9], 17)


def matmul_nd(b):
    x = "x"
    a = b.node("MatMul", [x, b.weight("w", [4, 5])])                    # [B,3,5]
    c = b.node("MatMul", [a, b.weight("w3", [1, 5, 2])])                # [B,3,2]
    d = b.node("MatMul", [b.weight("w2", [2, 3]), c])                   # [B,2,2]
    xx = b.node("MatMul", [x, b.node("Transpose", [x], perm=[0, 2, 1])])  # [B,3,3]
    e = b.node("MatMul", [xx, b.weight("v", [3])])                      # [B,3]
    f = b.node("MatMul", [b.weight("u", [3]), xx])                      # [B,3]
    g = b.node("MatMul", [d, b.weight("v2", [2])])                      # [B,2]
    h = b.node("MatMul", [b.node("Reshape", [x, b.const("s", np.array([-1, 1, 3, 4], np.int64))]),
                          b.weight("w4", [2, 4, 1])])                   # [B,2,3,1]
    h2 = b.node("Reshape", [h, b.const("s2", np.array([-1, 6], np.int64))])
    y = b.node("Concat", [b.sum(e, f), g, h2], axis=1)                  # [B,11]
    return b.model("matmul_nd", [(x, [B, 3, 4])], y, [B, 11], 17)


I64 = np.int64
INT64_MAX = np.iinfo(np.int64).max


def ints(b, name, v):
    return b.const(name, np.array(v, I64))


def slice_ops(b):
    x = "x"                                                             # [B,6,8]
    s1 = b.node("Slice", [x, ints(b, "st1", [1, -8]), ints(b, "en1", [-1, INT64_MAX]),
                          ints(b, "ax1", [1, 2]), ints(b, "sp1", [2, 3])])   # [B,2,3]
    # Negative steps, an out-of-range start and an INT64_MIN-like end.
    s2 = b.node("Slice", [x, ints(b, "st2", [-1, 100]), ints(b, "en2", [-INT64_MAX, 2]),
                          ints(b, "ax2", [-1, 1]), ints(b, "sp2", [-3, -2])])  # [B,2,3]
    s3 = b.node("Slice", [x, ints(b, "st3", [0]), ints(b, "en3", [3]),
                          ints(b, "ax3", [1])])                              # [B,3,8]
    s4 = b.node("Slice", [s3, ints(b, "st4", [0, 2, 7]),
                          ints(b, "en4", [INT64_MAX, -100, 4]),
                          ints(b, "ax4", [0, 1, 2]), ints(b, "sp4", [1, -1, -1])])  # [B,3,3]
    ws = b.node("Slice", [b.weight("w", [5, 3]), ints(b, "st5", [1]),
                          ints(b, "en5", [3])])                              # [2,3]
    r = b.node("ReduceSum", [s4, ints(b, "axr", [1])], keepdims=0)          # [B,3]
    y = b.sum(s1, s2, ws, b.node("Unsqueeze", [r, ints(b, "axu", [1])]))
    return b.model("slice_ops", [(x, [B, 6, 8])], y, [B, 2, 3], 13)


def slice_opset9(b):
    x = "x"
    s = b.node("Slice", [x], starts=[1, -3], ends=[1000, -1], axes=[1, 2])  # [B,3,2]
    t = b.node("Slice", [x], starts=[0, 0], ends=[3, 2], axes=[2, 1])       # [B,2,3]
    y = b.node("Add", [s, b.node("Transpose", [t], perm=[0, 2, 1])])
    return b.model("slice_opset9", [(x, [B, 4, 5])], y, [B, 3, 2], 9)


def pad_ops(b):
    x = "x"                                                             # [B,3,4,4]
    # PyTorch's AvgPool2d export: Pad (here a real one) + AveragePool.
    p1 = b.node("Pad", [x, ints(b, "pd1", [0, 0, 1, 1, 0, 0, 1, 1])])   # [B,3,6,6]
    a1 = b.node("AveragePool", [p1], kernel_shape=[2, 2], strides=[2, 2])  # [B,3,3,3]
    # A constant value and crops (negative pads) along opset 18 axes.
    p2 = b.node("Pad", [x, ints(b, "pd2", [-1, 0, 1, -2]), b.scalar(2.5),
                        ints(b, "ax2", [2, -1])])                        # [B,3,4,2]
    y = b.node("Concat", [b.node("Flatten", [a1]), b.node("Flatten", [p2])],
               axis=1)                                                  # [B,51]
    return b.model("pad_ops", [(x, [B, 3, 4, 4])], y, [B, 51], 18)


def pad_modes(b):
    x = "x"                                                             # [B,3,4,4]
    e = b.node("Pad", [x, ints(b, "pe", [0, 0, 1, 2, 0, 0, 2, 1])], mode="edge")   # [B,3,7,7]
    r = b.node("Pad", [x, ints(b, "pr", [3, 0, 1, 2]), "", ints(b, "ar", [2, 3])],
               mode="reflect")                                          # [B,3,8,6]
    xi = b.node("Cast", [b.node("Mul", [x, b.scalar(4.0)])], to=TensorProto.INT64)
    ri = b.node("Pad", [xi, ints(b, "pi", [0, 0, 0, 3, 0, 0, 0, 2])], mode="reflect")
    y = b.node("Concat", [b.node("Flatten", [v]) for v in
                          [e, r, b.node("Cast", [ri], to=F)]], axis=1)  # [B,147+144+108]
    return b.model("pad_modes", [(x, [B, 3, 4, 4])], y, [B, 399], 18)


def pad_opset10(b):
    x = "x"                                                             # [B,4,5]
    y = b.node("Pad", [x], pads=[0, 2, 0, 0, 0, 1], value=-1.0)        # [B,6,6]
    return b.model("pad_opset10", [(x, [B, 4, 5])], y, [B, 6, 6], 10)


def transpose_fold(b):
    x = "x"                                                             # [B,12]
    # A target shape through Transpose of an int64 constant (Swin's padding
    # amounts go through one): [[0,4],[3,5],[4,6]]^T row 0 = [0,3,4].
    t = b.node("Transpose", [b.const("c", np.array([[0, 4], [3, 5], [4, 6]], np.int64))],
               perm=[1, 0])
    shape = b.node("Gather", [t, b.const("i0", np.array(0, np.int64))], axis=0)
    y = b.node("Reshape", [x, shape])                                  # [B,3,4]
    return b.model("transpose_fold", [(x, [B, 12])], y, [B, 3, 4], 13)


def split_ops(b):
    x = "x"                                                             # [B,7,4]
    a, c, d = b.node("Split", [x, ints(b, "sp", [2, 4, 1])], n_out=3, axis=1)
    e, f = b.node("Split", [x], n_out=2, axis=-1)                      # [B,7,2] x2
    w0, w1, w2 = b.node("Split", [b.weight("w", [6])], n_out=3)        # [2] x3
    s = b.node("Concat", [d, a, d, a, d], axis=1)                      # [B,7,4]
    ef = b.node("Concat", [b.node("Mul", [e, w0]), b.node("Add", [f, w2])], axis=2)
    r = b.node("ReduceMean", [c], axes=[1])                            # [B,1,4]
    y = b.sum(s, ef, r, b.node("ReduceSum", [w1, ints(b, "axs", [0])]))
    return b.model("split_ops", [(x, [B, 7, 4])], y, [B, 7, 4], 13)


def split_opset18(b):
    x = "x"                                                             # [B,3,7]
    p, q, r = b.node("Split", [x], n_out=3, axis=2, num_outputs=3)     # 3, 3, 1
    u, v = b.node("Split", [x], n_out=2, axis=1, num_outputs=2)        # [B,2,7] [B,1,7]
    pq = b.node("Mul", [p, q])                                         # [B,3,3]
    uv = b.node("Sub", [u, v])                                         # [B,2,7]
    y = b.node("Concat", [pq, r], axis=2)                              # [B,3,4]
    y = b.node("Concat", [y, b.node("Slice", [uv, ints(b, "s0", [0]), ints(b, "s1", [4]),
                                              ints(b, "s2", [2])])], axis=1)  # [B,5,4]
    return b.model("split_opset18", [(x, [B, 3, 7])], y, [B, 5, 4], 18)


def expand_ops(b):
    x = "x"                                                             # [B,1,4]
    e1 = b.node("Expand", [x, ints(b, "sh1", [3, 1])])                 # [B,3,4]
    e2 = b.node("Expand", [b.weight("w", [3, 1]), ints(b, "sh2", [1, 1, 4])])  # [1,3,4]
    e3 = b.node("Expand", [x, ints(b, "sh3", [1, 1, 1])])              # [B,1,4]
    y = b.sum(e1, e2, e3)
    return b.model("expand_ops", [(x, [B, 1, 4])], y, [B, 3, 4], 13)


def trilu_ops(b):
    x = "x"                                                             # [B,4,5]
    up = b.node("Trilu", [x])
    lo = b.node("Trilu", [x, b.const("k1", np.array(1, I64))], upper=0)
    up2 = b.node("Trilu", [x, b.const("k2", np.array(-2, I64))], upper=1)
    # A causal mask from an int64 and a bool matrix.
    ones = b.const("ones", np.ones([4, 5], I64))
    mask_i = b.node("Trilu", [ones], upper=0)
    mask_b = b.node("Trilu", [b.const("tb", np.ones([4, 5], np.bool_))], upper=0)
    keep = b.node("Equal", [mask_i, b.const("one", np.array(1, I64))])
    w1 = b.node("Where", [keep, x, b.scalar(-1e4)])
    w2 = b.node("Where", [mask_b, b.scalar(0.5), x])
    y = b.sum(up, lo, up2, w1, w2)
    return b.model("trilu_ops", [(x, [B, 4, 5])], y, [B, 4, 5], 14)


def shape_fold(b):
    """Exporter shape patterns that fold to constants at import (the batch
    dim is never read: Shape start=1, opset 15)."""
    x = "x"                                                             # [B,6,4]
    zero, one = ints(b, "i0", [0]), ints(b, "i1", [1])
    # Shape(start=1) -> Gather -> Unsqueeze -> Concat -> Reshape
    sh = b.node("Shape", [x], start=1)                                 # [6,4]
    d6 = b.node("Gather", [sh, b.const("g0", np.array(0, I64))])       # 6
    d4 = b.node("Gather", [sh, b.const("g1", np.array(1, I64))])       # 4
    half = b.node("Div", [d6, b.const("two", np.array(2, I64))])       # 3
    dims = b.node("Concat", [ints(b, "m1", [-1]),
                             b.node("Unsqueeze", [half, zero]),
                             b.node("Unsqueeze", [b.node("Mul", [d4, b.const("c2", np.array(2, I64))]), zero])],
                  axis=0)                                              # [-1,3,8]
    r1 = b.node("Reshape", [x, dims])                                  # [B,3,8]
    # Shape(of a weight) -> Slice -> Concat -> Reshape
    w = b.weight("w", [2, 3, 4])
    ws = b.node("Slice", [b.node("Shape", [w]), one, ints(b, "i9", [INT64_MAX])])  # [3,4]
    r2 = b.node("Reshape", [b.node("Reshape", [r1, b.node("Concat", [ints(b, "i00", [0]), ws, ints(b, "i2", [2])], axis=0)]),
                            b.node("Concat", [ints(b, "z0", [0]), ints(b, "s3", [3]), ints(b, "s8", [8])], axis=0)])
    # ConstantOfShape -> Mul -> Equal -> Where -> Expand (torch's expand)
    target = ints(b, "tgt", [1, 3, -1])
    n = b.node("Shape", [target])                                      # [3]
    ones = b.node("ConstantOfShape", [n], value=numpy_helper.from_array(np.array([1], I64)))
    neg = b.node("Mul", [ones, b.const("mone", np.array(-1, I64))])
    eq = b.node("Equal", [target, neg])
    shp = b.node("Where", [eq, ones, target])                          # [1,3,1]
    e = b.node("Expand", [b.weight("v", [3, 1]), shp])                 # [1,3,1]
    # Range (int) as gather indices, Range (float), float ConstantOfShape.
    idx = b.node("Range", [b.const("r0", np.array(7, I64)), b.const("r1", np.array(-1, I64)),
                           b.const("r2", np.array(-3, I64))])          # [7,4,1]
    gi = b.node("Gather", [b.weight("t", [8]), idx])                   # [3]
    fr = b.node("Range", [b.scalar(0.5), b.scalar(8.4), b.scalar(1.0)])  # [8] floats
    cz = b.node("ConstantOfShape", [ints(b, "cs", [3, 8])],
                value=numpy_helper.from_array(np.array([0.25], np.float32)))
    cz0 = b.node("ConstantOfShape", [ints(b, "cs0", [1, 8])])          # float zeros
    shifted = b.sum(r2, b.node("Mul", [fr, cz]), cz0, e,
                    b.node("Unsqueeze", [gi, one]))
    # Cast / Squeeze / Min / Max / Sub on shape ints, read as data.
    mm = b.node("Max", [b.node("Min", [sh, ints(b, "cap", [5, 5])]), ints(b, "fl", [4, 4])])
    sq = b.node("Squeeze", [b.node("Slice", [mm, zero, one]), zero])   # 5
    k = b.node("Cast", [b.node("Sub", [sq, b.const("s1s", np.array(2, I64))])], to=F)  # 3.0
    # torch's x.expand(B, 2, -1, -1) with B read from the dynamic batch:
    # -1 -> 1 through Equal/Where, B stays the input's (unknown) batch dim.
    bsz = b.node("Unsqueeze", [b.node("Gather", [b.node("Shape", [x]), b.const("gb", np.array(0, I64))]), zero])
    want = b.node("Concat", [bsz, ints(b, "e2", [2]), ints(b, "em", [-1, -1])], axis=0)
    fix = b.node("Where", [b.node("Equal", [want, b.const("neg1", np.array(-1, I64))]),
                           b.node("ConstantOfShape", [ints(b, "four", [4])],
                                  value=numpy_helper.from_array(np.array([1], I64))),
                           want])
    ex = b.node("Expand", [b.node("Unsqueeze", [x, one]), fix])        # [B,2,6,4]
    exr = b.node("Reshape", [b.node("ReduceSum", [ex, one], keepdims=0),
                             ints(b, "r38", [0, 3, 8])])                # [B,3,8]
    y = b.node("Add", [b.node("Mul", [shifted, k]), exr])
    return b.model("shape_fold", [(x, [B, 6, 4])], y, [B, 3, 8], 15)


def shape_batch(b):
    """Reads the (dynamic) batch dim: compiled with --input-shape."""
    x = "x"                                                             # [B,6,4]
    zero = ints(b, "i0", [0])
    sh = b.node("Shape", [x])
    bsz = b.node("Unsqueeze", [b.node("Gather", [sh, b.const("g0", np.array(0, I64))]), zero])
    rest = b.node("Slice", [sh, ints(b, "s1", [1]), ints(b, "s2", [2])])   # [6]
    dims = b.node("Concat", [bsz, rest, ints(b, "two", [2]), ints(b, "m1", [-1])], axis=0)
    r = b.node("Reshape", [x, dims])                                   # [B,6,2,2]
    t = b.node("Transpose", [r], perm=[0, 1, 3, 2])
    y = b.node("Reshape", [t, b.node("Concat", [bsz, ints(b, "m", [-1])], axis=0)])  # [B,24]
    m = b.model("shape_batch", [(x, [B, 6, 4])], y, [B, 24], 13)
    # op-models.test.py compiles with this and feeds 12 samples.
    helper.set_model_props(m, {"autodist.test.input_shape": "x:4x6x4"})
    return m


def dynamic_batch(b):
    """Shape computations that read the dynamic batch, compiled without
    --input-shape: Expand of a weight to [batch, 1, 4] (ViT's class token),
    ConstantOfShape of [batch, 6] with float and int64 values (HF's default
    attention mask and token types), Reshape to [batch, -1, 2] (a view with
    the batch beside a -1) and to [2 * batch, -1], a view(batch, -1, 1) of
    a [3 * batch, 2] view, Shape with start/end."""
    x = "x"                                                             # [B,6]
    zero = ints(b, "i0", [0])
    sh = b.node("Shape", [x])
    bsz = b.node("Unsqueeze", [b.node("Gather", [sh, b.const("g0", np.array(0, I64))]), zero])
    cls = b.node("Expand", [b.weight("cls", [1, 1, 6]),
                            b.node("Concat", [bsz, ints(b, "one1", [1, 1])], axis=0)])
    ones = b.node("ConstantOfShape", [b.node("Shape", [x], end=1), ],
                  value=numpy_helper.from_array(np.array([2.0], np.float32)))
    ones2 = b.node("ConstantOfShape", [sh],
                   value=numpy_helper.from_array(np.array([3], I64)))
    mask = b.node("Mul", [b.node("Unsqueeze", [ones, ints(b, "ax1", [1])]),
                          b.node("Cast", [ones2], to=F)])               # [B,6]
    r = b.node("Reshape", [x, b.node("Concat", [bsz, ints(b, "m12", [-1, 2])], axis=0)])
    r = b.node("Reshape", [b.node("Mul", [r, b.scalar(0.5)]),
                           b.node("Shape", [x, ], start=0)])            # [B,6]
    # x.view(bsz * 2, -1): a known multiple of the batch beside a -1 (OPT's
    # attention reshapes), then back.
    r2 = b.node("Reshape", [x, b.node("Concat", [b.node("Mul", [bsz, ints(b, "two", [2])]),
                                                 ints(b, "m1", [-1])], axis=0)])  # [2B,3]
    r2 = b.node("Reshape", [b.node("Mul", [r2, b.scalar(3.0)]),
                            b.node("Concat", [bsz, ints(b, "six", [6])], axis=0)])  # [B,6]
    # x.view(-1, 2) is [3B, 2]: a view(bsz, -1, 1) of it has -1 = 6 (the
    # batch multiple is read through the reshape; ConvBERT's span convs).
    v = b.node("Reshape", [x, ints(b, "m12b", [-1, 2])])                # [3B,2]
    v = b.node("Reshape", [b.node("Relu", [v]),
                           b.node("Concat", [bsz, ints(b, "m11", [-1, 1])], axis=0)])  # [B,6,1]
    v = b.node("Reshape", [v, ints(b, "m16b", [-1, 6])])                # [B,6]
    y = b.sum(b.node("Reshape", [cls, ints(b, "m16", [-1, 6])]), mask, r, r2, v, x)
    return b.model("dynamic_batch", [(x, [B, 6])], y, [B, 6], 15)


def reshape_batch_mismatch():
    """A Reshape whose run-time shape is [batch + batch, -1] on a [batch, 6]
    input: a sum of unknowns is not tracked as a multiple of the batch, the
    import-time resolution (that entry = the dynamic dim) is wrong, and the
    compiled program must stop with a message, never answer."""
    b = Builder(np.random.default_rng(0))
    x = "x"
    bsz = b.node("Unsqueeze", [b.node("Gather", [b.node("Shape", [x]),
                                                 b.const("g0", np.array(0, I64))]),
                               ints(b, "i0", [0])])
    two_b = b.node("Add", [bsz, bsz])
    r = b.node("Reshape", [x, b.node("Concat", [two_b, ints(b, "m1", [-1])], axis=0)])
    y = b.node("Reshape", [r, ints(b, "back", [-1, 6])])
    return b.model("reshape_batch_mismatch", [(x, [B, 6])], y, [B, 6], 13)


def constant_forms(b):
    """Constant's scalar and list attributes (opset 12+), an INT32 tensor
    (Mistral's sliding-window mask) and a DOUBLE one cast to float: int ones
    fold, float ones are data, the double one folds through its Cast."""
    def constant(**attrs):
        b.count += 1
        out = f"const_{b.count}"
        b.nodes.append(helper.make_node("Constant", [], [out],
                                        name=f"Constant_{b.count}", **attrs))
        return out
    x = "x"                                                             # [B,4]
    s = constant(value_float=2.0)
    v = constant(value_floats=[1.0, 2.0, 3.0, 4.0])
    r = b.node("Reshape", [b.node("Add", [b.node("Mul", [x, s]), v]),
                           constant(value_ints=[-1, 2, 2])])            # [B,2,2]
    idx = constant(value=numpy_helper.from_array(np.array([1, 0], np.int32)))
    g = b.node("Gather", [r, idx], axis=2)                              # [B,2,2]
    k = b.node("Cast", [constant(value_int=3)], to=F)
    # A DOUBLE scalar cast to float (Bloom's, GPT-NeoX's 1 / sqrt(head_dim));
    # 0.1 is not a float, so the rounding shows.
    d = b.node("Cast", [constant(value=numpy_helper.from_array(np.array(0.1, np.float64)))],
               to=F)
    y = b.node("Reshape", [b.node("Mul", [b.node("Mul", [g, k]), d]),
                           constant(value_ints=[-1, 4])])
    return b.model("constant_forms", [(x, [B, 4])], y, [B, 4], 13)


def int_bool_reshape(b):
    """Reshape, Flatten and Identity of run-time int64 token ids (GPT-2's
    input_ids.view) and of a bool mask (DistilBERT's mask reshape)."""
    ids = "ids"                                                         # [B,6] int64
    r = b.node("Reshape", [b.node("Identity", [ids]), ints(b, "s", [-1, 3, 2])])
    flat = b.node("Flatten", [r], axis=1)                               # [B,6] int64
    emb = b.node("Gather", [b.weight("wte", [10, 4]), flat])            # [B,6,4]
    mask = b.node("Equal", [flat, b.const("three", np.array(3, I64))])  # [B,6] bool
    m3 = b.node("Reshape", [mask, ints(b, "ms", [0, 6, 1])])            # [B,6,1]
    y = b.node("Where", [m3, b.scalar(0.0), emb])
    return b.model("int_bool_reshape", [(ids, [B, 6], TensorProto.INT64)], y,
                   [B, 6, 4], 14)


def int_arith(b):
    """Run-time int64 arithmetic (T5's relative position buckets), Min/Max/
    Abs/Mod on float and int64, and bool logic (RoBERTa's padding mask)."""
    x = "x"                                                          # [B,6]
    q = b.node("Cast", [b.node("Mul", [x, b.scalar(4.0)])], to=TensorProto.INT64)
    q2 = b.node("Cast", [b.node("Mul", [x, b.scalar(-3.0)])], to=TensorProto.INT64)
    a = b.node("Add", [q, b.const("c1", np.array([3, -2, 5, 0, 1, -7], I64))])
    s = b.node("Sub", [a, q2])
    m = b.node("Mul", [s, b.const("three_i", np.array(3, I64))])
    # Truncating division and both Mod signs, with negative divisors.
    d = b.node("Div", [m, b.const("dv", np.array([2, -3, 4, 5, -1, 7], I64))])
    md0 = b.node("Mod", [m, b.const("mv0", np.array([3, -3, 4, -5, 2, 7], I64))])
    md1 = b.node("Mod", [m, b.const("mv1", np.array([3, -3, 4, -5, 2, 7], I64))],
                 fmod=1)
    ng = b.node("Neg", [d])
    ab = b.node("Abs", [md0])
    mn = b.node("Min", [a, s, b.const("two_i", np.array(2, I64))])   # variadic
    mx = b.node("Max", [m, d])
    # Bool logic on run-time masks.
    p = b.node("Greater", [q, b.const("zero_i", np.array(0, I64))])
    r = b.node("Less", [x, b.scalar(0.5)])
    logic = [b.node("And", [p, r]), b.node("Or", [p, r]), b.node("Xor", [p, r]),
             b.node("Not", [p]),
             b.node("And", [p, b.const("bmask", np.array([True, False, True,
                                                          False, True, True]))])]
    # The float forms.
    w = b.weight("w", [6])
    fl = [b.node("Min", [x, w, b.scalar(0.3)]), b.node("Max", [x, b.scalar(0.2)]),
          b.node("Abs", [x]), b.node("Mod", [x, b.scalar(0.7)], fmod=1),
          b.node("Max", [x])]                                         # one input
    ints_ = [q, a, s, m, d, md0, md1, ng, ab, mn, mx]
    y = b.sum(*[b.node("Cast", [v], to=F) for v in ints_ + logic], *fl)
    return b.model("int_arith", [(x, [B, 6])], y, [B, 6], 17)


def cumsum_int32(b):
    """CumSum on float (exclusive, reverse, an int32 axis) and int32 run-time
    values as RoBERTa computes position ids: Cast to INT32, CumSum, Add of an
    INT32 constant, Mul by the mask, Cast to INT64; int32 Div/Mod/Neg/Max,
    Gather with int32 indices."""
    x = "x"                                                             # [B,6]
    fl = [b.node("CumSum", [x, b.const("ax1", np.array(1, I64))]),
          b.node("CumSum", [x, b.const("axm1", np.array(-1, np.int32))],
                 exclusive=1),
          b.node("CumSum", [x, b.const("ax1r", np.array(1, I64))], reverse=1),
          b.node("CumSum", [x, b.const("ax1b", np.array(1, I64))], reverse=1,
                 exclusive=1)]
    mask = b.node("Cast", [b.node("Greater", [x, b.scalar(0.0)])],
                  to=TensorProto.INT32)                                 # [B,6] i32
    pos = b.node("CumSum", [mask, b.const("ax1c", np.array(1, I64))])
    pos = b.node("Cast", [pos], to=TensorProto.INT32)                   # type_as
    pos = b.node("Add", [pos, b.const("past", np.array(0, np.int32))])
    pos = b.node("Mul", [pos, mask])
    ids = b.node("Add", [b.node("Cast", [pos], to=TensorProto.INT64),
                         b.const("pad", np.array(1, I64))])             # 1..7
    emb = b.node("Gather", [b.weight("wpe", [8]), ids])                # [B,6]
    q = b.node("Cast", [b.node("Mul", [x, b.scalar(3.0)])], to=TensorProto.INT32)
    i32 = [b.node("Div", [q, b.const("d32", np.array([2, -3, 4, 5, -1, 7], np.int32))]),
           b.node("Mod", [q, b.const("m32", np.array([3, -3, 4, -5, 2, 7], np.int32))]),
           b.node("Neg", [q]),
           b.node("Max", [q, b.const("z32", np.array(0, np.int32))]),
           b.node("Cast", [b.node("Cast", [q], to=TensorProto.INT64)],
                  to=TensorProto.INT32)]
    g32 = b.node("Gather", [b.weight("w32", [8]),
                            b.node("Add", [pos, b.const("one32", np.array(1, np.int32))])])
    y = b.sum(*fl, emb, g32, *[b.node("Cast", [v], to=F) for v in [pos] + i32])
    return b.model("cumsum_int32", [(x, [B, 6])], y, [B, 6], 14)


def hard_activations(b):
    x = "x"                                                             # [B,3,4]
    # Scaled so that every piece of every op is reached (HardSwish: |x| > 3).
    x4 = b.node("Mul", [x, b.scalar(4.0)])
    relu6 = b.node("Clip", [x4, b.scalar(0.0), b.scalar(6.0)])
    lower = b.node("Clip", [x4, b.scalar(-1.5)])                       # no max
    upper = b.node("Clip", [x4, "", b.const("clip_max", np.float32(2.5))])
    torch_hs = b.node("HardSigmoid", [x4], alpha=1.0 / 6.0)
    hs = b.node("HardSigmoid", [x4], alpha=0.3, beta=0.4)
    y = b.sum(relu6, lower, upper, torch_hs, hs, b.node("HardSwish", [x4]))
    return b.model("hard_activations", [(x, [B, 3, 4])], y, [B, 3, 4], 14)


def hard_activations_opset10(b):
    x = "x"                                                             # [B,5]
    y = b.sum(b.node("Clip", [x], min=-0.5, max=0.5),
              b.node("Clip", [x], max=0.25),
              b.node("Clip", [x], min=-0.3),
              b.node("HardSigmoid", [x]),
              b.node("HardSigmoid", [x], alpha=0.35, beta=0.55))
    return b.model("hard_activations_opset10", [(x, [B, 5])], y, [B, 5], 10)


def recurrent(b):
    """LSTM, GRU and RNN beyond what PyTorch exports (onnxruntime has no
    layout 1: the conformance and gradient tests cover it): a bidirectional
    LSTM with peepholes, clip, an initial state
    computed from x and int32 sequence_lens computed from x (1..5 per
    sample); a reverse GRU with linear_before_reset 0 and HardSigmoid/
    Softsign activations (alpha/beta); a forward GRU with
    linear_before_reset 1 and no bias; a bidirectional RNN with Relu and
    ScaledTanh/Affine, and Y_h/Y_c outputs."""
    x = "x"                                                     # [B,5,3]
    H = 4
    lens = b.node("Cast", [b.node("Clip", [
        b.node("Add", [b.node("Mul", [b.node("ReduceSum", [x, b.const("ax12", np.array([1, 2], I64))], keepdims=0),
                                      b.scalar(1.5)]), b.scalar(3.0)]),
        b.scalar(1.0), b.scalar(5.0)])], to=TensorProto.INT32)  # [B] int32
    h0 = b.node("MatMul", [b.node("Slice", [x, b.const("s0", np.array([0], I64)),
                                             b.const("s2", np.array([2], I64)),
                                             b.const("s1", np.array([1], I64))]),
                           b.weight("h0w", [3, H])])                 # [B,2,4]
    h0 = b.node("Transpose", [h0], perm=[1, 0, 2])              # [2,B,4]
    c0 = b.node("Tanh", [h0])
    xt = b.node("Transpose", [x], perm=[1, 0, 2])               # [5,B,3]
    ly, lh, lc = b.node("LSTM", [xt, b.weight("lw", [2, 4 * H, 3]),
                                 b.weight("lr", [2, 4 * H, H]),
                                 b.weight("lb", [2, 8 * H]), lens, h0, c0,
                                 b.weight("lp", [2, 3 * H])], n_out=3,
                        hidden_size=H, direction="bidirectional",
                        clip=0.9)                          # [5,2,B,4], [2,B,4]
    gy, gh = b.node("GRU", [xt, b.weight("gw", [1, 3 * H, 3]),
                            b.weight("gr", [1, 3 * H, H]), b.weight("gb", [1, 6 * H])],
                    n_out=2, hidden_size=H, direction="reverse",
                    activations=["HardSigmoid", "Softsign"],
                    activation_alpha=[0.3], activation_beta=[0.45])  # [5,1,B,4]
    g2y = b.node("GRU", [xt, b.weight("g2w", [1, 3 * H, 3]),
                         b.weight("g2r", [1, 3 * H, H])],
                 hidden_size=H, linear_before_reset=1)
    ry, rh = b.node("RNN", [xt, b.weight("rw", [2, H, 3]), b.weight("rr", [2, H, H]),
                            b.weight("rb", [2, 2 * H])], n_out=2,
                    hidden_size=H, direction="bidirectional",
                    activations=["Relu", "ScaledTanh"],
                    activation_alpha=[0.8], activation_beta=[1.3])
    ry2 = b.node("RNN", [xt, b.weight("r2w", [1, H, 3]), b.weight("r2r", [1, H, H])],
                 hidden_size=H, activations=["Affine"], activation_alpha=[0.5],
                 activation_beta=[0.1])
    # Batch to the front (Y [5,D,B,4], Y_h [D,B,4]), flattened.
    flat = []
    for v in [ly, lh, lc, gy, gh, g2y, ry, rh, ry2]:
        perm = [2, 0, 1, 3] if v in (ly, gy, g2y, ry, ry2) else [1, 0, 2]
        flat.append(b.node("Flatten", [b.node("Transpose", [v], perm=perm)], axis=1))
    y = b.node("Concat", flat, axis=1)
    width = 40 + 8 + 8 + 20 + 4 + 20 + 40 + 8 + 20
    return b.model("recurrent", [(x, [B, 5, 3])], y, [B, width], 14)


def lstm_small(b):
    """A forward LSTM over 2 steps with no initial state and no bias, small
    enough that test/Import/recurrent.test checks its unrolled IR."""
    x = "x"                                                     # [B,2,3]
    xt = b.node("Transpose", [x], perm=[1, 0, 2])
    y = b.node("LSTM", [xt, b.weight("w", [1, 8, 3]), b.weight("r", [1, 8, 2])],
               hidden_size=2)                                   # [2,1,B,2]
    y = b.node("Flatten", [b.node("Transpose", [y], perm=[2, 0, 1, 3])], axis=1)
    return b.model("lstm_small", [(x, [B, 2, 3])], y, [B, 4], 14)


def int32_input(b):
    """An int32 graph input (token ids as some exporters type them): Gather
    of an embedding with it, int32 arithmetic, Cast to float."""
    ids = "ids"                                                 # [B,6] int32
    emb = b.node("Gather", [b.weight("emb", [10, 3]), ids])     # [B,6,3]
    k = b.node("Cast", [b.node("Mul", [ids, b.const("two32", np.array(2, np.int32))])],
               to=F)
    y = b.node("Concat", [b.node("Flatten", [emb], axis=1), k], axis=1)
    return b.model("int32_input", [(ids, [B, 6], TensorProto.INT32)], y, [B, 24], 14)


def scatter_nd_const(b):
    """ScatterND on constants, computed at import (Swin's shifted-window
    mask): zeros from ConstantOfShape, updates Expand-ed and Reshape-d from
    a ConstantOfShape, a literal update tensor; negative indices, slices
    (k < rank) and every reduction."""
    x = "x"                                                     # [B,4,3]
    zeros = b.node("ConstantOfShape", [b.const("shp", np.array([4, 3], I64))],
                   value=numpy_helper.from_array(np.array([0.0], np.float32)))
    ones = b.node("ConstantOfShape", [b.const("shp1", np.array([1], I64))],
                  value=numpy_helper.from_array(np.array([2.5], np.float32)))
    upd = b.node("Reshape", [b.node("Expand", [ones, b.const("e6", np.array([6], I64))]),
                             b.const("r23", np.array([2, 3], I64))])   # [2,3]
    rows = b.const("rows", np.array([[1], [-1]], I64))                 # k = 1
    s = b.node("ScatterND", [zeros, rows, upd])
    cells = b.const("cells", np.array([[0, 0], [2, -1], [0, 0]], I64))  # k = 2
    # A Constant node: a float initializer would be a parameter.
    vals = b.node("Constant", [], value=numpy_helper.from_array(
        np.array([1.5, -2.0, 0.5], np.float32)))
    outs = [s] + [b.node("ScatterND", [s, cells, vals], reduction=r)
                  for r in ["none", "add", "mul", "max", "min"]]
    y = b.sum(x, *outs)
    return b.model("scatter_nd_const", [(x, [B, 4, 3])], y, [B, 4, 3], 18)


def clip_tile(b):
    """Clip with computed bounds (ReduceMean of parameters) and of int64,
    Tile with constant repeats of the batch-leading input and of a
    parameter."""
    x = "x"                                                             # [B,3,4]
    x2 = b.node("Mul", [x, b.scalar(2.0)])
    lo = b.node("ReduceMean", [b.weight("lo", [4], -1.0, 0.0)], keepdims=0)
    hi = b.node("ReduceMean", [b.weight("hi", [4], 0.0, 1.0)], keepdims=0)
    both = b.node("Clip", [x2, lo, hi])
    upper = b.node("Clip", [x2, "", hi])
    xi = b.node("Cast", [b.node("Mul", [x, b.scalar(5.0)])], to=TensorProto.INT64)
    ci = b.node("Clip", [xi, b.scalar(-2, np.int64), b.scalar(3, np.int64)])
    s = b.sum(both, upper, b.node("Cast", [ci], to=F))
    t = b.node("Tile", [s, b.const("reps", np.array([1, 2, 1], np.int64))])
    tw = b.node("Tile", [b.weight("w", [3, 2]),
                         b.const("reps_w", np.array([2, 2], np.int64))])  # [6,4]
    # GatherElements at run-time indices (negative ones too) from a Tile of
    # a parameter to the batch (x.repeat(bsz, 1, 1), GPT-J's sin/cos).
    bsz = b.node("Slice", [b.node("Shape", [x]), ints(b, "s0", [0]), ints(b, "s1", [1])])
    reps = b.node("Concat", [bsz, ints(b, "r11", [1, 1])], axis=0)
    table = b.node("Tile", [b.weight("table", [1, 3, 5]), reps])        # [B,3,5]
    idx = b.node("Clip", [xi, b.scalar(-4, np.int64), b.scalar(3, np.int64)])
    ge = b.node("GatherElements", [table, idx], axis=2)                 # [B,3,4]
    t = b.node("Add", [t, b.node("Tile", [ge, b.const("reps_g", np.array([1, 2, 1], np.int64))])])
    y = b.node("Add", [t, tw])                                          # [B,6,4]
    return b.model("clip_tile", [(x, [B, 3, 4])], y, [B, 6, 4], 13)


def pow_types(b):
    """Pow of int64 bases: int64 and int32 exponents (exact, negative ones
    too), a float exponent (in f64, truncated); a float base with an int64
    exponent."""
    x = "x"                                                             # [B,4]
    xi = b.node("Cast", [b.node("Mul", [x, b.scalar(3.0)])], to=TensorProto.INT64)
    pos = b.node("Pow", [xi, b.const("e64", np.array([0, 1, 2, 3], np.int64))])
    e32 = b.node("Pow", [xi, b.const("e32", np.array([3, 2, 1, 0], np.int32))])
    one_up = b.node("Clip", [xi, b.scalar(1, np.int64), b.scalar(4, np.int64)])
    neg = b.node("Pow", [b.node("Neg", [one_up]), b.const("eneg", np.array([-1, -2, -3, -1], np.int64))])
    flt = b.node("Pow", [b.node("Abs", [xi]), b.const("ef", np.array([0.5, 1.5, 2.0, 2.5], np.float32))])
    fi = b.node("Pow", [x, b.const("efi", np.array([1, 2, 3, 2], np.int64))])
    y = b.sum(*[b.node("Cast", [v], to=F) for v in [pos, e32, neg, flt]], fi)
    return b.model("pow_types", [(x, [B, 4])], y, [B, 4], 15)


def unary_opset6(b):
    """A model of opset 6: the unary operators whose semantics start there
    (a chain: Add only exists from opset 7 on)."""
    x = "x"                                                             # [B,3,4]
    h = b.node("Sqrt", [b.node("Abs", [x])])
    h = b.node("Sigmoid", [b.node("Exp", [b.node("Neg", [h])])])
    h = b.node("LeakyRelu", [b.node("Tanh", [h])], alpha=0.2)
    h = b.node("HardSigmoid", [b.node("Relu", [h])], alpha=0.7, beta=0.1)
    y = b.node("Log", [h])
    return b.model("unary_opset6", [(x, [B, 3, 4])], y, [B, 3, 4], 6)


def bad_model(name, nodes, inputs, opset=17, inits=()):
    """A model the importer must reject (not checked: some are invalid)."""
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info(n, F, s) for n, s in inputs],
        [helper.make_tensor_value_info("y", F, None)], initializer=list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                             ir_version=8 if opset <= 17 else 9)


def bad_models():
    """Unsupported attributes and attribute values, one model each; the
    node that should be rejected is named ``bad``."""
    x2 = [("x", [B, 4])]
    mk = helper.make_node
    t = lambda v, dt=np.int64: numpy_helper.from_array(np.asarray(v, dt), "")
    return {
        "unknown_attribute": bad_model("unknown_attribute", [
            mk("LeakyRelu", ["x"], ["y"], name="bad", alpha=0.1, beta=2.0)], x2),
        "gelu_approximate": bad_model("gelu_approximate", [
            mk("Gelu", ["x"], ["y"], name="bad", approximate="fast")], x2, 20),
        # Trainable only through float32: a parameter reaching the loss
        # through a double is an error at --train (inference is fine).
        "train_through_double": bad_model("train_through_double", [
            mk("MatMul", ["x", "w"], ["h"]),
            mk("Cast", ["h"], ["hd"], to=TensorProto.DOUBLE),
            mk("Mul", ["hd", "hd"], ["sq"]),
            mk("Cast", ["sq"], ["y"], name="bad", to=TensorProto.FLOAT)], x2,
            inits=[numpy_helper.from_array(np.ones((4, 3), np.float32), "w")]),
        "cast_to_string": bad_model("cast_to_string", [
            mk("Cast", ["x"], ["y"], name="bad", to=TensorProto.STRING)], x2),
        "double_constant_add": bad_model("double_constant_add", [
            mk("Constant", [], ["d"], value=t(0.5, np.float64)),
            mk("Add", ["x", "d"], ["y"], name="bad")], x2),
        "softmax_axis": bad_model("softmax_axis", [
            mk("Softmax", ["x"], ["y"], name="bad", axis=2)], x2, 13),
        "dropout_training": bad_model("dropout_training", [
            mk("Cast", ["x"], ["t"], to=TensorProto.BOOL),
            mk("Dropout", ["x", "", "t"], ["y"], name="bad")], x2, 13),
        "dropout_ratio": bad_model("dropout_ratio", [
            mk("Constant", [], ["r"], value=t(1.0, np.float32)),
            mk("Dropout", ["x", "r"], ["y"], name="bad")], x2, 13),
        "dropout_mask_opset10": bad_model("dropout_mask_opset10", [
            mk("Dropout", ["x"], ["y", "mask"], name="bad")], x2, 10),
        "reduce_axes_not_constant": bad_model("reduce_axes_not_constant", [
            mk("ReduceSum", ["x"], ["s"], axes=[0, 1], keepdims=0),
            mk("Cast", ["s"], ["a"], to=TensorProto.INT64),
            mk("Unsqueeze", ["a"], ["a1"], axes=[0]),
            mk("ReduceSum", ["x", "a1"], ["y"], name="bad")], x2, 13),
        "reduce_keepdims": bad_model("reduce_keepdims", [
            mk("ReduceMean", ["x"], ["y"], name="bad", axes=[1], keepdims=2)], x2, 13),
        "squeeze_batch": bad_model("squeeze_batch", [
            mk("Squeeze", ["x"], ["y"], name="bad", axes=[0])], x2, 11),
        "transpose_perm": bad_model("transpose_perm", [
            mk("Transpose", ["x"], ["y"], name="bad", perm=[1, 1])], x2),
        "concat_no_axis": bad_model("concat_no_axis", [
            mk("Concat", ["x", "x"], ["y"], name="bad")], x2),
        "matmul_batch": bad_model("matmul_batch", [
            mk("MatMul", ["x", "w"], ["y"], name="bad")], [("x", [2, 2, 4])], 17,
            [numpy_helper.from_array(np.ones([3, 4, 5], np.float32), "w")]),
        # Slice, Split, Expand, Trilu and shape folding.
        "slice_zero_step": bad_model("slice_zero_step", [
            mk("Constant", [], ["s"], value=t([0])),
            mk("Constant", [], ["e"], value=t([2])),
            mk("Constant", [], ["a"], value=t([1])),
            mk("Constant", [], ["st"], value=t([0])),
            mk("Slice", ["x", "s", "e", "a", "st"], ["y"], name="bad")], x2, 13),
        "slice_batch": bad_model("slice_batch", [
            mk("Constant", [], ["s"], value=t([1])),
            mk("Constant", [], ["e"], value=t([2])),
            mk("Slice", ["x", "s", "e"], ["y"], name="bad")], x2, 13),
        "slice_not_constant": bad_model("slice_not_constant", [
            mk("ReduceMax", ["x"], ["m"], axes=[0, 1], keepdims=0),
            mk("Cast", ["m"], ["s"], to=TensorProto.INT64),
            mk("Unsqueeze", ["s"], ["s1"], axes=[0]),
            mk("Constant", [], ["e"], value=t([4])),
            mk("Constant", [], ["a"], value=t([1])),
            mk("Slice", ["x", "s1", "e", "a"], ["y"], name="bad")], x2, 11),
        "pad_wrap": bad_model("pad_wrap", [
            mk("Constant", [], ["p"], value=t([0, 1, 0, 1])),
            mk("Pad", ["x", "p"], ["y"], name="bad", mode="wrap")], x2, 19),
        "pad_reflect_wide": bad_model("pad_reflect_wide", [
            mk("Constant", [], ["p"], value=t([0, 4, 0, 1])),
            mk("Pad", ["x", "p"], ["y"], name="bad", mode="reflect")], x2, 13),
        "pad_edge_crop": bad_model("pad_edge_crop", [
            mk("Constant", [], ["p"], value=t([0, -1, 0, 1])),
            mk("Pad", ["x", "p"], ["y"], name="bad", mode="edge")], x2, 13),
        "pad_batch": bad_model("pad_batch", [
            mk("Constant", [], ["p"], value=t([1, 0, 0, 0])),
            mk("Pad", ["x", "p"], ["y"], name="bad")], x2, 13),
        # Recurrent ops on x [batch, 4, 3]; time-major (layout 0) its
        # sequence is the dynamic batch dim.
        "rnn_dynamic_seq": bad_model("rnn_dynamic_seq", [
            mk("RNN", ["x", "w", "r"], ["y"], name="bad", hidden_size=2)],
            [("x", [B, 4, 3])], 14,
            [numpy_helper.from_array(np.ones([1, 2, 3], np.float32), "w"),
             numpy_helper.from_array(np.ones([1, 2, 2], np.float32), "r")]),
        "rnn_w_shape": bad_model("rnn_w_shape", [
            mk("RNN", ["x", "w", "r"], ["y"], name="bad", hidden_size=2,
               layout=1)], [("x", [B, 4, 3])], 14,
            [numpy_helper.from_array(np.ones([1, 2, 5], np.float32), "w"),
             numpy_helper.from_array(np.ones([1, 2, 2], np.float32), "r")]),
        "lstm_input_forget": bad_model("lstm_input_forget", [
            mk("LSTM", ["x", "w", "r"], ["y"], name="bad", hidden_size=2,
               input_forget=1, layout=1)], [("x", [B, 4, 3])], 14,
            [numpy_helper.from_array(np.ones([1, 8, 3], np.float32), "w"),
             numpy_helper.from_array(np.ones([1, 8, 2], np.float32), "r")]),
        "gru_activation": bad_model("gru_activation", [
            mk("GRU", ["x", "w", "r"], ["y"], name="bad", hidden_size=2,
               activations=["Elu", "Tanh"], layout=1)], [("x", [B, 4, 3])], 14,
            [numpy_helper.from_array(np.ones([1, 6, 3], np.float32), "w"),
             numpy_helper.from_array(np.ones([1, 6, 2], np.float32), "r")]),
        "scatternd_updates_shape": bad_model("scatternd_updates_shape", [
            mk("Constant", [], ["i"], value=t([[1]])),
            mk("Constant", [], ["u"], value=t(np.ones([1, 3]), np.float32)),
            mk("ScatterND", ["x", "i", "u"], ["y"], name="bad")], [("x", [3, 4])], 13),
        "pad_value_not_constant": bad_model("pad_value_not_constant", [
            mk("Constant", [], ["p"], value=t([0, 1, 0, 1])),
            mk("ReduceMax", ["x"], ["m"], axes=[0, 1], keepdims=0),
            mk("Pad", ["x", "p", "m"], ["y"], name="bad")], x2, 13),
        "split_uneven": bad_model("split_uneven", [
            mk("Split", ["x"], ["y", "z", "w"], name="bad", axis=1)], x2, 13),
        "split_num_outputs": bad_model("split_num_outputs", [
            mk("Split", ["x"], ["y", "z"], name="bad", axis=1, num_outputs=3)],
            x2, 18),
        "trilu_upper": bad_model("trilu_upper", [
            mk("Trilu", ["x"], ["y"], name="bad", upper=2)], x2, 14),
        "expand_not_constant": bad_model("expand_not_constant", [
            mk("ReduceMax", ["x"], ["m"], axes=[0], keepdims=0),
            mk("Cast", ["m"], ["s"], to=TensorProto.INT64),
            mk("Expand", ["x", "s"], ["y"], name="bad")], x2, 13),
        # A float Range to the dynamic batch size: an int64 one is computed
        # at run time (nn.range), a float one needs constants.
        "range_batch": bad_model("range_batch", [
            mk("Shape", ["x"], ["sh"]),
            mk("Constant", [], ["z"], value=t(0)),
            mk("Constant", [], ["zf"], value=helper.make_tensor("zf", TensorProto.FLOAT, [], [0.0])),
            mk("Constant", [], ["of"], value=helper.make_tensor("of", TensorProto.FLOAT, [], [1.0])),
            mk("Gather", ["sh", "z"], ["b"], axis=0),
            mk("Cast", ["b"], ["bf"], to=TensorProto.FLOAT),
            mk("Range", ["zf", "bf", "of"], ["y"], name="bad")], x2, 13),
        # Arithmetic on bool (invalid ONNX) and on mixed types.
        "add_bool": bad_model("add_bool", [
            mk("Cast", ["x"], ["i"], to=TensorProto.BOOL),
            mk("Add", ["i", "i"], ["y"], name="bad")], x2, 13),
        "add_mixed": bad_model("add_mixed", [
            mk("Cast", ["x"], ["i"], to=TensorProto.INT64),
            mk("Add", ["i", "x"], ["y"], name="bad")], x2, 13),
        "mod_float_fmod0": bad_model("mod_float_fmod0", [
            mk("Mod", ["x", "x"], ["y"], name="bad")], x2, 13),
        # Tile's repeats must be constants, one per dim.
        "tile_repeats_rank": bad_model("tile_repeats_rank", [
            mk("Constant", [], ["r"], value=t([1, 2, 3])),
            mk("Tile", ["x", "r"], ["y"], name="bad")], x2, 13),
        "tile_repeats_runtime": bad_model("tile_repeats_runtime", [
            mk("ReduceMax", ["x"], ["m"], axes=[0], keepdims=0),
            mk("Cast", ["m"], ["r"], to=TensorProto.INT64),
            mk("Tile", ["x", "r"], ["y"], name="bad")], x2, 13),
        # Opsets before 7: only operators whose semantics start there.
        "add_opset6": bad_model("add_opset6", [
            mk("Add", ["x", "x"], ["y"], name="bad")], x2, 6),
        "constant_of_shape_double": bad_model("constant_of_shape_double", [
            mk("Constant", [], ["s"], value=t([2, 4])),
            mk("ConstantOfShape", ["s"], ["c"], name="bad",
               value=numpy_helper.from_array(np.array([1.0]), "")),
            mk("Add", ["x", "c"], ["y"])], x2, 13),
        # Clip's bounds are scalars; constant ones ordered.
        "clip_bound_not_scalar": bad_model("clip_bound_not_scalar", [
            mk("ReduceMax", ["x"], ["m"], axes=[0], keepdims=0),
            mk("Clip", ["x", "m"], ["y"], name="bad")], x2, 13),
        "clip_min_above_max": bad_model("clip_min_above_max", [
            mk("Constant", [], ["lo"], value=t(2.0, np.float32)),
            mk("Constant", [], ["hi"], value=t(1.0, np.float32)),
            mk("Clip", ["x", "lo", "hi"], ["y"], name="bad")], x2, 13),
        "clip_attribute_opset13": bad_model("clip_attribute_opset13", [
            mk("Clip", ["x"], ["y"], name="bad", max=6.0)], x2, 13),
        # Compiles; the executable must stop (see reshape_batch_mismatch).
        "reshape_batch_mismatch": reshape_batch_mismatch(),
    }


def gather_scatter_nd(b):
    """GatherND and ScatterND (none, add, mul) on run-time values, the batch
    moved last so that the index tuples address static dims; GatherND with
    batch_dims = 1 on a weight; a negative index."""
    x = "x"                                                             # [B,5,4]
    t = b.node("Transpose", [x], perm=[1, 2, 0])                         # [5,4,B]
    part = b.node("Transpose", [b.node("Slice", [x, ints(b, "s0", [0]), ints(b, "s1", [2]),
                                                 ints(b, "s2", [1])])], perm=[1, 2, 0])  # [2,4,B]
    idx = b.const("idx", np.array([[3], [-5]], np.int64))
    outs = [b.node("ScatterND", [t, idx, part], reduction=r) for r in ["none", "add", "mul"]]
    g = b.node("GatherND", [t, b.const("gi", np.array([[1], [4], [2]], np.int64))])  # [3,4,B]
    w = b.weight("w", [2, 3, 4])
    gb = b.node("GatherND", [w, b.const("gb", np.array([[[2, 1]], [[0, 3]]], np.int64))],
                batch_dims=1)                                            # [2,1]
    flat = [b.node("Flatten", [b.node("Transpose", [v], perm=[2, 0, 1])]) for v in outs + [g]]
    y = b.node("Add", [b.node("Concat", flat, axis=1),                  # [B,72]
                       b.node("ReduceSum", [gb], keepdims=0)])
    return b.model("gather_scatter_nd", [(x, [B, 5, 4])], y, [B, 72], 16)


def maxpool_indices(b):
    """MaxPool's Indices output: row-major with pads, column-major
    (storage_order = 1) with ceil_mode, and 1-D; the flat indices (cast to
    float, exact) beside the pooled values. An index counts the samples
    before its own in the batch it was computed in, which differs between
    the chunks of a run and onnxruntime's whole batch: modulo one sample's
    size (3 * 49) it is the position within the sample."""
    x = "x"                                                             # [B,3,7,7]
    y1, i1 = b.node("MaxPool", [x], 2, kernel_shape=[3, 3], strides=[2, 2],
                    pads=[1, 1, 1, 1])                                  # [B,3,4,4]
    _, i2 = b.node("MaxPool", [x], 2, kernel_shape=[2, 2], strides=[2, 2],
                   ceil_mode=1, storage_order=1)                        # [B,3,4,4]
    line = b.node("Reshape", [x, b.const("line", np.array([0, 3, 49], np.int64))])
    _, i3 = b.node("MaxPool", [line], 2, kernel_shape=[3], strides=[3])  # [B,3,16]
    per_sample = b.const("per_sample", np.array(3 * 49, np.int64))
    flat = [b.node("Flatten", [b.node("Cast", [b.node("Mod", [i, per_sample])], to=F)],
                   axis=1) for i in [i1, i2, i3]]
    y = b.node("Concat", flat + [b.node("Flatten", [y1], axis=1)], axis=1)
    return b.model("maxpool_indices", [(x, [B, 3, 7, 7])], y, [B, 192], 13)


FAMILIES = [unary, binary, gelu, gelu_decomposed, where_equal_cast, dropout,
            dropout_opset10, softmax, softmax_opset11, reduce_attr,
            reduce_input, transpose, squeeze_attr, squeeze_input, concat,
            matmul_nd, slice_ops, slice_opset9, pad_ops, pad_opset10, pad_modes,
            transpose_fold,
            split_ops, split_opset18, expand_ops, trilu_ops, shape_fold, shape_batch, constant_forms,
            int_bool_reshape, int_arith, dynamic_batch, cumsum_int32,
            hard_activations,
            hard_activations_opset10, recurrent, lstm_small, int32_input,
            scatter_nd_const, clip_tile, unary_opset6, pow_types,
            maxpool_indices, gather_scatter_nd]


def main():
    ap = argparse.ArgumentParser(
        description="Write one small ONNX model per operator family.")
    ap.add_argument("--out-dir", required=True, help="output directory")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", nargs="*", help="family names (default: all)")
    ap.add_argument("--bad", action="store_true",
                    help="write models the importer must reject instead "
                         "(unsupported attributes and values)")
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    if args.bad:
        for name, m in bad_models().items():
            path = os.path.join(args.out_dir, name + ".onnx")
            onnx.save(m, path)
            print(f"wrote {path}")
        return
    for i, fam in enumerate(FAMILIES):
        if args.only and fam.__name__ not in args.only:
            continue
        m = fam(Builder(np.random.default_rng(args.seed + i)))
        path = os.path.join(args.out_dir, fam.__name__ + ".onnx")
        onnx.save(m, path)
        print(f"wrote {path}: {len(m.graph.node)} nodes, opset "
              f"{m.opset_import[0].version}")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # one-line error, non-zero exit
        print(f"error: {e}", file=sys.stderr)
        sys.exit(1)
