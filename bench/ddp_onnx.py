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
strategy). Optimizer: torch.optim.SGD(lr). Batches: step s uses global batch
g = s mod floor(N / (B*W)) and rank r takes samples
[g*B*W + r*B, g*B*W + (r+1)*B), the compiled runtime's BatchPlan.

The log has the compiled runtime's format: one JSON line per step (rank 0)
with step, loss (here the rank-0 local loss), samples_per_s (global samples
over rank 0's step time) and time_s (since the loop started); after the loop
(outside the timed region) one line {"global_losses": [...]} with the global
mean loss of the first steps, for checking against the compiled run.
"""
import argparse
import json
import os
import time

import numpy as np
import onnx
from onnx import numpy_helper
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


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
    ap.add_argument("--data", required=True)
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--batch-size", type=int, required=True)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--log", default="")
    ap.add_argument("--check-steps", type=int, default=5)
    a = ap.parse_args()

    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("RANK", 0)))
    world = int(os.environ.get("OMPI_COMM_WORLD_SIZE",
                               os.environ.get("WORLD_SIZE", 1)))
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29512")
    dist.init_process_group("gloo", rank=rank, world_size=world)

    net = OnnxModule(a.onnx)
    model = DDP(net)
    opt = torch.optim.SGD(model.parameters(), lr=a.lr)
    loss_fn = nn.CrossEntropyLoss()

    data = np.load(a.data)
    xs = [torch.from_numpy(np.ascontiguousarray(data[n])) for n in net.inputs]
    y = torch.from_numpy(np.ascontiguousarray(data["labels"], dtype=np.int64))
    x = xs[0]
    B, W = a.batch_size, world
    nglobal = x.shape[0] // (B * W)
    if nglobal < 1:
        raise SystemExit("ddp_onnx.py: fewer samples than one global batch")

    log = open(a.log, "w") if (a.log and rank == 0) else None
    losses = []
    dist.barrier()
    start = time.perf_counter()
    for step in range(a.steps):
        t0 = time.perf_counter()
        first = (step % nglobal) * B * W + rank * B
        xb = [t[first:first + B] for t in xs]
        yb = y[first:first + B]
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(*xb), yb)
        loss.backward()
        opt.step()
        value = loss.item()
        t1 = time.perf_counter()
        if step < a.check_steps:
            losses.append(value)
        if log:
            log.write(json.dumps({"step": step + 1, "loss": value,
                                  "samples_per_s": B * W / (t1 - t0),
                                  "lr": a.lr, "time_s": t1 - start}) + "\n")
    # Outside the timed loop: global mean loss of the first steps.
    t = torch.tensor(losses, dtype=torch.float64)
    dist.all_reduce(t)
    if log:
        log.write(json.dumps({"global_losses": (t / W).tolist()}) + "\n")
        log.close()
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
