#!/usr/bin/env python3
"""PyTorch DistributedDataParallel (gloo) twin of a bench model that comes
from examples/torch/torch_models.py (ResNet-18, the GPT-style decoder, ...).

    mpirun -np 2 python bench/ddp_torch.py --model resnet18 --data D.npz \
        --steps S --batch-size B --lr 0.01 --log ddp.jsonl

The module is built with the seed the ONNX export used
(examples/torch/make_torch_models.py export, seed 0), so both sides start from
the same weights. Loss: cross entropy (over tokens for the GPT's [B,T,V]
logits). SGD, batches and log format as bench/ddp_loop.py.
"""
import argparse
import os
import sys

import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "examples", "torch"))
import ddp_loop  # noqa: E402
import torch_models  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--layers", type=int, help="GPT blocks (default: the model's)")
    ddp_loop.common_args(ap)
    a = ap.parse_args()
    rank, world = ddp_loop.init()
    kw = {"layers": a.layers} if a.layers else {}
    net, _, names, _, kind = torch_models.build(a.model, a.seed, a.batch_size, **kw)
    net.train()

    def loss_fn(out, labels):
        if kind == "tokens":
            return F.cross_entropy(out.reshape(-1, out.shape[-1]), labels.reshape(-1))
        return F.cross_entropy(out, labels)
    ddp_loop.train(net, names, loss_fn, a, rank, world)


if __name__ == "__main__":
    main()
