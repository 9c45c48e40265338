#!/usr/bin/env python3
"""Write small ONNX models of the CNN operators for import and e2e tests.

Like make_op_models.py (whose Builder it reuses): float32 inputs with the
symbolic leading dim ``batch``, graph output 0 ``y`` with that leading dim,
weights drawn from ``numpy.random.default_rng(seed)``, each model checked by
``onnx.checker`` (with shape inference, so the declared output shapes are
ONNX's) and run by onnxruntime.

Models (file ``<name>.onnx`` in --out-dir):

  conv_pads          Conv with bias, asymmetric pads, a 3x2 kernel; then a
                     Conv without bias or pads                      (opset 11)
  conv_strides       Conv with strides [2, 1], dilations [2, 3], pads;
                     then strides 2 with kernel_shape given         (opset 11)
  conv_group         grouped Conv (group 2), then depthwise (group = C,
                     two filters per channel) with bias and pads    (opset 11)
  conv_auto_pad      auto_pad SAME_UPPER (stride 2, odd size), SAME_LOWER
                     (even kernel), VALID                           (opset 11)
  maxpool            MaxPool with pads and stride, dilations, auto_pad
                     SAME_UPPER                                     (opset 12)
  averagepool        AveragePool with pads, count_include_pad 0 and 1,
                     stride 2 without pads, auto_pad SAME_LOWER      (opset 11)
  averagepool_dilations  AveragePool with dilations [2, 1] and pads (opset 19)
  global_averagepool GlobalAveragePool added back to its input      (opset 11)
  batchnorm          BatchNormalization (epsilon 1e-3) on NCHW       (opset 15)
  batchnorm_train    BatchNormalization with training_mode 1: batch
                     statistics, as training-mode exports have them;
                     only with --only batchnorm_train              (opset 15)
  batchnorm_2d       BatchNormalization on [batch, C], spatial=1 attribute
                     of opset 7                                      (opset 7)
  conv_pool_1d       1-D (NCL): Conv with bias, pads, stride 2, dilations 2;
                     grouped Conv with auto_pad SAME_UPPER; MaxPool with
                     pads and stride; AveragePool with pads, ceil_mode
                                                                    (opset 13)
  cnn_block          Conv -> BatchNormalization -> Relu -> MaxPool ->
                     depthwise Conv -> GlobalAveragePool -> Flatten -> Gemm
                                                                    (opset 13)

With ``--bad`` it writes instead models the importer must reject (ceil_mode with count_include_pad,
a storage_order of the Indices output other than 0 and 1, training_mode, 3-D convolution, ...), each with the
offending node named ``bad``.

Example::

    python3 examples/ops/make_conv_models.py --out-dir conv
    python3 examples/ops/make_op_data.py --model conv/conv_group.onnx --out g.npz
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_op_models import B, F, Builder, bad_model  # noqa: E402


def cw(b, name, shape):
    """A conv weight [M, C/group, kH, kW] scaled like PyTorch's default init
    (uniform within 1/sqrt(fan_in)): values stay O(1) through the chained
    convs, so float32 rounding (onnxruntime sums in another order) stays far
    below the tolerance of the e2e comparison."""
    bound = 1.0 / np.sqrt(np.prod(shape[1:]))
    return b.weight(name, shape, -bound, bound)


def conv_pads(b):
    c1 = b.node("Conv", ["x", cw(b, "w1", [4, 3, 3, 2]), b.weight("b1", [4])],
                pads=[1, 2, 0, 1])                                   # [B,4,6,10]
    y = b.node("Conv", [c1, cw(b, "w2", [2, 4, 2, 3])])          # [B,2,5,8]
    return b.model("conv_pads", [("x", [B, 3, 7, 8])], y, [B, 2, 5, 8], 11)


def conv_strides(b):
    c1 = b.node("Conv", ["x", cw(b, "w1", [4, 2, 3, 3]), b.weight("b1", [4])],
                strides=[2, 1], dilations=[2, 3], pads=[1, 2, 1, 2])  # [B,4,4,9]
    y = b.node("Conv", [c1, cw(b, "w2", [3, 4, 2, 2]), b.weight("b2", [3])],
               strides=[2, 2], kernel_shape=[2, 2])                 # [B,3,2,4]
    return b.model("conv_strides", [("x", [B, 2, 10, 11])], y, [B, 3, 2, 4], 11)


def conv_group(b):
    g = b.node("Conv", ["x", cw(b, "wg", [6, 2, 3, 3])], group=2,
               pads=[1, 1, 1, 1])                                   # [B,6,6,6]
    y = b.node("Conv", [g, cw(b, "wd", [12, 1, 3, 3]), b.weight("bd", [12])],
               group=6, pads=[0, 1, 2, 0], strides=[1, 2])          # [B,12,6,3]
    return b.model("conv_group", [("x", [B, 4, 6, 6])], y, [B, 12, 6, 3], 11)


def conv_auto_pad(b):
    up = b.node("Conv", ["x", cw(b, "w1", [4, 2, 3, 3])], auto_pad="SAME_UPPER",
                strides=[2, 2])                                     # [B,4,5,5]
    lo = b.node("Conv", [up, cw(b, "w2", [4, 4, 2, 2]), b.weight("b2", [4])],
                auto_pad="SAME_LOWER")                              # [B,4,5,5]
    y = b.node("Conv", [lo, cw(b, "w3", [3, 4, 2, 3])], auto_pad="VALID")  # [B,3,4,3]
    return b.model("conv_auto_pad", [("x", [B, 2, 9, 10])], y, [B, 3, 4, 3], 11)


def maxpool(b):
    p1 = b.node("MaxPool", ["x"], kernel_shape=[3, 3], strides=[2, 2],
                pads=[1, 1, 1, 1])                                  # [B,3,5,6]
    p2 = b.node("MaxPool", [p1], kernel_shape=[2, 2], dilations=[2, 1],
                pads=[0, 1, 1, 0])                                  # [B,3,4,6]
    y = b.node("MaxPool", [p2], kernel_shape=[3, 2], strides=[2, 2],
               auto_pad="SAME_UPPER")                               # [B,3,2,3]
    return b.model("maxpool", [("x", [B, 3, 9, 11])], y, [B, 3, 2, 3], 12)


def pool_ceil_mode(b):
    """ceil_mode = 1: partial last windows where the size rounds up (MaxPool,
    AveragePool without count_include_pad; GoogLeNet's pools), and with
    count_include_pad where it gives the floor mode's size."""
    p1 = b.node("MaxPool", ["x"], kernel_shape=[3, 3], strides=[2, 2],
                ceil_mode=1)                                        # [B,2,4,4]
    p2 = b.node("AveragePool", [p1], kernel_shape=[3, 3], strides=[2, 2],
                pads=[1, 1, 1, 1], ceil_mode=1)                     # [B,2,3,3]
    y = b.node("AveragePool", [p2], kernel_shape=[3, 3], strides=[2, 2],
               pads=[1, 1, 1, 1], ceil_mode=1, count_include_pad=1)  # [B,2,2,2]
    return b.model("pool_ceil_mode", [("x", [B, 2, 8, 8])], y, [B, 2, 2, 2], 12)


def averagepool(b):
    ex = b.node("AveragePool", ["x"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    inc = b.node("AveragePool", ["x"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                 count_include_pad=1)
    s = b.node("Add", [ex, inc])                                    # [B,2,8,9]
    p = b.node("AveragePool", [s], kernel_shape=[2, 3], strides=[2, 2])  # [B,2,4,4]
    y = b.node("AveragePool", [p], kernel_shape=[2, 2], auto_pad="SAME_LOWER")
    return b.model("averagepool", [("x", [B, 2, 8, 9])], y, [B, 2, 4, 4], 11)


def averagepool_dilations(b):
    y = b.node("AveragePool", ["x"], kernel_shape=[2, 2], dilations=[2, 1],
               pads=[1, 0, 1, 1], strides=[1, 2])                   # [B,2,7,4]
    return b.model("averagepool_dilations", [("x", [B, 2, 7, 7])], y,
                   [B, 2, 7, 4], 19)


def conv_pool_1d(b):
    c1 = b.node("Conv", ["x", cw(b, "w1", [4, 2, 3]), b.weight("b1", [4])],
                pads=[2, 1], strides=[2], dilations=[2])            # [B,4,8]
    c2 = b.node("Conv", [c1, cw(b, "w2", [6, 2, 3])], group=2,
                auto_pad="SAME_UPPER")                              # [B,6,8]
    m = b.node("MaxPool", [c2], kernel_shape=[3], strides=[2],
               pads=[1, 1])                                         # [B,6,4]
    y = b.node("AveragePool", [m], kernel_shape=[2], strides=[2], pads=[0, 1],
               ceil_mode=1)                                         # [B,6,3]
    return b.model("conv_pool_1d", [("x", [B, 2, 17])], y, [B, 6, 3], 13)


def global_averagepool(b):
    y = b.node("Add", ["x", b.node("GlobalAveragePool", ["x"])])
    return b.model("global_averagepool", [("x", [B, 3, 5, 4])], y, [B, 3, 5, 4], 11)


def batchnorm(b):
    y = b.node("BatchNormalization",
               ["x", b.weight("scale", [4], 0.5, 2.0), b.weight("bias", [4]),
                b.weight("mean", [4], -0.5, 0.5), b.weight("var", [4], 0.5, 2.0)],
               epsilon=1e-3)
    return b.model("batchnorm", [("x", [B, 4, 5, 6])], y, [B, 4, 5, 6], 15)


def batchnorm_train(b):
    y, _, _ = b.node("BatchNormalization",
                     ["x", b.weight("scale", [4], 0.5, 2.0), b.weight("bias", [4]),
                      b.weight("mean", [4], -0.5, 0.5), b.weight("var", [4], 0.5, 2.0)],
                     n_out=3, training_mode=1)
    return b.model("batchnorm_train", [("x", [B, 4, 5, 6])], y, [B, 4, 5, 6], 15)


def batchnorm_2d(b):
    y = b.node("BatchNormalization",
               ["x", b.weight("scale", [5], 0.5, 2.0), b.weight("bias", [5]),
                b.weight("mean", [5], -0.5, 0.5), b.weight("var", [5], 0.5, 2.0)],
               spatial=1)
    return b.model("batchnorm_2d", [("x", [B, 5])], y, [B, 5], 7)


def cnn_block(b):
    c = b.node("Conv", ["x", cw(b, "conv.weight", [8, 3, 3, 3])],
               pads=[1, 1, 1, 1])                                   # [B,8,8,8]
    bn = b.node("BatchNormalization",
                [c, b.weight("bn.weight", [8], 0.5, 1.5), b.weight("bn.bias", [8]),
                 b.weight("bn.running_mean", [8], -0.2, 0.2),
                 b.weight("bn.running_var", [8], 0.5, 1.5)])
    p = b.node("MaxPool", [b.node("Relu", [bn])], kernel_shape=[2, 2],
               strides=[2, 2])                                      # [B,8,4,4]
    d = b.node("Conv", [p, cw(b, "dw.weight", [8, 1, 3, 3]), b.weight("dw.bias", [8])],
               group=8, pads=[1, 1, 1, 1])                          # [B,8,4,4]
    f = b.node("Flatten", [b.node("GlobalAveragePool", [d])])     # [B,8]
    y = b.node("Gemm", [f, b.weight("fc.weight", [5, 8]), b.weight("fc.bias", [5])],
               transB=1)
    return b.model("cnn_block", [("x", [B, 3, 8, 8])], y, [B, 5], 13)


FAMILIES = [conv_pads, conv_strides, conv_group, conv_auto_pad, maxpool,
            averagepool, averagepool_dilations, global_averagepool, batchnorm,
            batchnorm_2d, cnn_block, pool_ceil_mode, conv_pool_1d]
# Written only when --only names them: batch statistics depend on how the
# samples are batched, so they are checked on one whole batch.
WHOLE_BATCH_FAMILIES = [batchnorm_train]


def bad_models():
    """Unsupported attributes, attribute values and shapes, one model each;
    the node that should be rejected is named ``bad``."""
    x4 = [("x", [B, 2, 6, 6])]
    mk = helper.make_node
    w = lambda name, shape: numpy_helper.from_array(np.ones(shape, np.float32), name)
    bn_params = [w(n, [2]) for n in ["s", "b", "m", "v"]]
    return {
        "averagepool_ceil_count_pad": bad_model("averagepool_ceil_count_pad", [
            mk("AveragePool", ["x"], ["y"], name="bad", kernel_shape=[3, 3],
               strides=[2, 2], ceil_mode=1, count_include_pad=1)], x4, 12),
        "maxpool_storage_order": bad_model("maxpool_storage_order", [
            mk("MaxPool", ["x"], ["y", "idx"], name="bad", kernel_shape=[2, 2],
               storage_order=2)], x4, 12),
        "maxpool_big_pad": bad_model("maxpool_big_pad", [
            mk("MaxPool", ["x"], ["y"], name="bad", kernel_shape=[2, 2],
               pads=[2, 0, 0, 0])], x4, 12),
        "averagepool_no_kernel": bad_model("averagepool_no_kernel", [
            mk("AveragePool", ["x"], ["y"], name="bad")], x4, 11),
        "batchnorm_training": bad_model("batchnorm_training", [
            mk("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], name="bad",
               training_mode=2)], x4, 15, bn_params),
        "batchnorm_channels": bad_model("batchnorm_channels", [
            mk("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], name="bad")],
            [("x", [B, 3, 4, 4])], 15, bn_params),
        "conv_3d": bad_model("conv_3d", [
            mk("Conv", ["x", "w"], ["y"], name="bad")], [("x", [B, 2, 4, 4, 4])],
            11, [w("w", [3, 2, 2, 2, 2])]),
        "conv_1d_weight": bad_model("conv_1d_weight", [
            mk("Conv", ["x", "w"], ["y"], name="bad")], [("x", [B, 2, 6])], 11,
            [w("w", [3, 2, 3, 3])]),
        "maxpool_1d_kernel": bad_model("maxpool_1d_kernel", [
            mk("MaxPool", ["x"], ["y"], name="bad", kernel_shape=[2, 2])],
            [("x", [B, 2, 6])], 12),
        "conv_group": bad_model("conv_group", [
            mk("Conv", ["x", "w"], ["y"], name="bad", group=2)], x4, 11,
            [w("w", [3, 2, 3, 3])]),
        "conv_auto_pad": bad_model("conv_auto_pad", [
            mk("Conv", ["x", "w"], ["y"], name="bad", auto_pad="SAME")], x4, 11,
            [w("w", [3, 2, 3, 3])]),
        "conv_kernel_shape": bad_model("conv_kernel_shape", [
            mk("Conv", ["x", "w"], ["y"], name="bad", kernel_shape=[2, 2])], x4, 11,
            [w("w", [3, 2, 3, 3])]),
    }


def main():
    ap = argparse.ArgumentParser(
        description="Write small ONNX models of the CNN operators.")
    ap.add_argument("--out-dir", required=True, help="output directory")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", nargs="*", help="model names (default: all)")
    ap.add_argument("--bad", action="store_true",
                    help="write models the importer must reject instead")
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    if args.bad:
        for name, m in bad_models().items():
            path = os.path.join(args.out_dir, name + ".onnx")
            onnx.save(m, path)
            print(f"wrote {path}")
        return
    for i, fam in enumerate(FAMILIES + WHOLE_BATCH_FAMILIES):
        if (args.only or fam in WHOLE_BATCH_FAMILIES) and \
                fam.__name__ not in (args.only or []):
            continue
        m = fam(Builder(np.random.default_rng(args.seed + i)))
        path = os.path.join(args.out_dir, fam.__name__ + ".onnx")
        onnx.save(m, path)
        print(f"wrote {path}: {len(m.graph.node)} nodes, opset "
              f"{m.opset_import[0].version}")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # one-line error, non-zero exit
        print(f"error: {e}", file=sys.stderr)
        sys.exit(1)
