"""Train a PyTorch-defined model on scikit-learn's digits on 2 MPI ranks,
from Python, and plot its loss.

    python3 examples/python/train_digits.py --out-dir /tmp/digits-run

Needs the autodist package (scripts/setup-python.sh, or pip install ./python)
and torch.
"""

import argparse
import os
import subprocess
import sys

import torch

import autodist as ad

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out-dir", default="digits-run")
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--steps", type=int, default=300)
    a = p.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    data = os.path.join(a.out_dir, "data")
    subprocess.run([sys.executable, os.path.join(HERE, "..", "digits", "make_data.py"),
                    "--out-dir", data], check=True)

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(),
                                torch.nn.Dropout(0.1), torch.nn.Linear(64, 10))
    onnx_path = ad.from_torch(model, torch.zeros(1, 64), os.path.join(a.out_dir, "mlp.onnx"),
                              input_names=["x"])
    exe = ad.compile(onnx_path,
                     train=ad.Training(loss="cross_entropy",
                                       optimizer=ad.optim.Adam(lr=3e-3),
                                       schedule=ad.optim.CosineSchedule(total_steps=a.steps)),
                     strategy=ad.strategy.AllReduce(chunk_size=128),
                     output=os.path.join(a.out_dir, "mlp.train"), progress=True)
    exe.explain()
    run = exe.launch(ranks=a.ranks, data=os.path.join(data, "train.npz"), steps=a.steps,
                     batch_size=16, eval=os.path.join(data, "test.npz"),
                     save=os.path.join(a.out_dir, "trained.onnx"))
    print(f"loss {run.losses[0]:.3f} -> {run.losses[-1]:.3f}, "
          f"{run.samples_per_s:.0f} samples/s on {a.ranks} ranks")
    print("plot:", run.plot(os.path.join(a.out_dir, "loss.png")))


if __name__ == "__main__":
    main()
