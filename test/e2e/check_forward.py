#!/usr/bin/env python3
"""Check an executable's ``--predict`` output against onnxruntime.

Runs the ONNX model in onnxruntime (CPU) on the data file (one array per
graph input, looked up by the input's name, e.g. ``x``; float arrays are cast
to the input's element type) and compares graph output 0 with ``pred.npy``.

Element-wise relative difference, with onnxruntime's output as reference b
and the prediction as a:

    rel = |a - b| / max(|b|, floor)     (floor: the larger of --floor,
                                         default 1e-3, and 1e-3 * max|b|)

PASS iff the shapes match, pred is finite, and max(rel) <= --rtol
(i.e. |a - b| <= rtol * max(|b|, 1e-3) everywhere). Also prints the
argmax agreement and, when the data has ``labels``, both accuracies.

Example::

    python3 test/e2e/check_forward.py --model mlp.onnx --data test.npz \\
        --pred pred.npy --rtol 1e-4
"""
import argparse
import sys

import numpy as np

FLOOR = 1e-3
SCALE_FLOOR = 1e-3  # times the largest |reference| value


def run(args):
    import onnxruntime as ort
    try:
        sess = ort.InferenceSession(args.model,
                                    providers=["CPUExecutionProvider"])
    except Exception as e:
        raise ValueError(f"onnxruntime cannot load {args.model}: {e}")
    try:
        data = np.load(args.data)
    except Exception as e:
        raise ValueError(f"cannot load data {args.data}: {e}")
    feeds = {}
    for inp in sess.get_inputs():
        if inp.name not in data.files:
            raise ValueError(f"{args.data} has no array '{inp.name}' for "
                             f"model input {inp.name} (has {data.files})")
        v = data[inp.name]
        if inp.type == "tensor(float)" and v.dtype != np.float32:
            v = v.astype(np.float32)
        feeds[inp.name] = v
    ref = sess.run(None, feeds)[0]
    try:
        pred = np.load(args.pred)
    except Exception as e:
        raise ValueError(f"cannot load prediction {args.pred}: {e}")
    print(f"onnxruntime output 0 '{sess.get_outputs()[0].name}': shape "
          f"{list(ref.shape)} {ref.dtype}; pred: shape {list(pred.shape)} "
          f"{pred.dtype}")
    if pred.shape != ref.shape:
        raise ValueError(f"shape mismatch: pred {list(pred.shape)} vs "
                         f"onnxruntime {list(ref.shape)}")
    if not np.all(np.isfinite(pred)):
        raise ValueError("pred contains non-finite values")
    a, b = pred.astype(np.float64), ref.astype(np.float64)
    # Near zero, float32 error follows the output's magnitude, not the
    # element's: the floor grows with the largest reference value.
    floor = max(args.floor, SCALE_FLOOR * float(np.abs(b).max(initial=0.0)))
    rel = np.abs(a - b) / np.maximum(np.abs(b), floor)
    worst = float(rel.max()) if rel.size else 0.0
    where = np.unravel_index(int(rel.argmax()), rel.shape) if rel.size else ()
    print(f"max relative difference {worst:.3e} at {list(map(int, where))} "
          f"(rel = |pred - ort| / max(|ort|, {floor:g})), rtol {args.rtol:g}")
    if a.ndim == 2 and a.shape[0]:
        agree = np.mean(a.argmax(1) == b.argmax(1))
        msg = f"argmax agreement {agree:.4f}"
        if "labels" in data.files and len(data["labels"]) == a.shape[0]:
            y = data["labels"]
            msg += (f"; accuracy pred {np.mean(a.argmax(1) == y):.4f}, "
                    f"onnxruntime {np.mean(b.argmax(1) == y):.4f}")
        print(msg)
    return worst <= args.rtol


def main():
    ap = argparse.ArgumentParser(
        description="Compare pred.npy (an executable's --predict output) "
                    "with onnxruntime's output 0 on the same data.")
    ap.add_argument("--model", required=True, help=".onnx model")
    ap.add_argument("--data", required=True,
                    help=".npz with one array per model input (same names)")
    ap.add_argument("--pred", required=True, help="predictions .npy")
    ap.add_argument("--rtol", type=float, default=1e-4,
                    help="max allowed relative difference (default 1e-4)")
    ap.add_argument("--floor", type=float, default=FLOOR,
                    help="entries smaller than this in magnitude are judged "
                         f"against it (default {FLOOR:g})")
    args = ap.parse_args()
    try:
        ok = run(args)
    except Exception as e:
        print(f"FAIL: {e}")
        sys.exit(1)
    print("PASS" if ok else "FAIL: max relative difference above rtol")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
