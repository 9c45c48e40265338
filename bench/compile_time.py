#!/usr/bin/env python3
"""Compile-time benchmark: ONNX -> executable for the GPT-style model.

For each layer count (default 2, 6, 12, 24, 48) the GPT-style decoder of
examples/torch/torch_models.py (d=32, 4 heads, seq 16, vocab 64) is exported
by PyTorch (TorchScript exporter, opset 14), then timed through
`autodist-compile` twice per round, for inference and for training (--train,
SGD), over --rounds rounds (median and spread reported). Prints a table, a
least-squares line seconds = a + b * layers with its worst relative residual
(how linear the scaling is), and writes bench/results/compile_time.{json,md}.

  python3 bench/compile_time.py [--layers 2 6 12 24 48] [--rounds 3]
      [--torch-python build/torch-venv/bin/python] [--compiler build/bin/autodist-compile]
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(cmd):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"compile_time.py: '{' '.join(cmd)}' failed:\n{p.stdout}")
    return dt


def fit(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
    a = my - b * mx
    worst = max(abs(a + b * x - y) / y for x, y in zip(xs, ys))
    return a, b, worst


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--layers", type=int, nargs="+", default=[2, 6, 12, 24, 48])
    ap.add_argument("--rounds", type=int, default=3)
    default_py = os.path.join(ROOT, "build", "torch-venv", "bin", "python")
    ap.add_argument("--torch-python",
                    default=default_py if os.path.exists(default_py) else "/usr/bin/python3")
    ap.add_argument("--compiler", default=os.path.join(ROOT, "build", "bin", "autodist-compile"))
    ap.add_argument("--out-dir", default=os.path.join(ROOT, "bench", "results"))
    a = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in a.layers:
            d = os.path.join(tmp, f"gpt{n}")
            subprocess.run([a.torch_python, os.path.join(ROOT, "examples/torch/make_torch_models.py"),
                            "export", "--model", "gpt", "--layers", str(n), "--opset", "14",
                            "--out-dir", d], check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            onnx_path = os.path.join(d, "gpt.onnx")
            base = [a.compiler, onnx_path, "--input-shape=ids:8x16", "--quiet"]
            infer, train = [], []
            for _ in range(a.rounds):
                infer.append(timed(base + ["-o", os.path.join(d, "gpt.infer")]))
                train.append(timed(base + ["--train", "--optimizer=sgd", "-o",
                                           os.path.join(d, "gpt.train")]))
            row = {"layers": n, "onnx_bytes": os.path.getsize(onnx_path),
                   "infer_s": statistics.median(infer), "infer_all": infer,
                   "train_s": statistics.median(train), "train_all": train}
            rows.append(row)
            print(f"{n:3d} layers: inference {row['infer_s']:.2f} s, training {row['train_s']:.2f} s",
                  flush=True)
    xs = [r["layers"] for r in rows]
    fits = {k: fit(xs, [r[k] for r in rows]) for k in ("infer_s", "train_s")}
    result = {"machine": platform.processor() or platform.machine(), "nproc": os.cpu_count(),
              "rows": rows,
              "fit": {k: {"a_s": v[0], "b_s_per_layer": v[1], "worst_rel_residual": v[2]}
                      for k, v in fits.items()}}
    os.makedirs(a.out_dir, exist_ok=True)
    with open(os.path.join(a.out_dir, "compile_time.json"), "w") as f:
        json.dump(result, f, indent=1)
    lines = ["| layers | ONNX bytes | inference compile (s) | training compile (s) |",
             "|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['layers']} | {r['onnx_bytes']} | {r['infer_s']:.2f} "
                     f"({min(r['infer_all']):.2f}-{max(r['infer_all']):.2f}) | {r['train_s']:.2f} "
                     f"({min(r['train_all']):.2f}-{max(r['train_all']):.2f}) |")
    for k, (fa, fb, w) in fits.items():
        lines.append(f"\n{k}: {fa:.2f} s + {fb:.3f} s/layer (worst relative residual {w:.1%})")
    md = "\n".join(lines) + "\n"
    with open(os.path.join(a.out_dir, "compile_time.md"), "w") as f:
        f.write("# Compile time of the GPT-style model (median of "
                f"{a.rounds} rounds, min-max)\n\n" + md)
    print(md)


if __name__ == "__main__":
    main()
