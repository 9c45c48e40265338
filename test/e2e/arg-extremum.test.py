"""ArgMax and ArgMin (ONNX) through inference executables against numpy:
float32 with ties and a NaN (numpy's rule: the first NaN wins; with
select_last_index the last), every axis (negative too), keepdims 0/1,
select_last_index 0/1, and float64, int64 and int32 inputs. Then the import
errors: an axis outside the rank and an unsigned input, each one error line
naming the node.

Usage: arg-extremum.test.py --work DIR --compiler PATH
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper

TYPES = {np.float32: T.FLOAT, np.float64: T.DOUBLE, np.int64: T.INT64,
         np.int32: T.INT32, np.uint8: T.UINT8}


def model(op, dtype, shape, axis, keepdims, last):
    node = helper.make_node(op, ["x"], ["y"], name="arg", axis=axis,
                            keepdims=keepdims, select_last_index=last)
    g = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info("x", TYPES[dtype], ["batch"] + shape[1:])],
        [helper.make_tensor_value_info("y", T.INT64, None)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def reference(op, x, axis, keepdims, last):
    f = np.argmax if op == "ArgMax" else np.argmin
    y = f(np.flip(x, axis), axis=axis) if last else f(x, axis=axis)
    if last:
        y = x.shape[axis] - 1 - y
    return np.expand_dims(y, axis) if keepdims else y


def compile_model(a, name, m):
    path = os.path.join(a.work, name + ".onnx")
    onnx.save(m, path)
    exe = os.path.join(a.work, name + ".infer")
    r = subprocess.run([a.compiler, path, "-o", exe, "--quiet"],
                       capture_output=True, text=True)
    return exe, r


def check(a, op, x, axis, keepdims, last):
    name = f"{op}_{x.dtype}_{axis}_{keepdims}_{last}".replace("-", "m")
    exe, r = compile_model(a, name, model(op, x.dtype.type, list(x.shape), axis,
                                          keepdims, last))
    if r.returncode:
        return f"{name}: compile failed: {r.stderr.strip()}"
    inp, out = os.path.join(a.work, name + ".in.npz"), os.path.join(a.work, name + ".out.npz")
    np.savez(inp, x=x)
    r = subprocess.run([exe, "--inputs=" + inp, "--outputs=" + out],
                       capture_output=True, text=True)
    if r.returncode:
        return f"{name}: run failed: {r.stderr.strip()}"
    y, want = np.load(out)["y"], reference(op, x, axis, keepdims, last)
    if y.dtype != np.int64 or y.shape != want.shape or not (y == want).all():
        return f"{name}: got {y.dtype} {y.tolist()}, numpy {want.tolist()}"
    return None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--work", required=True)
    p.add_argument("--compiler", required=True)
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    rng = np.random.RandomState(0)
    x = rng.randint(0, 4, (3, 5, 4)).astype(np.float32)  # many ties
    x[1, 2, 1] = np.nan
    x[2, 0, 3] = x[2, 3, 3] = np.nan  # two NaNs in one slice of axis 1
    for op in ("ArgMax", "ArgMin"):
        failures = []
        count = 0
        for axis in (0, 1, 2, -1):
            for keepdims in (0, 1):
                for last in (0, 1):
                    failures.append(check(a, op, x, axis, keepdims, last))
                    count += 1
        for dtype in (np.float64, np.int64, np.int32):
            v = rng.randint(-3, 3, (4, 6)).astype(dtype)
            for last in (0, 1):
                failures.append(check(a, op, v, 1, 0, last))
                count += 1
        failures = [f for f in failures if f]
        print(("PASS" if not failures else "FAIL") + f" {op}: {count - len(failures)} of {count}")
        for f in failures:
            print("  " + f)
    # Clear errors, no output.
    for name, m in (("bad_axis", model("ArgMax", np.float32, [2, 3], 2, 1, 0)),
                    ("unsigned", model("ArgMin", np.uint8, [2, 3], 1, 1, 0))):
        exe, r = compile_model(a, name, m)
        print(f"{name}: exit {r.returncode}, output {'written' if os.path.exists(exe) else 'absent'}: "
              + r.stderr.strip())


if __name__ == "__main__":
    sys.exit(main())
