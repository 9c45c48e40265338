#!/usr/bin/env python3
"""Write random float32 / int64 / int32 inputs for an ONNX model as a .npz.

One array per graph input that is not an initializer, named like the input;
symbolic dims become --samples (the leading batch dim) and the values are
standard normal from ``numpy.random.default_rng(--seed)``.

Example::

    python3 examples/ops/make_op_data.py --model ops/unary.onnx --out unary.npz
"""
import argparse
import sys

import numpy as np
import onnx


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--out", required=True, help=".npz to write")
    ap.add_argument("--samples", type=int, default=13,
                    help="size of symbolic dims (default 13)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--int-high", type=int, default=10,
                    help="int64/int32 inputs are drawn from [0, int-high) (default 10)")
    ap.add_argument("--labels", type=int, default=0,
                    help="also write 'labels' in [0, LABELS) (default: none)")
    args = ap.parse_args()
    model = onnx.load(args.model)
    inits = {t.name for t in model.graph.initializer}
    rng = np.random.default_rng(args.seed)
    arrays = {}
    for inp in model.graph.input:
        if inp.name in inits:
            continue
        tt = inp.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else args.samples
                for d in tt.shape.dim]
        if tt.elem_type == onnx.TensorProto.FLOAT:
            arrays[inp.name] = rng.standard_normal(dims).astype(np.float32)
        elif tt.elem_type in (onnx.TensorProto.INT64, onnx.TensorProto.INT32):
            dtype = np.int64 if tt.elem_type == onnx.TensorProto.INT64 else np.int32
            arrays[inp.name] = rng.integers(0, args.int_high, dims, dtype=dtype)
        else:
            raise ValueError(f"input '{inp.name}' is neither float32, int64 nor int32")
    if args.labels:
        arrays["labels"] = rng.integers(0, args.labels, [args.samples],
                                        dtype=np.int64)
    np.savez(args.out, **arrays)
    print(f"wrote {args.out}: " + ", ".join(
        f"{k} {list(v.shape)}" for k, v in arrays.items()))


if __name__ == "__main__":
    try:
        main()
    except Exception as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(1)
