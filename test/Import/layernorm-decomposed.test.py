#!/usr/bin/env python3
"""Writes the LayerNorm decomposition exporters produce before opset 17
(ReduceMean, Sub, Pow 2, ReduceMean, Add eps, Sqrt, Div, Mul, Add) after a
Gemm, at opset 14: layernorm-decomposed.test.py OUT.onnx"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(0)
inits = [
    numpy_helper.from_array(rng.standard_normal((8, 6)).astype(np.float32), "fc.weight"),
    numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "ln.weight"),
    numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "ln.bias"),
]
c = lambda name, v: helper.make_node(
    "Constant", [], [name], value=numpy_helper.from_array(np.array(v, np.float32)))
nodes = [
    helper.make_node("Gemm", ["x", "fc.weight"], ["h"], transB=1),
    helper.make_node("ReduceMean", ["h"], ["m"], axes=[-1]),
    helper.make_node("Sub", ["h", "m"], ["d"]),
    c("two", 2.0),
    helper.make_node("Pow", ["d", "two"], ["p"]),
    helper.make_node("ReduceMean", ["p"], ["v"], axes=[-1]),
    c("eps", 1e-5),
    helper.make_node("Add", ["v", "eps"], ["ve"]),
    helper.make_node("Sqrt", ["ve"], ["s"]),
    helper.make_node("Div", ["d", "s"], ["n"]),
    helper.make_node("Mul", ["n", "ln.weight"], ["w"]),
    helper.make_node("Add", ["w", "ln.bias"], ["y"]),
]
graph = helper.make_graph(
    nodes, "ln", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 6])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, sys.argv[1])
