"""Batch-sized index computations at run time, as
GPT2ForSequenceClassification exports them (`logits[arange(batch), last]`):
Range(0, batch) whose limit reads the dynamic batch (nn.range), and a Gather
along the batch rows of flattened logits (a dynamic axis).

  inference  rows reversed (batch - 1 - arange(batch)) and the last row
             (index -1, wrapped by the run-time size), at batches 3 and 5,
             against numpy;
  training   a classifier whose logits pass through Gather(logits,
             arange(batch)) trains exactly as the one without it (5 SGD
             steps, identical losses): the gradient's scatter-add is sized
             by the run-time batch.

Usage: batch-rows.test.py --work DIR
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper, numpy_helper


def const(name, values):
    return helper.make_node("Constant", [], [name], value=helper.make_tensor(
        name, T.INT64, [len(values)] if len(values) > 1 else [], values))


def classifier(name, through_gather, reversed_rows=False, last_row=False):
    rng = np.random.RandomState(0)
    w = numpy_helper.from_array(rng.randn(6, 4).astype(np.float32) * 0.3, "w")
    nodes = [helper.make_node("MatMul", ["x", "w"], ["logits0"])]
    out = "logits0"
    if through_gather:
        nodes += [helper.make_node("Shape", ["x"], ["shape"]),
                  const("zero", [0]), const("one", [1]),
                  helper.make_node("Gather", ["shape", "zero"], ["batch"], axis=0),
                  helper.make_node("Range", ["zero", "batch", "one"], ["rows"])]
        rows = "rows"
        if reversed_rows:
            nodes += [helper.make_node("Sub", ["batch", "one"], ["last"]),
                      helper.make_node("Sub", ["last", "rows"], ["rev"])]
            rows = "rev"
        if last_row:
            nodes += [const("minus1", [-1])]
            rows = "minus1"
        nodes += [helper.make_node("Gather", ["logits0", rows], ["logits"], axis=0)]
        out = "logits"
    else:
        nodes += [helper.make_node("Identity", ["logits0"], ["logits"])]
    shape = ["batch", 4] if not last_row else [4]
    g = helper.make_graph(nodes, name,
                          [helper.make_tensor_value_info("x", T.FLOAT, ["batch", 6])],
                          [helper.make_tensor_value_info("logits", T.FLOAT, shape)], [w])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)], ir_version=8)
    onnx.checker.check_model(m, full_check=True)
    return m, numpy_helper.to_array(w)


def compile_model(work, name, m, extra=()):
    path = os.path.join(work, name + ".onnx")
    onnx.save(m, path)
    exe = os.path.join(work, name + ".exe")
    subprocess.run(["autodist-compile", path, "-o", exe, "--quiet", *extra], check=True)
    return exe


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--work", required=True)
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    rng = np.random.RandomState(1)
    for name, kw, ref in (("reversed", dict(reversed_rows=True), lambda h: h[::-1]),
                          ("last", dict(last_row=True), lambda h: h[-1])):
        m, w = classifier(name, True, **kw)
        exe = compile_model(a.work, name, m)
        ok = True
        for batch in (3, 5):
            x = rng.randn(batch, 6).astype(np.float32)
            np.savez(os.path.join(a.work, "in.npz"), x=x)
            out = os.path.join(a.work, name + ".out.npz")
            subprocess.run([exe, "--inputs=" + os.path.join(a.work, "in.npz"),
                            "--outputs=" + out], check=True, stdout=subprocess.DEVNULL)
            y, want = np.load(out)["logits"], ref(x @ w)
            ok &= y.shape == want.shape and np.allclose(y, want, rtol=1e-6, atol=1e-6)
        print(("PASS" if ok else "FAIL") + f" inference {name} at batches 3 and 5")
    x = rng.randn(32, 6).astype(np.float32)
    labels = rng.randint(0, 4, 32).astype(np.int64)
    np.savez(os.path.join(a.work, "train.npz"), x=x, labels=labels)
    losses = {}
    for name, gathered in (("plain", False), ("gathered", True)):
        exe = compile_model(a.work, name, classifier(name, gathered)[0],
                            ["--train", "--optimizer=sgd", "--lr=0.5"])
        log = os.path.join(a.work, name + ".jsonl")
        subprocess.run([exe, "--data=" + os.path.join(a.work, "train.npz"), "--steps=5",
                        "--batch-size=8", "--log=" + log], check=True,
                       stdout=subprocess.DEVNULL)
        losses[name] = [json.loads(l)["loss"] for l in open(log)]
    same = losses["plain"] == losses["gathered"] and losses["plain"][-1] < losses["plain"][0]
    print(("PASS" if same else "FAIL") + " training through the batch-row gather: "
          + " ".join(f"{v:.6f}" for v in losses["gathered"]))


if __name__ == "__main__":
    sys.exit(main())
