#!/usr/bin/env python3
"""Staleness on a model that is not in the repository, as a new user would
bring it (issue 15, "Done when"): a residual MLP written here in PyTorch
(LayerNorm, GELU, 4 blocks of width 256, 1.07M parameters), exported with
torch.onnx, compiled with --staleness=1 --compensation=weight_prediction,
and measured with bench/staleness.py's method on 2 emulated nodes: the link
set so that synchronous communication takes as long as the computation;
samples/s of stale (automatic stale set, and all parameters) against
synchronous all-reduce; the final loss (mean of the last 10 steps) on the
digits with 30% of the labels random (so that the loss levels off above 0)
after --acc-steps steps, sync / stale / stale + WP / stale + DC.

    python3 bench/staleness_new_model.py [--rounds 3] [--steps 40] [--acc-steps 300]

Needs what bench/staleness.py needs (root, build/, the torch venv). Writes
bench/results/staleness-new-model.json and prints a table.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import staleness  # noqa: E402

MODEL = r'''
import sys, torch, torch.nn as nn
class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 2 * d)
        self.fc2 = nn.Linear(2 * d, d)
    def forward(self, x):
        return x + self.fc2(nn.functional.gelu(self.fc1(self.norm(x))))
class ResMLP(nn.Module):
    def __init__(self, d_in=64, d=256, blocks=4, classes=10):
        super().__init__()
        self.stem = nn.Linear(d_in, d)
        self.blocks = nn.Sequential(*[Block(d) for _ in range(blocks)])
        self.head = nn.Linear(d, classes)
    def forward(self, x):
        return self.head(self.blocks(self.stem(x)))
torch.manual_seed(0)
torch.onnx.export(ResMLP(), torch.randn(2, 64), sys.argv[1], input_names=["x"],
                  output_names=["logits"], dynamic_axes={"x": {0: "batch"}}, opset_version=14)
'''


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--acc-steps", type=int, default=300)
    p.add_argument("--batch", type=int, default=256, help="per rank, speed")
    a = p.parse_args()
    torch_py = os.environ.get("AUTODIST_TORCH_PYTHON",
                              os.path.join(staleness.ROOT, "build", "torch-venv", "bin", "python"))
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as work:
        onnx = os.path.join(work, "resmlp.onnx")
        script = os.path.join(work, "resmlp.py")
        with open(script, "w") as f:
            f.write(MODEL)
        staleness.run([torch_py, script, onnx])
        staleness.run([sys.executable, os.path.join(staleness.ROOT, "examples", "digits",
                                                    "make_data.py"), "--out-dir",
                       os.path.join(work, "digits")])
        syn = os.path.join(work, "speed.npz")
        rng = np.random.default_rng(0)
        np.savez(syn, x=rng.standard_normal((4 * a.batch, 64)).astype(np.float32),
                 labels=rng.integers(0, 10, 4 * a.batch).astype(np.int64))
        flags = ["--optimizer=adam", "--lr=3e-4"]
        fast = staleness.Model("resmlp", onnx, syn, a.batch, flags)
        print("speed", flush=True)
        sp = staleness.speed(a, fast, work, env)
        # 30% of the labels random, as the bench's LM task: the loss levels
        # off above 0, where a relative difference means something.
        d = dict(np.load(os.path.join(work, "digits", "train.npz")))
        noisy = rng.random(len(d["labels"])) < staleness.LM_LABEL_NOISE
        d["labels"] = np.where(noisy, rng.integers(0, 10, len(noisy)), d["labels"])
        noisy_path = os.path.join(work, "digits-noisy.npz")
        np.savez(noisy_path, **d)
        digits = staleness.Model("resmlp_digits", onnx, noisy_path, 32, flags)
        print("accuracy", flush=True)
        acc = staleness.accuracy(a, digits, work, env, sp["bandwidth_gbit"], a.acc_steps)
    acc.pop("curves")
    result = {"model": "ResMLP (4 blocks, d=256, 1.07M parameters), Adam 3e-4",
              "speed": {k: v for k, v in sp.items() if k != "runs_ms"}, "accuracy": acc}
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(os.path.join(HERE, "results", "staleness-new-model.json"), "w") as f:
        json.dump(result, f, indent=1)
    s, c = sp["speedup"], acc["relative_to_sync"]
    print(f"link {sp['bandwidth_gbit']:.3g} Gbit/s, compute {sp['compute_ms']:.1f} ms/step, "
          f"stale set (auto): {', '.join(sp['stale_auto']) or '(empty)'}")
    print(f"samples/s vs sync: stale (auto) {s['stale (auto)']:.2f}x, stale (all) "
          f"{s['stale (all)']:.2f}x")
    print("final loss: " + ", ".join(f"{v} {acc['final_loss'][v]:.4f} ({100 * c[v]:+.2f}%)"
                                      for v in acc["final_loss"]))


if __name__ == "__main__":
    main()
