#!/usr/bin/env python3
"""Write a small two-input, multi-output ONNX model and random inputs for it.

The model (opset 18) takes x [N, 8] (float32) and ids [N, 3] (int64 token ids
into a 10-row embedding) and has two outputs over the batch:

    h      = x + ReduceMean(Gather(embed, ids), axis 1)
    logits = h @ W + b                      [N, 5]
    probs  = Softmax(logits, axis=-1)       [N, 5]

With --unbatched-output it also returns ``total`` = ReduceSum(logits) (a
scalar: no batch dimension). --data writes --samples random samples (x
standard normal, ids in [0, 10)) as a .npz with arrays ``x`` and ``ids``.

Example::

    python3 test/e2e/make_infer_model.py --out m.onnx --data in.npz --samples 13
"""
import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def build(unbatched):
    rng = np.random.default_rng(0)
    inits = [
        numpy_helper.from_array(rng.standard_normal([10, 8]).astype(np.float32),
                                "embed"),
        numpy_helper.from_array((rng.standard_normal([8, 5]) * 0.5)
                                .astype(np.float32), "W"),
        numpy_helper.from_array(rng.standard_normal([5]).astype(np.float32), "b"),
        numpy_helper.from_array(np.array([1], np.int64), "token_axis"),
    ]
    nodes = [
        helper.make_node("Gather", ["embed", "ids"], ["emb"]),
        helper.make_node("ReduceMean", ["emb", "token_axis"], ["pooled"],
                         keepdims=0),
        helper.make_node("Add", ["x", "pooled"], ["h"]),
        helper.make_node("MatMul", ["h", "W"], ["hw"]),
        helper.make_node("Add", ["hw", "b"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["probs"], axis=-1),
    ]
    outputs = [
        helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 5]),
        helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["N", 5]),
    ]
    if unbatched:
        nodes.append(helper.make_node("ReduceSum", ["logits"], ["total"],
                                      keepdims=0))
        outputs.append(helper.make_tensor_value_info("total", TensorProto.FLOAT,
                                                     []))
    graph = helper.make_graph(
        nodes, "infer_two_outputs",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8]),
         helper.make_tensor_value_info("ids", TensorProto.INT64, ["N", 3])],
        outputs, initializer=inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 18)],
                              producer_name="autodist-tests")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help=".onnx to write")
    ap.add_argument("--unbatched-output", action="store_true",
                    help="add the scalar output 'total'")
    ap.add_argument("--data", help="also write random inputs to this .npz")
    ap.add_argument("--samples", type=int, default=13)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    onnx.save(build(args.unbatched_output), args.out)
    if args.data:
        rng = np.random.default_rng(args.seed)
        np.savez(args.data,
                 x=rng.standard_normal([args.samples, 8]).astype(np.float32),
                 ids=rng.integers(0, 10, [args.samples, 3], dtype=np.int64))


if __name__ == "__main__":
    main()
