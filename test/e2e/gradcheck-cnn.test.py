#!/usr/bin/env python3
"""Driver of gradcheck-cnn.test: numeric gradient checks of the compiled
training step on the models of examples/ops/make_cnn_grad_models.py.

  gradcheck-cnn.test.py --src SRC_ROOT --work DIR [--samples N] [--rtol R]
                        [--flags "AUTODIST-COMPILE FLAGS"] [--only M1,M2]

For each model M (first output: a scalar loss): make_op_data.py writes
M.npz (N samples), ``autodist-compile M.onnx --train --loss=output
--optimizer=sgd --lr=1`` (plus the model's ``autodist_flags`` property)
builds M.train, one step on the whole batch with ``--save``
(e2e_driver.trained_step) gives each trained parameter's gradient as
W - W_saved. The reference is a float64
numpy evaluation of the ONNX graph (below) differentiated by central finite
differences, batch normalization in training form (batch statistics)
unless its statistics are frozen. Running statistics must come back updated
with ONNX's momentum (variance unbiased, as PyTorch). Per model it prints
the worst relative error max|g - ref| / max|ref| over the parameters and
fails above --rtol.
"""
import argparse
import glob
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

from e2e_driver import run as driver_run, trained_step


def attrs_of(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def windows(xp, k, s, d, out):
    """Yields (kh, kw, patch [N, C, OH, OW]) of padded xp."""
    for kh in range(k[0]):
        for kw in range(k[1]):
            h0, w0 = kh * d[0], kw * d[1]
            yield kh, kw, xp[:, :, h0:h0 + s[0] * (out[0] - 1) + 1:s[0],
                             w0:w0 + s[1] * (out[1] - 1) + 1:s[1]]


def window_geometry(x, a, k):
    s = a.get("strides", [1, 1])
    p = a.get("pads", [0, 0, 0, 0])
    d = a.get("dilations", [1, 1])
    hp, wp = x.shape[2] + p[0] + p[2], x.shape[3] + p[1] + p[3]
    out = [(hp - d[0] * (k[0] - 1) - 1) // s[0] + 1,
           (wp - d[1] * (k[1] - 1) - 1) // s[1] + 1]
    return s, p, d, out


def pad(x, p, value):
    return np.pad(x, ((0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])),
                  constant_values=value)


def conv(x, w, b, a):
    k = w.shape[2:]
    s, p, d, out = window_geometry(x, a, k)
    g = a.get("group", 1)
    xp = pad(x, p, 0.0)
    m, cg = w.shape[0], w.shape[1]
    mg = m // g
    y = np.zeros((x.shape[0], m, out[0], out[1]))
    for gi in range(g):
        xg = xp[:, gi * cg:(gi + 1) * cg]
        for kh, kw, patch in windows(xg, k, s, d, out):
            y[:, gi * mg:(gi + 1) * mg] += np.einsum(
                "nchw,mc->nmhw", patch, w[gi * mg:(gi + 1) * mg, :, kh, kw])
    if b is not None:
        y += b[None, :, None, None]
    return y


def maxpool(x, a):
    k = a["kernel_shape"]
    s, p, d, out = window_geometry(x, a, k)
    xp = pad(x, p, -np.inf)
    return np.max([patch for _, _, patch in windows(xp, k, s, d, out)], axis=0)


def avgpool(x, a):
    k = a["kernel_shape"]
    s, p, d, out = window_geometry(x, a, k)
    total = sum(patch for _, _, patch in windows(pad(x, p, 0.0), k, s, d, out))
    if a.get("count_include_pad", 0):
        return total / (k[0] * k[1])
    ones = pad(np.ones((1, 1) + x.shape[2:]), p, 0.0)
    count = sum(patch for _, _, patch in windows(ones, k, s, d, out))
    return total / count


def lift_1d(a):
    """A 1-D window op's attributes as the 2-D op's with H = 1."""
    a = dict(a)
    for k in ("strides", "dilations", "kernel_shape"):
        if k in a:
            a[k] = [1] + list(a[k])
    if "pads" in a:
        a["pads"] = [0, a["pads"][0], 0, a["pads"][1]]
    return a


class Evaluator:
    """float64 evaluation of the graph; BatchNormalization in training form
    (batch statistics) when train_bn."""

    def __init__(self, model, train_bn):
        self.model = model
        self.train_bn = train_bn
        self.consts = {}
        self.running = {}   # name -> expected updated running statistic

    def run(self, params, inputs):
        env = dict(inputs)
        env.update(params)
        for t in self.model.graph.initializer:
            if t.name not in env:
                env[t.name] = numpy_helper.to_array(t)
        for n in self.model.graph.node:
            a = attrs_of(n)
            x = [env[i] if i else None for i in n.input]
            op = n.op_type
            one_d = op in ("Conv", "MaxPool", "AveragePool") and x[0].ndim == 3
            if one_d:
                x = [v[:, :, None] if v is not None and v.ndim == 3 else v
                     for v in x]
                a = lift_1d(a)
            if op == "Constant":
                y = numpy_helper.to_array(a["value"]).astype(np.float64)
            elif op == "Conv":
                y = conv(x[0], x[1], x[2] if len(x) > 2 else None, a)
            elif op == "MaxPool":
                y = maxpool(x[0], a)
            elif op == "AveragePool":
                y = avgpool(x[0], a)
            elif op == "GlobalAveragePool":
                y = x[0].mean(axis=tuple(range(2, x[0].ndim)), keepdims=True)
            elif op == "BatchNormalization":
                eps, mom = a.get("epsilon", 1e-5), a.get("momentum", 0.9)
                xs, scale, bias, mean, var = x
                sh = (1, -1) + (1,) * (xs.ndim - 2)
                if self.train_bn:
                    axes = (0,) + tuple(range(2, xs.ndim))
                    bm, bv = xs.mean(axis=axes), xs.var(axis=axes)
                    cnt = xs.size // xs.shape[1]
                    self.running[n.input[3]] = mom * mean + (1 - mom) * bm
                    self.running[n.input[4]] = (mom * var + (1 - mom) * bv *
                                                cnt / (cnt - 1))
                    mean, var = bm, bv
                y = ((xs - mean.reshape(sh)) / np.sqrt(var.reshape(sh) + eps) *
                     scale.reshape(sh) + bias.reshape(sh))
            elif op == "Gather":
                y = np.take(x[0], x[1], axis=a.get("axis", 0))
            elif op == "LayerNormalization":
                axis = a.get("axis", -1) % x[0].ndim
                axes = tuple(range(axis, x[0].ndim))
                m = x[0].mean(axis=axes, keepdims=True)
                v = ((x[0] - m) ** 2).mean(axis=axes, keepdims=True)
                y = (x[0] - m) / np.sqrt(v + a.get("epsilon", 1e-5)) * x[1]
                if len(x) > 2 and x[2] is not None:
                    y = y + x[2]
            elif op == "Relu":
                y = np.maximum(x[0], 0.0)
            elif op == "Add":
                y = x[0] + x[1]
            elif op == "Mul":
                y = x[0] * x[1]
            elif op == "Flatten":
                axis = a.get("axis", 1)
                y = x[0].reshape(int(np.prod(x[0].shape[:axis])), -1)
            elif op == "Reshape":
                y = x[0].reshape(x[1])
            elif op == "Gemm":
                A = x[0].T if a.get("transA", 0) else x[0]
                B = x[1].T if a.get("transB", 0) else x[1]
                y = a.get("alpha", 1.0) * A @ B
                if len(x) > 2:
                    y = y + a.get("beta", 1.0) * x[2]
            else:
                raise ValueError(f"the reference does not know {op}")
            env[n.output[0]] = y[:, :, 0] if one_d else y
        return float(np.asarray(env[self.model.graph.output[0].name]).sum())


def run(cmd):
    log = []
    ok, out = driver_run(cmd, log)
    if not ok:
        raise RuntimeError(log[-1])
    return out


def check(src, work, path, samples, h, extra_flags=""):
    name = os.path.splitext(os.path.basename(path))[0]
    base = os.path.join(work, name)
    model = onnx.load(path)
    flags = {p.key: p.value for p in model.metadata_props}.get(
        "autodist_flags", "") + " " + extra_flags
    run([sys.executable, os.path.join(src, "examples/ops/make_op_data.py"),
         "--model", path, "--out", base + ".npz", "--samples", str(samples)])
    log = []
    try:
        _, saved = trained_step(path, base + ".npz", base, samples, log,
                                flags.split())
    except RuntimeError:
        raise RuntimeError("\n".join(log))
    inputs = {k: (v.astype(np.float64) if v.dtype == np.float32 else v)
              for k, v in np.load(base + ".npz").items()}
    params = {t.name: numpy_helper.to_array(t).astype(np.float64)
              for t in model.graph.initializer
              if t.data_type == onnx.TensorProto.FLOAT}
    frozen = set()
    for f in flags.split():
        if f.startswith("--freeze="):
            frozen.update(f.split("=", 1)[1].split(","))
    ev = Evaluator(model, train_bn=not frozen)
    ev.run(params, inputs)
    running = dict(ev.running)
    worst, where = 0.0, ""
    for pname, p in params.items():
        got_new = saved[pname].astype(np.float64)
        if pname in running:        # running statistic: updated, not trained
            ref, got = running[pname], got_new
        elif pname in frozen:
            ref, got = p, got_new
        else:
            ref = np.zeros_like(p)
            for i in np.ndindex(p.shape):
                q = dict(params)
                for sign in (1, -1):
                    pp = p.copy()
                    pp[i] += sign * h
                    q[pname] = pp
                    ref[i] += sign * ev.run(q, inputs) / (2 * h)
            got = p.astype(np.float32).astype(np.float64) - got_new
        scale = max(np.abs(ref).max(), 1e-30)
        err = float(np.abs(got - ref).max() / scale)
        if err >= worst:
            worst, where = err, pname
    return name, worst, where


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--samples", type=int, default=5)
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("--step", type=float, default=1e-5,
                    help="finite-difference step")
    ap.add_argument("--flags", default="",
                    help="extra autodist-compile flags, space-separated")
    ap.add_argument("--only", default="",
                    help="comma-separated model names (default: all)")
    args = ap.parse_args()
    models = os.path.join(args.work, "models")
    run([sys.executable, os.path.join(args.src,
                                      "examples/ops/make_cnn_grad_models.py"),
         "--out-dir", models])
    paths = sorted(glob.glob(os.path.join(models, "*.onnx")))
    if args.only:
        only = args.only.split(",")
        paths = [p for p in paths
                 if os.path.splitext(os.path.basename(p))[0] in only]
        if len(paths) != len(only):
            sys.exit(f"gradcheck-cnn: --only names a model that "
                     f"{os.path.basename(models)} lacks: {args.only}")
    failed = 0
    for path in paths:
        try:
            name, err, where = check(args.src, args.work, path, args.samples,
                                     args.step, args.flags)
        except Exception as e:  # report and go on
            print(f"FAIL {os.path.basename(path)}: {e}")
            failed += 1
            continue
        ok = err < args.rtol
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} {name}: max relative gradient "
              f"error {err:.2e} ({where})")
    print(f"{len(paths) - failed}/{len(paths)} models' gradients match")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
