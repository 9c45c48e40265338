"""Writes models whose float initializers hold their data in raw_data or
float_data, large (>= 1 KiB: the importer skips the bytes while parsing and
checks only their size) and small (read), into DIR:

* ok.onnx: y = Gemm(x[2, 4], W[300, 4] raw_data, b[300] float_data,
  transB=1) * s[1] (small raw_data), plus a Dropout whose ratio is a small
  float initializer (read as a value);
* bigraw.onnx, bigfloat.onnx, smallraw.onnx, smallfloat.onnx: the same with
  W, b, s or s (float_data) one value short."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]


def tensor(name, dims, raw=None, floats=None):
    """A float TensorProto as given (helper.make_tensor checks sizes)."""
    t = onnx.TensorProto(name=name, data_type=TensorProto.FLOAT, dims=dims)
    if raw is not None:
        t.raw_data = raw
    else:
        t.float_data.extend(floats)
    return t


def model(short=None):
    rng = np.random.default_rng(0)
    w = rng.standard_normal((300, 4)).astype(np.float32)
    b = rng.standard_normal(300).astype(np.float32)
    W = tensor("W", [300, 4], raw=w.tobytes()[:-4] if short == "bigraw"
               else w.tobytes())
    B = tensor("b", [300], floats=b[:-1] if short == "bigfloat" else b)
    s = np.array([0.5, 2.0], np.float32)
    S = (tensor("s", [2], floats=s[:1]) if short == "smallfloat" else
         tensor("s", [2], raw=s.tobytes()[:-4] if short == "smallraw"
                else s.tobytes()))
    R = helper.make_tensor("ratio", TensorProto.FLOAT, [], [0.25])
    g = helper.make_graph(
        [helper.make_node("Gemm", ["x", "W", "b"], ["h"], transB=1),
         helper.make_node("Dropout", ["h", "ratio"], ["d"], name="drop"),
         helper.make_node("Reshape", ["d", "shape"], ["r"]),
         helper.make_node("Mul", ["r", "s"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [300, 2])],
        [W, B, S, R, helper.make_tensor("shape", TensorProto.INT64, [2],
                                        [300, 2])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])


onnx.save(model(), os.path.join(out, "ok.onnx"))
for case in ["bigraw", "bigfloat", "smallraw", "smallfloat"]:
    onnx.save(model(case), os.path.join(out, case + ".onnx"))
