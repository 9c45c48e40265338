#!/usr/bin/env python3
"""Generates small CNN and Transformer ONNX models with onnx.helper.

  make_models.py --kind cnn --out cnn.onnx
      LeNet-style: x [batch, 1, 28, 28] -> Conv(6, 5x5, pad 2) -> Relu ->
      MaxPool(2) -> Conv(16, 5x5) -> Relu -> MaxPool(2) -> Flatten ->
      Gemm(120) -> Relu -> Gemm(10) -> logits.
  make_models.py --kind cnn --batchnorm --out cnn_bn.onnx
      the same with BatchNormalization (inference form, momentum 0.9, as
      torch's BatchNorm2d; running mean 0, variance 1) after each Conv:
      bn1.weight/bias/running_mean/running_var, bn2.*.
  make_models.py --kind transformer --out tf.onnx [--vocab 100 --seq 8 --dim 16]
      one encoder block over token ids: ids [batch, seq] (int64) ->
      Gather(embedding) + positional -> LayerNorm -> self-attention
      (MatMul q/k/v, Reshape/Transpose heads, scaled MatMul, Softmax, MatMul,
      out projection) + residual -> LayerNorm -> MLP (MatMul, Gelu-free
      Relu, MatMul) + residual -> ReduceMean over tokens -> Gemm head -> logits.

Initializer names follow PyTorch's module naming (conv1.weight, ...). Weights
are deterministic (numpy seed), scaled like PyTorch's default init.
"""
import argparse
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def init(rng, name, shape, fan_in):
    bound = 1.0 / np.sqrt(fan_in)
    return numpy_helper.from_array(
        rng.uniform(-bound, bound, size=shape).astype(np.float32), name)


def with_batchnorm(graph):
    """Inserts BatchNormalization after each Conv of `graph` (in place)."""
    nodes = list(graph.node)
    del graph.node[:]
    for node in nodes:
        if node.op_type != "Conv":
            graph.node.append(node)
            continue
        k = sum(n.op_type == "BatchNormalization" for n in graph.node) + 1
        channels = next(i.dims[0] for i in graph.initializer if i.name == node.input[1])
        names = [f"bn{k}.{p}" for p in ("weight", "bias", "running_mean", "running_var")]
        for name, value in zip(names, (1.0, 0.0, 0.0, 1.0)):
            graph.initializer.append(numpy_helper.from_array(
                np.full(channels, value, np.float32), name))
        out = node.output[0]
        node.output[0] = out + "_conv"
        graph.node.append(node)
        graph.node.append(helper.make_node(
            "BatchNormalization", [out + "_conv"] + names, [out], name=f"/bn{k}/BatchNormalization",
            epsilon=1e-5, momentum=0.9))
    return graph


def cnn(rng):
    inits = [
        init(rng, "conv1.weight", [6, 1, 5, 5], 25), init(rng, "conv1.bias", [6], 25),
        init(rng, "conv2.weight", [16, 6, 5, 5], 150), init(rng, "conv2.bias", [16], 150),
        init(rng, "fc1.weight", [120, 400], 400), init(rng, "fc1.bias", [120], 400),
        init(rng, "fc2.weight", [10, 120], 120), init(rng, "fc2.bias", [10], 120),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "conv1.weight", "conv1.bias"], ["c1"], name="/conv1/Conv",
                         kernel_shape=[5, 5], pads=[2, 2, 2, 2]),
        helper.make_node("Relu", ["c1"], ["r1"], name="/relu1/Relu"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="/pool1/MaxPool",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "conv2.weight", "conv2.bias"], ["c2"], name="/conv2/Conv",
                         kernel_shape=[5, 5]),
        helper.make_node("Relu", ["c2"], ["r2"], name="/relu2/Relu"),
        helper.make_node("MaxPool", ["r2"], ["p2"], name="/pool2/MaxPool",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["p2"], ["f"], name="/Flatten", axis=1),
        helper.make_node("Gemm", ["f", "fc1.weight", "fc1.bias"], ["h"], name="/fc1/Gemm", transB=1),
        helper.make_node("Relu", ["h"], ["hr"], name="/relu3/Relu"),
        helper.make_node("Gemm", ["hr", "fc2.weight", "fc2.bias"], ["logits"], name="/fc2/Gemm",
                         transB=1),
    ]
    graph = helper.make_graph(
        nodes, "lenet",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 1, 28, 28])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10])], inits)
    return graph


def transformer(rng, vocab, seq, dim, heads=2, classes=4):
    hd = dim // heads
    inits = [
        init(rng, "embed.weight", [vocab, dim], 1), init(rng, "pos.weight", [seq, dim], 1),
        numpy_helper.from_array(np.ones(dim, np.float32), "ln1.weight"),
        numpy_helper.from_array(np.zeros(dim, np.float32), "ln1.bias"),
        init(rng, "attn.q.weight", [dim, dim], dim), init(rng, "attn.k.weight", [dim, dim], dim),
        init(rng, "attn.v.weight", [dim, dim], dim), init(rng, "attn.out.weight", [dim, dim], dim),
        numpy_helper.from_array(np.ones(dim, np.float32), "ln2.weight"),
        numpy_helper.from_array(np.zeros(dim, np.float32), "ln2.bias"),
        init(rng, "mlp.fc1.weight", [dim, 2 * dim], dim), init(rng, "mlp.fc2.weight", [2 * dim, dim], 2 * dim),
        init(rng, "head.weight", [classes, dim], dim), init(rng, "head.bias", [classes], dim),
        numpy_helper.from_array(np.array([0, seq, heads, hd], np.int64), "heads_shape"),
        numpy_helper.from_array(np.array([0, seq, dim], np.int64), "merge_shape"),
        numpy_helper.from_array(np.array(1.0 / np.sqrt(hd), np.float32), "scale"),
        numpy_helper.from_array(np.array([1], np.int64), "token_axis"),
    ]
    n = helper.make_node
    nodes = [
        n("Gather", ["embed.weight", "ids"], ["emb"], name="/embed/Gather"),
        n("Add", ["emb", "pos.weight"], ["x0"], name="/pos/Add"),
        n("LayerNormalization", ["x0", "ln1.weight", "ln1.bias"], ["x1"], name="/ln1/LayerNorm",
          axis=-1, epsilon=1e-5),
    ]
    for p in "qkv":
        nodes += [
            n("MatMul", ["x1", f"attn.{p}.weight"], [f"{p}0"], name=f"/attn/{p}/MatMul"),
            n("Reshape", [f"{p}0", "heads_shape"], [f"{p}1"], name=f"/attn/{p}/Reshape"),
            n("Transpose", [f"{p}1"], [f"{p}"], name=f"/attn/{p}/Transpose",
              perm=[0, 2, 3, 1] if p == "k" else [0, 2, 1, 3]),
        ]
    nodes += [
        n("MatMul", ["q", "k"], ["s0"], name="/attn/scores/MatMul"),
        n("Mul", ["s0", "scale"], ["s1"], name="/attn/scale/Mul"),
        n("Softmax", ["s1"], ["a"], name="/attn/Softmax", axis=-1),
        n("MatMul", ["a", "v"], ["o0"], name="/attn/context/MatMul"),
        n("Transpose", ["o0"], ["o1"], name="/attn/merge/Transpose", perm=[0, 2, 1, 3]),
        n("Reshape", ["o1", "merge_shape"], ["o2"], name="/attn/merge/Reshape"),
        n("MatMul", ["o2", "attn.out.weight"], ["o3"], name="/attn/out/MatMul"),
        n("Add", ["x0", "o3"], ["x2"], name="/res1/Add"),
        n("LayerNormalization", ["x2", "ln2.weight", "ln2.bias"], ["x3"], name="/ln2/LayerNorm",
          axis=-1, epsilon=1e-5),
        n("MatMul", ["x3", "mlp.fc1.weight"], ["m0"], name="/mlp/fc1/MatMul"),
        n("Relu", ["m0"], ["m1"], name="/mlp/Relu"),
        n("MatMul", ["m1", "mlp.fc2.weight"], ["m2"], name="/mlp/fc2/MatMul"),
        n("Add", ["x2", "m2"], ["x4"], name="/res2/Add"),
        n("ReduceMean", ["x4", "token_axis"], ["pooled"], name="/pool/ReduceMean", keepdims=0),
        n("Gemm", ["pooled", "head.weight", "head.bias"], ["logits"], name="/head/Gemm", transB=1),
    ]
    graph = helper.make_graph(
        nodes, "encoder",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", seq])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", classes])], inits)
    return graph


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kind", choices=["cnn", "transformer"], required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--batchnorm", action="store_true",
                   help="cnn: BatchNormalization after each Conv")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--vocab", type=int, default=100)
    p.add_argument("--seq", type=int, default=8)
    p.add_argument("--dim", type=int, default=16)
    a = p.parse_args()
    rng = np.random.default_rng(a.seed)
    graph = cnn(rng) if a.kind == "cnn" else transformer(rng, a.vocab, a.seq, a.dim)
    if a.batchnorm and a.kind == "cnn":
        graph = with_batchnorm(graph)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)],
                              producer_name="autodist-examples")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, a.out)
    print(f"wrote {a.out}: {a.kind}, "
          f"{sum(int(np.prod(i.dims)) for i in graph.initializer if i.data_type == 1)} float params")
    return 0


if __name__ == "__main__":
    sys.exit(main())
