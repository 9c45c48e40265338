#!/usr/bin/env python3
"""PyTorch side of the torch.onnx.export check.

  torch_mlp.py export --out M.onnx [--hidden 48] [--seed 1]
      exports nn.Sequential(Linear(64, H), ReLU, Linear(H, 10)) with a
      dynamic batch dim, the way users hand their models to the compiler;
  torch_mlp.py train --data train.npz --steps S --batch-size B --lr F --out ref.jsonl
      trains the same freshly seeded module with torch.optim.SGD and
      F.cross_entropy on batches [s*B, (s+1)*B) in file order, writing the
      per-step losses as JSONL ({"step", "loss"}).
"""
import argparse
import json
import math
import sys

import numpy as np
import torch


def make_model(hidden, seed):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(64, hidden), torch.nn.ReLU(),
                               torch.nn.Linear(hidden, 10))


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mode", choices=["export", "train"])
    p.add_argument("--out", required=True)
    p.add_argument("--hidden", type=int, default=48)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--data")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--optimizer", default="sgd",
                   choices=["sgd", "momentum", "nesterov", "adam", "adamw"])
    p.add_argument("--weight-decay", type=float, default=0.0)
    p.add_argument("--clip-norm", type=float, default=0.0)
    p.add_argument("--cosine", nargs=2, type=int, metavar=("WARMUP", "TOTAL"),
                   help="linear warmup then cosine decay to 0 (as the runtime)")
    a = p.parse_args()
    model = make_model(a.hidden, a.seed)
    if a.mode == "export":
        torch.onnx.export(model, torch.randn(4, 64), a.out, input_names=["x"],
                          output_names=["logits"], opset_version=13,
                          dynamic_axes={"x": {0: "batch"}, "logits": {0: "batch"}})
        return 0
    if not a.data:
        sys.exit("torch_mlp.py: error: train needs --data")
    d = np.load(a.data)
    x, y = torch.tensor(d["x"]), torch.tensor(d["labels"])
    per_epoch = len(x) // a.batch_size
    params = model.parameters()
    if a.optimizer in ("sgd", "momentum", "nesterov"):
        opt = torch.optim.SGD(params, lr=a.lr, weight_decay=a.weight_decay,
                              momentum=0.0 if a.optimizer == "sgd" else 0.9,
                              nesterov=a.optimizer == "nesterov")
    elif a.optimizer == "adam":
        opt = torch.optim.Adam(params, lr=a.lr, weight_decay=a.weight_decay)
    else:
        opt = torch.optim.AdamW(params, lr=a.lr, weight_decay=a.weight_decay)

    def lr_at(t):  # t is 1-based
        if not a.cosine:
            return a.lr
        warm, total = a.cosine
        if t <= warm:
            return a.lr * t / warm
        if t >= total:
            return 0.0
        return 0.5 * a.lr * (1 + math.cos(math.pi * (t - warm) / (total - warm)))
    with open(a.out, "w") as f:
        for s in range(a.steps):
            i = (s % per_epoch) * a.batch_size
            loss = torch.nn.functional.cross_entropy(model(x[i:i + a.batch_size]),
                                                     y[i:i + a.batch_size])
            opt.zero_grad()
            loss.backward()
            if a.clip_norm > 0:
                torch.nn.utils.clip_grad_norm_(model.parameters(), a.clip_norm)
            for group in opt.param_groups:
                group["lr"] = lr_at(s + 1)
            opt.step()
            f.write(json.dumps({"step": s + 1, "loss": loss.item()}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
