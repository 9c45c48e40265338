#!/usr/bin/env python3
"""PyTorch DistributedDataParallel (gloo) twin of a compiled bench model.

Runs under Debian's /usr/bin/python3 (torch 1.13 + python3-onnx), one process
per rank, launched by bench.py exactly like the compiled executable:

    mpirun -np 2 /usr/bin/python3 bench/ddp_onnx.py --onnx M.onnx --data D.npz \
        --steps S --batch-size B --lr 0.01 --log ddp.jsonl

Rank and world size come from OpenMPI's OMPI_COMM_WORLD_RANK/SIZE (or torchrun's
RANK/WORLD_SIZE); the gloo rendezvous uses MASTER_ADDR/MASTER_PORT.

The model is the ONNX graph itself, run node by node with torch ops (the
operators of bench/make_mlp.py and examples/models/make_models.py: Gemm, MatMul,
Conv, MaxPool, Relu, Flatten, Gather, Add, Mul, LayerNormalization, Reshape,
Transpose, Softmax, ReduceMean, Identity). Every float initializer is an
nn.Parameter with the ONNX values as its initial value (autodist-compile
trains every float initializer too); integer initializers are constants.
Loss: CrossEntropyLoss on output 0 (mean over the local batch; DDP averages
gradients, so the step is the global-batch mean, like the compiled allreduce
strategy). Optimizer: torch.optim.SGD(lr). Batches and the log format: see
bench/ddp_loop.py.
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper
import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ddp_loop  # noqa: E402


def _attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _reshape(x, shape):
    shape = [int(d) for d in shape.tolist()]
    # ONNX: 0 copies the input dim (allowzero=0), -1 is inferred.
    return x.reshape([x.shape[i] if d == 0 else d for i, d in enumerate(shape)])


class OnnxModule(nn.Module):
    def __init__(self, path):
        super().__init__()
        m = onnx.load(path)
        self.nodes = [(n.op_type, list(n.input), list(n.output), _attrs(n))
                      for n in m.graph.node]
        self.inputs = [i.name for i in m.graph.input]
        self.output = m.graph.output[0].name
        self.params = nn.ParameterDict()
        self.pnames, self.consts = {}, {}
        for t in m.graph.initializer:
            a = numpy_helper.to_array(t).copy()
            if a.dtype == np.float32:
                key = f"p{len(self.pnames)}"  # ParameterDict keys: no dots
                self.pnames[t.name] = key
                self.params[key] = nn.Parameter(torch.from_numpy(a))
            else:
                self.consts[t.name] = torch.from_numpy(a)

    def forward(self, *xs):
        env = dict(zip(self.inputs, xs))

        def get(name):
            if name in env:
                return env[name]
            if name in self.pnames:
                return self.params[self.pnames[name]]
            return self.consts[name]

        for op, ins, outs, at in self.nodes:
            v = [get(n) if n else None for n in ins]
            if op == "Gemm":
                a = v[0].t() if at.get("transA", 0) else v[0]
                b = v[1].t() if at.get("transB", 0) else v[1]
                y = at.get("alpha", 1.0) * (a @ b)
                if len(v) > 2 and v[2] is not None:
                    y = y + at.get("beta", 1.0) * v[2]
            elif op == "MatMul":
                y = v[0] @ v[1]
            elif op == "Conv":
                p = at.get("pads", [0, 0, 0, 0])
                if p[:2] != p[2:]:
                    raise SystemExit("ddp_onnx.py: asymmetric Conv pads")
                y = F.conv2d(v[0], v[1], v[2] if len(v) > 2 else None,
                             stride=at.get("strides", 1), padding=p[:2],
                             dilation=at.get("dilations", 1),
                             groups=at.get("group", 1))
            elif op == "MaxPool":
                p = at.get("pads", [0, 0, 0, 0])
                y = F.max_pool2d(v[0], at["kernel_shape"],
                                 stride=at.get("strides", at["kernel_shape"]),
                                 padding=p[:2])
            elif op == "Relu":
                y = torch.relu(v[0])
            elif op == "Flatten":
                y = v[0].flatten(at.get("axis", 1))
            elif op == "Gather":
                y = v[0][v[1]] if at.get("axis", 0) == 0 else \
                    torch.index_select(v[0], at["axis"], v[1].flatten()).reshape(
                        v[0].shape[:at["axis"]] + v[1].shape +
                        v[0].shape[at["axis"] + 1:])
            elif op == "Add":
                y = v[0] + v[1]
            elif op == "Sub":
                y = v[0] - v[1]
            elif op == "Mul":
                y = v[0] * v[1]
            elif op == "Div":
                y = v[0] / v[1]
            elif op == "LayerNormalization":
                axis = at.get("axis", -1) % v[0].dim()
                y = F.layer_norm(v[0], v[0].shape[axis:], v[1],
                                 v[2] if len(v) > 2 else None,
                                 at.get("epsilon", 1e-5))
            elif op == "Reshape":
                y = _reshape(v[0], v[1])
            elif op == "Transpose":
                y = v[0].permute(at["perm"])
            elif op == "Softmax":
                y = torch.softmax(v[0], at.get("axis", -1))
            elif op == "ReduceMean":
                axes = at.get("axes") or (v[1].tolist() if len(v) > 1 else None)
                keep = bool(at.get("keepdims", 1))
                y = v[0].mean(dim=axes, keepdim=keep) if axes is not None \
                    else v[0].mean()
            elif op == "Identity":
                y = v[0]
            else:
                raise SystemExit(f"ddp_onnx.py: unsupported op {op}")
            env[outs[0]] = y
        return env[self.output]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnx", required=True)
    ddp_loop.common_args(ap)
    a = ap.parse_args()
    rank, world = ddp_loop.init()
    net = OnnxModule(a.onnx)
    ddp_loop.train(net, net.inputs, nn.CrossEntropyLoss(), a, rank, world)


if __name__ == "__main__":
    main()
