#!/usr/bin/env python3
"""Write scikit-learn's bundled 8x8 digits dataset as train/test .npz files.

Uses ``sklearn.datasets.load_digits`` (ships with scikit-learn; no network).
Features are ``images / 16`` as float32 (values in [0, 1]), either flat
``[N, 64]`` (``--shape flat``, for ``make_mlp.py --kind gemm``) or
``[N, 8, 8]`` (``--shape image``, for ``--kind matmul``). Labels are int64
class ids 0..9 in array ``labels``.

The samples are shuffled with ``numpy.random.default_rng(seed).permutation``;
the first round(N * test_fraction) go to the test set, the rest to train.
Writes ``DIR/train.npz`` and ``DIR/test.npz`` (np.savez, arrays ``x`` and
``labels``). Same arguments -> byte-identical arrays.

Example::

    python3 examples/digits/make_data.py --out-dir out/digits
    python3 examples/digits/make_data.py --out-dir out/digits_img --shape image
"""
import argparse
import os
import sys

import numpy as np


def build(shape, test_fraction, seed):
    from sklearn.datasets import load_digits
    if not 0.0 < test_fraction < 1.0:
        raise ValueError(f"--test-fraction must be in (0, 1), "
                         f"got {test_fraction}")
    d = load_digits()
    x = (d.images / 16.0).astype(np.float32)          # [N, 8, 8]
    if shape == "flat":
        x = x.reshape(x.shape[0], -1)                  # [N, 64]
    labels = d.target.astype(np.int64)
    n = x.shape[0]
    perm = np.random.default_rng(seed).permutation(n)
    n_test = int(round(n * test_fraction))
    if n_test < 1 or n_test >= n:
        raise ValueError(f"--test-fraction {test_fraction} leaves an empty "
                         f"split ({n} samples)")
    test_idx, train_idx = perm[:n_test], perm[n_test:]
    return ((np.ascontiguousarray(x[train_idx]), labels[train_idx]),
            (np.ascontiguousarray(x[test_idx]), labels[test_idx]))


def main():
    ap = argparse.ArgumentParser(
        description="Write the sklearn digits dataset as DIR/train.npz and "
                    "DIR/test.npz (arrays x float32, labels int64).")
    ap.add_argument("--out-dir", required=True, help="output directory "
                    "(created if missing)")
    ap.add_argument("--shape", choices=["flat", "image"], default="flat",
                    help="x as [N,64] (flat, default) or [N,8,8] (image)")
    ap.add_argument("--test-fraction", type=float, default=0.2,
                    help="fraction of samples in test.npz (default 0.2)")
    ap.add_argument("--seed", type=int, default=0,
                    help="shuffle seed (default 0)")
    args = ap.parse_args()
    try:
        (xtr, ytr), (xte, yte) = build(args.shape, args.test_fraction,
                                       args.seed)
        os.makedirs(args.out_dir, exist_ok=True)
        for name, x, y in (("train", xtr, ytr), ("test", xte, yte)):
            np.savez(os.path.join(args.out_dir, name + ".npz"), x=x, labels=y)
    except Exception as e:
        sys.exit(f"make_data.py: error: {e}")
    print(f"wrote {args.out_dir}/train.npz: x {list(xtr.shape)} float32, "
          f"labels {list(ytr.shape)} int64")
    print(f"wrote {args.out_dir}/test.npz: x {list(xte.shape)} float32, "
          f"labels {list(yte.shape)} int64")
    print(f"train={len(ytr)} test={len(yte)} classes={len(np.unique(ytr))}")


if __name__ == "__main__":
    main()
