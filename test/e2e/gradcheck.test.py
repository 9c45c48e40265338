#!/usr/bin/env python3
"""Driver of gradcheck.test: the gradient of every model of
examples/ops/make_grad_models.py, as the compiled training step computes
it, against central finite differences in float64.

  gradcheck.test.py --src SRC_ROOT --work DIR [--rtol R] [--only a,b]

For each model M (output 0 is a scalar loss): `autodist-compile M.onnx
--train --loss=output --optimizer=sgd --lr=1 -o M.train`, one step
`M.train --data=M.npz --steps=1 --batch-size=<all samples> --save=S.onnx`
(e2e_driver.trained_step), and the compiled gradient of each parameter is
`W - W_saved`. The reference
evaluates the ONNX graph with the small float64 numpy interpreter below
(independent of the compiler and of onnxruntime) and differentiates it by
central differences (step 1e-6). An entry passes when

  |g - ref| <= rtol * max(|ref|, 1e-2 * max|ref over the parameter|),

i.e. relative error, entries under 1% of the parameter's largest gradient
being judged against that 1% (the fp32 difference W - W_saved cannot
resolve them better). Prints one line per model with the worst error and
exits non-zero if any model fails.
"""
import argparse
import math
import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

from e2e_driver import generate, relative_error, report, trained_step

# ---------------------------------------------------------------------------
# float64 reference interpreter (the ops the gradient models use)
# ---------------------------------------------------------------------------

_erf = np.vectorize(math.erf)


def _axes(node, vals, i):
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    if "axes" in attrs:
        return list(attrs["axes"])
    if len(node.input) > i and node.input[i]:
        return [int(a) for a in vals[node.input[i]]]
    return None


def _reduce(fn, x, node, vals):
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    axes = _axes(node, vals, 1)
    keep = bool(attrs.get("keepdims", 1))
    if not axes:
        if attrs.get("noop_with_empty_axes", 0):
            return x
        axes = list(range(x.ndim))
    return fn(x, axis=tuple(a % x.ndim for a in axes), keepdims=keep)


def _softmax(x, axis, log):
    s = x - x.max(axis=axis, keepdims=True)
    lse = np.log(np.exp(s).sum(axis=axis, keepdims=True))
    return s - lse if log else np.exp(s - lse)


def run_node(node, vals):
    op = node.op_type
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    x = [vals[i] if i else None for i in node.input]
    if op == "Constant":
        v = numpy_helper.to_array(attrs["value"])
        return v.astype(np.float64) if v.dtype == np.float32 else v
    if op == "MatMul":
        return np.matmul(x[0], x[1])
    simple = {"Add": np.add, "Mul": np.multiply, "Div": np.divide,
              "Sqrt": np.sqrt, "Neg": np.negative, "Exp": np.exp,
              "Log": np.log, "Tanh": np.tanh, "Erf": _erf, "Abs": np.abs}
    if op in simple:
        return simple[op](*x)
    if op == "CumSum":
        axis = int(x[1])
        v = np.flip(x[0], axis) if attrs.get("reverse", 0) else x[0]
        c = np.cumsum(v, axis=axis)
        if attrs.get("exclusive", 0):
            c = c - v
        return np.flip(c, axis) if attrs.get("reverse", 0) else c
    if op in ("Min", "Max"):
        fn = np.minimum if op == "Min" else np.maximum
        acc = x[0]
        for v in x[1:]:
            acc = fn(acc, v)
        return acc
    if op == "Pow":
        return np.power(x[0], x[1].astype(np.float64))
    if op == "Sigmoid":
        return 1.0 / (1.0 + np.exp(-x[0]))
    if op == "LeakyRelu":
        return np.where(x[0] >= 0, x[0], attrs.get("alpha", 0.01) * x[0])
    if op == "Clip":
        # Bounds: inputs 1 and 2 (opset 11+, "" absent), else attributes.
        lo = x[1] if len(x) > 1 and x[1] is not None else attrs.get("min", -np.inf)
        hi = x[2] if len(x) > 2 and x[2] is not None else attrs.get("max", np.inf)
        return np.minimum(np.maximum(x[0], lo), hi)
    if op == "HardSigmoid":
        return np.clip(attrs.get("alpha", 0.2) * x[0] + attrs.get("beta", 0.5),
                       0.0, 1.0)
    if op == "HardSwish":
        return x[0] * np.clip(x[0] / 6.0 + 0.5, 0.0, 1.0)
    if op == "Gelu":
        v = x[0]
        if attrs.get("approximate", b"none") in ("tanh", b"tanh"):
            return 0.5 * v * (1 + np.tanh(math.sqrt(2 / math.pi) *
                                          (v + 0.044715 * v ** 3)))
        return 0.5 * v * (1 + _erf(v / math.sqrt(2)))
    if op == "Where":
        return np.where(x[0], x[1], x[2])
    if op == "Cast":
        to = attrs["to"]
        if to == onnx.TensorProto.FLOAT:
            return x[0].astype(np.float64)
        if to == onnx.TensorProto.INT64:
            return np.trunc(x[0]).astype(np.int64)
        return x[0] != 0
    if op in ("Dropout", "Identity"):
        return x[0]
    if op in ("Softmax", "LogSoftmax"):
        return _softmax(x[0], attrs.get("axis", -1), op == "LogSoftmax")
    if op == "ReduceSum":
        return _reduce(np.sum, x[0], node, vals)
    if op == "ReduceMean":
        return _reduce(np.mean, x[0], node, vals)
    if op == "ReduceMax":
        return _reduce(np.max, x[0], node, vals)
    if op == "Transpose":
        return np.transpose(x[0], attrs.get("perm"))
    if op == "Squeeze":
        return np.squeeze(x[0], axis=tuple(_axes(node, vals, 1)))
    if op == "Unsqueeze":
        axes = _axes(node, vals, 1)
        rank = x[0].ndim + len(axes)
        return np.expand_dims(x[0], tuple(sorted(a % rank for a in axes)))
    if op == "Concat":
        return np.concatenate(x, axis=attrs["axis"])
    if op == "Reshape":
        shape = [x[0].shape[i] if d == 0 else int(d)
                 for i, d in enumerate(x[1])]
        return np.reshape(x[0], shape)
    if op == "Slice":
        starts, ends = x[1], x[2]
        axes = x[3] if len(x) > 3 and x[3] is not None else range(len(starts))
        steps = x[4] if len(x) > 4 and x[4] is not None else [1] * len(starts)
        index = [slice(None)] * x[0].ndim
        for s, e, a, st in zip(starts, ends, axes, steps):
            # numpy clamps like ONNX; huge ends are clamped first.
            n = x[0].shape[a]
            e = max(min(int(e), n), -n - 1)
            index[int(a)] = slice(int(s), None if e == -n - 1 else e, int(st))
        return x[0][tuple(index)]
    if op == "GatherND":
        data, idx = x[0], x[1].astype(np.int64)
        bd = int(attrs.get("batch_dims", 0))
        k = idx.shape[-1]
        out = np.empty(idx.shape[:-1] + data.shape[bd + k:], data.dtype)
        for i in np.ndindex(*idx.shape[:-1]):
            out[i] = data[tuple(i[:bd]) + tuple(idx[i])]
        return out
    if op == "ScatterND":
        out, idx, upd = x[0].copy(), x[1].astype(np.int64), x[2]
        red = attrs.get("reduction", b"none")
        red = red.decode() if isinstance(red, bytes) else red
        for i in np.ndindex(*idx.shape[:-1]):
            at = tuple(idx[i])
            out[at] = upd[i] if red == "none" else out[at] + upd[i]
        return out
    if op == "Pad":
        rank = x[0].ndim
        axes = ([int(a) % rank for a in x[3]] if len(x) > 3 and x[3] is not None
                else list(range(rank)))
        pads, n = [int(p) for p in x[1]], len(axes)
        value = float(x[2]) if len(x) > 2 and x[2] is not None else 0.0
        mode = attrs.get("mode", "constant")
        mode = mode.decode() if isinstance(mode, bytes) else mode
        y = x[0]
        for k, a in enumerate(axes):
            lo, hi = pads[k], pads[n + k]
            index = [slice(None)] * rank
            index[a] = slice(max(-lo, 0), y.shape[a] - max(-hi, 0))
            width = [(0, 0)] * rank
            width[a] = (max(lo, 0), max(hi, 0))
            y = (np.pad(y[tuple(index)], width, constant_values=value)
                 if mode == "constant" else np.pad(y[tuple(index)], width, mode=mode))
        return y
    if op == "Split":
        axis = attrs.get("axis", 0)
        n = x[0].shape[axis]
        if len(x) > 1 and x[1] is not None:
            sizes = list(x[1])
        else:
            parts = attrs.get("num_outputs", len(node.output))
            chunk = -(-n // parts)
            sizes = [chunk] * (parts - 1) + [n - chunk * (parts - 1)]
        return tuple(np.split(x[0], np.cumsum(sizes)[:-1], axis=axis))
    if op == "Expand":
        return x[0] * np.ones(x[1], dtype=x[0].dtype)
    if op == "Trilu":
        k = int(x[1]) if len(x) > 1 and x[1] is not None else 0
        fn = np.triu if attrs.get("upper", 1) else np.tril
        return fn(x[0], k)
    raise ValueError(f"reference has no {op}")


def evaluate(model, params, inputs):
    vals = dict(inputs)
    vals.update(params)
    for t in model.graph.initializer:
        if t.name not in vals:
            vals[t.name] = numpy_helper.to_array(t)
    for node in model.graph.node:
        out = run_node(node, vals)
        for name, v in zip(node.output, out if isinstance(out, tuple)
                           else (out,)):
            vals[name] = v
    return float(vals[model.graph.output[0].name])


def reference_grads(model, inputs, step=1e-6):
    params = {t.name: numpy_helper.to_array(t).astype(np.float64)
              for t in model.graph.initializer
              if t.data_type == onnx.TensorProto.FLOAT}
    inputs = {k: v.astype(np.float64) for k, v in inputs.items()}
    grads = {}
    for name, w in params.items():
        g = np.zeros_like(w)
        for idx in np.ndindex(w.shape):
            old = w[idx]
            w[idx] = old + step
            up = evaluate(model, params, inputs)
            w[idx] = old - step
            down = evaluate(model, params, inputs)
            w[idx] = old
            g[idx] = (up - down) / (2 * step)
        grads[name] = g
    return grads


# ---------------------------------------------------------------------------
# driver
# ---------------------------------------------------------------------------


def check(model_path, initial, saved, data_path, rtol):
    model = onnx.load(model_path)
    ref = reference_grads(model, dict(np.load(data_path)))
    worst, worst_at = 0.0, ""
    for name, r in ref.items():
        got = (initial[name].astype(np.float64) -
               saved[name].astype(np.float64))
        e = relative_error(got, r)
        if e > worst:
            worst, worst_at = e, name
    return worst <= rtol, worst, worst_at


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", required=True, help="source root")
    ap.add_argument("--work", required=True, help="scratch directory")
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    py = sys.executable
    os.makedirs(args.work, exist_ok=True)
    models = os.path.join(args.work, "models")
    log = []
    gen = [py, os.path.join(args.src, "examples/ops/make_grad_models.py"),
           "--out-dir", models]
    if not generate(gen, log, args.only):
        return 1
    names = sorted(f[:-5] for f in os.listdir(models) if f.endswith(".onnx"))
    results = []
    overall = 0.0
    for name in names:
        model = os.path.join(models, name + ".onnx")
        data = os.path.join(models, name + ".npz")
        base = os.path.join(args.work, name)
        samples = next(iter(np.load(data).values())).shape[0]
        try:
            initial, saved = trained_step(model, data, base, samples, log)
            good, worst, at = check(model, initial, saved, data, args.rtol)
            overall = max(overall, worst)
            results.append((name, good,
                            f"max relative error {worst:.2e} ({at})"))
        except Exception as e:  # a compile, run, reference or I/O problem
            results.append((name, False, str(e)))
    return report(results, log, f"gradients match finite differences (worst "
                  f"{overall:.2e}, rtol {args.rtol:g})")


if __name__ == "__main__":
    sys.exit(main())
