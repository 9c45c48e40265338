#!/usr/bin/env python3
"""An independent NumPy reference of the staleness rule (docs/strategies.md,
"Staleness"), for the MLP of examples/mlp/make_mlp.py (Gemm, Relu, Gemm,
softmax cross-entropy), compared with the training logs of the compiled
program, step by step.

The rule, for the stale parameters S, warm-up W and step t (0-based):
  * t < W: every parameter is updated with this step's averaged gradient;
  * t = W: the stale parameters and their optimizer state stay as they are
    (nothing is in flight);
  * t > W: a stale parameter is updated with the averaged gradient of step
    t - 1, delay-compensated with dc: g + lam*g*g*(w_t - w_{t-1}), or
    dc_adaptive: that term divided by sqrt(g*g + 1e-7);
  * weight prediction (t > W): each rank's forward and backward pass of
    step t run on Opt(w_t, g_hat) for the stale parameters (the optimizer
    state not advanced), g_hat = the rank's own gradient of step t - 1
    (local), the gradient applied in step t - 1 (prev_sync), or that one
    with the rank's share replaced, + (g_{t-1} - g_{t-2}) / n
    (local_prev_sync); the loss logged is the mean over the ranks of theirs.
The others are synchronous. Step t reads samples [k*G, (k+1)*G) of the data,
k = t mod floor(n/G), G the global batch.

Usage: staleness.test.py MODEL DATA --global-batch G --steps T --lr LR
         --optimizer sgd|adam [--stale a,b|all] [--warmup W]
         [--compensation none|weight_prediction|delay_compensation]
         [--estimator local|prev_sync|local_prev_sync] [--ranks N]
         [--dc-variant dc|dc_adaptive] [--dc-lambda L] LOG... [--rtol R]
"""
import argparse
import json
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def forward_backward(w, x, labels):
    """Loss and gradients of the MLP (float64)."""
    h = x @ w["fc1.weight"].T + w["fc1.bias"]
    a = np.maximum(h, 0)
    z = a @ w["fc2.weight"].T + w["fc2.bias"]
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    n = x.shape[0]
    loss = -np.mean(np.log(p[np.arange(n), labels]))
    dz = p.copy()
    dz[np.arange(n), labels] -= 1
    dz /= n
    g = {"fc2.weight": dz.T @ a, "fc2.bias": dz.sum(axis=0)}
    da = dz @ w["fc2.weight"]
    dh = da * (h > 0)
    g["fc1.weight"] = dh.T @ x
    g["fc1.bias"] = dh.sum(axis=0)
    return loss, g


class Optimizer:
    def __init__(self, kind, lr, step_size=0, gamma=1.0):
        self.kind = kind
        self.lr = float(np.float32(lr))
        self.step_size, self.gamma = step_size, gamma
        self.b1, self.b2, self.eps = 0.9, 0.999, 1e-8

    def init(self, w):
        return {"m": np.zeros_like(w), "v": np.zeros_like(w)}

    def rate(self, t):
        """The learning rate of 1-based step t (the `step` schedule when
        --lr-step-size is given: lr * gamma^floor((t - 1) / step_size))."""
        if not self.step_size:
            return self.lr
        return float(np.float32(self.lr * self.gamma ** ((t - 1) // self.step_size)))

    def step(self, w, g, state, t):
        """(new w, new state) at 1-based step number t."""
        lr = self.rate(t)
        if self.kind == "sgd":
            return w - lr * g, state
        m = self.b1 * state["m"] + (1 - self.b1) * g
        v = self.b2 * state["v"] + (1 - self.b2) * g * g
        w = w - lr / (1 - self.b1 ** t) * m / (
            np.sqrt(v) / np.sqrt(1 - self.b2 ** t) + self.eps)
        return w, {"m": m, "v": v}


def reference(args):
    model = onnx.load(args.model)
    w = {i.name: numpy_helper.to_array(i).astype(np.float64)
         for i in model.graph.initializer}
    data = np.load(args.data)
    xs, ys = data["x"].astype(np.float64), data["labels"]
    stale = set(w) if args.stale == "all" else set(args.stale.split(","))
    opt = Optimizer(args.optimizer, args.lr, args.lr_step_size, args.lr_gamma)
    state = {p: opt.init(v) for p, v in w.items()}
    zeros = lambda: {p: np.zeros_like(v) for p, v in w.items()}
    inflight, prev_sync, prev_w = zeros(), zeros(), zeros()
    # Per rank: its own gradients of the last two steps (weight prediction).
    n = args.ranks
    local = [zeros() for _ in range(n)]
    local_prev = [zeros() for _ in range(n)]
    G, W = args.global_batch, args.warmup
    B = G // n
    batches = xs.shape[0] // G
    losses = []
    for t in range(args.steps):
        k = t % batches
        rank_losses, rank_grads = [], []
        for r in range(n):
            lo = k * G + r * B
            x, y = xs[lo:lo + B], ys[lo:lo + B]
            evaluated = dict(w)
            if args.compensation == "weight_prediction" and t > W:
                for p in stale:
                    ghat = {"local": local[r][p], "prev_sync": prev_sync[p],
                            "local_prev_sync": prev_sync[p]
                            + (local[r][p] - local_prev[r][p]) / n}[args.estimator]
                    evaluated[p], _ = opt.step(w[p], ghat, state[p], t + 1)
            loss, g = forward_backward(evaluated, x, y)
            rank_losses.append(loss)
            rank_grads.append(g)
        losses.append(np.mean(rank_losses))
        g = {p: np.mean([rg[p] for rg in rank_grads], axis=0) for p in w}
        new_w = {}
        for p in w:
            if p not in stale or t < W:
                applied = g[p]
            elif t == W:
                new_w[p] = w[p]
                continue
            else:
                applied = inflight[p]
                if args.compensation == "delay_compensation":
                    term = applied * applied * (w[p] - prev_w[p])
                    if args.dc_variant == "dc_adaptive":
                        term = term / np.sqrt(applied * applied + 1e-7)
                    applied = applied + args.dc_lambda * term
            new_w[p], state[p] = opt.step(w[p], applied, state[p], t + 1)
            if p in stale:
                prev_sync[p] = applied
        for p in stale:
            inflight[p] = g[p] if t >= W else np.zeros_like(g[p])
            for r in range(n):
                local_prev[r][p] = local[r][p]
                local[r][p] = rank_grads[r][p]
            prev_w[p] = w[p]
        w = new_w
    return losses


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("data")
    ap.add_argument("logs", nargs="+")
    ap.add_argument("--global-batch", type=int, required=True)
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--lr", type=float, required=True)
    ap.add_argument("--optimizer", default="sgd")
    ap.add_argument("--lr-step-size", type=int, default=0,
                    help="the `step` lr schedule's step size (0: constant)")
    ap.add_argument("--lr-gamma", type=float, default=1.0)
    ap.add_argument("--stale", default="all")
    ap.add_argument("--warmup", type=int, default=0)
    ap.add_argument("--compensation", default="none")
    ap.add_argument("--estimator", default="local")
    ap.add_argument("--dc-variant", default="dc")
    ap.add_argument("--dc-lambda", type=float, default=0.5)
    ap.add_argument("--ranks", type=int, default=1,
                    help="ranks of the logged runs (each computes on its "
                         "share of the global batch; weight prediction's "
                         "local estimates are per rank)")
    ap.add_argument("--rtol", type=float, default=1e-5)
    ap.add_argument("--sync-rtol", type=float, default=None,
                    help="also require the reference to differ from a "
                         "synchronous run (this log) by more than this")
    args = ap.parse_args()
    ref = reference(args)
    for path in args.logs:
        with open(path) as f:
            got = [json.loads(line)["loss"] for line in f if line.strip()]
        if len(got) != len(ref):
            sys.exit(f"{path}: {len(got)} steps, expected {len(ref)}")
        for t, (a, b) in enumerate(zip(got, ref)):
            if abs(a - b) > args.rtol * abs(b):
                sys.exit(f"{path}: step {t}: loss {a!r}, reference {b!r} "
                         f"(relative difference {abs(a - b) / abs(b):.3g})")
        print(f"{path}: {len(got)} steps equal the reference")
    print(f"final reference loss {ref[-1]:.6f}")


if __name__ == "__main__":
    main()
