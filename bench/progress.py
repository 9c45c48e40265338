#!/usr/bin/env python3
"""How started all-reduces progress: --comm-progress=starts|ops|thread on the
emulated cluster.

Trains the GPT-style decoder (examples/torch/torch_models.py, --layers
blocks) with the all-reduce builder, its gradients cut into buckets of
--bucket-bytes (each started as soon as its last gradient is computed,
waited for before the first update that reads it), on 2 emulated nodes of 1
rank each (scripts/netcluster.sh) linked at --bandwidth Gbit/s, and reports
the median step time of each progress mode, interleaved over --rounds
rounds, with `--bucket-bytes=0` (one blocking all-reduce, nothing to
overlap) and 1 rank alone as references. Needs root (namespaces) and an
interpreter with torch for the export (AUTODIST_TORCH_PYTHON, default
build/torch-venv/bin/python).

    python3 bench/progress.py [--bandwidth 0.2] [--bucket-bytes 65536] \\
        [--layers 8] [--rounds 3] [--steps 30]

Writes bench/results/progress.json and progress.md.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODES = ["starts", "ops", "thread"]


def run(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"progress.py: {' '.join(cmd)} exited with {r.returncode}:\n{r.stdout}")
    return r.stdout


def median_step_ms(log, skip=3):
    rows = [json.loads(line) for line in open(log) if line.strip()]
    steps = [b["time_s"] - a["time_s"] for a, b in zip(rows, rows[1:])][skip:]
    return 1000 * statistics.median(steps)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bandwidth", type=float, default=0.2, help="Gbit/s per node link")
    ap.add_argument("--bucket-bytes", type=int, default=65536)
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--batch", type=int, default=16, help="per rank")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out-dir", default=os.path.join(ROOT, "bench", "results"))
    a = ap.parse_args()
    torch_py = os.environ.get("AUTODIST_TORCH_PYTHON",
                              os.path.join(ROOT, "build", "torch-venv", "bin", "python"))
    if not os.path.exists(torch_py):
        sys.exit(f"progress.py: no interpreter with torch at {torch_py} "
                 "(scripts/setup-torch.sh, or set AUTODIST_TORCH_PYTHON)")
    compiler = os.path.join(ROOT, "build", "bin", "autodist-compile")
    netcluster = os.path.join(ROOT, "scripts", "netcluster.sh")
    work = tempfile.mkdtemp(prefix="progress.")
    spec = os.path.join(work, "cluster.yaml")
    with open(spec, "w") as f:
        f.write("nodes:\n  - address: 10.0.0.1\n    cpus: [0]\n    chief: true\n"
                f"    network_bandwidth: {a.bandwidth}\n"
                "  - address: 10.0.0.2\n    cpus: [0]\n"
                f"    network_bandwidth: {a.bandwidth}\n    ssh_config: c\n"
                "ssh:\n  c: {username: root}\n")
    print(f"exporting the GPT-style decoder ({a.layers} blocks)", flush=True)
    run([torch_py, os.path.join(ROOT, "examples", "torch", "make_torch_models.py"),
         "export", "--model", "gpt", "--layers", str(a.layers), "--samples",
         str(2 * a.batch * (a.steps + 1)), "--out-dir", work])
    model, data = os.path.join(work, "gpt.onnx"), os.path.join(work, "data.npz")
    exes = {}
    for name, bucket in [("bucketed", a.bucket_bytes), ("one-bucket", 0)]:
        exes[name] = os.path.join(work, f"{name}.train")
        run([compiler, model, "--train", "--optimizer=adam", "--strategy=allreduce",
             f"--input-shape=ids:{a.batch}x16", f"--bucket-bytes={bucket}", "--quiet",
             "-o", exes[name]])
    runs = {m: [] for m in MODES + ["one-bucket", "1 rank"]}
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    for r in range(a.rounds):
        for key in MODES + ["one-bucket", "1 rank"]:
            log = os.path.join(work, f"{key}.{r}.jsonl".replace(" ", "_"))
            flags = [f"--data={data}", f"--steps={a.steps}", f"--batch-size={a.batch}",
                     f"--log={log}"]
            if key == "1 rank":
                run([exes["bucketed"]] + flags + ["--pin=none"], env=env)
            else:
                exe = exes["one-bucket" if key == "one-bucket" else "bucketed"]
                mode = [] if key == "one-bucket" else [f"--comm-progress={key}"]
                run([netcluster, "run", f"--cluster={spec}", "--quiet", "--", exe]
                    + flags + mode, env=env)
            runs[key].append(median_step_ms(log))
            print(f"round {r + 1}: {key}: {runs[key][-1]:.1f} ms/step", flush=True)
    med = {k: statistics.median(v) for k, v in runs.items()}
    with open(os.path.join(work, "starts.0.jsonl")) as f:
        rows = json.loads(f.readline())
    result = {"bandwidth_gbit": a.bandwidth, "bucket_bytes": a.bucket_bytes,
              "layers": a.layers, "batch_per_rank": a.batch, "steps": a.steps,
              "rounds": a.rounds, "collectives_per_step": rows["collectives"],
              "bytes_per_step": rows["comm_bytes"], "median_step_ms": med,
              "runs_ms": runs, "machine": platform.node(), "cpus": os.cpu_count(),
              "load_average": os.getloadavg(),
              "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE")}
    os.makedirs(a.out_dir, exist_ok=True)
    with open(os.path.join(a.out_dir, "progress.json"), "w") as f:
        json.dump(result, f, indent=1)
    lines = [f"GPT-style decoder, {a.layers} blocks, Adam, batch {a.batch} per rank; "
             f"2 emulated nodes x 1 rank at {a.bandwidth:g} Gbit/s; "
             f"{rows['collectives']} all-reduces of {rows['comm_bytes']} bytes per step "
             f"(--bucket-bytes={a.bucket_bytes}); median of {a.rounds} rounds of "
             f"the median step over {a.steps} steps.", "",
             "| run | ms/step | vs starts |", "|---|---|---|"]
    for k in MODES + ["one-bucket", "1 rank"]:
        label = {"one-bucket": "one blocking all-reduce (--bucket-bytes=0)",
                 "1 rank": "1 rank alone (no communication)"}.get(
                     k, f"--comm-progress={k}")
        lines.append(f"| {label} | {med[k]:.1f} | {med['starts'] / med[k]:.2f}x |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(a.out_dir, "progress.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
