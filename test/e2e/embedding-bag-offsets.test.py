#!/usr/bin/env python3
"""PyTorch side of embedding-bag-offsets.test: nn.EmbeddingBag over 1-D ids
with per-sample offsets, the way recommenders feed it.

  export --mode M [--last] --out m.onnx    EmbeddingBag(40, 8, M) + Linear(8, 5)
  data --out d.npz [--inputs in.npz]       64 samples: `ids` all samples' ids
                                           concatenated (bags of 0..6, some
                                           empty), `offsets` where each
                                           sample's start, `labels`
  forward --mode M [--last] --data d.npz --out expect.npz
                                           the model on all samples at once
  train --mode M [--last] --data d.npz --steps S --batch-size B --lr F --out ref.jsonl
                                           SGD + cross-entropy on the batches
                                           the runtime takes (file order,
                                           wrapping), losses as JSONL
"""
import argparse
import json
import sys
import warnings

import numpy as np
import torch


def model(mode, last):
    torch.manual_seed(3)
    bag = torch.nn.EmbeddingBag(40, 8, mode=mode, include_last_offset=last)
    head = torch.nn.Linear(8, 5)

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bag, self.head = bag, head

        def forward(self, ids, offsets):
            return self.head(self.bag(ids, offsets))

    return M()


def batch(ids, offsets, first, count, last):
    """Samples [first, first + count): their ids and rebased offsets."""
    n = len(offsets)
    begin = offsets[first]
    end = offsets[first + count] if first + count < n else len(ids)
    off = offsets[first:first + count] - begin
    if last:
        off = np.append(off, end - begin)
    return torch.from_numpy(ids[begin:end]), torch.from_numpy(off)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("what", choices=["export", "data", "forward", "train"])
    p.add_argument("--mode", default="sum")
    p.add_argument("--last", action="store_true")
    p.add_argument("--out", required=True)
    p.add_argument("--inputs")
    p.add_argument("--data")
    p.add_argument("--steps", type=int, default=12)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--lr", type=float, default=0.5)
    a = p.parse_args()
    warnings.filterwarnings("ignore")
    if a.what == "data":
        rng = np.random.default_rng(5)
        sizes = rng.integers(0, 7, size=64)
        sizes[[3, 17]] = 0  # empty bags, in the middle of a batch
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        ids = rng.integers(0, 40, size=int(sizes.sum())).astype(np.int64)
        labels = rng.integers(0, 5, size=64).astype(np.int64)
        np.savez(a.out, ids=ids, offsets=offsets, labels=labels)
        if a.inputs:
            np.savez(a.inputs, ids=ids, offsets=offsets)
        return 0
    m = model(a.mode, a.last)
    if a.what == "export":
        ids, off = batch(np.arange(6, dtype=np.int64),
                         np.array([0, 2, 5], np.int64), 0, 3, a.last)
        torch.onnx.export(m, (ids, off), a.out, opset_version=14,
                          input_names=["ids", "offsets"], output_names=["logits"],
                          dynamic_axes={"ids": {0: "n"}, "offsets": {0: "batch"},
                                        "logits": {0: "batch"}},
                          do_constant_folding=False)
        return 0
    d = np.load(a.data)
    ids, offsets, labels = d["ids"], d["offsets"], torch.from_numpy(d["labels"])
    if a.what == "forward":
        with torch.no_grad():
            y = m(*batch(ids, offsets, 0, len(offsets), a.last))
        np.savez(a.out, logits=y.numpy())
        return 0
    opt = torch.optim.SGD(m.parameters(), lr=a.lr)
    batches = len(offsets) // a.batch_size
    with open(a.out, "w") as f:
        for s in range(a.steps):
            first = s % batches * a.batch_size
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(
                m(*batch(ids, offsets, first, a.batch_size, a.last)),
                labels[first:first + a.batch_size])
            loss.backward()
            opt.step()
            f.write(json.dumps({"step": s + 1, "loss": loss.item()}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
