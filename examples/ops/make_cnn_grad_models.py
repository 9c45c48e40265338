#!/usr/bin/env python3
"""Write small ONNX models for numeric gradient checks of the CNN,
embedding and normalization operators.

Each model's first (only) output ``loss`` is a scalar ``[1, 1]``: the
operator's result ``y`` (batch dim ``batch`` symbolic) is flattened,
projected on a fixed random vector ``R`` (a ``Constant``, not a parameter)
and the projections' squares are summed over the batch, ``z^T z`` with
``z = flatten(y) @ R`` (Gemm only, whose gradient exists, so the check
depends on the operators under test alone). Float initializers are the
parameters whose gradients are checked; each operator under test follows
a parameterized one, so the gradient w.r.t. its input is checked too.
Compile with ``autodist-compile M.onnx --train --loss=output
--optimizer=sgd --lr=1`` plus the flags in the model's metadata property
``autodist_flags`` (e.g. ``--freeze`` of batch-norm statistics).

Models (file ``<name>.onnx`` in --out-dir):

  conv_pads       Conv with bias, asymmetric pads, 3x2 kernel -> Conv
  conv_strides    Conv -> Conv with strides [2, 1], dilations [2, 3], pads
                  -> Conv with stride 2, bias
  conv_group      Conv -> grouped Conv (group 2) -> depthwise Conv (group =
                  C, 2 filters per channel) with bias, pads, stride 2
  maxpool         Conv -> MaxPool 3x3 stride 2 pads 1 -> MaxPool 2x2
                  dilations 2; plus a Conv -> MaxPool 2x2 stride 2 branch
  averagepool     Conv -> AveragePool with pads (count_include_pad 0 and 1),
                  stride 2, dilations [2, 1] (opset 19)
  conv_pool_1d    1-D (NCL): Conv with pads, stride, dilations, bias ->
                  grouped Conv -> MaxPool with pads -> AveragePool
  global_averagepool  Conv -> GlobalAveragePool
  batchnorm       Conv -> BatchNormalization (momentum 0.8): training form,
                  batch statistics, running statistics updated
  batchnorm_frozen  the same with its mean/var frozen: inference form
  gather          Gather of a [10, 8] table at int64 ids [batch, 3] (axis
                  0, repeats), and of a [3, 5, 2] parameter along axis 1
                  at constant ids with a negative one
  layernorm       x * w -> LayerNormalization over the last dim (scale,
                  bias [6]) -> over the last two dims (scale [1, 6], no
                  bias)
  cnn_block       Conv -> BatchNormalization -> Relu -> MaxPool ->
                  depthwise Conv -> GlobalAveragePool -> Flatten -> Gemm

Example::

    python3 examples/ops/make_cnn_grad_models.py --out-dir grad
    python3 examples/ops/make_op_data.py --model grad/conv_pads.onnx --out d.npz --samples 5
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_op_models import B, F, Builder  # noqa: E402
from make_conv_models import cw  # noqa: E402


def const_f32(b, array):
    """A float Constant node (not a parameter)."""
    b.count += 1
    out = f"const_{b.count}"
    b.nodes.append(helper.make_node(
        "Constant", [], [out], name=f"Constant_{b.count}",
        value=numpy_helper.from_array(np.asarray(array, dtype=np.float32))))
    return out


def model(b, name, inputs, y, y_shape, opset, flags=""):
    """Appends the loss z^T z, z = flatten(y) @ R, and builds the model.
    inputs: (name, shape, elem_type)."""
    k = int(np.prod(y_shape[1:]))
    flat = b.node("Flatten", [y], axis=1)
    r = const_f32(b, b.rng.standard_normal([k, 1]) / np.sqrt(k))
    z = b.node("Gemm", [flat, r])
    loss = b.node("Gemm", [z, z], transA=1)
    for n in b.nodes:
        for i, o in enumerate(n.output):
            if o == loss:
                n.output[i] = "loss"
    graph = helper.make_graph(
        b.nodes, name,
        [helper.make_tensor_value_info(n, t, s) for n, s, t in inputs],
        [helper.make_tensor_value_info("loss", F, [1, 1])],
        initializer=b.inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          ir_version=8 if opset <= 17 else 9,
                          producer_name="make_cnn_grad_models")
    if flags:
        helper.set_model_props(m, {"autodist_flags": flags})
    onnx.checker.check_model(m, full_check=True)
    return m


def conv_pads(b):
    c1 = b.node("Conv", ["x", cw(b, "w1", [4, 3, 3, 2]), b.weight("b1", [4])],
                pads=[1, 2, 0, 1])                                  # [B,4,6,10]
    y = b.node("Conv", [c1, cw(b, "w2", [2, 4, 2, 3])])         # [B,2,5,8]
    return model(b, "conv_pads", [("x", [B, 3, 7, 8], F)], y, [B, 2, 5, 8], 11)


def conv_strides(b):
    c0 = b.node("Conv", ["x", cw(b, "w0", [2, 2, 1, 1])])       # [B,2,10,11]
    c1 = b.node("Conv", [c0, cw(b, "w1", [4, 2, 3, 3]), b.weight("b1", [4])],
                strides=[2, 1], dilations=[2, 3], pads=[1, 2, 1, 2])  # [B,4,4,9]
    y = b.node("Conv", [c1, cw(b, "w2", [3, 4, 2, 2]), b.weight("b2", [3])],
               strides=[2, 2])                                  # [B,3,2,4]
    return model(b, "conv_strides", [("x", [B, 2, 10, 11], F)], y,
                 [B, 3, 2, 4], 11)


def conv_group(b):
    c0 = b.node("Conv", ["x", cw(b, "w0", [4, 4, 1, 1])])       # [B,4,6,6]
    g = b.node("Conv", [c0, cw(b, "wg", [6, 2, 3, 3])], group=2,
               pads=[1, 1, 1, 1])                               # [B,6,6,6]
    y = b.node("Conv", [g, cw(b, "wd", [12, 1, 3, 3]), b.weight("bd", [12])],
               group=6, pads=[1, 0, 1, 2], strides=[2, 2])      # [B,12,3,3]
    return model(b, "conv_group", [("x", [B, 4, 6, 6], F)], y, [B, 12, 3, 3], 11)


def maxpool(b):
    c = b.node("Conv", ["x", cw(b, "w", [3, 2, 1, 1]), b.weight("b", [3])])
    p1 = b.node("MaxPool", [c], kernel_shape=[3, 3], strides=[2, 2],
                pads=[1, 1, 1, 1])                              # [B,3,5,5]
    p2 = b.node("MaxPool", [p1], kernel_shape=[2, 2], dilations=[2, 2])  # [B,3,3,3]
    c2 = b.node("Conv", ["x", cw(b, "w2", [3, 2, 3, 3])], pads=[0, 0, 0, 0])
    p3 = b.node("MaxPool", [c2], kernel_shape=[2, 2], strides=[2, 2])    # [B,3,3,3]
    y = b.node("Add", [p2, p3])
    return model(b, "maxpool", [("x", [B, 2, 9, 9], F)], y, [B, 3, 3, 3], 12)


def averagepool(b):
    c = b.node("Conv", ["x", cw(b, "w", [3, 2, 1, 1])])         # [B,3,7,8]
    a1 = b.node("AveragePool", [c], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    a2 = b.node("AveragePool", [c], kernel_shape=[3, 2], pads=[1, 0, 2, 1],
                count_include_pad=1)                            # [B,3,8,8]
    a3 = b.node("AveragePool", [a2], kernel_shape=[2, 3], strides=[2, 2],
                dilations=[2, 1], pads=[0, 1, 0, 1])            # [B,3,3,4]
    s1 = b.node("AveragePool", [a1], kernel_shape=[2, 2], strides=[2, 2])  # [B,3,3,4]
    y = b.node("Add", [s1, a3])
    return model(b, "averagepool", [("x", [B, 2, 7, 8], F)], y, [B, 3, 3, 4], 19)


def conv_pool_1d(b):
    c1 = b.node("Conv", ["x", cw(b, "w1", [4, 2, 3]), b.weight("b1", [4])],
                pads=[2, 1], strides=[2], dilations=[2])        # [B,4,8]
    c2 = b.node("Conv", [c1, cw(b, "w2", [6, 2, 3])], group=2,
                pads=[1, 1])                                    # [B,6,8]
    m = b.node("MaxPool", [c2], kernel_shape=[3], strides=[2],
               pads=[1, 1])                                     # [B,6,4]
    y = b.node("AveragePool", [m], kernel_shape=[2], pads=[0, 1])  # [B,6,4]
    return model(b, "conv_pool_1d", [("x", [B, 2, 17], F)], y, [B, 6, 4], 13)


def global_averagepool(b):
    c = b.node("Conv", ["x", cw(b, "w", [3, 2, 2, 2]), b.weight("b", [3])])
    y = b.node("GlobalAveragePool", [c])                        # [B,3,1,1]
    return model(b, "global_averagepool", [("x", [B, 2, 5, 6], F)], y,
                 [B, 3, 1, 1], 11)


def batchnorm_model(b, name, flags):
    c = b.node("Conv", ["x", cw(b, "w", [3, 2, 3, 3])], pads=[1, 1, 1, 1])
    y = b.node("BatchNormalization",
               [c, b.weight("bn_scale", [3], 0.5, 1.5),
                b.weight("bn_bias", [3]), b.weight("bn_mean", [3], -0.5, 0.5),
                b.weight("bn_var", [3], 0.5, 1.5)],
               epsilon=1e-3, momentum=0.8)                      # [B,3,4,5]
    return model(b, name, [("x", [B, 2, 4, 5], F)], y, [B, 3, 4, 5], 15, flags)


def batchnorm(b):
    return batchnorm_model(b, "batchnorm", "")


def batchnorm_frozen(b):
    return batchnorm_model(b, "batchnorm_frozen", "--freeze=bn_mean,bn_var")


def gather(b):
    e = b.node("Gather", [b.weight("table", [10, 8]), "ids"])  # [B,3,8]
    t = b.node("Gather", [b.weight("w3", [3, 5, 2]),
                          b.const("idx", np.array([[-1, 2], [0, 2]], np.int64))],
               axis=1)                                          # [3,2,2,2]
    t = b.node("Reshape", [t, b.const("shape", np.array([3, 8], np.int64))])
    y = b.node("Add", [e, t])                                   # [B,3,8]
    return model(b, "gather", [("ids", [B, 3], TensorProto.INT64)], y,
                 [B, 3, 8], 13)


def layernorm(b):
    h = b.node("Mul", ["x", b.weight("w", [4, 6])])
    l1 = b.node("LayerNormalization", [h, b.weight("g1", [6], 0.5, 1.5),
                                       b.weight("b1", [6])], axis=-1,
                epsilon=1e-3)
    h2 = b.node("Mul", [l1, b.weight("w2", [6])])
    y = b.node("LayerNormalization", [h2, b.weight("g2", [1, 6], 0.5, 1.5)],
               axis=1)
    return model(b, "layernorm", [("x", [B, 4, 6], F)], y, [B, 4, 6], 17)


def cnn_block(b):
    # No conv bias: batch norm cancels it (its gradient is 0).
    c = b.node("Conv", ["x", cw(b, "w1", [4, 3, 3, 3])],
               pads=[1, 1, 1, 1])                               # [B,4,8,8]
    n = b.node("BatchNormalization",
               [c, b.weight("bn_scale", [4], 0.5, 1.5), b.weight("bn_bias", [4]),
                b.weight("bn_mean", [4], -0.5, 0.5),
                b.weight("bn_var", [4], 0.5, 1.5)])
    p = b.node("MaxPool", [b.node("Relu", [n])], kernel_shape=[2, 2],
               strides=[2, 2])                                  # [B,4,4,4]
    d = b.node("Conv", [p, cw(b, "wd", [4, 1, 3, 3])], group=4,
               pads=[1, 1, 1, 1])                               # [B,4,4,4]
    g = b.node("Flatten", [b.node("GlobalAveragePool", [d])])  # [B,4]
    y = b.node("Gemm", [g, b.weight("fc_w", [5, 4]), b.weight("fc_b", [5])],
               transB=1)                                        # [B,5]
    return model(b, "cnn_block", [("x", [B, 3, 8, 8], F)], y, [B, 5], 13)


MODELS = [conv_pads, conv_strides, conv_group, maxpool, averagepool,
          global_averagepool, batchnorm, batchnorm_frozen, gather, layernorm,
          cnn_block, conv_pool_1d]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    for i, fn in enumerate(MODELS):
        b = Builder(np.random.default_rng(args.seed + i))
        m = fn(b)
        path = os.path.join(args.out_dir, f"{fn.__name__}.onnx")
        onnx.save(m, path)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
