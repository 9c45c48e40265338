"""Compare two strategies' speed and loss on one plot: all-reduce against a
load-balanced parameter server, the same model and data, 2 ranks.

    python3 examples/python/compare_strategies.py --out-dir /tmp/compare
"""

import argparse
import os
import subprocess
import sys

import autodist as ad

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out-dir", default="compare-run")
    p.add_argument("--steps", type=int, default=300)
    a = p.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    model = os.path.join(a.out_dir, "mlp.onnx")
    subprocess.run([sys.executable, os.path.join(HERE, "..", "mlp", "make_mlp.py"),
                    "--out", model], check=True)
    data = os.path.join(a.out_dir, "data")
    subprocess.run([sys.executable, os.path.join(HERE, "..", "digits", "make_data.py"),
                    "--out-dir", data], check=True)

    train = ad.Training(optimizer=ad.optim.SGD(lr=0.1, momentum=0.9))
    runs = []
    for name, builder in (("AllReduce", ad.strategy.AllReduce()),
                          ("PSLoadBalancing", ad.strategy.PSLoadBalancing())):
        exe = ad.compile(model, train=train, strategy=builder,
                         output=os.path.join(a.out_dir, f"{name}.train"))
        run = exe.launch(ranks=2, data=os.path.join(data, "train.npz"), steps=a.steps,
                         batch_size=16, label=name, echo=False)
        print(f"{name:16} {run.samples_per_s:10.0f} samples/s   final loss {run.losses[-1]:.4f}")
        runs.append(run)
    print("plot:", ad.plot(runs, os.path.join(a.out_dir, "strategies.png"),
                           title="MLP on digits, 2 ranks"))


if __name__ == "__main__":
    main()
