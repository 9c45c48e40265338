#!/usr/bin/env python3
"""Check a model written by the training executable's ``--save``.

Checks, printing one line per initializer:
  * the saved model loads with onnx, passes onnx.checker, and runs in
    onnxruntime (CPU) on the data file (arrays named like the graph inputs),
    giving finite outputs;
  * every initializer of the original model exists in the saved one with the
    same shape and dtype;
  * non-float initializers (e.g. a Reshape shape) are unchanged;
  * at least one float initializer changed (training did something), and
    all float initializers are finite.
Exit 0 and print PASS if all hold, else print FAIL: <reasons> and exit 1.
If the data has ``labels``, also prints the saved model's accuracy.

Example::

    python3 test/e2e/check_saved.py --saved trained.onnx --original mlp.onnx \\
        --data test.npz
"""
import argparse
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def inits(model):
    return {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}


def run(args):
    problems = []
    try:
        saved = onnx.load(args.saved)
        orig = onnx.load(args.original)
    except Exception as e:
        raise ValueError(f"cannot load model: {e}")
    try:
        onnx.checker.check_model(saved)
    except Exception as e:
        problems.append(f"onnx.checker rejects {args.saved}: "
                        f"{str(e).splitlines()[0]}")
    s_init, o_init = inits(saved), inits(orig)
    changed = 0
    n_float = 0
    for name, o in o_init.items():
        s = s_init.get(name)
        if s is None:
            problems.append(f"initializer '{name}' missing")
            print(f"  MISSING {name}")
            continue
        if s.shape != o.shape or s.dtype != o.dtype:
            problems.append(f"initializer '{name}': {s.dtype}{list(s.shape)} "
                            f"!= original {o.dtype}{list(o.shape)}")
            print(f"  BAD     {name}: {s.dtype}{list(s.shape)} vs "
                  f"{o.dtype}{list(o.shape)}")
            continue
        if np.issubdtype(o.dtype, np.floating):
            n_float += 1
            diff = float(np.max(np.abs(s.astype(np.float64) - o))) \
                if o.size else 0.0
            if not np.all(np.isfinite(s)):
                problems.append(f"initializer '{name}' has non-finite values")
            if not np.array_equal(s, o):
                changed += 1
            print(f"  ok      {name}: {s.dtype}{list(s.shape)} "
                  f"max|saved-original|={diff:.3e}")
        else:
            same = np.array_equal(s, o)
            if not same:
                problems.append(f"non-float initializer '{name}' changed")
            print(f"  {'ok     ' if same else 'CHANGED'} {name}: "
                  f"{s.dtype}{list(s.shape)} (non-float, must be unchanged)")
    extra = sorted(set(s_init) - set(o_init))
    if extra:
        print(f"  note: saved model has extra initializers {extra}")
    if n_float and not changed:
        problems.append("no float initializer changed")
    print(f"{len(o_init)} initializers, {n_float} float, {changed} changed")

    import onnxruntime as ort
    try:
        sess = ort.InferenceSession(args.saved,
                                    providers=["CPUExecutionProvider"])
        data = np.load(args.data)
        feeds = {}
        for inp in sess.get_inputs():
            if inp.name not in data.files:
                raise ValueError(f"{args.data} has no array '{inp.name}'")
            v = data[inp.name]
            feeds[inp.name] = v.astype(np.float32) \
                if inp.type == "tensor(float)" else v
        outs = sess.run(None, feeds)
    except Exception as e:
        problems.append(f"onnxruntime failed on the saved model: "
                        f"{str(e).splitlines()[0]}")
        outs = None
    if outs is not None:
        y = outs[0]
        msg = f"onnxruntime output 0: shape {list(y.shape)}"
        if not np.all(np.isfinite(y)):
            problems.append("saved model's output is non-finite")
        if "labels" in data.files and y.ndim == 2 \
                and len(data["labels"]) == y.shape[0]:
            msg += f", accuracy {np.mean(y.argmax(1) == data['labels']):.4f}"
        print(msg)
    return problems


def main():
    ap = argparse.ArgumentParser(
        description="Check an executable's --save output against the "
                    "original model and run it in onnxruntime.")
    ap.add_argument("--saved", required=True, help="model written by --save")
    ap.add_argument("--original", required=True, help="the input model")
    ap.add_argument("--data", required=True,
                    help=".npz with one array per model input")
    args = ap.parse_args()
    try:
        problems = run(args)
    except Exception as e:
        problems = [str(e)]
    if problems:
        print("FAIL: " + "; ".join(problems))
        sys.exit(1)
    print("PASS")


if __name__ == "__main__":
    main()
