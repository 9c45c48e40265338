#!/usr/bin/env python3
"""Helpers of dropout.test.

  make DIR          probe.onnx (Mul by a weight, Dropout ratio 0.75 with its
                    mask output, scalar loss), mlp.onnx / mlp_p0.onnx /
                    mlp_nodrop.onnx (an MLP with Dropout 0.5 / 0 / none, same
                    weights) and their data.
  mask SAVED LOG RANKS STEPS
                    checks a probe run trained with lr = D from w = 1: its
                    gradient is mean_r(mask_r) * scale / D per step, so the
                    saved w is 1 - scale * (sum over steps of the ranks' mean
                    mask); checks the values are exactly those, the fraction
                    of dropped elements, and that the loss of step 1 matches
                    the mask the backward pass used.
  rank0 ONE TWO     the 2-rank run's rank-0 mask is the 1-rank run's mask
                    (same seed, rank 0, step 1): where the 1-rank run
                    dropped, no rank-0 keep shows up in the 2-rank run.
  same A B / differ A B
                    two logs (or saved models) are / are not identical.
  resume STRAIGHT FIRST SECOND
                    FIRST + SECOND logs equal STRAIGHT exactly.
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

D = 10000      # probe width
RATIO = 0.75   # probe dropout ratio: scale 4, so the loss sums exactly
SCALE = np.float32(1.0) / np.float32(1.0 - RATIO)


def const(name, value, dtype):
    return helper.make_node("Constant", [], [name], name=name,
                            value=numpy_helper.from_array(
                                np.asarray(value, dtype=dtype), name))


def probe():
    nodes = [
        helper.make_node("Mul", ["x", "w"], ["z"], name="mul"),
        const("ratio", RATIO, np.float32),
        const("train", True, np.bool_),
        helper.make_node("Dropout", ["z", "ratio", "train"], ["d", "mask"],
                         name="drop"),
        helper.make_node("Cast", ["mask"], ["m"], name="cast",
                         to=TensorProto.FLOAT),
        helper.make_node("Sub", ["d", "m"], ["s"], name="sub"),
        helper.make_node("ReduceMean", ["s"], ["loss"], name="mean",
                         keepdims=0),
    ]
    graph = helper.make_graph(
        nodes, "probe",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", D])],
        [helper.make_tensor_value_info("loss", TensorProto.FLOAT, [])],
        [numpy_helper.from_array(np.ones(D, np.float32), "w")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def mlp(ratio):
    """Gemm-Relu-[Dropout]-Gemm; ratio None: no Dropout node."""
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(a.astype(np.float32), n) for n, a in (
        ("w1", rng.normal(0, 0.3, (32, 16))), ("b1", rng.normal(0, 0.1, 32)),
        ("w2", rng.normal(0, 0.3, (4, 32))), ("b2", np.zeros(4)))]
    nodes = [helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], transB=1),
             helper.make_node("Relu", ["h"], ["r"])]
    hidden = "r"
    if ratio is not None:
        nodes += [const("ratio", ratio, np.float32),
                  helper.make_node("Dropout", ["r", "ratio"], ["d"])]
        hidden = "d"
    nodes.append(helper.make_node("Gemm", [hidden, "w2", "b2"], ["logits"],
                                  transB=1))
    graph = helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 16])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                       ["N", 4])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def make(out):
    os.makedirs(out, exist_ok=True)
    onnx.save(probe(), f"{out}/probe.onnx")
    for name, ratio in (("mlp", 0.5), ("mlp_p0", 0.0), ("mlp_nodrop", None)):
        onnx.save(mlp(ratio), f"{out}/{name}.onnx")
    np.savez(f"{out}/probe.npz", x=np.ones((8, D), np.float32))
    rng = np.random.default_rng(1)
    np.savez(f"{out}/mlp.npz", x=rng.normal(size=(64, 16)).astype(np.float32),
             labels=rng.integers(0, 4, 64).astype(np.int64))


def saved_w(path):
    model = onnx.load(path)
    return next(numpy_helper.to_array(t) for t in model.graph.initializer
                if t.name == "w")


def losses(path):
    return [json.loads(line)["loss"] for line in open(path) if line.strip()]


def fail(msg):
    sys.exit(f"FAIL: {msg}")


def check_mask(saved, log, ranks, steps):
    w = saved_w(saved)
    # Each step subtracts scale * (kept ranks) / ranks per element.
    kept = np.rint((1 - w) / SCALE * ranks).astype(np.int64)
    if not np.allclose(w, 1 - SCALE * kept / ranks, rtol=0, atol=2e-6):
        fail(f"saved w has values other than 1 - {SCALE} * k / {ranks}: "
             f"{sorted(set(np.round(w, 5)))[:8]}")
    dropped = 1 - kept.mean() / (ranks * steps)
    print(f"scale {SCALE}: fraction dropped {dropped:.4f} (ratio {RATIO}); "
          f"kept counts {np.bincount(kept, minlength=ranks * steps + 1).tolist()}")
    if abs(dropped - RATIO) > 0.02:
        fail(f"fraction dropped {dropped:.4f} is not ~{RATIO}")
    if ranks * steps > 1 and not np.any((kept > 0) & (kept < ranks * steps)):
        fail("every element was kept by all or none of the ranks/steps: "
             "the masks do not differ")
    if ranks == 1 and steps == 1:
        # Forward: mean(mask * scale - mask) with the forward's mask (a sum
        # of 3s, exact in float32) must match the backward's mask exactly.
        expected = (SCALE - 1) * kept.sum() / D
        got = losses(log)[0]
        if round(got * D / (SCALE - 1)) != kept.sum() or \
                abs(got - expected) > 1e-6 * abs(expected):
            fail(f"loss {got} != (scale - 1) * kept / D = {expected}: the "
                 f"forward's mask output differs from the mask applied")
        print(f"loss {got} matches the backward's mask ({kept.sum()} kept)")
    print("PASS")


def check_rank0(one, two):
    kept1 = np.rint((1 - saved_w(one)) / SCALE).astype(np.int64)
    kept2 = np.rint((1 - saved_w(two)) / SCALE * 2).astype(np.int64)
    if np.any((kept1 == 0) & (kept2 == 2)) or np.any((kept1 == 1) & (kept2 == 0)):
        fail("rank 0 of the 2-rank run used another mask than the 1-rank run")
    print("PASS: rank 0's mask equals the 1-rank run's")


def identical(a, b):
    if a.endswith(".onnx"):
        return np.array_equal(saved_w(a), saved_w(b))
    return losses(a) == losses(b)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "make":
        make(args[0])
    elif cmd == "mask":
        check_mask(args[0], args[1], int(args[2]), int(args[3]))
    elif cmd == "rank0":
        check_rank0(*args)
    elif cmd in ("same", "differ"):
        if identical(*args) != (cmd == "same"):
            fail(f"{args[0]} and {args[1]} are "
                 f"{'not ' if cmd == 'same' else ''}identical")
        print(f"PASS: {cmd}")
    elif cmd == "resume":
        straight, first, second = (losses(p) for p in args)
        if first + second != straight or not straight:
            fail(f"resumed {first + second} != straight {straight}")
        print(f"PASS: {len(straight)} steps identical")
    else:
        fail(f"unknown command {cmd}")


if __name__ == "__main__":
    main()
