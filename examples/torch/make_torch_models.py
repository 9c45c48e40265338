#!/usr/bin/env python3
"""Export PyTorch models to ONNX and train them in PyTorch, for comparisons.

  make_torch_models.py export --model M --out-dir D [--opset 14] [--training]
      [--samples 64] [--batch 4] [--seed 0]
    writes D/M.onnx (TorchScript exporter, dynamic batch dim; the GPT's
    sequence dim is dynamic too; no constant folding, which would copy a
    tied head's transposed weight into a separate initializer), D/data.npz (inputs named like the model's
    inputs, plus `labels`), D/in.npz (the first --batch samples' inputs) and
    D/torch_out.npz (PyTorch's `logits` on D/in.npz, in eval mode unless
    --training).
  make_torch_models.py train --model M --data D/data.npz --steps 20
      --batch-size 8 --optimizer sgd|momentum|adam|adamw --lr F [--seed 0]
      [--weight-decay F] [--eps F] [--perturb F] --out ref.jsonl
    trains the same freshly seeded module on batches [s*B, (s+1)*B) in file
    order with torch.optim and cross entropy (mean over tokens for the GPT),
    writing per-step losses as JSONL ({"step", "loss"}). --perturb F first
    multiplies every weight by 1 + u, u uniform in [-F, F]: PyTorch against
    itself from nearby weights, to pick a learning rate where the trajectory
    is not chaotic.

M is one of lenet, lenet_nobn, resnet18, transformer, gpt, bert (see
torch_models.py). Needs torch (and torchvision for resnet18, transformers for
bert); Debian's python3-torch / python3-torchvision work.
"""
import argparse
import json
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_models  # noqa: E402


def build(name, seed, batch, layers=None):
    if name == "lenet_nobn":
        return torch_models.build("lenet", seed, batch, batchnorm=False)
    if layers:
        return torch_models.build(name, seed, batch, layers=layers)
    return torch_models.build(name, seed, batch)


def export(a):
    model, example, names, axes, kind = build(a.model, a.seed, a.batch, a.layers)
    os.makedirs(a.out_dir, exist_ok=True)
    path = os.path.join(a.out_dir, a.model + ".onnx")
    mode = torch.onnx.TrainingMode.TRAINING if a.training else torch.onnx.TrainingMode.EVAL
    model.train(a.training)
    torch.onnx.export(model, example, path, input_names=names,
                      output_names=["logits"], opset_version=a.opset,
                      dynamic_axes=dict(axes, logits={0: "batch"}),
                      training=mode, do_constant_folding=False)
    data = torch_models.make_data(kind, a.samples, a.seed + 1)
    np.savez(os.path.join(a.out_dir, "data.npz"), **data)
    inputs = {n: data[n][:a.batch] for n in names}
    np.savez(os.path.join(a.out_dir, "in.npz"), **inputs)
    # Reference outputs from a fresh copy (export may have run forward).
    model, _, _, _, _ = build(a.model, a.seed, a.batch, a.layers)
    model.train(a.training)
    with torch.no_grad():
        out = model(*[torch.from_numpy(inputs[n]) for n in names])
    np.savez(os.path.join(a.out_dir, "torch_out.npz"), logits=out.numpy())
    print(f"exported {path} (opset {a.opset}, "
          f"{sum(p.numel() for p in model.parameters())} parameters)")


def loss_of(kind, logits, labels):
    if kind == "tokens":
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1))
    return F.cross_entropy(logits, labels)


def train(a):
    model, _, names, _, kind = build(a.model, a.seed, a.batch_size, a.layers)
    model.train()
    if a.perturb:
        # PyTorch against itself from slightly different weights: how
        # chaotic the trajectory is (what a compiler can be compared to).
        g = torch.Generator().manual_seed(a.seed + 7)
        with torch.no_grad():
            for p in model.parameters():
                p.mul_(1 + a.perturb * (2 * torch.rand(p.shape, generator=g) - 1))
    d = np.load(a.data)
    xs = [torch.from_numpy(d[n]) for n in names]
    y = torch.from_numpy(d["labels"])
    per_epoch = len(y) // a.batch_size
    params = model.parameters()
    if a.optimizer in ("sgd", "momentum"):
        opt = torch.optim.SGD(params, lr=a.lr, weight_decay=a.weight_decay,
                              momentum=0.0 if a.optimizer == "sgd" else 0.9)
    elif a.optimizer == "adam":
        opt = torch.optim.Adam(params, lr=a.lr, weight_decay=a.weight_decay,
                               eps=a.eps)
    else:
        opt = torch.optim.AdamW(params, lr=a.lr, weight_decay=a.weight_decay,
                                eps=a.eps)
    with open(a.out, "w") as f:
        for s in range(a.steps):
            i = (s % per_epoch) * a.batch_size
            sl = slice(i, i + a.batch_size)
            loss = loss_of(kind, model(*[x[sl] for x in xs]), y[sl])
            opt.zero_grad()
            loss.backward()
            opt.step()
            f.write(json.dumps({"step": s + 1, "loss": loss.item()}) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mode", choices=["export", "train"])
    p.add_argument("--model", required=True,
                   choices=["lenet", "lenet_nobn", "resnet18", "transformer", "gpt", "bert"])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out-dir")
    p.add_argument("--opset", type=int, default=14)
    p.add_argument("--training", action="store_true",
                   help="export in training mode (BatchNormalization kept)")
    p.add_argument("--layers", type=int, help="number of blocks of the gpt model (default 2)")
    p.add_argument("--samples", type=int, default=64)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--data")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--optimizer", default="sgd", choices=["sgd", "momentum", "adam", "adamw"])
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--weight-decay", type=float, default=0.0)
    p.add_argument("--eps", type=float, default=1e-8, help="Adam epsilon")
    p.add_argument("--perturb", type=float, default=0.0,
                   help="train: multiply every initial weight by 1 + u, u "
                        "uniform in [-F, F] (a chaos check of PyTorch itself)")
    p.add_argument("--out")
    a = p.parse_args()
    if a.mode == "export":
        if not a.out_dir:
            p.error("export needs --out-dir")
        export(a)
    else:
        if not a.data or not a.out:
            p.error("train needs --data and --out")
        train(a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
