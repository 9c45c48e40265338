"""Writes models that onnx.checker and onnxruntime refuse (made with
onnx.helper, no check_model): each breaks one rule."""
import os
import sys

import numpy as np
from onnx import AttributeProto, TensorProto, helper, numpy_helper, save

out = sys.argv[1]


def model(nodes, inits=(), opsets=(("", 17),), x_type=TensorProto.FLOAT, extra_inputs=()):
    x = helper.make_tensor_value_info("x", x_type, ["N", 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])
    g = helper.make_graph(nodes, "g", [x, *extra_inputs], [y], list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])


W = numpy_helper.from_array(np.ones((4, 3), np.float32), "W")
gemm = helper.make_node("Gemm", ["x", "W"], ["y"], name="fc")
save(model([gemm], [W]), os.path.join(out, "ok.onnx"))
save(model([gemm], [W, numpy_helper.from_array(np.ones((4, 3), np.float32), "W")]),
     os.path.join(out, "dup-init.onnx"))
save(model([gemm], [W], opsets=[("", 99)]), os.path.join(out, "opset99.onnx"))
save(model([gemm], [W], opsets=[("", 0)]), os.path.join(out, "opset0.onnx"))
save(model([helper.make_node("Gemm", ["x", "W"], ["y"], name="fc", domain="com.example")], [W]),
     os.path.join(out, "domain.onnx"))
float_attr = helper.make_node("Gemm", ["x", "W"], ["y"], name="fc", transB=1.0)
save(model([float_attr], [numpy_helper.from_array(np.ones((3, 4), np.float32), "W")]),
     os.path.join(out, "float-attr.onnx"))
string_attr = helper.make_node("Gemm", ["x", "W"], ["y"], name="fc", alpha="two")
save(model([string_attr], [W]), os.path.join(out, "string-attr.onnx"))
save(model([gemm], [W], x_type=70), os.path.join(out, "elem70.onnx"))
bad_init = numpy_helper.from_array(np.ones((4, 3), np.float32), "W")
bad_init.data_type = 70
save(model([gemm], [bad_init]), os.path.join(out, "init70.onnx"))
ssa = [helper.make_node("Relu", ["x"], ["t"], name="r1"),
       helper.make_node("Relu", ["x"], ["t"], name="r2"),
       helper.make_node("Gemm", ["t", "W"], ["y"], name="fc")]
save(model(ssa, [W]), os.path.join(out, "ssa.onnx"))
redefine_input = [helper.make_node("Relu", ["x"], ["x"], name="r"), gemm]
save(model(redefine_input, [W]), os.path.join(out, "redefine-input.onnx"))
dup_input = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])
save(model([gemm], [W], extra_inputs=[dup_input]), os.path.join(out, "dup-input.onnx"))
# dims whose product wraps 64 bits to 0: the 0 bytes given matched.
huge = TensorProto(name="W", data_type=TensorProto.FLOAT, dims=[2**62, 4, 4])
save(model([gemm], [huge]), os.path.join(out, "overflow-init.onnx"))
huge_const = TensorProto(name="c", data_type=TensorProto.FLOAT, dims=[2**62, 4, 4])
const = helper.make_node("Constant", [], ["W"], name="const", value=huge_const)
save(model([const, gemm]), os.path.join(out, "overflow-constant.onnx"))
