#!/usr/bin/env python3
"""sync-batchnorm.test.py params A.onnx B.onnx --match S --rtol R [--differ]

Compares the float initializers whose names contain S (e.g. running_mean)
of two saved models: PASS iff every one has relative difference <= R
(max |a - b| over the tensor / max(|a|, |b|) over the tensor, so that
channels whose statistic is near 0 are judged at the tensor's scale); with
--differ, PASS iff some one exceeds R instead. Prints the worst.
"""
import argparse
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def inits(path, match):
    return {t.name: numpy_helper.to_array(t).astype(np.float64)
            for t in onnx.load(path).graph.initializer if match in t.name}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["params"])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--match", required=True)
    ap.add_argument("--rtol", type=float, required=True)
    ap.add_argument("--differ", action="store_true")
    args = ap.parse_args()
    a, b = inits(args.a, args.match), inits(args.b, args.match)
    if not a or sorted(a) != sorted(b):
        sys.exit(f"FAIL: initializers matching {args.match!r}: {sorted(a)} vs {sorted(b)}")
    worst, where = 0.0, None
    for name in sorted(a):
        scale = max(np.abs(a[name]).max(), np.abs(b[name]).max(), 1e-12)
        rel = float(np.abs(a[name] - b[name]).max() / scale)
        if rel >= worst:
            worst, where = rel, name
    print(f"{len(a)} initializers matching {args.match!r}: max relative "
          f"difference {worst:.3e} ({where})")
    if (worst > args.rtol) != args.differ:
        sys.exit(f"FAIL: expected {'a difference above' if args.differ else 'at most'} "
                 f"rtol {args.rtol:g}")
    print("PASS")


if __name__ == "__main__":
    main()
