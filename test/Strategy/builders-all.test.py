#!/usr/bin/env python3
"""Checks `autodist-compile --emit=strategy` for every builder and model
against an independent Python implementation of AutoDist's builder rules
(../shared/reference/autodist.md §2). With --placement bandwidth, the
servers' variables are placed bandwidth-proportionally instead
(docs/strategies.md): largest shard first, each on the server with the
smallest (load + bytes) / bandwidth; --server NAME=BW gives the servers and
their bandwidths (a node's bandwidth divided among its CPU devices)."""
import argparse
import json
import math
import os
import subprocess
import sys

import onnx
from onnx import numpy_helper

BUILDERS = ["ps", "ps-lb", "partitioned-ps", "uneven-ps", "allreduce",
            "partitioned-ar", "random-axis-ar", "parallax"]
CHUNK = 3


def variables(path):
    """(name, shape, sparse) of the float initializers, in file order."""
    model = onnx.load(path)
    gathered = {n.input[0] for n in model.graph.node
                if n.op_type == "Gather" and
                next((a.i for a in n.attribute if a.name == "axis"), 0) == 0}
    return [(t.name, list(t.dims), t.name in gathered)
            for t in model.graph.initializer if t.data_type == onnx.TensorProto.FLOAT]


def nbytes(shape):
    return 4 * math.prod(shape)


def smallest_divisor(n):
    if n <= 1:
        return 1
    return next((i for i in range(2, n) if n % i == 0), n)


def smallest_non_divisor(n):
    if n <= 1:
        return 1
    return next((i for i in range(2, n) if n % i != 0), n)


class Servers:
    def __init__(self, names, bandwidth=None):
        self.loads = {n: 0.0 for n in names}
        self.bandwidth = bandwidth  # None: greedy by bytes

    def place(self, shards):
        """Servers for every variable's shards; shards[i] = (n, bytes)."""
        if self.bandwidth is None:
            return [self.least_n(n, b) for n, b in shards]
        where = [[None] * n for n, _ in shards]
        units = sorted(((i, k) for i, (n, _) in enumerate(shards) for k in range(n)),
                       key=lambda u: -shards[u[0]][1] / shards[u[0]][0])  # stable
        for i, k in units:
            b = shards[i][1] / shards[i][0]
            s = min(self.loads, key=lambda j: (self.loads[j] + b) / self.bandwidth[j])
            self.loads[s] += b
            where[i][k] = s
        return where

    def least_n(self, n, b):
        order = sorted(self.loads, key=self.loads.get)  # stable
        if n > len(order):
            order = order * math.ceil(n / len(order))
        chosen = order[:n]
        for s in chosen:
            self.loads[s] += b / n
        return chosen


def expect(builder, vars_, servers, bandwidth):
    """What the builder must decide: per variable a tuple describing it."""
    out = []
    if builder in ("ps", "ps-lb"):
        srv = Servers(servers[:1] if builder == "ps" else servers, bandwidth)
        return [("ps", w[0]) for w in srv.place([(1, nbytes(s)) for _, s, _ in vars_])]
    if builder in ("partitioned-ps", "uneven-ps"):
        srv = Servers(servers, bandwidth)
        f = smallest_divisor if builder == "partitioned-ps" else smallest_non_divisor
        counts = [f(s[0]) if s else 1 for _, s, _ in vars_]
        placed = srv.place([(n, nbytes(s)) for n, (_, s, _) in zip(counts, vars_)])
        for n, where in zip(counts, placed):
            out.append(("ps", where[0]) if n == 1 else ("parts", 0, n, tuple(("ps", w) for w in where)))
        return out
    if builder == "allreduce":
        return [("ar", "NCCL", i // CHUNK) for i in range(len(vars_))]
    if builder == "partitioned-ar":
        counter = 0
        for _, s, _ in vars_:
            n = smallest_divisor(s[0]) if s else 1
            if n == 1:
                out.append(("ar", "AUTO", counter // CHUNK))
                counter += 1
            else:
                out.append(("parts", 0, n, tuple(("ar", "AUTO", (counter + i) // CHUNK) for i in range(n))))
                counter += n
        return out
    if builder == "parallax":
        srv = Servers(servers, bandwidth)
        placed = iter(srv.place([(1, nbytes(s)) for _, s, sparse in vars_ if sparse]))
        dense = 0
        for _, s, sparse in vars_:
            if sparse:
                out.append(("ps", next(placed)[0]))
            else:
                out.append(("ar", "NCCL", dense // CHUNK))
                dense += 1
        return out
    return None  # random-axis-ar: checked by rule below


def describe(node):
    if "partitioner" in node:
        counts = [int(c) for c in node["partitioner"].split(",")]
        axis = next(i for i, c in enumerate(counts) if c > 1)
        return ("parts", axis, counts[axis], tuple(describe(p) for p in node["part_config"]))
    if "PSSynchronizer" in node:
        return ("ps", node["PSSynchronizer"]["reduction_destination"])
    ar = node["AllReduceSynchronizer"]
    return ("ar", ar["spec"], ar["group"])


def check_random_axis(vars_, got):
    counter = 0
    for (name, s, sparse), d in zip(vars_, got):
        axes = [i for i, n in enumerate(s) if n > 1]
        if d[0] != "parts":
            assert not axes or smallest_divisor(s[axes[0]]) == 1, f"{name}: not partitioned"
            assert d == ("ar", "AUTO", counter // CHUNK), f"{name}: {d}"
            counter += 1
            continue
        _, axis, n, parts = d
        assert axis in axes, f"{name}: axis {axis} is not one of {axes}"
        if sparse:
            assert axis == 0, f"{name}: sparse variable split on axis {axis}"
        assert n == smallest_divisor(s[axis]), f"{name}: {n} shards on axis {axis}"
        assert parts == tuple(("ar", "AUTO", (counter + i) // CHUNK) for i in range(n)), name
        counter += n


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--compiler", required=True)
    p.add_argument("--cluster", required=True)
    p.add_argument("--workdir", required=True)
    p.add_argument("--placement", default="bytes", choices=["bytes", "bandwidth"])
    p.add_argument("--server", action="append", metavar="NAME=BW",
                   help="the cluster's servers in order, with their bandwidths "
                   "(default: Inputs/cluster-3cpu.yaml's)")
    p.add_argument("models", nargs="+")
    a = p.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    pairs = [x.rsplit("=", 1) for x in a.server or
             ["10.0.0.1:CPU:0=25", "10.0.0.2:CPU:0=0.5", "10.0.0.2:CPU:1=0.5"]]
    servers = [n for n, _ in pairs]
    bandwidth = ({n: float(b) for n, b in pairs}
                 if a.placement == "bandwidth" else None)
    checked = 0
    for model in a.models:
        vars_ = variables(model)
        for builder in BUILDERS:
            out = os.path.join(a.workdir, f"{os.path.basename(model)}.{builder}.json")
            subprocess.run([a.compiler, model, "--emit=strategy", f"--strategy={builder}",
                            f"--cluster={a.cluster}", f"--chunk-size={CHUNK}", "--seed=5",
                            f"--ps-placement={a.placement}",
                            "--quiet", "-o", out], check=True)
            strategy = json.load(open(out))
            names = [n["var_name"] for n in strategy["node_config"]]
            assert names == [v[0] for v in vars_], f"{model} {builder}: order {names}"
            got = [describe(n) for n in strategy["node_config"]]
            want = expect(builder, vars_, servers, bandwidth)
            try:
                if want is None:
                    check_random_axis(vars_, got)
                else:
                    for v, g, w in zip(vars_, got, want):
                        assert g == w, f"{v[0]}: got {g}, want {w}"
            except AssertionError as e:
                sys.exit(f"FAIL: {os.path.basename(model)} {builder}: {e}")
            checked += 1
    print(f"PASS: {checked} (model, builder) strategies follow the rules")


if __name__ == "__main__":
    main()
