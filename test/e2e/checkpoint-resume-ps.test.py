#!/usr/bin/env python3
"""checkpoint-resume-ps.test.py checkpoints A.npz B.npz | models A.onnx B.onnx

checkpoints: every parameter and optimizer-state array of checkpoint A
equals B's within rtol 1e-4 (atol 1e-7: Adam's second moments are tiny);
one line per state array. models: the float initializers of two saved
models are identical."""
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def checkpoints(a_path, b_path):
    a, b = np.load(a_path), np.load(b_path)
    if sorted(a.files) != sorted(b.files):
        fail(f"different arrays: {sorted(a.files)} vs {sorted(b.files)}")
    arrays = [k for k in sorted(a.files) if k.endswith(".npy") or "/" in k]
    params = [k for k in arrays if k.startswith("params/")]
    state = [k for k in arrays if k.startswith("state/")]
    for k in params + state:
        x, y = a[k], b[k]
        if x.shape != y.shape or not np.allclose(x, y, rtol=1e-4, atol=1e-7):
            fail(f"{k}: max difference {np.max(np.abs(x - y))}")
        if k in state:
            print(f"{k[len('state/'):]}: close")
    if not state:
        fail("no optimizer state")
    print(f"PASS: {len(params)} parameters and {len(state)} state arrays "
          "as on 1 rank")


def models(a_path, b_path):
    def inits(p):
        return {t.name: numpy_helper.to_array(t)
                for t in onnx.load(p).graph.initializer}
    a, b = inits(a_path), inits(b_path)
    floats = [k for k in a if a[k].dtype == np.float32]
    for k in floats:
        if not np.array_equal(a[k], b[k]):
            fail(f"{k} differs")
    print(f"PASS: {len(floats)} parameters identical")


if __name__ == "__main__":
    {"checkpoints": checkpoints, "models": models}[sys.argv[1]](*sys.argv[2:])
