"""Writes models whose shape constants (or bound shape inputs) make sizes that
overflow 64 bits or are too large to fold: the dims' product wraps, so that
a naive element count matches the data."""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

out = sys.argv[1]


def model(nodes, inits=(), inputs=(), name="m"):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    g = helper.make_graph(nodes, "g", [x, *inputs], [y], list(inits))
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
         os.path.join(out, name + ".onnx"))


def ints(name, values):
    return numpy_helper.from_array(np.array(values, np.int64), name)


# (2^60 + 1) * 16 = 2^64 + 16: wraps to x's 16 elements.
wrap = [2**60 + 1, 16]
reshape = helper.make_node("Reshape", ["x", "s"], ["y"], name="reshape")
model([reshape], [ints("s", wrap)], name="reshape-wrap")
model([reshape], inputs=[helper.make_tensor_value_info("s", TensorProto.INT64, [2])],
      name="reshape-bound")
# Folded int64 shape arithmetic: ConstantOfShape of 2^40 values.
fill = helper.make_node("ConstantOfShape", ["big"], ["c"], name="fill",
                        value=numpy_helper.from_array(np.array([1], np.int64)))
relu = helper.make_node("Relu", ["x"], ["y"], name="relu")
model([fill, relu], [ints("big", [2**40])], name="fold-huge")
# Reshape of a 16-value int64 constant into negative dims (-2 * -8 = 16).
fold_neg = helper.make_node("Reshape", ["sixteen", "neg"], ["c"], name="fold_neg")
model([fold_neg, relu], [ints("sixteen", list(range(16))), ints("neg", [-2, -8])],
      name="fold-negative")
# An int64 initializer whose dims say 100 values but which holds one.
short = ints("short", [7])
short.dims[:] = [100]
expand = helper.make_node("Expand", ["short", "shape"], ["c"], name="expand")
model([expand, relu], [short, ints("shape", [100])], name="short-init")
# A Range whose limit - start overflows int64.
rng = helper.make_node("Range", ["lo", "hi", "one"], ["c"], name="range")
model([rng, relu], [ints("lo", -2**62 * 2 + 1), ints("hi", 2**63 - 1), ints("one", 1)],
      name="range-huge")
