#!/usr/bin/env python3
"""Generates a GPT-style causal language model block with onnx.helper, in
the shapes a TorchScript export of such a model has, plus training data.

  make_gpt_block.py --out gpt.onnx [--data gpt.npz --samples 32]
                    [--vocab 16 --seq 8 --dim 16 --heads 2] [--with-loss]

  ids [batch, seq] (int64) -> Gather(wte) + Gather(wpe, Range(0, T)) ->
  LayerNorm -> MatMul(c_attn) + bias -> Split(q, k, v) -> per head:
  Reshape [B, T, H, D] / Transpose -> q k^T * 1/sqrt(D) -> causal mask
  (ConstantOfShape([T, T], 1.0) -> Trilu(upper=0) -> Equal(0) ->
  Where(-1e9)) -> Softmax -> MatMul(v) -> Transpose / Reshape [0, T, C] ->
  MatMul(c_proj) + residual -> LayerNorm -> MLP (MatMul, Gelu as
  Mul/Erf/Add, MatMul) + residual -> LayerNorm -> MatMul(lm_head) ->
  logits [batch, seq, vocab]. With --with-loss the output is instead the
  mean next-token cross-entropy against a ``targets`` [batch, seq] input
  (LogSoftmax, one-hot through Equal with Range(V), ReduceSum, ReduceMean,
  Neg), for training with ``--loss=output``.

T and B are read with Shape -> Gather -> Unsqueeze -> Concat, as exporters
do, so the importer has to fold those shape subgraphs. The batch dim stays
symbolic: the heads' Reshape gets it from Shape (unknown at import, so it
becomes -1), the merge copies it with 0. With --data it also
writes ``ids`` and next-token ``targets`` [samples, seq] of a learnable
sequence (each row counts up from a random start, modulo the vocabulary).
"""
import argparse
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class Graph:
    def __init__(self, rng):
        self.rng, self.nodes, self.inits, self.n = rng, [], [], 0

    def node(self, op, inputs, n_out=1, name=None, **attrs):
        self.n += 1
        name = name or f"/{op}_{self.n}"
        outs = [f"{name}_out{i}" for i in range(n_out)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=name, **attrs))
        return outs[0] if n_out == 1 else outs

    def param(self, name, shape, std=0.2):
        self.inits.append(numpy_helper.from_array(
            (self.rng.standard_normal(shape) * std).astype(np.float32), name))
        return name

    def fixed(self, name, array):
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def const(self, array):
        """A Constant node (not a parameter)."""
        return self.node("Constant", [], value=numpy_helper.from_array(
            np.asarray(array)))


def layer_norm(g, x, prefix, dim):
    scale = g.fixed(f"{prefix}.weight", np.ones([dim], np.float32))
    bias = g.fixed(f"{prefix}.bias", np.zeros([dim], np.float32))
    return g.node("LayerNormalization", [x, scale, bias], axis=-1,
                  epsilon=1e-5, name=f"/{prefix}/LayerNormalization")


def gpt(rng, vocab, seq, dim, heads, with_loss=False):
    g = Graph(rng)
    hd = dim // heads
    i64 = lambda v: g.const(np.array(v, np.int64))
    # T = ids.shape[1], as a 1-D int64 tensor [T].
    t = g.node("Gather", [g.node("Shape", ["ids"]), i64(1)], axis=0)
    t1 = g.node("Unsqueeze", [t, i64([0])])
    pos = g.node("Range", [i64(0), t, i64(1)])
    h = g.node("Add", [g.node("Gather", [g.param("wte.weight", [vocab, dim]), "ids"]),
                       g.node("Gather", [g.param("wpe.weight", [seq, dim]), pos])])
    # Attention.
    a = layer_norm(g, h, "ln_1", dim)
    qkv = g.node("Add", [g.node("MatMul", [a, g.param("attn.c_attn.weight", [dim, 3 * dim])]),
                         g.param("attn.c_attn.bias", [3 * dim], 0.02)])
    q, k, v = g.node("Split", [qkv, i64([dim, dim, dim])], n_out=3, axis=2,
                     name="/attn/Split")
    # [B, T, H, D] with B read from the (dynamic) batch dim, as torch's
    # view(B, T, H, D) exports: the importer turns the unknown B into -1.
    b1 = g.node("Unsqueeze", [g.node("Gather", [g.node("Shape", [q]), i64(0)], axis=0),
                              i64([0])])
    heads_shape = g.node("Concat", [b1, t1, i64([heads]), i64([hd])], axis=0)

    def split_heads(x, perm):
        return g.node("Transpose", [g.node("Reshape", [x, heads_shape])], perm=perm)

    qh, kt, vh = (split_heads(q, [0, 2, 1, 3]), split_heads(k, [0, 2, 3, 1]),
                  split_heads(v, [0, 2, 1, 3]))
    att = g.node("Mul", [g.node("MatMul", [qh, kt]),
                         g.const(np.float32(1.0 / np.sqrt(hd)))])   # [B,H,T,T]
    ones = g.node("ConstantOfShape", [g.node("Concat", [t1, t1], axis=0)],
                  value=numpy_helper.from_array(np.array([1.0], np.float32)))
    causal = g.node("Trilu", [ones], upper=0, name="/attn/Trilu")
    masked = g.node("Where", [g.node("Equal", [causal, g.const(np.float32(0.0))]),
                              g.const(np.float32(-1e9)), att], name="/attn/Where")
    y = g.node("MatMul", [g.node("Softmax", [masked], axis=-1), vh])  # [B,H,T,D]
    merged = g.node("Reshape", [g.node("Transpose", [y], perm=[0, 2, 1, 3]),
                                g.node("Concat", [i64([0]), t1, i64([dim])], axis=0)])
    h = g.node("Add", [h, g.node("MatMul", [merged, g.param("attn.c_proj.weight", [dim, dim])])])
    # MLP with the exporters' erf form of Gelu.
    m = g.node("MatMul", [layer_norm(g, h, "ln_2", dim), g.param("mlp.c_fc.weight", [dim, 4 * dim])])
    erf = g.node("Erf", [g.node("Div", [m, g.const(np.float32(np.sqrt(2.0)))])])
    gelu = g.node("Mul", [g.node("Mul", [m, g.const(np.float32(0.5))]),
                          g.node("Add", [erf, g.const(np.float32(1.0))])])
    h = g.node("Add", [h, g.node("MatMul", [gelu, g.param("mlp.c_proj.weight", [4 * dim, dim])])])
    logits = g.node("MatMul", [layer_norm(g, h, "ln_f", dim),
                               g.param("lm_head.weight", [dim, vocab])])
    inputs = [helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", seq])]
    if not with_loss:
        g.nodes[-1].output[0] = "logits"
        return helper.make_graph(
            g.nodes, "gpt_block", inputs,
            [helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                           ["batch", seq, vocab])], g.inits)
    # Mean next-token cross-entropy in the graph: -mean(sum(onehot * logp)).
    logp = g.node("LogSoftmax", [logits], axis=-1)
    onehot = g.node("Cast", [g.node("Equal", [g.node("Unsqueeze", ["targets", i64([-1])]),
                                              g.node("Range", [i64(0), i64(vocab), i64(1)])])],
                    to=TensorProto.FLOAT)
    picked = g.node("ReduceSum", [g.node("Mul", [logp, onehot]), i64([-1])], keepdims=0)
    g.node("Neg", [g.node("ReduceMean", [picked], keepdims=0)])
    g.nodes[-1].output[0] = "loss"
    inputs.append(helper.make_tensor_value_info("targets", TensorProto.INT64, ["batch", seq]))
    return helper.make_graph(
        g.nodes, "gpt_block_loss", inputs,
        [helper.make_tensor_value_info("loss", TensorProto.FLOAT, [])], g.inits)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--data", help="also write ids/targets .npz")
    p.add_argument("--samples", type=int, default=32)
    p.add_argument("--vocab", type=int, default=16)
    p.add_argument("--seq", type=int, default=8)
    p.add_argument("--dim", type=int, default=16)
    p.add_argument("--heads", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--with-loss", action="store_true",
                   help="output the mean next-token cross-entropy (a scalar, "
                        "from a targets input) instead of the logits")
    a = p.parse_args()
    if a.dim % a.heads:
        raise ValueError(f"--dim {a.dim} is not a multiple of --heads {a.heads}")
    rng = np.random.default_rng(a.seed)
    graph = gpt(rng, a.vocab, a.seq, a.dim, a.heads, a.with_loss)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="make_gpt_block")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, a.out)
    print(f"wrote {a.out}: {len(graph.node)} nodes")
    if a.data:
        start = rng.integers(0, a.vocab, [a.samples, 1])
        seq = (start + np.arange(a.seq + 1)) % a.vocab
        np.savez(a.data, ids=seq[:, :-1].astype(np.int64),
                 targets=seq[:, 1:].astype(np.int64))
        print(f"wrote {a.data}: ids, targets [{a.samples}, {a.seq}]")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(1)
