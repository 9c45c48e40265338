#!/usr/bin/env python3
"""Staleness (SAPipe, --staleness=1) against synchronous all-reduce on the
emulated cluster: speed and accuracy.

Speed: for the MLP (examples/mlp/make_mlp.py, --mlp-hidden units, random
data at --mlp-batch per rank), the Transformer encoder (examples/models,
d = 128, vocabulary 2000, 32 tokens, 392k parameters) and the GPT-style
decoder (examples/torch, exported by PyTorch, --gpt-layers blocks), on 2 emulated nodes x 1 rank (scripts/netcluster.sh). The link is
set per model so that synchronous communication takes about as long as the
computation: the synchronous step on the cluster with a 100 Gbit/s link
measures the step's computation T (two ranks side by side on this machine
compute slower than one alone) and its all-reduce bytes B, the link starts
at B*8/T bits per second (a 2-node ring moves B bytes per node each step),
and two synchronous probes scale it until the step's communication (its
time minus T, with all gradients in one all-reduce after the backward pass,
--bucket-bytes=0, so that none of it hides) is T. Reports the median step time of
synchronous all-reduce, stale with the automatic stale set (--stale=auto,
the cost model fed that bandwidth and, through --step-profile, the measured
computation) and stale with every parameter stale,
interleaved over --rounds rounds, as samples/s ratios, and the wire bound
of any schedule: a step is at least its gradients' time on the link
(B*8/rate), so stale / sync is at most sync / max(T, wire).

Accuracy: the MLP on digits (--acc-steps steps) and the GPT decoder on its
language-modelling task (predict the next token, id + 1 mod 64, with 30% of
the labels random so that the loss levels off above 0; --lm-steps steps) on
the same cluster, synchronous / stale / stale + weight prediction (after 5
synchronous steps) / stale + delay compensation (λ: --digits-dc-lambda,
--lm-dc-lambda), with the automatic stale set of the speed run (the
configuration timed) and with every parameter stale (one run where the two
are the same); the final loss is the mean of the last 10 steps' losses.
Writes a PNG of loss against step and against wall-clock time per task and
stale set.

    python3 bench/staleness.py [--rounds 5] [--steps 40] [--acc-steps 300]
        [--lm-steps 150] [--models mlp,transformer,gpt] [--tasks digits,lm]
        [--digits-dc-lambda 0.5] [--lm-dc-lambda 1e4]

Needs root (namespaces), build/ (scripts/setup.sh) and an interpreter with
torch and matplotlib (AUTODIST_TORCH_PYTHON, default build/torch-venv/bin/python;
scripts/setup-torch.sh). Writes bench/results/staleness.{json,md} and
bench/results/staleness-{digits,lm}-{auto,all}.png.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COMPILER = os.path.join(ROOT, "build", "bin", "autodist-compile")
NETCLUSTER = os.path.join(ROOT, "scripts", "netcluster.sh")


def run(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"{os.path.basename(sys.argv[0])}: {' '.join(cmd)} exited with "
                 f"{r.returncode}:\n"
                 f"{r.stdout}")
    return r.stdout


def rows(log):
    return [json.loads(line) for line in open(log) if line.strip()]


def median_step_s(log, skip=5):
    r = rows(log)
    steps = [b["time_s"] - a["time_s"] for a, b in zip(r, r[1:])][skip:]
    return statistics.median(steps)


def write_spec(path, gbit):
    with open(path, "w") as f:
        f.write("nodes:\n  - address: 10.0.0.1\n    cpus: [0]\n    chief: true\n"
                f"    network_bandwidth: {gbit:.6g}\n"
                "  - address: 10.0.0.2\n    cpus: [0]\n"
                f"    network_bandwidth: {gbit:.6g}\n    ssh_config: c\n"
                "ssh:\n  c: {username: root}\n")


class Model:
    def __init__(self, name, onnx, data, batch, compile_flags):
        self.name, self.onnx, self.data = name, onnx, data
        self.batch, self.flags = batch, compile_flags


def export_models(a, work, torch_py):
    models = {}
    py = sys.executable
    if "mlp" in a.models or "digits" in a.tasks:
        run([py, os.path.join(ROOT, "examples", "digits", "make_data.py"),
             "--out-dir", os.path.join(work, "digits")])
        onnx = os.path.join(work, "mlp.onnx")
        run([py, os.path.join(ROOT, "examples", "mlp", "make_mlp.py"), "--out",
             onnx, "--hidden", str(a.mlp_hidden)])
        # Speed: random inputs, so that the batch (the computation per byte
        # communicated) is not bounded by digits' 1437 samples.
        syn = os.path.join(work, "mlp-speed.npz")
        rng = np.random.default_rng(0)
        np.savez(syn, x=rng.standard_normal((4 * a.mlp_batch, 64)).astype(np.float32),
                 labels=rng.integers(0, 10, 4 * a.mlp_batch).astype(np.int64))
        models["mlp"] = Model("mlp", onnx, syn, a.mlp_batch,
                              ["--optimizer=sgd", "--lr=0.01"])
        models["digits"] = Model("mlp", onnx,
                                 os.path.join(work, "digits", "train.npz"),
                                 a.digits_batch, ["--optimizer=sgd", "--lr=0.1"])
    if "transformer" in a.models:
        # examples/models' encoder at a size whose gradients load the link
        # (PyTorch's export in examples/torch has 80 kB of them: the link's
        # 64 KiB burst would carry most of a step's).
        onnx = os.path.join(work, "transformer.onnx")
        data = os.path.join(work, "transformer.npz")
        run([py, os.path.join(ROOT, "examples", "models", "make_models.py"),
             "--kind", "transformer", "--out", onnx, "--dim", "128", "--vocab",
             "2000", "--seq", "32"])
        run([py, os.path.join(ROOT, "examples", "ops", "make_op_data.py"),
             "--model", onnx, "--out", data, "--samples", str(8 * a.tf_batch),
             "--labels", "4", "--int-high", "2000"])
        models["transformer"] = Model("transformer", onnx, data, a.tf_batch,
                                      ["--optimizer=adam", "--lr=0.003"])
    for name in ("gpt",):
        if name not in a.models and "lm" not in a.tasks:
            continue
        d = os.path.join(work, name)
        extra = ["--layers", str(a.gpt_layers)] if name == "gpt" else []
        run([torch_py, os.path.join(ROOT, "examples", "torch",
                                    "make_torch_models.py"), "export", "--model",
             name, "--samples", str(2 * a.batch * (a.acc_steps + 1)),
             "--out-dir", d] + extra)
        # (samples: enough for every step of every run without wrapping)
        flags = ["--optimizer=adam", "--lr=0.003"]
        if name == "gpt":
            flags.append(f"--input-shape=ids:{a.batch}x16")
        models[name] = Model(name, os.path.join(d, name + ".onnx"),
                             lm_task_data(d), a.batch, flags)
    return models


def compile_model(m, out, spec, extra):
    run([COMPILER, m.onnx, "--train", "--quiet", f"--cluster={spec}", "-o", out]
        + m.flags + extra)


def train(exe, m, log, steps, spec=None, env=None):
    flags = [f"--data={m.data}", f"--steps={steps}", f"--batch-size={m.batch}",
             f"--log={log}"]
    if spec:
        run([NETCLUSTER, "run", f"--cluster={spec}", "--quiet", "--", exe]
            + flags, env=env)
    else:
        run([exe] + flags + ["--pin=none"], env=env)


# The share of the LM task's next-token labels drawn at random.
LM_LABEL_NOISE = 0.3


def lm_task_data(export_dir):
    """The LM task's data from make_torch_models.py's export in export_dir:
    the next token is (id + 1) mod 64 but for LM_LABEL_NOISE of the labels,
    drawn at random, so that the loss levels off at the noise's entropy
    instead of going to 0 and relative differences of final losses mean
    something (on the clean task every variant ends near 0). Returns the
    path of the .npz written."""
    arrays = dict(np.load(os.path.join(export_dir, "data.npz")))
    rng = np.random.default_rng(0)
    noisy = rng.random(arrays["labels"].shape) < LM_LABEL_NOISE
    arrays["labels"][noisy] = rng.integers(0, 64, int(noisy.sum()))
    path = os.path.join(export_dir, "noisy.npz")
    np.savez(path, **arrays)
    return path


def final_loss(losses):
    """The final loss of a run: the mean of its last 10 steps' losses."""
    return statistics.mean(list(losses)[-10:])

VARIANTS = {
    "sync": [],
    "stale (auto)": ["--staleness=1", "--stale=auto"],
    "stale (all)": ["--staleness=1"],
}
def compensations(dc_lambda=0.5):
    return {
        "sync": [],
        "stale": ["--staleness=1"],
        "stale + WP": ["--staleness=1", "--compensation=weight_prediction",
                       "--stale-warmup=5"],
        "stale + DC": ["--staleness=1", "--compensation=delay_compensation",
                       f"--dc-lambda={dc_lambda:g}"],
    }


def speed(a, m, work, env, variants=None):
    variants = variants or VARIANTS
    spec = os.path.join(work, f"{m.name}.cluster.yaml")
    write_spec(spec, 1.0)  # for the 1-rank calibration only
    one = os.path.join(work, f"{m.name}.sync.train")
    compile_model(m, one, spec, [])
    # The computation: the synchronous step on the cluster with a fast link
    # (two ranks computing side by side on this machine are slower than one
    # alone, so 1 rank would understate it).
    write_spec(spec, 100.0)
    log = os.path.join(work, f"{m.name}.calib.jsonl")
    train(one, m, log, a.steps, spec=spec, env=env)
    compute = median_step_s(log)
    nbytes = rows(log)[-1]["comm_bytes"]
    # The link's effective rate is below tbf's (TCP, the ring's two phases):
    # measure the synchronous communication at a first guess and scale the
    # rate so that it takes as long as the computation. Measured as one
    # all-reduce of all the step's gradients after the backward pass
    # (--bucket-bytes=0), so that the step's time minus T is the whole
    # communication, not what the buckets leave exposed (a model whose
    # buckets overlap would otherwise get a link on which its gradients take
    # longer than its computation). The programs timed keep their buckets.
    whole = os.path.join(work, f"{m.name}.whole.train")
    compile_model(m, whole, spec, ["--bucket-bytes=0"])
    gbit = nbytes * 8 / compute / 1e9
    for _ in range(2):
        write_spec(spec, gbit)
        probe = os.path.join(work, f"{m.name}.probe.jsonl")
        train(whole, m, probe, a.steps, spec=spec, env=env)
        comm = max(median_step_s(probe) - compute, 0.05 * compute)
        gbit *= comm / compute
    write_spec(spec, gbit)
    # The automatic stale set costs the step at the computation measured
    # above (--step-profile) instead of the nominal rate.
    profile = [f"--step-profile={log}"]
    exes = {}
    for v, flags in variants.items():
        exes[v] = os.path.join(work, f"{m.name}.speed{len(exes)}.train")
        compile_model(m, exes[v], spec,
                      flags + (profile if "--stale=auto" in flags else []))
    explain = run([COMPILER, m.onnx, "--train", f"--cluster={spec}", "--explain",
                   "--staleness=1", "--stale=auto", "--emit=strategy", "-o",
                   os.path.join(work, f"{m.name}.strategy.json")] + profile + m.flags)
    stale_auto = [l.split()[0] for l in explain.splitlines()
                  if l.rstrip().endswith(" yes")]
    synchronous = [l.split()[0] for l in explain.splitlines()
                   if l.rstrip().endswith(" no")]
    times = {v: [] for v in variants}
    for r in range(a.rounds):
        for v in variants:
            k = list(variants).index(v)
            log = os.path.join(work, f"{m.name}.speed{k}.{r}.jsonl")
            train(exes[v], m, log, a.steps, spec=spec, env=env)
            times[v].append(median_step_s(log))
            print(f"  {m.name} round {r + 1}: {v}: {1e3 * times[v][-1]:.2f} ms/step",
                  flush=True)
    med = {v: statistics.median(t) for v, t in times.items()}
    # No schedule makes a step shorter than its gradients' time on the link:
    # stale / sync is at most sync / max(computation, wire).
    wire = nbytes * 8 / (gbit * 1e9)
    return {"compute_ms": 1e3 * compute, "bytes_per_step": nbytes,
            "bandwidth_gbit": gbit, "stale_auto": stale_auto,
            "stale_auto_is_all": not synchronous, "wire_ms": 1e3 * wire,
            "wire_bound": med["sync"] / max(compute, wire),
            "median_step_ms": {v: 1e3 * t for v, t in med.items()},
            "samples_per_s": {v: 2 * m.batch / t for v, t in med.items()},
            "speedup": {v: med["sync"] / t for v, t in med.items()},
            "runs_ms": {v: [1e3 * x for x in t] for v, t in times.items()}}


def accuracy(a, m, work, env, gbit, steps, stale=None, dc_lambda=0.5, sync=None):
    """Trains sync / stale / stale + WP / stale + DC (λ = dc_lambda) on the
    cluster: every parameter stale, or those of `stale`. `sync`, a previous
    result's, saves its synchronous run."""
    spec = os.path.join(work, f"{m.name}.acc.yaml")
    write_spec(spec, gbit)
    curves, final = {}, {}
    only = [] if stale is None else ["--stale=" + ",".join(stale)]
    tag = "all" if stale is None else "subset"
    for v, flags in compensations(dc_lambda).items():
        if v == "sync" and sync is not None:
            curves[v], final[v] = sync["curves"]["sync"], sync["final_loss"]["sync"]
            continue
        exe = os.path.join(work, f"{m.name}.acc-{tag}{len(curves)}.train")
        compile_model(m, exe, spec, flags + (only if flags else []))
        log = os.path.join(work, f"{m.name}.acc-{tag}{len(curves)}.jsonl")
        train(exe, m, log, steps, spec=spec, env=env)
        r = rows(log)
        curves[v] = [(x["step"], x["time_s"], x["loss"]) for x in r]
        final[v] = final_loss(x["loss"] for x in r)
        print(f"  {m.name}: {v}: final loss {final[v]:.4f}", flush=True)
    rel = {v: (final[v] - final["sync"]) / final["sync"] for v in final}
    return {"bandwidth_gbit": gbit, "steps": steps, "dc_lambda": dc_lambda,
            "stale": "all" if stale is None else stale, "final_loss": final,
            "relative_to_sync": rel, "curves": curves}


def plot(task, result, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    for v, c in result["curves"].items():
        ax1.plot([s for s, _, _ in c], [l for _, _, l in c], label=v, lw=1)
        ax2.plot([t for _, t, _ in c], [l for _, _, l in c], label=v, lw=1)
    ax1.set_xlabel("step")
    ax2.set_xlabel("wall-clock time (s)")
    for ax in (ax1, ax2):
        ax.set_ylabel("loss")
        ax.set_yscale("log")
        ax.legend()
    fig.suptitle(f"{task}: 2 emulated nodes at {result['bandwidth_gbit']:.3g} Gbit/s")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--plot":
        with open(sys.argv[3]) as f:
            return plot(sys.argv[2], json.load(f), sys.argv[4])
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default="mlp,transformer,gpt")
    ap.add_argument("--tasks", default="digits,lm")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--acc-steps", type=int, default=300, help="digits")
    ap.add_argument("--lm-steps", type=int, default=150,
                    help="the LM task (its loss levels off at the label "
                         "noise's entropy after ~100 steps)")
    ap.add_argument("--digits-dc-lambda", type=float, default=0.5,
                    help="delay compensation's λ on digits (SGD)")
    ap.add_argument("--lm-dc-lambda", type=float, default=1e4,
                    help="delay compensation's λ on the LM task (Adam: its steps "
                         "are ~lr whatever the gradient's scale, so λ·ḡ⊙ḡ⊙Δw needs a "
                         "large λ; chosen by bench/dc_sweep.py --stale bench)")
    ap.add_argument("--batch", type=int, default=128, help="per rank (GPT)")
    ap.add_argument("--tf-batch", type=int, default=64, help="per rank (Transformer)")
    ap.add_argument("--mlp-batch", type=int, default=2048,
                    help="per rank, speed (random data)")
    ap.add_argument("--digits-batch", type=int, default=128,
                    help="per rank, accuracy (digits: 1437 training samples)")
    ap.add_argument("--mlp-hidden", type=int, default=2048)
    ap.add_argument("--gpt-layers", type=int, default=4)
    ap.add_argument("--out-dir", default=os.path.join(ROOT, "bench", "results"))
    a = ap.parse_args()
    a.models = [m for m in a.models.split(",") if m]
    a.tasks = [t for t in a.tasks.split(",") if t]
    torch_py = os.environ.get("AUTODIST_TORCH_PYTHON",
                              os.path.join(ROOT, "build", "torch-venv", "bin", "python"))
    if not os.path.exists(torch_py):
        sys.exit(f"staleness.py: no interpreter with torch at {torch_py} "
                 "(scripts/setup-torch.sh, or set AUTODIST_TORCH_PYTHON)")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    work = tempfile.mkdtemp(prefix="staleness.")
    print(f"work directory {work}", flush=True)
    models = export_models(a, work, torch_py)
    result = {"machine": platform.node(), "cpus": os.cpu_count(),
              "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
              "rounds": a.rounds, "steps": a.steps, "speed": {}, "accuracy": {}}
    for name in a.models:
        print(f"speed: {name}", flush=True)
        result["speed"][name] = speed(a, models[name], work, env)
    for task, name in (("digits", "mlp"), ("lm", "gpt")):
        if task not in a.tasks:
            continue
        gbit = result["speed"].get(name, {}).get("bandwidth_gbit")
        if gbit is None:
            sys.exit(f"staleness.py: task {task} needs the speed run of {name}")
        m = models["digits" if task == "digits" else name]
        steps = a.acc_steps if task == "digits" else a.lm_steps
        lam = a.digits_dc_lambda if task == "digits" else a.lm_dc_lambda
        sp = result["speed"][name]
        # The automatic stale set (the configuration timed above) and, for
        # contrast, every parameter stale; one run when they are the same.
        accs = {}
        if not sp["stale_auto_is_all"]:
            print(f"accuracy: {task} ({name}), the automatic stale set "
                  f"({len(sp['stale_auto'])} parameters)", flush=True)
            accs["auto"] = accuracy(a, m, work, env, gbit, steps,
                                    stale=sp["stale_auto"], dc_lambda=lam)
        print(f"accuracy: {task} ({name}), every parameter stale", flush=True)
        accs["all"] = accuracy(a, m, work, env, gbit, steps, dc_lambda=lam,
                               sync=accs.get("auto"))
        result["accuracy"][task] = accs
        os.makedirs(a.out_dir, exist_ok=True)
        for stale_set, acc in accs.items():
            # matplotlib is Debian's (scripts/setup-torch.sh), in the torch venv.
            curves = os.path.join(work, f"{task}-{stale_set}.curves.json")
            with open(curves, "w") as f:
                json.dump(acc, f)
            label = (f"{task}, {len(sp['stale_auto'])} stale parameters (auto)"
                     if stale_set == "auto" else f"{task}, every parameter stale")
            run([torch_py, os.path.abspath(__file__), "--plot", label, curves,
                 os.path.join(a.out_dir, f"staleness-{task}-{stale_set}.png")])
    result["load_average"] = os.getloadavg()
    os.makedirs(a.out_dir, exist_ok=True)
    with open(os.path.join(a.out_dir, "staleness.json"), "w") as f:
        json.dump(result, f, indent=1)
    lines = ["Speed: 2 emulated nodes x 1 rank; the link set so that synchronous "
             "communication (one all-reduce of the step's gradients) ~ computation; median of "
             f"{a.rounds} rounds of the median step over {a.steps} steps.", "",
             "| model | computation (ms) | bytes/step | link (Gbit/s) | wire (ms) | sync (ms) | "
             "stale auto (ms) | stale all (ms) | auto / sync | all / sync | wire bound | "
             "auto set |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, s in result["speed"].items():
        t = s["median_step_ms"]
        lines.append(
            f"| {name} | {s['compute_ms']:.2f} | {s['bytes_per_step']} | "
            f"{s['bandwidth_gbit']:.3g} | {s['wire_ms']:.2f} | {t['sync']:.2f} | "
            f"{t['stale (auto)']:.2f} | {t['stale (all)']:.2f} | "
            f"{s['speedup']['stale (auto)']:.2f}x | {s['speedup']['stale (all)']:.2f}x | "
            f"{s['wire_bound']:.2f}x | {len(s['stale_auto'])} params |")
    if result["accuracy"]:
        lines += ["", "Accuracy: final loss (mean of the last 10 steps) with the "
                  "automatic stale set (the configuration timed above) and with every "
                  "parameter stale; WP after 5 synchronous steps, DC with none.", "",
                  "| task | steps | stale set | DC λ | sync | stale | stale + WP | stale + DC |",
                  "|---|---|---|---|---|---|---|---|"]
        for task, accs in result["accuracy"].items():
            for stale_set, acc in accs.items():
                f_, r_ = acc["final_loss"], acc["relative_to_sync"]
                cells = " | ".join(f"{f_[v]:.4f} ({100 * r_[v]:+.2f}%)"
                                   for v in ("stale", "stale + WP", "stale + DC"))
                what = (f"auto ({len(acc['stale'])} params)" if stale_set == "auto"
                        else "all" + (" (= auto)" if len(accs) == 1 else ""))
                lines.append(f"| {task} | {acc['steps']} | {what} | {acc['dc_lambda']:g} | "
                             f"{f_['sync']:.4f} | {cells} |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(a.out_dir, "staleness.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
