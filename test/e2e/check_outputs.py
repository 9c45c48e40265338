#!/usr/bin/env python3
"""Check an executable's ``--outputs`` .npz against onnxruntime.

Runs the ONNX model in onnxruntime (CPU) on the ``--inputs`` .npz (one array
per graph input, by name) and compares EVERY graph output with the array of
the same name in the outputs .npz, which must hold exactly those arrays.
Per element, with onnxruntime's value b and the executable's a:

    rel = |a - b| / max(|b|, floor)      (floor: the larger of --floor,
                                          default 1e-3, and 1e-3 * max|b|)

PASS iff names, shapes and dtypes match, everything is finite and
max(rel) <= --rtol for every output. With ``--expected E.npz`` the reference
is the arrays of E.npz instead (e.g. PyTorch's own outputs), each compared
with the output of the same name.

Example::

    python3 test/e2e/check_outputs.py --model m.onnx --inputs in.npz \\
        --outputs out.npz --rtol 1e-4
"""
import argparse
import sys

import numpy as np

FLOOR = 1e-3
SCALE_FLOOR = 1e-3  # times the largest |reference| value


def reference(args):
    """The reference outputs by name: --expected's arrays, or onnxruntime's."""
    if args.expected:
        exp = np.load(args.expected)
        return "the reference", {n: exp[n] for n in exp.files}
    import onnxruntime as ort
    sess = ort.InferenceSession(args.model, providers=["CPUExecutionProvider"])
    data = np.load(args.inputs)
    feeds = {i.name: data[i.name] for i in sess.get_inputs()}
    names = [o.name for o in sess.get_outputs()]
    return "onnxruntime", dict(zip(names, sess.run(None, feeds)))


def run(args):
    source, refs = reference(args)
    names = list(refs)
    got = np.load(args.outputs)
    if args.expected and not set(names) <= set(got.files):
        raise ValueError(f"{args.outputs} has arrays {sorted(got.files)}, "
                         f"expected at least {sorted(names)}")
    if not args.expected and sorted(got.files) != sorted(names):
        raise ValueError(f"{args.outputs} has arrays {sorted(got.files)}, "
                         f"expected the model outputs {sorted(names)}")
    ok = True
    for name in names:
        a, b = got[name], refs[name]
        if a.shape != b.shape or a.dtype != b.dtype:
            raise ValueError(f"output '{name}': {list(a.shape)} {a.dtype}, "
                             f"{source} {list(b.shape)} {b.dtype}")
        if not np.all(np.isfinite(a)):
            raise ValueError(f"output '{name}' has non-finite values")
        # Near zero, float32 error follows the output's magnitude, not the
        # element's: the floor grows with the largest reference value.
        bb = np.abs(b.astype(np.float64))
        floor = max(args.floor, SCALE_FLOOR * float(bb.max(initial=0.0)))
        rel = np.abs(a.astype(np.float64) - b) / np.maximum(bb, floor)
        worst = float(rel.max()) if rel.size else 0.0
        print(f"output '{name}' {list(a.shape)} {a.dtype}: max relative "
              f"difference {worst:.3e} (rtol {args.rtol:g})")
        ok &= worst <= args.rtol
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", help=".onnx model (run by onnxruntime)")
    ap.add_argument("--inputs", help="the --inputs .npz (for onnxruntime)")
    ap.add_argument("--outputs", required=True, help="the --outputs .npz")
    ap.add_argument("--expected", help="reference .npz (default: run onnxruntime)")
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--floor", type=float, default=FLOOR,
                    help=f"smallest |reference| the difference is divided by "
                         f"(default {FLOOR:g}); raise it for outputs whose "
                         f"near-zero entries sit beside large ones (logits)")
    args = ap.parse_args()
    if not args.expected and not (args.model and args.inputs):
        ap.error("give --model and --inputs (onnxruntime reference) or --expected")
    try:
        ok = run(args)
    except Exception as e:
        print(f"FAIL: {e}")
        sys.exit(1)
    print("PASS" if ok else "FAIL: max relative difference above rtol")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
