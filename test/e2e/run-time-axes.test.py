"""Models whose shape, axes or slice bounds are graph inputs (run-time
values), with the output shape declared, as ONNX's node tests give them.

  make DIR   writes DIR/NAME.onnx, DIR/NAME-CASE.npz (inputs) and
             DIR/NAME-CASE.expected.npz (numpy's answer) for each case
  run DIR    compiles each DIR/NAME.onnx to DIR/NAME.infer (autodist-compile
             on PATH), runs it on each case that has an expected output and
             compares the outputs with numpy's
"""
import glob
import os
import subprocess
import sys

import numpy as np

F, I = 1, 7  # TensorProto FLOAT, INT64


def model(out, name, op, inputs, declared, attrs=None, opset=13, **node):
    import onnx
    from onnx import helper
    g = helper.make_graph(
        [helper.make_node(op, [n for n, _, _ in inputs], ["y"], name="n",
                          **(attrs or {}))], "g",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info("y", F, declared)])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]),
              os.path.join(out, name + ".onnx"))


def case(out, name, tag, expected, **ins):
    np.savez(os.path.join(out, f"{name}-{tag}.npz"), **ins)
    if expected is not None:
        np.savez(os.path.join(out, f"{name}-{tag}.expected.npz"), y=expected)


def make(out):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    model(out, "reshape", "Reshape", [("x", F, [2, 3, 4]), ("shape", I, [3])],
          [4, 2, 3], opset=14)
    for tag, s in [("plain", [4, 2, 3]), ("infer", [4, -1, 3])]:
        case(out, "reshape", tag, x.reshape(4, 2, 3), x=x,
             shape=np.array(s, np.int64))
    case(out, "reshape", "bad", None, x=x, shape=np.array([3, 2, 4], np.int64))

    u = np.arange(12, dtype=np.float32).reshape(3, 4)
    model(out, "unsqueeze", "Unsqueeze", [("x", F, [3, 4]), ("axes", I, [2])],
          [3, 1, 4, 1])
    for tag, a in [("plain", [1, 3]), ("negative", [-1, 1])]:
        case(out, "unsqueeze", tag, u.reshape(3, 1, 4, 1), x=u,
             axes=np.array(a, np.int64))
    case(out, "unsqueeze", "bad", None, x=u, axes=np.array([0, 1], np.int64))

    q = u.reshape(3, 1, 4, 1)
    model(out, "squeeze", "Squeeze", [("x", F, [3, 1, 4, 1]), ("axes", I, [2])],
          [3, 4])
    case(out, "squeeze", "plain", u, x=q, axes=np.array([1, -1], np.int64))
    case(out, "squeeze", "bad", None, x=q, axes=np.array([0, 1], np.int64))

    r = np.random.RandomState(0).rand(3, 2, 2).astype(np.float32)
    model(out, "reduce", "ReduceSum", [("x", F, [3, 2, 2]), ("axes", I, [1])],
          [3, 2], attrs={"keepdims": 0})
    for a in (1, 2, -1):
        case(out, "reduce", f"axis{a}".replace("-", "m"), r.sum(axis=a), x=r,
             axes=np.array([a], np.int64))
    case(out, "reduce", "bad", None, x=r, axes=np.array([3], np.int64))
    model(out, "reducekeep", "ReduceSum", [("x", F, [3, 2, 2]), ("axes", I, [2])],
          [3, 1, 1])
    case(out, "reducekeep", "plain", r.sum(axis=(1, 2), keepdims=True), x=r,
         axes=np.array([2, 1], np.int64))
    case(out, "reducekeep", "repeated", None, x=r, axes=np.array([1, 1], np.int64))

    s = np.arange(30, dtype=np.float32).reshape(6, 5)
    model(out, "slice", "Slice", [("x", F, [6, 5]), ("starts", I, [1]),
                                  ("ends", I, [1])], [3, 5])
    for tag, b, e in [("plain", 1, 4), ("clamped", -3, 2**62)]:
        case(out, "slice", tag, s[b:e], x=s, starts=np.array([b], np.int64),
             ends=np.array([e], np.int64))
    case(out, "slice", "bad", None, x=s, starts=np.array([0], np.int64),
         ends=np.array([2], np.int64))
    model(out, "slicestep", "Slice",
          [("x", F, [6, 5]), ("starts", I, [1]), ("ends", I, [1]),
           ("axes", I, [1]), ("steps", I, [1])], [6, 3])
    case(out, "slicestep", "backwards", s[:, -1:-100:-2], x=s,
         starts=np.array([-1], np.int64), ends=np.array([-100], np.int64),
         axes=np.array([1], np.int64), steps=np.array([-2], np.int64))
    case(out, "slicestep", "forwards", s[:, 0:5:2], x=s,
         starts=np.array([0], np.int64), ends=np.array([5], np.int64),
         axes=np.array([-1], np.int64), steps=np.array([2], np.int64))
    case(out, "slicestep", "zero", None, x=s, starts=np.array([0], np.int64),
         ends=np.array([5], np.int64), axes=np.array([1], np.int64),
         steps=np.array([0], np.int64))

    # Without a declared output shape the run-time shape is refused.
    import onnx
    from onnx import helper
    g = helper.make_graph(
        [helper.make_node("Reshape", ["x", "shape"], ["y"], name="r")], "g",
        [helper.make_tensor_value_info("x", F, [2, 3, 4]),
         helper.make_tensor_value_info("shape", I, [3])],
        [helper.make_tensor_value_info("y", F, None)])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)]),
              os.path.join(out, "undeclared.onnx"))


def run(out):
    for m in sorted(glob.glob(os.path.join(out, "*.onnx"))):
        if not m.endswith("undeclared.onnx"):
            subprocess.run(["autodist-compile", m, "-o", m[:-5] + ".infer",
                            "--quiet"], check=True)
    n = 0
    for exp in sorted(glob.glob(os.path.join(out, "*.expected.npz"))):
        stem = exp[:-len(".expected.npz")]
        model = stem.rsplit("-", 1)[0]
        subprocess.run([model + ".infer", f"--inputs={stem}.npz",
                        f"--outputs={stem}.out.npz"], check=True,
                       stdout=subprocess.DEVNULL)
        got, want = np.load(stem + ".out.npz")["y"], np.load(exp)["y"]
        assert got.shape == want.shape, (exp, got.shape, want.shape)
        assert np.allclose(got, want, rtol=1e-6), (exp, got, want)
        n += 1
    print(f"{n} outputs agree with numpy")


if __name__ == "__main__":
    {"make": make, "run": run}[sys.argv[1]](sys.argv[2])
