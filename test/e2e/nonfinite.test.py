#!/usr/bin/env python3
"""Helper of nonfinite.test.

  data TRAIN.npz OUT_DIR B
      writes, from the first samples of TRAIN.npz, for a step of B samples:
        clean.npz  samples [0, B)             (every step the same batch)
        nan.npz    samples [0, 2B), x[B] NaN  (batches 0, 2, 4... clean,
                                               batches 1, 3, 5... NaN)
        nan-second-rank.npz  samples [0, 2B), x[B + B/2] NaN: with two ranks
                   of B/2 each, only rank 1's half of batch 1 is NaN
  skipped SKIP.jsonl CLEAN.jsonl
      the skipping run logs null + "skipped" on every even step and, on
      step 2k-1, exactly the loss of the clean run's step k
  step CHECKPOINT_DIR N
      DIR/checkpoint.npz is a complete checkpoint of step N
"""
import json
import sys
import zipfile

import numpy as np


def data(train, out, b):
    d = np.load(train)
    x, labels = d["x"], d["labels"]
    np.savez(f"{out}/clean.npz", x=x[:b], labels=labels[:b])
    nan = x[:2 * b].copy()
    nan[b, 0] = np.nan
    np.savez(f"{out}/nan.npz", x=nan, labels=labels[:2 * b])
    nan = x[:2 * b].copy()
    nan[b + b // 2, 3] = np.nan
    np.savez(f"{out}/nan-second-rank.npz", x=nan, labels=labels[:2 * b])


def read(path):
    return [json.loads(line) for line in open(path)]


def skipped(skip_log, clean_log):
    skip, clean = read(skip_log), read(clean_log)
    if len(skip) != 2 * len(clean):
        sys.exit(f"FAIL: {len(skip)} skipping steps for {len(clean)} clean")
    for i, rec in enumerate(skip):
        if i % 2:  # steps 2, 4, ...: the NaN batch
            if rec["loss"] is not None or rec.get("skipped") is not True:
                sys.exit(f"FAIL: step {rec['step']} not skipped: {rec}")
            continue
        if "skipped" in rec or rec["loss"] != clean[i // 2]["loss"]:
            sys.exit(f"FAIL: step {rec['step']}: {rec}, expected the clean "
                     f"step {i // 2 + 1}'s loss {clean[i // 2]['loss']}")
    print(f"PASS: {len(clean)} steps trained, {len(clean)} skipped")


def step(ck_dir, n):
    with zipfile.ZipFile(f"{ck_dir}/checkpoint.npz") as z:
        if z.testzip() is not None:
            sys.exit("FAIL: corrupt checkpoint")
        info = json.loads(z.read("checkpoint.json"))
    if info["step"] != int(n):
        sys.exit(f"FAIL: checkpoint of step {info['step']}, expected {n}")
    print(f"PASS: checkpoint of step {n}")


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"data": lambda: data(args[0], args[1], int(args[2])),
     "skipped": lambda: skipped(*args),
     "step": lambda: step(*args)}[cmd]()
