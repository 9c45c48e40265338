#!/usr/bin/env python3
"""Write ONNX models whose output is a scalar loss built from every
differentiable operator, with PyTorch autograd's gradients of that loss.

  make_torch_grad_models.py --out-dir DIR [--seeds 0,1,2,3] [--reps 2]
                            [--only conv,gelu,...]

Per seed S it writes DIR/grad_sS.onnx and DIR/grad_sS.ref.npz. The model has
no graph input: every operand of every operator under test is a float32
initializer (a parameter) of a random shape drawn for that seed, the
operators' attributes are drawn too (Conv groups, pads, strides, dilations;
Gemm transA/transB/alpha/beta; broadcast shapes; axes; ...), and each
operator's result ``y`` adds ``sum(y * R)`` (``R`` a fixed random
``Constant``) to output 0, ``loss``. Each case is drawn --reps times per
model. The opset of seed S is OPSETS[S % 4] (17, 18, 20, 21): the axes of
ReduceMean/ReduceMax and Split's num_outputs (18+), AveragePool dilations
(19+) and Gelu (20+) follow it.

The same loss is written with torch / torch.nn.functional (not with this
repository's code) on float64 copies of the same float32 values, and
``loss.backward()`` gives the reference: ``grad:NAME`` in the .npz is
d loss / d NAME for every trained initializer NAME; ``state:NAME`` is the
value a BatchNormalization running mean/var must have after one training
step (``momentum * running + (1 - momentum) * batch``, the batch variance
unbiased as PyTorch's, or biased as ONNX specifies for ``training_mode =
1``); ``loss`` is the loss. Parameters are
named ``CASE.K`` (``CASE`` a key of CASES), so a driver can report each
operator. So ``autodist-compile M.onnx --train --loss=output
--optimizer=sgd --lr=1`` and one step with ``--save`` give each parameter's
gradient as ``W - W_saved``. Needs torch, numpy and onnx (Debian's
python3-torch and python3-onnx work: no ONNX checker runs, so an old onnx
writes opset 20/21 models too).

Example::

    python3 examples/ops/make_torch_grad_models.py --out-dir g --seeds 0
    autodist-compile g/grad_s0.onnx --train --loss=output --optimizer=sgd \\
        --lr=1 -o g.train --quiet
    python3 -c "import numpy; numpy.savez('none.npz')"
    ./g.train --data=none.npz --steps=1 --batch-size=1 --save=g.saved.onnx
"""
import argparse
import math
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

OPSETS = [17, 18, 20, 21]
BIG = np.iinfo(np.int64).max


class Param:
    """A float32 initializer and its float64 torch leaf."""

    def __init__(self, name, t):
        self.name, self.t = name, t


class Graph:
    """An ONNX graph and the torch computation of the same loss."""

    def __init__(self, opset, rng):
        self.opset, self.rng = opset, rng
        self.nodes, self.inits, self.terms = [], [], []
        self.leaves, self.states = {}, {}
        self.torch_loss = torch.zeros((), dtype=torch.float64)
        self.case, self.count = "", 0

    def _name(self, stem):
        self.count += 1
        return f"{stem}_{self.count}"

    def param(self, array):
        """A trainable float initializer named CASE.K."""
        name = f"{self.case}.{sum(n.startswith(self.case + '.') for n in self.leaves)}"
        a = np.asarray(array, dtype=np.float32)
        self.inits.append(numpy_helper.from_array(a, name))
        t = torch.tensor(a.astype(np.float64), requires_grad=True)
        self.leaves[name] = t
        return Param(name, t)

    def normal(self, shape, scale=1.0):
        return self.param(self.rng.standard_normal(shape) * scale)

    def positive(self, shape, low=0.5, high=1.5):
        return self.param(self.rng.uniform(low, high, shape))

    def state(self, array):
        """A non-trained float initializer (running statistic)."""
        p = self.param(array)
        p.t.requires_grad_(False)
        return p

    def const(self, array, dtype=None):
        """A Constant node (not a parameter)."""
        out = self._name("const")
        a = np.asarray(array, dtype=dtype)
        self.nodes.append(helper.make_node(
            "Constant", [], [out], name=out,
            value=numpy_helper.from_array(a, out)))
        return out

    def ints(self, values):
        return self.const(np.array(values, np.int64))

    def op(self, op, inputs, n_out=1, **attrs):
        """Appends a node; inputs are Params, names or "" (absent)."""
        name = self._name(f"{self.case}_{op}")
        outs = [f"{name}_out{k}" for k in range(n_out)]
        names = [i.name if isinstance(i, Param) else i for i in inputs]
        self.nodes.append(helper.make_node(op, names, outs, name=name, **attrs))
        return outs[0] if n_out == 1 else outs

    def axes(self, op, x_inputs, axes, since, **attrs):
        """A node whose `axes` is an input from opset `since`, an attribute
        before."""
        if axes is None:
            return self.op(op, x_inputs, **attrs)
        if self.opset >= since:
            return self.op(op, x_inputs + [self.ints(axes)], **attrs)
        return self.op(op, x_inputs, axes=list(axes), **attrs)

    def term(self, y, ty):
        """loss += sum(y * R), in ONNX (y a name) and in torch (ty)."""
        r = self.rng.standard_normal(tuple(ty.shape))
        rc = self.const(r.astype(np.float32))
        self.terms.append(self.op("ReduceSum", [self.op("Mul", [y, rc])],
                                  keepdims=0))
        rt = torch.tensor(r.astype(np.float32).astype(np.float64))
        self.torch_loss = self.torch_loss + (ty * rt).sum()

    def build(self, name):
        loss = self.terms[0]
        for t in self.terms[1:]:
            loss = self.op("Add", [loss, t])
        self.nodes.append(helper.make_node("Identity", [loss], ["loss"],
                                           name="loss"))
        graph = helper.make_graph(
            self.nodes, name, [],
            [helper.make_tensor_value_info("loss", TensorProto.FLOAT, [])],
            self.inits)
        model = helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", self.opset)],
            producer_name="make_torch_grad_models")
        model.ir_version = 8
        return model

    def reference(self):
        self.torch_loss.backward()
        ref = {}
        for name, t in self.leaves.items():
            if t.requires_grad:
                ref["grad:" + name] = t.grad.numpy()
        for name, t in self.states.items():
            ref["state:" + name] = t.detach().numpy()
        ref["loss"] = np.array(self.torch_loss.item())
        return ref


# ---------------------------------------------------------------------------
# random shapes
# ---------------------------------------------------------------------------


def shape(rng, rank=None, lo=1, hi=5):
    rank = int(rng.integers(1, 5)) if rank is None else rank
    return [int(d) for d in rng.integers(lo, hi + 1, rank)]


def broadcast_pair(rng):
    """Two shapes that broadcast to a common one (suffixes, some dims 1)."""
    full = shape(rng, hi=4)
    out = []
    for _ in range(2):
        s = full[len(full) - int(rng.integers(0, len(full) + 1)):]
        out.append([1 if rng.random() < 0.3 else d for d in s])
    return out


def axis_of(rng, rank):
    """A random axis, negative half the time."""
    a = int(rng.integers(0, rank))
    return a - rank if rng.random() < 0.5 else a


# ---------------------------------------------------------------------------
# cases: each draws shapes and attributes, writes the ONNX node(s) and the
# torch expression of the same result, and adds a loss term
# ---------------------------------------------------------------------------


def conv(g, r):
    depthwise = r.random() < 0.25
    groups = int(r.integers(1, 4))
    cin = 1 if depthwise else int(r.integers(1, 3))
    mg = int(r.integers(1, 3))
    k = [int(v) for v in r.integers(1, 4, 2)]
    s = [int(v) for v in r.integers(1, 3, 2)]
    d = [int(v) for v in r.integers(1, 3, 2)]
    p = [int(v) for v in r.integers(0, 3, 4)]      # top, left, bottom, right
    hw = [d[i] * (k[i] - 1) + 1 + int(r.integers(0, 5)) for i in range(2)]
    x = g.normal([int(r.integers(1, 3)), groups * cin] + hw)
    w = g.normal([groups * mg, cin] + k, 1 / math.sqrt(cin * k[0] * k[1]))
    ins = [x, w]
    b = None
    if r.random() < 0.5:
        b = g.normal([groups * mg])
        ins.append(b)
    y = g.op("Conv", ins, group=groups, kernel_shape=k, strides=s,
             dilations=d, pads=p)
    ty = F.conv2d(F.pad(x.t, (p[1], p[3], p[0], p[2])), w.t,
                  b.t if b else None, stride=s, dilation=d, groups=groups)
    g.term(y, ty)


def pool_geometry(g, r, dilations):
    k = [int(v) for v in r.integers(1, 4, 2)]
    s = [int(v) for v in r.integers(1, 3, 2)]
    d = [int(v) for v in r.integers(1, 3, 2)] if dilations else [1, 1]
    p = [int(r.integers(0, k[i % 2])) for i in range(4)]
    hw = [d[i] * (k[i] - 1) + 1 + int(r.integers(0, 5)) for i in range(2)]
    x = g.normal([int(r.integers(1, 3)), int(r.integers(1, 4))] + hw)
    return x, k, s, d, p


def maxpool(g, r):
    x, k, s, d, p = pool_geometry(g, r, True)
    y = g.op("MaxPool", [x], kernel_shape=k, strides=s, dilations=d, pads=p)
    xp = F.pad(x.t, (p[1], p[3], p[0], p[2]), value=-math.inf)
    g.term(y, F.max_pool2d(xp, k, s, dilation=d))


def averagepool(g, r):
    x, k, s, d, p = pool_geometry(g, r, g.opset >= 19)
    include = int(r.integers(0, 2))
    attrs = dict(kernel_shape=k, strides=s, pads=p, count_include_pad=include)
    if g.opset >= 19:
        attrs["dilations"] = d
    y = g.op("AveragePool", [x], **attrs)
    n, c, h, w = x.t.shape
    pad = (p[1], p[3], p[0], p[2])
    cols = F.unfold(F.pad(x.t, pad), k, dilation=d, stride=s)
    total = cols.reshape(n, c, k[0] * k[1], -1).sum(2)
    if include:
        count = k[0] * k[1]
    else:
        ones = F.pad(torch.ones(1, 1, h, w, dtype=torch.float64), pad)
        count = F.unfold(ones, k, dilation=d, stride=s).sum(1)
    oh = (h + p[0] + p[2] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    g.term(y, (total / count).reshape(n, c, oh, -1))


def global_averagepool(g, r):
    x = g.normal(shape(r, int(r.integers(3, 6)), hi=4))
    g.term(g.op("GlobalAveragePool", [x]),
           x.t.mean(dim=tuple(range(2, x.t.dim())), keepdim=True))


def batchnorm(g, r):
    s = shape(r, int(r.integers(2, 5)), hi=4)
    s[0] = max(s[0], 2)
    if int(np.prod(s)) // s[1] < 4:   # at 2 values a channel y is +-1
        s[0] = 4
    c = s[1]
    x = g.normal(s)
    scale, bias = g.positive([c]), g.normal([c])
    mean, var = g.state(r.uniform(-0.5, 0.5, c)), g.state(r.uniform(0.5, 1.5, c))
    eps, mom = float(r.choice([1e-5, 1e-3])), float(r.choice([0.9, 0.8]))
    # training_mode = 1 (as PyTorch's training-mode export) follows ONNX:
    # the running variance blends the biased batch variance; without it
    # the training step updates it as PyTorch does (unbiased).
    onnx_form = bool(r.integers(0, 2))
    attrs = dict(epsilon=eps, momentum=mom)
    if onnx_form:
        attrs["training_mode"] = 1
    y = g.op("BatchNormalization", [x, scale, bias, mean, var], **attrs)
    ty = F.batch_norm(x.t, None, None, scale.t, bias.t, training=True, eps=eps)
    dims = [0] + list(range(2, len(s)))
    with torch.no_grad():
        bm = x.t.mean(dim=dims)
        bv = x.t.var(dim=dims, unbiased=not onnx_form)
        g.states[mean.name] = mom * mean.t + (1 - mom) * bm
        g.states[var.name] = mom * var.t + (1 - mom) * bv
    g.term(y, ty)


def unary(op, fn, positive=False, **attrs):
    def case(g, r):
        s = shape(r)
        x = g.positive(s) if positive else g.normal(s)
        a = {k: (v(r) if callable(v) else v) for k, v in attrs.items()}
        g.term(g.op(op, [x], **a), fn(x.t, **a))
    return case


def gelu(approximate):
    def case(g, r):
        if g.opset < 20:
            return
        x = g.normal(shape(r), 2.0)
        y = g.op("Gelu", [x], approximate=approximate)
        g.term(y, F.gelu(x.t, approximate=approximate))
    return case


def softmax_like(op, fn):
    def case(g, r):
        x = g.normal(shape(r), 2.0)
        a = axis_of(r, x.t.dim())
        g.term(g.op(op, [x], axis=a), fn(x.t, dim=a))
    return case


def layernorm(g, r):
    s = shape(r, int(r.integers(1, 5)))
    rank = len(s)
    axis = axis_of(r, rank)
    if int(np.prod(s[axis % rank:])) < 3:   # at 2 values y is +-1
        s[-1] += 2
    x = g.normal(s, 2.0)
    norm = list(x.t.shape[axis % rank:])
    # Scale and bias broadcast to the normalized dims (leading 1s allowed).
    sshape = [1 if (i == 0 and len(norm) > 1 and r.random() < 0.3) else n
              for i, n in enumerate(norm)]
    scale = g.positive(sshape)
    eps = float(r.choice([1e-5, 1e-3]))
    ins, tb = [x, scale], 0.0
    if r.random() < 0.7:
        b = g.normal(norm)
        ins.append(b)
        tb = b.t
    y = g.op("LayerNormalization", ins, axis=axis, epsilon=eps)
    g.term(y, F.layer_norm(x.t, norm, eps=eps) * scale.t + tb)


def matmul(g, r):
    kind = int(r.integers(0, 4))
    m, k, n = (int(v) for v in r.integers(1, 5, 3))
    batch = shape(r, int(r.integers(0, 3)), hi=3)
    if kind == 0:      # batched, both operands broadcasting batch dims
        sa = [1 if r.random() < 0.4 else d for d in batch] + [m, k]
        sb = [1 if r.random() < 0.4 else d for d in batch][
            int(r.integers(0, len(batch) + 1)):] + [k, n]
    elif kind == 1:    # N-D x 2-D
        sa, sb = batch + [m, k], [k, n]
    elif kind == 2:    # 1-D lhs
        sa, sb = [k], batch + [k, n]
    else:              # 1-D rhs (and 1-D x 1-D)
        sa, sb = batch + ([m, k] if batch or r.random() < 0.5 else [k]), [k]
    a, b = g.normal(sa), g.normal(sb)
    g.term(g.op("MatMul", [a, b]), torch.matmul(a.t, b.t))


def gemm(g, r):
    m, k, n = (int(v) for v in r.integers(1, 6, 3))
    ta, tb = int(r.integers(0, 2)), int(r.integers(0, 2))
    alpha = float(r.choice([1.0, 0.5, -1.5]))
    beta = float(r.choice([1.0, 0.0, 2.0]))
    a = g.normal([k, m] if ta else [m, k])
    b = g.normal([n, k] if tb else [k, n])
    ins = [a, b]
    ty = alpha * ((a.t.T if ta else a.t) @ (b.t.T if tb else b.t))
    cshape = [[], [n], [1, n], [m, 1], [m, n], None][int(r.integers(0, 6))]
    if cshape is not None:
        c = g.normal(cshape)
        ins.append(c)
        ty = ty + beta * c.t
    g.term(g.op("Gemm", ins, transA=ta, transB=tb, alpha=alpha, beta=beta), ty)


def binary(op, fn, rhs_away_from_zero=False):
    def case(g, r):
        sa, sb = broadcast_pair(r)
        a = g.normal(sa)
        if rhs_away_from_zero:
            b = g.param(r.uniform(0.5, 1.5, sb) * r.choice([-1, 1], sb))
        else:
            b = g.normal(sb)
        g.term(g.op(op, [a, b]), fn(a.t, b.t))
    return case


def pow_(g, r):
    sa, sb = broadcast_pair(r)
    a, e = g.positive(sa, 0.3, 2.0), g.param(r.uniform(-2, 2, sb))
    g.term(g.op("Pow", [a, e]), torch.pow(a.t, e.t))
    # A constant exponent (no gradient for it).
    x = g.normal(shape(r))
    c = float(r.choice([2.0, 3.0]))
    g.term(g.op("Pow", [x, g.const(np.float32(c))]), torch.pow(x.t, c))


def reshape(g, r):
    s = shape(r)
    x = g.normal(s)
    total = int(np.prod(s))
    # A target shape: factors of the total, a 0 copying a dim, a -1.
    dims, rest = [], total
    for _ in range(int(r.integers(1, 4))):
        f = [v for v in range(1, rest + 1) if rest % v == 0]
        v = int(r.choice(f))
        dims.append(v)
        rest //= v
    dims.append(rest)
    target = list(dims)
    target[int(r.integers(0, len(target)))] = -1
    if len(s) <= len(dims) and r.random() < 0.5:
        i = int(r.integers(0, len(s)))
        if target[i] != -1 and dims[i] == s[i]:
            target[i] = 0
    y = g.op("Reshape", [x, g.ints(target)])
    g.term(y, x.t.reshape(dims))


def transpose(g, r):
    x = g.normal(shape(r))
    if r.random() < 0.2:
        g.term(g.op("Transpose", [x]), x.t.permute(*reversed(range(x.t.dim()))))
        return
    perm = [int(v) for v in r.permutation(x.t.dim())]
    g.term(g.op("Transpose", [x], perm=perm), x.t.permute(*perm))


def flatten(g, r):
    s = shape(r)
    x = g.normal(s)
    axis = int(r.integers(-len(s), len(s) + 1))
    a = axis + len(s) if axis < 0 else axis
    g.term(g.op("Flatten", [x], axis=axis),
           x.t.reshape(int(np.prod(s[:a])), -1))


def squeeze(g, r):
    s = shape(r, int(r.integers(1, 4)))
    rank = len(s) + int(r.integers(1, 3))
    ones = sorted(int(v) for v in r.choice(rank, rank - len(s), replace=False))
    full = list(s)
    for i in ones:
        full.insert(i, 1)
    x = g.normal(full)
    axes = [i - rank if r.random() < 0.5 else i for i in ones]
    y = g.axes("Squeeze", [x], axes, 13)
    g.term(y, x.t.reshape(s))


def unsqueeze(g, r):
    s = shape(r, int(r.integers(1, 4)))
    rank = len(s) + int(r.integers(1, 3))
    ones = sorted(int(v) for v in r.choice(rank, rank - len(s), replace=False))
    x = g.normal(s)
    axes = [i - rank if r.random() < 0.5 else i for i in ones]
    ty = x.t
    for i in ones:
        ty = ty.unsqueeze(i)
    g.term(g.axes("Unsqueeze", [x], axes, 13), ty)


def concat(g, r):
    s = shape(r)
    axis = axis_of(r, len(s))
    parts = []
    for _ in range(int(r.integers(1, 4))):
        p = list(s)
        p[axis] = int(r.integers(1, 4))
        parts.append(g.normal(p))
    ins = parts + [parts[0]] if r.random() < 0.3 else parts   # a repeat
    g.term(g.op("Concat", ins, axis=axis), torch.cat([p.t for p in ins], axis))


def split(g, r):
    s = shape(r)
    axis = axis_of(r, len(s))
    n = s[axis] = int(r.integers(2, 7))
    x = g.normal(s)
    m = int(r.integers(2, n + 1))
    chunk = -(-n // m)
    if g.opset >= 18 and (m - 1) * chunk < n and r.random() < 0.5:
        sizes = [chunk] * (m - 1) + [n - (m - 1) * chunk]
        outs = g.op("Split", [x], n_out=m, axis=axis, num_outputs=m)
    else:
        cuts = sorted(int(v) for v in r.choice(range(1, n), int(r.integers(
            1, min(3, n - 1) + 1)), replace=False))
        sizes = [b - a for a, b in zip([0] + cuts, cuts + [n])]
        outs = g.op("Split", [x, g.ints(sizes)], n_out=len(sizes), axis=axis)
    outs = outs if isinstance(outs, list) else [outs]
    pieces = torch.split(x.t, sizes, dim=axis)
    unused = int(r.integers(0, len(sizes))) if r.random() < 0.5 else -1
    for i, (o, t) in enumerate(zip(outs, pieces)):
        if i != unused:
            g.term(o, t)


def slice_(g, r):
    s = shape(r)
    x = g.normal(s)
    rank = len(s)
    axes = [int(v) for v in r.choice(rank, int(r.integers(1, rank + 1)),
                                     replace=False)]
    starts, ends, steps, idx = [], [], [], [slice(None)] * rank
    for a in axes:
        n = s[a]
        keep = []
        while not keep:        # Python's slice clamps as ONNX's does
            step = int(r.choice([1, 1, 2, -1, -2]))
            start = int(r.integers(-n, n))
            if step > 0:
                end = int(r.choice([BIG, n, int(r.integers(-n, n + 1))]))
            else:
                end = int(r.choice([-BIG, int(r.integers(-n - 1, n))]))
            keep = list(range(n))[start:end:step]
        starts.append(start)
        ends.append(end)
        steps.append(step)
        idx[a] = keep
    ins = [x, g.ints(starts), g.ints(ends)]
    neg_axes = [a - rank if r.random() < 0.5 else a for a in axes]
    ins += [g.ints(neg_axes), g.ints(steps)]
    ty = x.t
    for a in range(rank):
        if isinstance(idx[a], list):
            ty = torch.index_select(ty, a, torch.tensor(idx[a]))
    g.term(g.op("Slice", ins), ty)


def gather(g, r):
    s = shape(r)
    axis = axis_of(r, len(s))
    x = g.normal(s)
    n = s[axis]
    ishape = shape(r, int(r.integers(0, 3)), hi=3)
    ids = r.integers(-n, n, ishape)                # repeats and negatives
    y = g.op("Gather", [x, g.const(ids.astype(np.int64))], axis=axis)
    a = axis % len(s)
    flat = torch.tensor((ids % n).reshape(-1), dtype=torch.int64)
    ty = torch.index_select(x.t, a, flat).reshape(
        s[:a] + list(ids.shape) + s[a + 1:])
    g.term(y, ty)


def expand(g, r):
    sx, st = broadcast_pair(r)
    if r.random() < 0.5:
        sx, st = st, sx
    x = g.normal(sx)
    out = list(np.broadcast_shapes(tuple(sx), tuple(st)))
    g.term(g.op("Expand", [x, g.ints(st)]), x.t.expand(out))


def where(g, r):
    sa, sb = broadcast_pair(r)
    sc = [sa, sb, shape(r, 1, hi=1)][int(r.integers(0, 3))]
    cond = np.asarray(r.random(sc) < 0.5)
    a, b = g.normal(sa), g.normal(sb)
    y = g.op("Where", [g.const(cond), a, b])
    g.term(y, torch.where(torch.tensor(cond), a.t, b.t))


def trilu(g, r):
    x = g.normal(shape(r, int(r.integers(2, 5))))
    upper = int(r.integers(0, 2))
    k = int(r.integers(-3, 4))
    ins = [x, g.const(np.array(k, np.int64))] if k or r.random() < 0.5 else [x]
    fn = torch.triu if upper else torch.tril
    g.term(g.op("Trilu", ins, upper=upper), fn(x.t, k))


def cast(g, r):
    x = g.normal(shape(r), 2.0)
    g.term(g.op("Cast", [x], to=TensorProto.FLOAT), x.t)
    # Through int64 or bool: piecewise constant, no gradient.
    to = int(r.choice([TensorProto.INT64, TensorProto.BOOL]))
    back = g.op("Cast", [g.op("Cast", [x], to=to)], to=TensorProto.FLOAT)
    ref = torch.trunc(x.t) if to == TensorProto.INT64 else (x.t != 0)
    g.term(back, ref.detach().to(torch.float64))


def reduce_(op, fn):
    def case(g, r):
        x = g.normal(shape(r), 2.0)
        rank = x.t.dim()
        keep = int(r.integers(0, 2))
        since = 13 if op == "ReduceSum" else 18
        if r.random() < 0.25:
            axes, dims = None, tuple(range(rank))
        else:
            dims = tuple(sorted(int(v) for v in r.choice(
                rank, int(r.integers(1, rank + 1)), replace=False)))
            axes = [d - rank if r.random() < 0.5 else d for d in dims]
        y = g.axes(op, [x], axes, since, keepdims=keep)
        g.term(y, fn(x.t, dims, keep))
    return case


def dropout(g, r):
    x = g.normal(shape(r))
    ins = [x, g.const(np.float32(0.0))]
    if r.random() < 0.5:
        ins.append(g.const(np.array(bool(r.integers(0, 2)))))
    g.term(g.op("Dropout", ins), x.t)


def identity(g, r):
    x = g.normal(shape(r))
    g.term(g.op("Identity", [x]), x.t)


def away(a, kinks, margin=1e-2):
    """`a` with the entries within `margin` of a kink moved 2 margins up:
    at a kink the fp32 and float64 computations may take different pieces."""
    a = np.array(a, dtype=np.float64)
    for k in kinks:
        a = np.where(np.abs(a - k) < margin, a + 2 * margin, a)
    return a


def clip(g, r):
    # Bounds are Constant inputs (opset 11+); one may be absent ("" or
    # missing), which is no bound.
    lo, hi = sorted(float(np.float32(v)) for v in r.uniform(-1.5, 1.5, 2))
    form = int(r.integers(0, 3))
    ins_lo = g.const(np.float32(lo)) if form != 2 else ""
    ins_hi = g.const(np.float32(hi)) if form != 1 else None
    if form == 1:
        hi = math.inf
    if form == 2:
        lo = -math.inf
    x = g.param(away(r.standard_normal(shape(r)), [lo, hi]))
    ins = [x, ins_lo] + ([ins_hi] if ins_hi else [])
    g.term(g.op("Clip", ins), F.hardtanh(x.t, lo, hi))


def hard_sigmoid(g, r):
    alpha = float(np.float32(r.choice([1 / 6, 0.2, 0.5, -0.4])))
    beta = float(np.float32(r.choice([0.5, 0.3, 0.6])))
    x = g.param(away(r.standard_normal(shape(r)) * 2.0,
                     [-beta / alpha, (1 - beta) / alpha]))
    # torch's hardsigmoid(z) = clamp(z / 6 + 0.5, 0, 1) at z = 6 (alpha x +
    # beta) - 3, so that its own backward (zero at the kinks) is the one used.
    g.term(g.op("HardSigmoid", [x], alpha=alpha, beta=beta),
           F.hardsigmoid(6 * (alpha * x.t + beta) - 3))


def hard_swish(g, r):
    if g.opset < 14:
        return
    x = g.param(away(r.standard_normal(shape(r)) * 3.0, [-3.0, 3.0]))
    g.term(g.op("HardSwish", [x]), F.hardswish(x.t))


def conv_1d(g, r):
    groups = int(r.integers(1, 3))
    cin, mg = int(r.integers(1, 3)), int(r.integers(1, 3))
    k, s, d = int(r.integers(1, 4)), int(r.integers(1, 3)), int(r.integers(1, 3))
    p = [int(v) for v in r.integers(0, 3, 2)]
    length = d * (k - 1) + 1 + int(r.integers(0, 5))
    x = g.normal([int(r.integers(1, 3)), groups * cin, length])
    w = g.normal([groups * mg, cin, k], 1 / math.sqrt(cin * k))
    ins, b = [x, w], None
    if r.random() < 0.5:
        b = g.normal([groups * mg])
        ins.append(b)
    y = g.op("Conv", ins, group=groups, kernel_shape=[k], strides=[s],
             dilations=[d], pads=p)
    ty = F.conv1d(F.pad(x.t, tuple(p)), w.t, b.t if b else None, stride=s,
                  dilation=d, groups=groups)
    g.term(y, ty)


def pool_1d(g, r):
    """MaxPool and AveragePool (both count_include_pad forms) on NCL."""
    k, s = int(r.integers(1, 4)), int(r.integers(1, 3))
    d = int(r.integers(1, 3))
    p = [int(r.integers(0, k)) for _ in range(2)]
    length = d * (k - 1) + 1 + int(r.integers(0, 5))
    x = g.normal([int(r.integers(1, 3)), int(r.integers(1, 4)), length])
    y = g.op("MaxPool", [x], kernel_shape=[k], strides=[s], dilations=[d],
             pads=p)
    xp = F.pad(x.t, tuple(p), value=-math.inf)
    g.term(y, F.max_pool1d(xp, k, s, dilation=d))
    include = int(r.integers(0, 2))
    da = d if g.opset >= 19 else 1
    attrs = dict(kernel_shape=[k], strides=[s], pads=p,
                 count_include_pad=include)
    if g.opset >= 19:
        attrs["dilations"] = [da]
    y = g.op("AveragePool", [x], **attrs)
    n, c, _ = x.t.shape
    ones_k = torch.ones(1, 1, k, dtype=torch.float64)
    total = F.conv1d(F.pad(x.t, tuple(p)).reshape(n * c, 1, -1), ones_k,
                     stride=s, dilation=da)
    if include:
        count = k
    else:
        ones = F.pad(torch.ones(1, 1, length, dtype=torch.float64), tuple(p))
        count = F.conv1d(ones, ones_k, stride=s, dilation=da)
    g.term(y, (total / count).reshape(n, c, -1))


def tile(g, r):
    sx = shape(r, int(r.integers(1, 4)), hi=4)
    reps = [int(v) for v in r.integers(1, 4, len(sx))]
    x = g.normal(sx)
    g.term(g.op("Tile", [x, g.ints(reps)]), x.t.repeat(*reps))


def gather_elements(g, r):
    sx = shape(r, int(r.integers(1, 4)), lo=1, hi=5)
    axis = axis_of(r, len(sx))
    a = axis % len(sx)
    si = [int(r.integers(1, d + 1)) for d in sx]
    si[a] = int(r.integers(1, 5))
    idx = r.integers(-sx[a], sx[a], si)
    x = g.normal(sx)
    y = g.op("GatherElements", [x, g.const(idx.astype(np.int64))], axis=axis)
    g.term(y, torch.gather(x.t, a, torch.tensor(idx % sx[a])))


def clip_runtime(g, r):
    """Clip whose bounds are computed (ReduceMean of parameters): max, then
    min; the bounds get gradients too."""
    x = g.normal(shape(r))
    form = int(r.integers(0, 3))  # both bounds, min only, max only
    ins, ty = [x, ""], x.t
    if form != 2:
        lo_p = g.normal([3])
        ins[1] = g.op("Sub", [g.op("ReduceMean", [lo_p], keepdims=0),
                              g.const(np.float32(0.5))])
        ty = torch.maximum(ty, lo_p.t.mean() - 0.5)
    if form != 1:
        hi_p = g.normal([3])
        ins.append(g.op("Add", [g.op("ReduceMean", [hi_p], keepdims=0),
                                g.const(np.float32(0.5))]))
        ty = torch.minimum(ty, hi_p.t.mean() + 0.5)
    g.term(g.op("Clip", ins), ty)


def recurrent(kind):
    """RNN, GRU or LSTM with a drawn direction, layout, sizes and optional
    inputs (B, initial_h/initial_c, LSTM's peepholes P, GRU's
    linear_before_reset); the reference is ONNX's equations in torch, step
    by step, default activations."""
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[kind]

    def case(g, r):
        seq, batch, inp, hid = (int(v) for v in r.integers(1, 5, 4))
        direction = str(r.choice(["forward", "reverse", "bidirectional"]))
        dirs = 2 if direction == "bidirectional" else 1
        layout = int(r.integers(0, 2))
        x = g.normal([batch, seq, inp] if layout else [seq, batch, inp])
        w = g.normal([dirs, gates * hid, inp], 0.5)
        rw = g.normal([dirs, gates * hid, hid], 0.5)
        ins = [x, w, rw]
        attrs = dict(hidden_size=hid, direction=direction, layout=layout)
        b = g.normal([dirs, 2 * gates * hid], 0.5) if r.random() < 0.7 else None
        state_shape = [batch, dirs, hid] if layout else [dirs, batch, hid]
        h0 = g.normal(state_shape) if r.random() < 0.6 else None
        c0 = g.normal(state_shape) if kind == "LSTM" and r.random() < 0.6 else None
        p = g.normal([dirs, 3 * hid], 0.5) if kind == "LSTM" and r.random() < 0.5 else None
        lbr = int(r.integers(0, 2)) if kind == "GRU" else 0
        if kind == "GRU":
            attrs["linear_before_reset"] = lbr
        ins += [b or "", "", h0 or ""]
        if kind == "LSTM":
            ins += [c0 or "", p or ""]
        while ins and ins[-1] == "":
            ins.pop()
        n_out = 3 if kind == "LSTM" else 2
        outs = g.op(kind, ins, n_out=n_out, **attrs)

        def tm(t):  # time-major / [dirs, batch, h] views of the torch leaves
            return t.transpose(0, 1) if layout else t
        X = tm(x.t)
        H0 = tm(h0.t) if h0 else None
        C0 = tm(c0.t) if c0 else None
        ys, hs, cs = [], [], []
        for d in range(dirs):
            W, R = w.t[d], rw.t[d]
            zero = torch.zeros(gates * hid, dtype=torch.float64)
            wb, rb = (b.t[d][:gates * hid], b.t[d][gates * hid:]) if b else (zero, zero)
            h = H0[d] if h0 else torch.zeros(batch, hid, dtype=torch.float64)
            c = C0[d] if c0 else torch.zeros(batch, hid, dtype=torch.float64)
            out = [None] * seq
            steps = range(seq) if direction == "forward" or (
                direction == "bidirectional" and d == 0) else reversed(range(seq))
            for t in steps:
                xw = X[t] @ W.T + wb
                if kind == "RNN":
                    h = torch.tanh(xw + h @ R.T + rb)
                elif kind == "LSTM":
                    a = xw + h @ R.T + rb
                    i, o, f, cc = a.split(hid, dim=1)
                    pi, po, pf = p.t[d].split(hid) if p else (0, 0, 0)
                    i = torch.sigmoid(i + pi * c)
                    f = torch.sigmoid(f + pf * c)
                    c = f * c + i * torch.tanh(cc)
                    h = torch.sigmoid(o + po * c) * torch.tanh(c)
                else:
                    xz, xr, xh = xw.split(hid, dim=1)
                    rz, rr, rh = R.split(hid, dim=0)
                    bz, br, bh = rb.split(hid)
                    z = torch.sigmoid(xz + h @ rz.T + bz)
                    rg = torch.sigmoid(xr + h @ rr.T + br)
                    if lbr:
                        hh = torch.tanh(xh + rg * (h @ rh.T + bh))
                    else:
                        hh = torch.tanh(xh + (rg * h) @ rh.T + bh)
                    h = (1 - z) * hh + z * h
                out[t] = h
            ys.append(torch.stack(out))
            hs.append(h)
            cs.append(c)
        Y = torch.stack(ys, dim=1)                      # [seq, dirs, batch, h]
        refs = [Y.permute(2, 0, 1, 3) if layout else Y,
                tm(torch.stack(hs)), tm(torch.stack(cs))]
        for name, ref in zip(outs, refs):
            g.term(name, ref)

    return case


CASES = {
    "conv": conv,
    "maxpool": maxpool,
    "averagepool": averagepool,
    "global_averagepool": global_averagepool,
    "batchnorm": batchnorm,
    "relu": unary("Relu", F.relu),
    "leaky_relu": unary("LeakyRelu", lambda t, alpha: F.leaky_relu(t, alpha),
                        alpha=lambda r: float(r.choice([0.01, 0.2, 1.5]))),
    "sigmoid": unary("Sigmoid", torch.sigmoid),
    "tanh": unary("Tanh", torch.tanh),
    "erf": unary("Erf", torch.erf),
    "gelu": gelu("none"),
    "gelu_tanh": gelu("tanh"),
    "softmax": softmax_like("Softmax", F.softmax),
    "log_softmax": softmax_like("LogSoftmax", F.log_softmax),
    "layernorm": layernorm,
    "matmul": matmul,
    "gemm": gemm,
    "add": binary("Add", torch.add),
    "sub": binary("Sub", torch.sub),
    "mul": binary("Mul", torch.mul),
    "div": binary("Div", torch.div, rhs_away_from_zero=True),
    "pow": pow_,
    "sqrt": unary("Sqrt", torch.sqrt, positive=True),
    "neg": unary("Neg", torch.neg),
    "exp": unary("Exp", torch.exp),
    "log": unary("Log", torch.log, positive=True),
    "reshape": reshape,
    "transpose": transpose,
    "flatten": flatten,
    "squeeze": squeeze,
    "unsqueeze": unsqueeze,
    "concat": concat,
    "split": split,
    "slice": slice_,
    "gather": gather,
    "expand": expand,
    "where": where,
    "trilu": trilu,
    "cast": cast,
    "reduce_mean": reduce_("ReduceMean",
                           lambda t, d, k: t.mean(dim=d, keepdim=bool(k))),
    "reduce_sum": reduce_("ReduceSum",
                          lambda t, d, k: t.sum(dim=d, keepdim=bool(k))),
    "reduce_max": reduce_("ReduceMax",
                          lambda t, d, k: torch.amax(t, dim=d, keepdim=bool(k))),
    "dropout": dropout,
    "identity": identity,
    "clip": clip,
    "hard_sigmoid": hard_sigmoid,
    "hard_swish": hard_swish,
    "rnn": recurrent("RNN"),
    "gru": recurrent("GRU"),
    "lstm": recurrent("LSTM"),
    # Appended, so the draws of the cases above stay the same.
    "conv_1d": conv_1d,
    "pool_1d": pool_1d,
    "tile": tile,
    "clip_runtime": clip_runtime,
    "gather_elements": gather_elements,
}


def make(seed, reps, names):
    rng = np.random.default_rng(seed)
    g = Graph(OPSETS[seed % len(OPSETS)], rng)
    for name in names:
        g.case = name
        for _ in range(reps):
            CASES[name](g, rng)
    return g.build(f"grad_s{seed}"), g.reference()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--seeds", default="0,1,2,3")
    ap.add_argument("--reps", type=int, default=2,
                    help="random draws of each case per model")
    ap.add_argument("--only", default="", help="comma-separated case names")
    args = ap.parse_args()
    names = [n for n in args.only.split(",") if n] or list(CASES)
    unknown = [n for n in names if n not in CASES]
    if unknown:
        raise ValueError(f"unknown case(s) {', '.join(unknown)}; known: "
                         f"{', '.join(CASES)}")
    os.makedirs(args.out_dir, exist_ok=True)
    for seed in (int(s) for s in args.seeds.split(",")):
        model, ref = make(seed, args.reps, names)
        base = os.path.join(args.out_dir, f"grad_s{seed}")
        onnx.save(model, base + ".onnx")
        np.savez(base + ".ref.npz", **ref)
        print(f"wrote {base}.onnx (opset {model.opset_import[0].version}, "
              f"{len(model.graph.node)} nodes, "
              f"{len(model.graph.initializer)} initializers)")


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # noqa: BLE001 - one clear line
        print(f"error: {e}", file=sys.stderr)
        sys.exit(1)
