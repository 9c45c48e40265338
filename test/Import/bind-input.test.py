"""Writes DIR/reshape.onnx: y = Reshape(x[3,4], shape) with the shape a
graph input (int64 [2]), as the ONNX node tests give it."""
import os
import sys

import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
g = helper.make_graph(
    [helper.make_node("Reshape", ["x", "shape"], ["y"], name="r")], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4]),
     helper.make_tensor_value_info("shape", TensorProto.INT64, [2])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 6])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)]),
          os.path.join(out, "reshape.onnx"))

# DIR/gather32.onnx: y = Gather(x[3,4], idx) along axis 1, idx an int32 [2]
# graph input.
g = helper.make_graph(
    [helper.make_node("Gather", ["x", "idx"], ["y"], name="g", axis=1)], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4]),
     helper.make_tensor_value_info("idx", TensorProto.INT32, [2])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 2])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)]),
          os.path.join(out, "gather32.onnx"))
