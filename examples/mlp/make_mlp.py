#!/usr/bin/env python3
"""Write a small MLP classifier as an ONNX model (opset 17, ir_version 8).

Two layouts are available:

* ``--kind gemm`` (default) mimics what ``torch.onnx.export`` writes for
  ``nn.Sequential(Linear(in, hidden), ReLU(), Linear(hidden, classes))``::

      x[batch,in] -> Gemm(fc1.weight[hidden,in], fc1.bias[hidden], transB=1)
                  -> Relu -> Gemm(fc2.weight[classes,hidden], fc2.bias, transB=1)
                  -> Identity -> logits[batch,classes]

* ``--kind matmul`` takes an image-shaped input and uses MatMul/Add/Reshape::

      x[batch,s,s] -> Flatten(axis=1) -> MatMul(w1[in,hidden]) -> Add(b1[hidden])
                   -> Relu -> Reshape(shape=[-1,hidden], int64 initializer)
                   -> MatMul(w2[hidden,classes]) -> Add(b2[classes]) -> logits

  where s*s == --in (default 64 -> 8x8, the sklearn digits images).

Weights and biases are drawn like torch's ``nn.Linear`` default init:
uniform(-1/sqrt(fan_in), +1/sqrt(fan_in)) from ``numpy.random.default_rng(seed)``
(deterministic, but not bit-identical to torch). The first dim of the input
and of the output is the symbolic dimension ``batch``.

Example::

    python3 examples/mlp/make_mlp.py --out examples/mlp/mlp.onnx
    python3 examples/mlp/make_mlp.py --out mlp_mm.onnx --kind matmul
"""
import argparse
import math
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
IR_VERSION = 8


def linear_init(rng, fan_in, shape):
    """torch.nn.Linear default init: U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
    bound = 1.0 / math.sqrt(fan_in)
    return rng.uniform(-bound, bound, size=shape).astype(np.float32)


def make_gemm(n_in, hidden, classes, rng):
    w1 = linear_init(rng, n_in, (hidden, n_in))
    b1 = linear_init(rng, n_in, (hidden,))
    w2 = linear_init(rng, hidden, (classes, hidden))
    b2 = linear_init(rng, hidden, (classes,))
    inits = [numpy_helper.from_array(w1, "fc1.weight"),
             numpy_helper.from_array(b1, "fc1.bias"),
             numpy_helper.from_array(w2, "fc2.weight"),
             numpy_helper.from_array(b2, "fc2.bias")]
    nodes = [
        helper.make_node("Gemm", ["x", "fc1.weight", "fc1.bias"],
                         ["/fc1/Gemm_output_0"], name="/fc1/Gemm",
                         alpha=1.0, beta=1.0, transB=1),
        helper.make_node("Relu", ["/fc1/Gemm_output_0"],
                         ["/act/Relu_output_0"], name="/act/Relu"),
        helper.make_node("Gemm", ["/act/Relu_output_0", "fc2.weight",
                                  "fc2.bias"],
                         ["/fc2/Gemm_output_0"], name="/fc2/Gemm",
                         alpha=1.0, beta=1.0, transB=1),
        helper.make_node("Identity", ["/fc2/Gemm_output_0"], ["logits"],
                         name="/out/Identity"),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", n_in])
    return nodes, inits, x


def make_matmul(n_in, hidden, classes, rng):
    side = int(math.isqrt(n_in))
    if side * side != n_in:
        raise ValueError(f"--kind matmul needs --in to be a perfect square "
                         f"(image side*side), got {n_in}")
    w1 = linear_init(rng, n_in, (n_in, hidden))
    b1 = linear_init(rng, n_in, (hidden,))
    w2 = linear_init(rng, hidden, (hidden, classes))
    b2 = linear_init(rng, hidden, (classes,))
    shape = np.array([-1, hidden], dtype=np.int64)
    inits = [numpy_helper.from_array(w1, "w1"),
             numpy_helper.from_array(b1, "b1"),
             numpy_helper.from_array(w2, "w2"),
             numpy_helper.from_array(b2, "b2"),
             numpy_helper.from_array(shape, "reshape_shape")]
    nodes = [
        helper.make_node("Flatten", ["x"], ["flat"], name="flatten", axis=1),
        helper.make_node("MatMul", ["flat", "w1"], ["mm1"], name="matmul1"),
        helper.make_node("Add", ["mm1", "b1"], ["h1"], name="add1"),
        helper.make_node("Relu", ["h1"], ["a1"], name="relu1"),
        helper.make_node("Reshape", ["a1", "reshape_shape"], ["r1"],
                         name="reshape1"),
        helper.make_node("MatMul", ["r1", "w2"], ["mm2"], name="matmul2"),
        helper.make_node("Add", ["mm2", "b2"], ["logits"], name="add2"),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                      ["batch", side, side])
    return nodes, inits, x


def build(kind, n_in, hidden, classes, seed):
    for name, v in (("--in", n_in), ("--hidden", hidden),
                    ("--classes", classes)):
        if v < 1:
            raise ValueError(f"{name} must be >= 1, got {v}")
    rng = np.random.default_rng(seed)
    maker = {"gemm": make_gemm, "matmul": make_matmul}[kind]
    nodes, inits, x = maker(n_in, hidden, classes, rng)
    y = helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                      ["batch", classes])
    graph = helper.make_graph(nodes, f"mlp_{kind}", [x], [y], initializer=inits)
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="autodist-examples-make_mlp")
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model, full_check=True)
    return model


def main():
    ap = argparse.ArgumentParser(
        description="Write a 2-layer MLP classifier as an ONNX model "
                    "(opset 17, ir_version 8).")
    ap.add_argument("--out", required=True, help="output .onnx path")
    ap.add_argument("--kind", choices=["gemm", "matmul"], default="gemm",
                    help="gemm: torch-export style Gemm/Relu/Gemm/Identity "
                         "with input [batch,in]; matmul: Flatten/MatMul/Add/"
                         "Relu/Reshape/MatMul/Add with input [batch,s,s] "
                         "(s*s == --in). Default: gemm")
    ap.add_argument("--in", dest="n_in", type=int, default=64,
                    help="input features (default 64)")
    ap.add_argument("--hidden", type=int, default=32,
                    help="hidden units (default 32)")
    ap.add_argument("--classes", type=int, default=10,
                    help="output classes (default 10)")
    ap.add_argument("--seed", type=int, default=0,
                    help="numpy seed for the weights (default 0)")
    args = ap.parse_args()
    try:
        model = build(args.kind, args.n_in, args.hidden, args.classes,
                      args.seed)
        onnx.save(model, args.out)
    except Exception as e:  # one-line failure message
        sys.exit(f"make_mlp.py: error: {e}")
    params = sum(int(np.prod(t.dims)) for t in model.graph.initializer
                 if t.data_type == TensorProto.FLOAT)
    print(f"wrote {args.out}: kind={args.kind} in={args.n_in} "
          f"hidden={args.hidden} classes={args.classes} seed={args.seed} "
          f"float params={params}")


if __name__ == "__main__":
    main()
