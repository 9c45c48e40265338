#!/usr/bin/env python3
"""NumPy reference trainer for AutoDist-MLIR models (checks the compiler's
gradients).

Interprets an ONNX graph forward and backward with NumPy, using only the ops
the compiler supports: Gemm (alpha, beta, transA, transB, optional C with
unidirectional broadcasting), MatMul (2-D), Add (numpy broadcasting, either
side), Relu, Flatten (any axis), Reshape (shape from an int64 initializer; 0
copies the input dim unless allowzero=1, -1 is inferred) and Identity.
Any other op is an error.

Training, matching the training executable:
  * parameters = every float initializer of the model;
  * loss = softmax cross-entropy of graph output 0 ([B, classes]) against the
    int64 ``labels`` array, mean over the batch;
  * SGD: p -= lr * dloss/dp, lr rounded to float32 first (the executable
    receives lr as f32);
  * step s (1-based) uses batch k = (s-1) mod floor(n/B), i.e. samples
    [k*B, (k+1)*B) of the data file, in file order (no shuffling, the last
    n mod B samples are never used);
  * the loss logged for step s is the loss of the parameters *before* that
    step's update.
Graph inputs (those that are not initializers) are read from the .npz arrays
of the same name; labels from array ``labels``.

Computation is float64 by default (``--dtype float32`` mimics f32 rounding).
Writes JSONL, one line per step: {"step": s, "loss": L, "lr": lr}.

``--self-test`` checks this interpreter itself: for built-in graphs that
cover every op/attribute above (and for ``--model`` if given) it compares the
forward pass with onnxruntime and the analytic gradients of every parameter
with central finite differences (float64). Exits non-zero on any mismatch.

Examples::

    python3 test/e2e/reference_train.py --model mlp.onnx --data train.npz \\
        --steps 20 --batch-size 32 --lr 0.1 --out ref.jsonl
    python3 test/e2e/reference_train.py --self-test [--model mlp.onnx]
"""
import argparse
import json
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SUPPORTED = {"Gemm", "MatMul", "Add", "Relu", "Flatten", "Reshape",
             "Identity"}
FLOAT_TYPES = {TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16}


class Fail(Exception):
    pass


def unbroadcast(g, shape):
    """Sum gradient g (of a broadcast result) back down to `shape`."""
    shape = tuple(shape)
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    for i, d in enumerate(shape):
        if d == 1 and g.shape[i] != 1:
            g = g.sum(axis=i, keepdims=True)
    return g.reshape(shape)


class Interpreter:
    """Forward/backward interpreter for the supported ONNX subset."""

    def __init__(self, model):
        g = model.graph
        self.inits = {t.name: numpy_helper.to_array(t) for t in g.initializer}
        self.params = [t.name for t in g.initializer
                       if t.data_type in FLOAT_TYPES]
        self.inputs = [i.name for i in g.input if i.name not in self.inits]
        if not g.output:
            raise Fail("model has no outputs")
        self.output = g.output[0].name
        self.nodes = list(g.node)
        bad = sorted({n.op_type for n in self.nodes
                      if n.op_type not in SUPPORTED or n.domain not in ("",
                                                          "ai.onnx")})
        if bad:
            raise Fail(f"unsupported op(s) for the reference trainer: "
                       f"{', '.join(bad)}")
        known = set(self.inits) | set(self.inputs)
        for n in self.nodes:
            for i in n.input:
                if i and i not in known:
                    raise Fail(f"node {n.name or n.op_type}: input '{i}' is "
                               f"not produced earlier (graph not sorted?)")
            known.update(o for o in n.output if o)
        if self.output not in known:
            raise Fail(f"graph output '{self.output}' is never produced")

    @staticmethod
    def _attrs(node):
        return {a.name: helper.get_attribute_value(a) for a in node.attribute}

    def forward(self, params, feeds, dtype):
        env = {}
        for k, v in self.inits.items():
            env[k] = v if k not in params else params[k]
        for k in self.inputs:
            env[k] = feeds[k].astype(dtype, copy=False)
        for n in self.nodes:
            a = self._attrs(n)
            x = [env[i] if i else None for i in n.input]
            op, name = n.op_type, n.name or n.op_type
            if op == "Identity":
                y = x[0]
            elif op == "Relu":
                y = np.maximum(x[0], 0).astype(x[0].dtype)
            elif op == "Add":
                y = x[0] + x[1]
            elif op == "MatMul":
                if x[0].ndim != 2 or x[1].ndim != 2:
                    raise Fail(f"{name}: MatMul supported for 2-D operands "
                               f"only, got {x[0].shape} x {x[1].shape}")
                y = x[0] @ x[1]
            elif op == "Gemm":
                A = x[0].T if a.get("transA", 0) else x[0]
                B = x[1].T if a.get("transB", 0) else x[1]
                if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[0]:
                    raise Fail(f"{name}: bad Gemm shapes {x[0].shape}, "
                               f"{x[1].shape}")
                y = dtype(a.get("alpha", 1.0)) * (A @ B)
                if len(x) > 2 and x[2] is not None:
                    y = y + dtype(a.get("beta", 1.0)) * x[2]
                    if y.shape != (A.shape[0], B.shape[1]):
                        raise Fail(f"{name}: Gemm C {x[2].shape} does not "
                                   f"broadcast to {(A.shape[0], B.shape[1])}")
            elif op == "Flatten":
                ax = a.get("axis", 1)
                if ax < 0:
                    ax += x[0].ndim
                s = x[0].shape
                y = x[0].reshape(int(np.prod(s[:ax], dtype=np.int64)),
                                 int(np.prod(s[ax:], dtype=np.int64)))
            elif op == "Reshape":
                if n.input[1] not in self.inits:
                    raise Fail(f"{name}: Reshape shape must be an initializer")
                shape = [int(d) for d in x[1]]
                if not a.get("allowzero", 0):
                    shape = [x[0].shape[i] if d == 0 else d
                             for i, d in enumerate(shape)]
                y = x[0].reshape(shape)
            env[n.output[0]] = y
        return env

    def backward(self, env, dout):
        """Gradients of the params given d(loss)/d(output 0)."""
        grads = {self.output: dout}

        def acc(name, g):
            if not name or name in self.inits and name not in self.params:
                return
            if name in grads:
                grads[name] = grads[name] + g
            else:
                grads[name] = g

        for n in reversed(self.nodes):
            dy = grads.get(n.output[0])
            if dy is None:
                continue
            a = self._attrs(n)
            x = [env[i] if i else None for i in n.input]
            op = n.op_type
            if op == "Identity":
                acc(n.input[0], dy)
            elif op == "Relu":
                acc(n.input[0], dy * (x[0] > 0))
            elif op == "Add":
                acc(n.input[0], unbroadcast(dy, x[0].shape))
                acc(n.input[1], unbroadcast(dy, x[1].shape))
            elif op == "MatMul":
                acc(n.input[0], dy @ x[1].T)
                acc(n.input[1], x[0].T @ dy)
            elif op == "Gemm":
                ta, tb = a.get("transA", 0), a.get("transB", 0)
                alpha = dy.dtype.type(a.get("alpha", 1.0))
                A = x[0].T if ta else x[0]
                B = x[1].T if tb else x[1]
                dA = alpha * (dy @ B.T)
                dB = alpha * (A.T @ dy)
                acc(n.input[0], dA.T if ta else dA)
                acc(n.input[1], dB.T if tb else dB)
                if len(x) > 2 and x[2] is not None:
                    beta = dy.dtype.type(a.get("beta", 1.0))
                    acc(n.input[2], beta * unbroadcast(dy, x[2].shape))
            elif op in ("Flatten", "Reshape"):
                acc(n.input[0], dy.reshape(x[0].shape))
        return {p: grads.get(p, np.zeros_like(self.inits[p]))
                for p in self.params}

    def loss_and_grads(self, params, feeds, labels, dtype, need_grad=True):
        env = self.forward(params, feeds, dtype)
        z = env[self.output]
        if z.ndim != 2 or z.shape[0] != labels.shape[0]:
            raise Fail(f"output '{self.output}' has shape {z.shape}; "
                       f"expected [batch={labels.shape[0]}, classes]")
        if labels.min() < 0 or labels.max() >= z.shape[1]:
            raise Fail(f"labels outside [0, {z.shape[1]})")
        b = z.shape[0]
        zs = z - z.max(axis=1, keepdims=True)
        lse = np.log(np.exp(zs).sum(axis=1, keepdims=True))
        logp = zs - lse
        loss = -logp[np.arange(b), labels].mean()
        if not need_grad:
            return loss, None
        dz = np.exp(logp)
        dz[np.arange(b), labels] -= 1
        dz = (dz / dtype(b)).astype(dtype)
        return loss, self.backward(env, dz)


def load_model(path):
    try:
        return onnx.load(path)
    except Exception as e:
        raise Fail(f"cannot load model {path}: {e}")


def train(args):
    dtype = np.float64 if args.dtype == "float64" else np.float32
    model = load_model(args.model)
    it = Interpreter(model)
    try:
        data = np.load(args.data)
    except Exception as e:
        raise Fail(f"cannot load data {args.data}: {e}")
    missing = [k for k in it.inputs + ["labels"] if k not in data.files]
    if missing:
        raise Fail(f"{args.data} lacks array(s) {missing} "
                   f"(has {data.files})")
    feeds_all = {k: data[k] for k in it.inputs}
    labels_all = data["labels"].astype(np.int64)
    n = labels_all.shape[0]
    for k, v in feeds_all.items():
        if v.shape[0] != n:
            raise Fail(f"array '{k}' has {v.shape[0]} rows, labels {n}")
    bsz = args.batch_size
    if bsz < 1 or n < bsz:
        raise Fail(f"--batch-size {bsz} invalid for {n} samples")
    if args.steps < 1:
        raise Fail("--steps must be >= 1")
    nb = n // bsz
    lr32 = float(np.float32(args.lr))
    lr = dtype(lr32)
    params = {p: it.inits[p].astype(dtype) for p in it.params}
    first = last = None
    with open(args.out, "w") as f:
        for s in range(args.steps):
            k = s % nb
            sl = slice(k * bsz, (k + 1) * bsz)
            feeds = {name: v[sl] for name, v in feeds_all.items()}
            loss, grads = it.loss_and_grads(params, feeds, labels_all[sl],
                                            dtype)
            loss = float(loss)
            if not np.isfinite(loss):
                raise Fail(f"non-finite loss {loss} at step {s + 1}")
            f.write(json.dumps({"step": s + 1, "loss": loss, "lr": args.lr})
                    + "\n")
            first = loss if first is None else first
            last = loss
            for p in it.params:
                params[p] = params[p] - lr * grads[p]
    if args.save:
        for t in model.graph.initializer:
            if t.name in params:
                t.CopyFrom(numpy_helper.from_array(
                    params[t.name].astype(it.inits[t.name].dtype), t.name))
        onnx.save(model, args.save)
    print(f"reference: {args.steps} steps, batch {bsz} ({nb} batches/epoch),"
          f" lr {args.lr:g}, {args.dtype}: loss {first:.6f} -> {last:.6f}; "
          f"wrote {args.out}" + (f", {args.save}" if args.save else ""))


# ----------------------------------------------------------------- self-test
def _f(rng, shape):
    return rng.standard_normal(shape).astype(np.float32) * 0.5


def _model(name, nodes, inits, in_shape, out_shape):
    g = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)],
        initializer=[numpy_helper.from_array(v, k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m, full_check=True)
    return m


def builtin_models(rng):
    """(name, model, batch input shape) covering all ops and attributes."""
    N = helper.make_node
    out = []
    # Gemm: transA on a param and on an activation, transB both ways,
    # alpha/beta != 1, bias shapes [M,1] and [N].
    m = _model("gemm_attrs", [
        N("Gemm", ["w1", "x", "c1"], ["g1"], transA=1, transB=1, alpha=0.5,
          beta=2.0),                                   # [4,B]
        N("Relu", ["g1"], ["r1"]),
        N("Gemm", ["r1", "w2", "c2"], ["y"], transA=1, transB=0, alpha=1.5,
          beta=0.7),                                   # [B,3]
    ], {"w1": _f(rng, (6, 4)), "c1": _f(rng, (4, 1)),
        "w2": _f(rng, (4, 3)), "c2": _f(rng, (3,))}, ["B", 6], ["B", 3])
    out.append(("gemm_attrs", m, (5, 6)))
    # Gemm bias: scalar, [1,N]; no bias.
    m = _model("gemm_bias", [
        N("Gemm", ["x", "w1", "c1"], ["g1"]),
        N("Gemm", ["g1", "w2", "c2"], ["g2"], transB=1, beta=0.5),
        N("Gemm", ["g2", "w3"], ["y"], alpha=2.0),
    ], {"w1": _f(rng, (6, 5)), "c1": _f(rng, ()), "w2": _f(rng, (4, 5)),
        "c2": _f(rng, (1, 4)), "w3": _f(rng, (4, 3))}, ["B", 6], ["B", 3])
    out.append(("gemm_bias", m, (5, 6)))
    # Add broadcasting on both sides, a tensor used twice, Identity.
    m = _model("add_bcast", [
        N("Add", ["x", "p1"], ["a1"]),                 # [B,2,3] + [3]
        N("Add", ["p2", "a1"], ["a2"]),                # [2,1] + [B,2,3]
        N("Flatten", ["a2"], ["f"], axis=1),           # [B,6]
        N("MatMul", ["f", "w1"], ["m1"]),
        N("Add", ["m1", "b1"], ["h"]),                 # + [1,4]
        N("Relu", ["h"], ["r"]),
        N("Add", ["r", "r"], ["rr"]),
        N("MatMul", ["rr", "w2"], ["m2"]),
        N("Identity", ["m2"], ["y"]),
    ], {"p1": _f(rng, (3,)), "p2": _f(rng, (2, 1)), "w1": _f(rng, (6, 4)),
        "b1": _f(rng, (1, 4)), "w2": _f(rng, (4, 3))},
        ["B", 2, 3], ["B", 3])
    out.append(("add_bcast", m, (5, 2, 3)))
    # Flatten axis 2, 0 and -1; Reshape with -1 and with 0.
    m = _model("flatten_reshape", [
        N("Flatten", ["x"], ["f1"], axis=2),           # [B*3,20]
        N("MatMul", ["f1", "w1"], ["m1"]),             # [B*3,4]
        N("Reshape", ["m1", "s1"], ["r1"]),            # [-1,12] -> [B,12]
        N("Gemm", ["r1", "w2", "b2"], ["g2"], transB=1),   # [B,3]
        N("Reshape", ["g2", "s0"], ["r2"]),            # [0,-1] -> [B,3]
        N("Flatten", ["r2"], ["f0"], axis=0),          # [1,B*3]
        N("Reshape", ["f0", "s3"], ["r3"]),            # [-1,3] -> [B,3]
        N("Flatten", ["r3"], ["y"], axis=-1),          # [B,3]
    ], {"w1": _f(rng, (20, 4)), "s1": np.array([-1, 12], np.int64),
        "w2": _f(rng, (3, 12)), "b2": _f(rng, (3,)),
        "s0": np.array([0, -1], np.int64), "s3": np.array([-1, 3], np.int64)},
        ["B", 3, 4, 5], ["B", 3])
    out.append(("flatten_reshape", m, (5, 3, 4, 5)))
    return out


def check_model(name, model, feeds, labels, max_entries=48):
    import onnxruntime as ort
    it = Interpreter(model)
    # forward vs onnxruntime (float32 model, our float64 forward)
    sess = ort.InferenceSession(model.SerializeToString(),
                                providers=["CPUExecutionProvider"])
    ref = sess.run(None, {k: v.astype(np.float32) for k, v in feeds.items()})
    params = {p: it.inits[p].astype(np.float64) for p in it.params}
    ours = it.forward(params, feeds, np.float64)[it.output]
    # rel = max |ours - ort| / max(|ort|, 1e-3)
    fwd = np.max(np.abs(ours - ref[0]) / np.maximum(np.abs(ref[0]), 1e-3))
    # gradients vs central differences
    _, grads = it.loss_and_grads(params, feeds, labels, np.float64)
    rng = np.random.default_rng(1)
    eps, worst = 1e-6, 0.0
    for p in it.params:
        flat = params[p].reshape(-1)
        idx = np.arange(flat.size)
        if flat.size > max_entries:
            idx = rng.choice(flat.size, max_entries, replace=False)
        num = np.empty(len(idx))
        for j, i in enumerate(idx):
            old = flat[i]
            flat[i] = old + eps
            lp, _ = it.loss_and_grads(params, feeds, labels, np.float64,
                                      need_grad=False)
            flat[i] = old - eps
            lm, _ = it.loss_and_grads(params, feeds, labels, np.float64,
                                      need_grad=False)
            flat[i] = old
            num[j] = (lp - lm) / (2 * eps)
        ana = grads[p].reshape(-1)[idx]
        scale = max(np.abs(num).max(), np.abs(ana).max(), 1e-8)
        worst = max(worst, np.abs(num - ana).max() / scale)
    # forward: ORT computes in float32, so allow float32-level error
    ok = fwd <= 1e-4 and worst <= 1e-5
    print(f"  {'ok  ' if ok else 'FAIL'} {name}: params={len(it.params)} "
          f"forward-vs-ort rel={fwd:.2e} grad-vs-fd rel={worst:.2e}")
    return ok


def self_test(args):
    rng = np.random.default_rng(0)
    cases = []
    for name, m, shape in builtin_models(rng):
        x = rng.standard_normal(shape)
        out_dim = m.graph.output[0].type.tensor_type.shape.dim[1].dim_value
        cases.append((name, m, {"x": x}, rng.integers(0, out_dim, shape[0])))
    if args.model:
        m = load_model(args.model)
        it = Interpreter(m)
        bsz = args.batch_size or 8
        if args.data:
            d = np.load(args.data)
            feeds = {k: d[k][:bsz].astype(np.float64) for k in it.inputs}
            labels = d["labels"][:bsz].astype(np.int64)
        else:
            feeds = {}
            for i in m.graph.input:
                if i.name in it.inputs:
                    dims = [d.dim_value if d.HasField("dim_value") else bsz
                            for d in i.type.tensor_type.shape.dim]
                    feeds[i.name] = rng.standard_normal(dims)
            z = it.forward({}, feeds, np.float64)[it.output]
            labels = rng.integers(0, z.shape[1], z.shape[0])
        cases.append((args.model, m, feeds, labels))
    print("reference_train self-test (forward vs onnxruntime, "
          "gradients vs central differences, float64):")
    results = [check_model(*c) for c in cases]
    if not all(results):
        raise Fail(f"self-test FAILED ({results.count(False)} of "
                   f"{len(results)} graphs)")
    print(f"self-test PASS ({len(results)} graphs)")


def main():
    ap = argparse.ArgumentParser(
        description="NumPy reference trainer (softmax cross-entropy + SGD) "
                    "for ONNX MLPs; writes per-step losses as JSONL.")
    ap.add_argument("--model", help="input .onnx model")
    ap.add_argument("--data", help=".npz with one array per graph input "
                    "(same name) and int64 'labels'")
    ap.add_argument("--steps", type=int, help="number of SGD steps")
    ap.add_argument("--batch-size", type=int, help="batch size B")
    ap.add_argument("--lr", type=float, help="learning rate")
    ap.add_argument("--out", help="output JSONL path")
    ap.add_argument("--dtype", choices=["float64", "float32"],
                    default="float64",
                    help="compute precision (default float64)")
    ap.add_argument("--save", help="optionally write the trained model here "
                    "(float initializers updated, like the executable's "
                    "--save)")
    ap.add_argument("--self-test", action="store_true",
                    help="check forward against onnxruntime and gradients "
                         "against finite differences on built-in graphs "
                         "(plus --model/--data if given), then exit")
    args = ap.parse_args()
    try:
        if args.self_test:
            self_test(args)
        else:
            need = [f"--{k.replace('_', '-')}" for k in
                    ("model", "data", "steps", "batch_size", "lr", "out")
                    if getattr(args, k) is None]
            if need:
                raise Fail(f"missing required argument(s): {' '.join(need)}")
            train(args)
    except Fail as e:
        sys.exit(f"reference_train.py: error: {e}")
    except Exception as e:
        sys.exit(f"reference_train.py: error: {type(e).__name__}: {e}")


if __name__ == "__main__":
    main()
