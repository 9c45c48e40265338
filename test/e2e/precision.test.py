#!/usr/bin/env python3
"""An independent NumPy reference of --precision (docs/precision.md) for
the MLP of examples/mlp/make_mlp.py (Gemm, Relu,
Gemm, softmax cross-entropy), compared with the compiled program's training
log step by step.

The rule: every matrix product, forward and backward, reads its two
operands rounded to bf16 or fp16 (to nearest, ties to even; fp16 overflows
to inf) and sums in f32; everything else is f32. With fp16, PyTorch's
GradScaler: the backward pass starts from the scale S instead of 1, the
gradients are multiplied by f32(1/S); a step whose scaled gradients hold an
inf or NaN changes no parameter and no optimizer state (Adam counts only
the steps it took) and halves S; otherwise, after `interval` such steps in a
row S doubles. The logged loss is the unscaled loss.

Usage: precision.test.py MODEL DATA LOG --precision bf16|fp16 --batch B
         --steps T --lr LR [--optimizer sgd|adam] [--scale S]
         [--interval N] [--ranks N] [--rtol R] [--expect-skips K]
"""
import argparse
import json
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def round_bf16(a):
    """f32 -> bf16 -> f32, to nearest, ties to even (finite inputs)."""
    u = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return u.astype(np.uint32).view(np.float32)


def rounder(precision):
    if precision == "bf16":
        return round_bf16
    return lambda a: np.asarray(a, np.float32).astype(np.float16).astype(
        np.float32)


def forward_backward(w, x, labels, rnd, seed):
    """Loss and seed-scaled gradients, f32 with rounded product operands."""
    f32 = np.float32

    def mm(a, b):
        return (rnd(a).astype(np.float64) @ rnd(b).astype(np.float64)).astype(
            f32)

    h = mm(x, w["fc1.weight"].T) + w["fc1.bias"]
    a = np.maximum(h, f32(0))
    z = mm(a, w["fc2.weight"].T) + w["fc2.bias"]
    zs = (z - z.max(axis=1, keepdims=True)).astype(np.float64)
    p = np.exp(zs)
    p /= p.sum(axis=1, keepdims=True)
    n = x.shape[0]
    loss = -np.mean(np.log(p[np.arange(n), labels]))
    dz = p.copy()
    dz[np.arange(n), labels] -= 1
    dz = (dz / n * seed).astype(f32)
    g = {"fc2.weight": mm(dz.T, a), "fc2.bias": dz.sum(axis=0, dtype=f32)}
    da = mm(dz, w["fc2.weight"])
    dh = np.where(h > 0, da, f32(0)).astype(f32)
    g["fc1.weight"] = mm(dh.T, x)
    g["fc1.bias"] = dh.sum(axis=0, dtype=f32)
    return loss, g


def reference(args):
    np.seterr(all="ignore")  # fp16 overflow is what the test provokes
    model = onnx.load(args.model)
    w = {i.name: numpy_helper.to_array(i).astype(np.float32)
         for i in model.graph.initializer}
    data = np.load(args.data)
    xs, ys = data["x"].astype(np.float32), data["labels"]
    rnd = rounder(args.precision)
    scaled = args.precision == "fp16"
    scale, tracker, taken = np.float32(args.scale), 0, 0
    m = {p: np.zeros_like(v) for p, v in w.items()}
    v2 = {p: np.zeros_like(v) for p, v in w.items()}
    lr, b1, b2, eps = np.float32(args.lr), 0.9, 0.999, 1e-8
    batches = xs.shape[0] // args.batch
    losses, skips = [], 0
    for t in range(args.steps):
        k = t % batches
        # Each rank's backward pass runs on its share (an overflow there is
        # an overflow of the mean); the gradients are averaged.
        share = args.batch // args.ranks
        results = []
        for r in range(args.ranks):
            lo = k * args.batch + r * share
            results.append(forward_backward(w, xs[lo:lo + share],
                                            ys[lo:lo + share], rnd,
                                            scale if scaled else 1.0))
        losses.append(np.mean([loss for loss, _ in results]))
        g = {p: np.mean([rg[p] for _, rg in results], axis=0) for p in w}
        if scaled:
            found = not all(np.isfinite(v).all() for v in g.values())
            inv = np.float32(1) / scale
            g = {p: v * inv for p, v in g.items()}
            if found:
                skips += 1
                scale, tracker = np.float32(scale * 0.5), 0
                continue
            tracker += 1
            if tracker == args.interval:
                scale, tracker = np.float32(scale * 2), 0
        taken += 1
        for p in w:
            if args.optimizer == "sgd":
                w[p] = w[p] - lr * g[p]
                continue
            m[p] = b1 * m[p] + (1 - b1) * g[p]
            v2[p] = b2 * v2[p] + (1 - b2) * g[p] * g[p]
            w[p] = (w[p] - lr / (1 - b1 ** taken) * m[p] / (
                np.sqrt(v2[p]) / np.sqrt(1 - b2 ** taken) + eps)).astype(
                    np.float32)
    return losses, skips


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("data")
    ap.add_argument("log")
    ap.add_argument("--precision", required=True, choices=["bf16", "fp16"])
    ap.add_argument("--batch", type=int, required=True)
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--lr", type=float, required=True)
    ap.add_argument("--optimizer", default="sgd", choices=["sgd", "adam"])
    ap.add_argument("--scale", type=float, default=65536.0)
    ap.add_argument("--interval", type=int, default=2000)
    ap.add_argument("--ranks", type=int, default=1,
                    help="ranks of the logged run, each on its share of "
                         "--batch (the global batch)")
    ap.add_argument("--rtol", type=float, default=1e-5)
    ap.add_argument("--expect-skips", type=int, default=None,
                    help="the number of skipped steps the reference must have")
    args = ap.parse_args()
    ref, skips = reference(args)
    if args.expect_skips is not None and skips != args.expect_skips:
        sys.exit(f"the reference skipped {skips} steps, the test expects "
                 f"{args.expect_skips}")
    with open(args.log) as f:
        got = [json.loads(line)["loss"] for line in f if line.strip()]
    if len(got) != len(ref):
        sys.exit(f"{args.log}: {len(got)} steps, expected {len(ref)}")
    for t, (a, b) in enumerate(zip(got, ref)):
        if abs(a - b) > args.rtol * abs(b):
            sys.exit(f"{args.log}: step {t}: loss {a!r}, reference {b!r} "
                     f"(relative difference {abs(a - b) / abs(b):.3g})")
    print(f"{args.log}: {len(got)} steps equal the reference "
          f"({skips} skipped)")


if __name__ == "__main__":
    main()
