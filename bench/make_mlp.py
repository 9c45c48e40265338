#!/usr/bin/env python3
"""Write a deep MLP classifier as an ONNX model for the benchmark.

examples/mlp/make_mlp.py only writes two layers; this writes any number of
hidden layers in the same torch.onnx.export style (Gemm with transB=1, Relu):

    x[batch,in] -> Gemm(fc1) -> Relu -> ... -> Gemm(fcL) -> logits[batch,classes]

Initializers are fc{i}.weight [out,in] and fc{i}.bias [out], drawn like
torch.nn.Linear's default init, U(-1/sqrt(fan_in), 1/sqrt(fan_in)), from
numpy.random.default_rng(seed). bench.py loads these exact values into the
PyTorch model, so both sides start from identical weights.

    python3 bench/make_mlp.py --out mlp.onnx --in 784 --hidden 1024,1024,1024 --classes 10
"""
import argparse
import math

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def build(n_in, hidden, classes, seed):
    rng = np.random.default_rng(seed)
    dims = [n_in] + hidden + [classes]
    nodes, inits = [], []
    cur = "x"
    for i in range(len(dims) - 1):
        fan_in, fan_out = dims[i], dims[i + 1]
        bound = 1.0 / math.sqrt(fan_in)
        w = rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32)
        b = rng.uniform(-bound, bound, (fan_out,)).astype(np.float32)
        wn, bn = f"fc{i + 1}.weight", f"fc{i + 1}.bias"
        inits += [numpy_helper.from_array(w, wn), numpy_helper.from_array(b, bn)]
        last = i == len(dims) - 2
        out = "logits" if last else f"/fc{i + 1}/Gemm_output_0"
        nodes.append(helper.make_node("Gemm", [cur, wn, bn], [out],
                                      name=f"/fc{i + 1}/Gemm", alpha=1.0,
                                      beta=1.0, transB=1))
        if not last:
            act = f"/act{i + 1}/Relu_output_0"
            nodes.append(helper.make_node("Relu", [out], [act],
                                          name=f"/act{i + 1}/Relu"))
            cur = act
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", n_in])
    y = helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                      ["batch", classes])
    graph = helper.make_graph(nodes, "bench_mlp", [x], [y], initializer=inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="autodist-bench-make_mlp")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--in", dest="n_in", type=int, default=784)
    ap.add_argument("--hidden", default="1024,1024,1024",
                    help="comma-separated hidden widths (default 1024,1024,1024)")
    ap.add_argument("--classes", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    hidden = [int(h) for h in a.hidden.split(",") if h]
    model = build(a.n_in, hidden, a.classes, a.seed)
    onnx.save(model, a.out)
    params = sum(int(np.prod(t.dims)) for t in model.graph.initializer)
    print(f"wrote {a.out}: in={a.n_in} hidden={hidden} classes={a.classes} "
          f"params={params}")


if __name__ == "__main__":
    main()
