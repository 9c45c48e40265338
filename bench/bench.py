#!/usr/bin/env python3
"""AutoDist-MLIR vs PyTorch DDP (gloo) training throughput on this machine.

Usually run through bench/run.sh (see bench/README.md). For each workload
MODEL:B (--workloads; MODEL mlp, cnn, resnet18, transformer or gpt, B the
per-rank batch):

1. writes the ONNX model (bench/make_mlp.py, examples/models/make_models.py;
   resnet18 and gpt: exported from examples/torch/torch_models.py by
   examples/torch/make_torch_models.py) and synthetic data (.npz),
2. compiles it: autodist-compile M.onnx --train --loss=cross_entropy
   --optimizer=sgd --lr=0.01 --strategy=allreduce -o M.train --quiet,
3. runs, alternating, after one discarded warm-up round, R measured rounds of
     ours: mpirun -np 2 M.train --data=D --steps=S --batch-size=B --log=...
     ddp:  mpirun -np 2 /usr/bin/python3 bench/ddp_onnx.py (same model, same
           initial weights, same batches, SGD, DDP over gloo; for resnet18
           and gpt bench/ddp_torch.py trains the PyTorch module itself)
   both with OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 (and
   torch.set_num_threads(1)), each rank under /usr/bin/time -f %M (peak RSS);
   --mpirun-flags adds launcher flags to every arm, --pin-arms arms of ours
   run with --pin=VALUE,
4. reads the JSONL step logs (rank 0; same format for both) and computes the
   throughput of each run over steps W+1..S (warm-up steps skipped):
   B*ranks*(S-W) / (time_s[S] - time_s[W]),
5. measures single-thread OpenBLAS sgemm (bench/sgemm_peak.c), alone and two
   processes at once, before and after the runs, and
6. writes results.json and results.md.
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
RANKS = 2
THREAD_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
              "MKL_NUM_THREADS": "1"}
# Diagnostic arm: the same executable with glibc malloc told to keep large
# blocks instead of mmap/munmap-ing them every step (see README).
MALLOC_ENV = {"MALLOC_MMAP_THRESHOLD_": "4294967296",
              "MALLOC_TRIM_THRESHOLD_": "4294967296",
              "MALLOC_TOP_PAD_": "268435456"}


def log(msg):
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def run(cmd, env=None, timeout=600, **kw):
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run(cmd, env=e, timeout=timeout, capture_output=True,
                       text=True, **kw)
    if p.returncode != 0:
        raise RuntimeError(f"command failed ({p.returncode}): {' '.join(cmd)}\n"
                           f"{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    return p


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_busy_s():
    """(all CPUs' busy seconds from /proc/stat, our children's CPU seconds)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    busy = sum(v[:8]) - v[3] - v[4]  # all but idle and iowait
    t = os.times()
    return busy / os.sysconf("SC_CLK_TCK"), t.children_user + t.children_system


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(v) for v in f.read().split()[:3]]


# ---------------------------------------------------------------- sgemm peak

def build_sgemm(work):
    exe = os.path.join(work, "sgemm_peak")
    run(["cc", "-O2", os.path.join(BENCH, "sgemm_peak.c"),
         "-I/usr/include/x86_64-linux-gnu/openblas-pthread", "-lopenblas",
         "-o", exe])
    return exe


def sgemm_peak(exe, n=1024, seconds=2.0):
    """Best single-thread sgemm GFLOP/s: one process alone, and the sum of
    RANKS processes running at the same time (what the ranks can get)."""
    env = dict(os.environ, **THREAD_ENV)
    alone = json.loads(subprocess.run([exe, str(n), str(seconds)], env=env,
                                      check=True, capture_output=True,
                                      text=True).stdout)
    procs = [subprocess.Popen([exe, str(n), str(seconds)], env=env,
                              stdout=subprocess.PIPE, text=True)
             for _ in range(RANKS)]
    together = [json.loads(p.communicate()[0]) for p in procs]
    return {"n": n, "alone_gflops": alone["gflops_best"],
            "alone_gflops_median": alone["gflops_median"],
            "concurrent_gflops_each": [t["gflops_best"] for t in together],
            "concurrent_gflops_sum": sum(t["gflops_best"] for t in together)}


def openblas_core(exe):
    env = dict(os.environ, OPENBLAS_VERBOSE="2", **THREAD_ENV)
    p = subprocess.run([exe, "64", "0.01"], env=env, capture_output=True,
                       text=True)
    for line in (p.stdout + p.stderr).splitlines():
        if "Core:" in line:
            return line.split("Core:")[1].strip()
    return None


# ---------------------------------------------------------------- workloads

def model_info(path, fixed_dims=None):
    """Parameters, input specs and training FLOPs per sample of an ONNX model.

    FLOPs count the matmul-like ops only (Gemm, MatMul, Conv; shapes from ONNX
    shape inference at batch 1): forward F per op, weight/operand gradient F,
    and input gradient F unless the op reads a model input directly (neither
    side computes d/dx of the data). So 3F per op, 2F for the first layer.
    Bias, activations, norms, softmax and the SGD update are left out."""
    import onnx
    from onnx import numpy_helper, shape_inference
    m = onnx.load(path)
    inputs = {}
    for i in m.graph.input:
        if fixed_dims and i.name in fixed_dims:  # symbolic dims given
            for d, v in zip(i.type.tensor_type.shape.dim, fixed_dims[i.name]):
                d.dim_value = v
        dims = [d.dim_value for d in i.type.tensor_type.shape.dim]
        inputs[i.name] = {"shape": dims[1:],
                          "elem_type": i.type.tensor_type.elem_type}
        i.type.tensor_type.shape.dim[0].dim_value = 1  # batch 1
    m = shape_inference.infer_shapes(m)
    shapes = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim]
              for v in list(m.graph.value_info) + list(m.graph.input) +
              list(m.graph.output)}
    inits = {t.name: list(t.dims) for t in m.graph.initializer}
    shapes.update(inits)
    params = sum(int(np.prod(t.dims)) for t in m.graph.initializer
                 if t.data_type == onnx.TensorProto.FLOAT)
    flops = 0
    for n in m.graph.node:
        out = shapes.get(n.output[0])
        if n.op_type == "Gemm":
            attrs = {a.name: onnx.helper.get_attribute_value(a)
                     for a in n.attribute}
            a_shape = shapes[n.input[0]]
            k = a_shape[0] if attrs.get("transA", 0) else a_shape[1]
            f = 2 * int(np.prod(out)) * k
        elif n.op_type == "MatMul":
            f = 2 * int(np.prod(out)) * shapes[n.input[0]][-1]
        elif n.op_type == "Conv":
            w = shapes[n.input[1]]  # [Cout, Cin/group, kh, kw]
            f = 2 * int(np.prod(out)) * int(np.prod(w[1:]))
        else:
            continue
        flops += (2 if n.input[0] in inputs else 3) * f
    # Index range of integer inputs used as Gather indices (token ids).
    for n in m.graph.node:
        if n.op_type == "Gather" and n.input[1] in inputs:
            inputs[n.input[1]]["high"] = inits[n.input[0]][0]
    classes = shapes[m.graph.output[0].name][-1]
    return {"params": params, "flops_per_sample": flops, "inputs": inputs,
            "classes": classes}


def make_data(path, info, samples, seed=1):
    """Synthetic data: standard normal floats, uniform token ids and labels."""
    rng = np.random.default_rng(seed)
    arrays = {}
    for name, spec in info["inputs"].items():
        shape = [samples] + spec["shape"]
        if spec["elem_type"] == 1:  # FLOAT
            arrays[name] = rng.standard_normal(shape).astype(np.float32)
        else:
            arrays[name] = rng.integers(0, spec.get("high", 2), shape).astype(
                np.int64)
    arrays["labels"] = rng.integers(0, info["classes"], samples).astype(
        np.int64)
    np.savez(path, **arrays)


def read_log(path):
    steps, extra = [], {}
    with open(path) as f:
        for line in f:
            obj = json.loads(line)
            if "step" in obj:
                steps.append(obj)
            else:
                extra.update(obj)
    return steps, extra


def window_throughput(steps, warmup, global_batch):
    """Global samples/s over steps warmup+1..S from the cumulative time_s."""
    t0 = steps[warmup - 1]["time_s"] if warmup > 0 else 0.0
    t1 = steps[-1]["time_s"]
    return global_batch * (len(steps) - warmup) / (t1 - t0)


def rss_wrapped(prefix, cmd):
    """Each rank runs under /usr/bin/time, writing its peak RSS (KiB,
    getrusage ru_maxrss of the rank process) to PREFIX.<rank>."""
    return ["sh", "-c", 'p="$1"; shift; '
            'exec /usr/bin/time -f %M -o "$p.$OMPI_COMM_WORLD_RANK" "$@"',
            "sh", prefix] + cmd


def read_rss(prefix):
    out = []
    for r in range(RANKS):
        with open(f"{prefix}.{r}") as f:
            lines = [l for l in f.read().splitlines() if l.strip()]
        out.append(int(lines[-1]) / 1024.0)  # MiB
    return out


def mpirun(extra_env, flags=()):
    cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", *flags, "-np",
           str(RANKS)]
    for k in extra_env:
        cmd += ["-x", k]
    return cmd


def run_arm(arm, wl, work, tag, args):
    logf = os.path.join(work, f"{wl['name']}.{arm}.{tag}.jsonl")
    rss = os.path.join(work, f"{wl['name']}.{arm}.{tag}.rss")
    env = dict(THREAD_ENV)
    if arm.startswith("ours"):
        if arm == "ours_malloc":
            env.update(MALLOC_ENV)
        exe = wl["baseline_exe"] if arm == "ours_baseline" else wl["exe"]
        prog = [exe, f"--data={wl['data']}", f"--steps={wl['steps']}",
                f"--batch-size={wl['batch']}", f"--log={logf}"]
        if arm.startswith("ours_pin_"):
            prog.append(f"--pin={arm[len('ours_pin_'):]}")
    else:
        env.update({"MASTER_ADDR": "127.0.0.1",
                    "MASTER_PORT": str(free_port())})
        twin = (["ddp_torch.py", "--model", wl["torch_model"]]
                if wl.get("torch_model") else ["ddp_onnx.py", "--onnx", wl["onnx"]])
        prog = [args.torch_python, os.path.join(BENCH, twin[0])] + twin[1:] + [
                "--data", wl["data"], "--steps",
                str(wl["steps"]), "--batch-size", str(wl["batch"]), "--lr",
                "0.01", "--log", logf]
    la = loadavg()
    busy0, own0 = cpu_busy_s()
    t = time.perf_counter()
    run(mpirun(env, args.mpirun_flags.split()) + rss_wrapped(rss, prog),
        env=env)
    wall = time.perf_counter() - t
    busy1, own1 = cpu_busy_s()
    # CPU used by processes that are not ours, as a share of all cores.
    other = max(0.0, (busy1 - busy0) - (own1 - own0)) / (wall * os.cpu_count())
    steps, extra = read_log(logf)
    if len(steps) != wl["steps"]:
        raise RuntimeError(f"{logf}: {len(steps)} steps logged, "
                           f"expected {wl['steps']}")
    gb = wl["batch"] * RANKS
    per_step = [s["samples_per_s"] for s in steps[args.warmup_steps:]]
    return {"samples_per_s": window_throughput(steps, args.warmup_steps, gb),
            "step_samples_per_s_median": statistics.median(per_step),
            "peak_rss_mib": read_rss(rss), "wall_s": wall,
            "loadavg_before": la, "other_cpu_share": other,
            "first_losses": ([s["loss"] for s in steps[:5]] if arm != "ddp"
                             else extra.get("global_losses"))}


def summarize(runs):
    v = [r["samples_per_s"] for r in runs]
    rss = [max(r["peak_rss_mib"]) for r in runs]
    return {"samples_per_s_median": statistics.median(v),
            "samples_per_s_min": min(v), "samples_per_s_max": max(v),
            "samples_per_s_runs": v,
            "peak_rss_mib_max_rank_median": statistics.median(rss),
            "peak_rss_mib_per_rank_runs": [r["peak_rss_mib"] for r in runs]}


# Workloads exported from the PyTorch modules of examples/torch/torch_models.py
# (the DDP arm trains the module itself, bench/ddp_torch.py): name, export
# flags, compile flags (the GPT's sequence dim is fixed; its batch too, since
# its shape arithmetic is folded at import), description.
TORCH_KINDS = {
    "resnet18": ("resnet18", ["--training"], lambda b: [],
                 "torchvision ResNet-18 (10 classes, x[3,32,32], exported in "
                 "training mode: 20 BatchNormalization kept)"),
    "gpt": ("gpt", [], lambda b: [f"--input-shape=ids:{b}x16"],
            "GPT-style decoder (examples/torch/torch_models.py: 2 pre-LN "
            "blocks, d=32, 4 heads, seq 16, vocab 64, tied head; loss over "
            "tokens)"),
}


def compile_model(compiler, onnx_path, exe, extra_flags, args):
    """autodist-compile ONNX -> training executable with the bench's flags."""
    return subprocess.run([compiler, onnx_path, "--train",
                           "--loss=cross_entropy", "--optimizer=sgd",
                           "--lr=0.01", "--strategy=allreduce", "-o", exe,
                           "--quiet"] + extra_flags +
                          args.compile_flags.split(),
                          capture_output=True, text=True)


def prepare_model(kind, work, args, batch=None):
    """Writes the ONNX model of a workload kind and compiles it. Returns
    {name, onnx, exe, info, description, compile_s} or {name, error} when
    autodist-compile --train rejects it. Torch kinds also write their data
    (`data`, the export's samples) and name the module (`torch_model`)."""
    extra_flags, torch_model = [], None
    if kind in TORCH_KINDS:
        torch_model, export_flags, flags, desc = TORCH_KINDS[kind]
        name = f"{kind}-b{batch}"
        out = os.path.join(work, name)
        run([args.torch_python, os.path.join(ROOT, "examples", "torch",
                                             "make_torch_models.py"),
             "export", "--model", torch_model, "--opset", "14", "--out-dir", out,
             "--samples", str(batch * RANKS * 8)] + export_flags)
        path = os.path.join(out, f"{torch_model}.onnx")
        extra_flags = flags(batch)
        gen = None
    elif kind == "mlp":
        hidden = [int(h) for h in args.mlp_hidden.split(",") if h]
        dims = [args.mlp_in] + hidden + [args.mlp_classes]
        name = "mlp-" + "-".join(str(d) for d in dims)
        gen = [os.path.join(BENCH, "make_mlp.py"), "--in", str(args.mlp_in),
               "--hidden", args.mlp_hidden, "--classes", str(args.mlp_classes)]
        desc = (f"MLP {dims} (bench/make_mlp.py: Gemm+Relu, torch export "
                "style)")
    elif kind == "cnn":
        name = "lenet"
        gen = [os.path.join(ROOT, "examples", "models", "make_models.py"),
               "--kind", "cnn"]
        desc = ("LeNet CNN (examples/models/make_models.py --kind cnn: "
                "x[1,28,28], Conv 6 5x5 pad 2, MaxPool, Conv 16 5x5, MaxPool, "
                "Gemm 120, Gemm 10)")
    elif kind == "transformer":
        name = f"transformer-d{args.tf_dim}-s{args.tf_seq}"
        gen = [os.path.join(ROOT, "examples", "models", "make_models.py"),
               "--kind", "transformer", "--dim", str(args.tf_dim), "--seq",
               str(args.tf_seq), "--vocab", str(args.tf_vocab)]
        desc = (f"one Transformer encoder block (examples/models/"
                f"make_models.py --kind transformer --dim {args.tf_dim} --seq "
                f"{args.tf_seq} --vocab {args.tf_vocab}: 2 heads, MLP 2x, mean "
                "pool, 4 classes)")
    else:
        sys.exit(f"bench.py: error: unknown workload model {kind!r}")
    if gen:
        path = os.path.join(work, f"{name}.onnx")
        run([sys.executable] + gen + ["--out", path])
    exe = os.path.join(work, f"{name}.train")
    t = time.perf_counter()
    p = compile_model(args.compiler, path, exe, extra_flags, args)
    compile_s = time.perf_counter() - t
    if p.returncode != 0:
        msg = (p.stderr.strip().splitlines() or ["(no message)"])[-1]
        msg = msg.replace("autodist-compile: error: ", "").replace(
            path + ": ", "")
        log(f"skipping {name}: autodist-compile --train fails: {msg}")
        return {"name": name, "error": f"autodist-compile --train fails: {msg}"}
    log(f"compiled {name} in {compile_s:.1f}s")
    baseline_exe = None
    if args.baseline_compiler:
        baseline_exe = os.path.join(work, f"{name}.baseline.train")
        p = compile_model(args.baseline_compiler, path, baseline_exe,
                          extra_flags, args)
        if p.returncode != 0:
            sys.exit(f"bench.py: error: the baseline compiler fails on "
                     f"{name}: {p.stderr.strip()[-2000:]}")
    fixed = {"ids": [batch, 16]} if kind == "gpt" else None
    m = {"name": name, "onnx": path, "exe": exe,
         "info": model_info(path, fixed), "description": desc,
         "compile_s": compile_s, "baseline_exe": baseline_exe}
    if torch_model:
        m["torch_model"] = torch_model
        m["data"] = os.path.join(os.path.dirname(path), "data.npz")
    return m


# ---------------------------------------------------------------- report

def fmt(x, nd=0):
    return f"{x:,.{nd}f}"


def write_md(res, path):
    env = res["environment"]
    pk = res["sgemm_peak"]
    L = []
    L.append("# AutoDist-MLIR vs PyTorch DDP: training throughput\n")
    L.append(f"Measured {res['date']} on `{env['cpu']}`, {env['nproc']} cores "
             f"(`nproc`), {RANKS} ranks, 1 thread per rank; commit "
             f"`{env['git_commit']}`. Load average before/after: "
             f"{env['loadavg_start']} / {env['loadavg_end']}.\n")
    L.append(f"OPENBLAS_CORETYPE: `{env['OPENBLAS_CORETYPE']}`; OpenBLAS core "
             f"in use: `{env['openblas_core']}`. torch {env['torch_version']} "
             f"(gloo). {res['config']['rounds']} measured rounds (+1 warm-up "
             f"round), arms alternated; {res['config']['steps']} steps per run, "
             f"first {res['config']['warmup_steps']} skipped.\n")
    if res["config"].get("mpirun_flags"):
        L.append(f"Extra mpirun flags for every arm: "
                 f"`{res['config']['mpirun_flags']}`.\n")
    L.append("sgemm peak (single-thread OpenBLAS, n="
             f"{pk['n']}, best call, GFLOP/s): {fmt(pk['alone_gflops'], 1)} "
             f"alone; the fraction-of-peak column divides by {RANKS} x that = "
             f"{fmt(pk['ranks_x_alone'], 1)}. ({RANKS} processes at once "
             f"measured {[round(x, 1) for x in pk['concurrent_gflops_each']]}.)\n")
    other = [r["other_cpu_share"] for w in res["workloads"]
             for a in w["arms"].values() for r in a["runs"]]
    med = statistics.median(other) if other else 0.0
    L.append(f"CPU used by other processes during the runs (share of all "
             f"{env['nproc']} cores, from /proc/stat minus our own processes): "
             f"median {100 * med:.0f}%, max {100 * max(other or [0]):.0f}%.\n")
    if med > 0.1:
        L.append("**Warning: other processes competed for the cores during "
                 "this run, so absolute figures are low and noisy; the "
                 "alternation spreads that noise over the arms.**\n")
    L.append("| model | batch/rank | arm | samples/s median | min | max | "
             "ours/DDP | peak RSS/rank (MiB) | training GFLOP/s | of sgemm peak |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    for w in res["workloads"]:
        d = w["arms"]["ddp"]["samples_per_s_median"]
        for arm, s in w["arms"].items():
            label = {"ours": "AutoDist (ours)", "ddp": "PyTorch DDP",
                     "ours_malloc": "ours + malloc env (diagnostic)",
                     "ours_baseline": "ours, baseline compiler"}.get(
                         arm, f"ours, --pin={arm[len('ours_pin_'):]}")
            L.append(f"| {w['name']} | {w['batch']} | {label} | "
                     f"{fmt(s['samples_per_s_median'])} | "
                     f"{fmt(s['samples_per_s_min'])} | "
                     f"{fmt(s['samples_per_s_max'])} | "
                     f"{s['samples_per_s_median'] / d:.2f} | "
                     f"{fmt(s['peak_rss_mib_max_rank_median'], 1)} | "
                     f"{fmt(s['train_gflops'], 1)} | "
                     f"{100 * s['fraction_of_peak']:.1f}% |")
    L.append("")
    if res.get("geomean_ratio"):
        L.append(f"Geometric mean of ours/DDP over the {len(res['workloads'])} "
                 f"workloads: **{res['geomean_ratio']:.2f}x**.\n")
    for w in res["workloads"]:
        L.append(f"- {w['name']} B={w['batch']}: {w['description']}; "
                 f"{w['params']:,} params, {w['flops_per_sample'] / 1e6:.1f} "
                 f"MFLOP/sample; first-step global loss ours "
                 f"{w['loss_check']['ours']:.6f} vs DDP "
                 f"{w['loss_check']['ddp']:.6f} (max |diff| over 5 steps "
                 f"{w['loss_check']['max_abs_diff']:.2e}).")
    for k, v in res["skipped"].items():
        L.append(f"- not benchmarked: {k}: {v}")
    L.append(f"- compile time (autodist-compile --train): " + ", ".join(
        sorted({f"{w['name']} {w['compile_s']:.1f}s" for w in res["workloads"]})))
    L.append("\nSamples/s: global samples over the timed steps of one run "
             "(rank 0's clock); peak RSS: /usr/bin/time %M of each rank "
             "process, the larger rank, median over runs. See bench/README.md.")
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out-dir", default=os.path.join(BENCH, "results"))
    ap.add_argument("--work-dir", default="",
                    help="scratch dir (default: a temporary dir, removed)")
    ap.add_argument("--compiler", default=os.path.join(ROOT, "build", "bin",
                                                       "autodist-compile"))
    ap.add_argument("--baseline-compiler", default="",
                    help="also compile every workload with this "
                         "autodist-compile and run it as the arm "
                         "ours_baseline, interleaved with the others (A/B "
                         "of two compilers under the same load)")
    ap.add_argument("--compile-flags", default="",
                    help="extra autodist-compile flags, space-separated "
                         "(e.g. --bucket-bytes=0)")
    ap.add_argument("--torch-python", default=os.environ.get(
        "AUTODIST_TORCH_PYTHON", "/usr/bin/python3"))
    ap.add_argument("--workloads",
                    default="mlp:128,cnn:64,resnet18:16,transformer:16,gpt:16",
                    help="comma-separated MODEL:BATCH (per-rank batch); MODEL "
                         "is mlp, cnn, resnet18, transformer or gpt (default "
                         "mlp:128,cnn:64,resnet18:16,transformer:16,gpt:16)")
    ap.add_argument("--mlp-in", type=int, default=784)
    ap.add_argument("--mlp-hidden", default="1024,1024,1024")
    ap.add_argument("--mlp-classes", type=int, default=10)
    ap.add_argument("--tf-dim", type=int, default=128)
    ap.add_argument("--tf-seq", type=int, default=32)
    ap.add_argument("--tf-vocab", type=int, default=1000)
    ap.add_argument("--steps", type=int, default=40,
                    help="steps per run (default 40)")
    ap.add_argument("--warmup-steps", type=int, default=10,
                    help="first steps of each run left out (default 10)")
    ap.add_argument("--rounds", type=int, default=5,
                    help="measured rounds after the warm-up round (default 5)")
    ap.add_argument("--malloc-arm", default="mlp:128",
                    help="workloads that also get the diagnostic ours+malloc-"
                         "env arm (default mlp:128; '' for none)")
    ap.add_argument("--mpirun-flags", default="",
                    help="extra mpirun flags for every arm, space-separated "
                         "(e.g. '--bind-to none': no binding by the launcher)")
    ap.add_argument("--pin-arms", default="",
                    help="comma-separated --pin values (auto, cores, none); "
                         "each adds the arm ours_pin_VALUE: the same "
                         "executable run with --pin=VALUE")
    args = ap.parse_args()

    for tool in ("mpirun", "cc", "/usr/bin/time", args.compiler,
                 args.torch_python) + ((args.baseline_compiler,)
                                       if args.baseline_compiler else ()):
        if not shutil.which(tool):
            sys.exit(f"bench.py: error: {tool} not found")
    os.makedirs(args.out_dir, exist_ok=True)
    work = args.work_dir or tempfile.mkdtemp(prefix="autodist-bench-")
    os.makedirs(work, exist_ok=True)
    malloc_arm = {w for w in args.malloc_arm.split(",") if w}
    t_start = time.perf_counter()

    torch_version = run([args.torch_python, "-c",
                         "import torch; print(torch.__version__)"]).stdout.strip()
    git = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain",
                            "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    git += " (+ uncommitted changes)" if dirty else ""
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                if l.startswith("model name")), platform.processor())
    env_info = {"cpu": cpu, "nproc": os.cpu_count(), "git_commit": git,
                "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE",
                                                    "(unset)"),
                "torch_version": torch_version, "loadavg_start": loadavg(),
                "mpirun": run(["mpirun", "--version"]).stdout.splitlines()[0]}

    log("building and running the sgemm microbenchmark")
    sg = build_sgemm(work)
    env_info["openblas_core"] = openblas_core(sg)
    peak_before = sgemm_peak(sg)
    log(f"sgemm: alone {peak_before['alone_gflops']:.1f} GFLOP/s, "
        f"{RANKS} at once {peak_before['concurrent_gflops_sum']:.1f} in total")

    models, workloads = {}, []
    for spec in [w for w in args.workloads.split(",") if w]:
        kind, batch = spec.split(":")
        batch = int(batch)
        key = spec if kind in TORCH_KINDS else kind  # torch kinds: per batch
        if key not in models:
            models[key] = prepare_model(kind, work, args, batch)
        m = models[key]
        if "error" in m:
            continue
        data = m.get("data")
        if not data:
            data = os.path.join(work, f"{m['name']}.b{batch}.npz")
            make_data(data, m["info"], batch * RANKS * 8)
        arms = ["ours", "ddp"] + (["ours_malloc"] if spec in malloc_arm else [])
        if m["baseline_exe"]:
            arms.append("ours_baseline")
        arms += [f"ours_pin_{p}" for p in args.pin_arms.split(",") if p]
        wl = {"name": m["name"], "batch": batch, "onnx": m["onnx"],
              "exe": m["exe"], "baseline_exe": m["baseline_exe"],
              "data": data, "steps": args.steps,
              "torch_model": m.get("torch_model")}
        runs = {a: [] for a in arms}
        for rnd in range(args.rounds + 1):  # round 0: warm-up, discarded
            order = arms if rnd % 2 == 0 else arms[::-1]
            for arm in order:
                r = run_arm(arm, wl, work, f"r{rnd}", args)
                log(f"{spec} round {rnd}{' (warm-up)' if rnd == 0 else ''} "
                    f"{arm}: {r['samples_per_s']:.0f} samples/s, peak RSS "
                    f"{[round(x) for x in r['peak_rss_mib']]} MiB, other CPU "
                    f"{100 * r['other_cpu_share']:.0f}%")
                if rnd > 0:
                    runs[arm].append(r)
        workloads.append({"name": m["name"], "kind": kind, "batch": batch,
                          "runs": runs, "description": m["description"],
                          "params": m["info"]["params"],
                          "flops_per_sample": m["info"]["flops_per_sample"],
                          "compile_s": m["compile_s"]})

    peak_after = sgemm_peak(sg)
    log(f"sgemm after: alone {peak_after['alone_gflops']:.1f}, "
        f"{RANKS} at once {peak_after['concurrent_gflops_sum']:.1f}")
    peak = {"n": peak_before["n"], "before": peak_before, "after": peak_after}
    for k in ("alone_gflops", "concurrent_gflops_sum"):
        peak[k] = max(peak_before[k], peak_after[k])
    peak["ranks_x_alone"] = RANKS * peak["alone_gflops"]
    peak["concurrent_gflops_each"] = max(
        (peak_before, peak_after),
        key=lambda p: p["concurrent_gflops_sum"])["concurrent_gflops_each"]
    env_info["loadavg_end"] = loadavg()

    for w in workloads:
        w["arms"] = {}
        for arm, rs in w.pop("runs").items():
            s = summarize(rs)
            s["train_gflops"] = (s["samples_per_s_median"] *
                                 w["flops_per_sample"] / 1e9)
            s["fraction_of_peak"] = s["train_gflops"] / peak["ranks_x_alone"]
            s["runs"] = rs
            w["arms"][arm] = s
        ours = w["arms"]["ours"]["runs"][0]["first_losses"]
        ddp = w["arms"]["ddp"]["runs"][0]["first_losses"]
        w["loss_check"] = {"ours": ours[0], "ddp": ddp[0],
                           "max_abs_diff": max(abs(a - b)
                                               for a, b in zip(ours, ddp))}
        w["ratio_ours_over_ddp"] = (w["arms"]["ours"]["samples_per_s_median"] /
                                    w["arms"]["ddp"]["samples_per_s_median"])

    ratios = [w["ratio_ours_over_ddp"] for w in workloads]
    geomean = (float(np.exp(np.mean(np.log(ratios)))) if ratios else None)
    res = {"date": datetime.datetime.now().isoformat(timespec="seconds"),
           "geomean_ratio": geomean,
           "environment": env_info, "sgemm_peak": peak,
           "config": {"ranks": RANKS, "steps": args.steps,
                      "warmup_steps": args.warmup_steps,
                      "rounds": args.rounds, "workloads": args.workloads,
                      "mpirun_flags": args.mpirun_flags,
                      "thread_env": THREAD_ENV, "malloc_env": MALLOC_ENV,
                      "compile_cmd": "autodist-compile M.onnx --train "
                      "--loss=cross_entropy --optimizer=sgd --lr=0.01 "
                      "--strategy=allreduce -o M.train --quiet" +
                      (" " + args.compile_flags if args.compile_flags
                       else "")},
           "skipped": {m["name"]: m["error"] for m in models.values()
                       if "error" in m},
           "workloads": workloads,
           "total_s": time.perf_counter() - t_start}
    with open(os.path.join(args.out_dir, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    write_md(res, os.path.join(args.out_dir, "results.md"))
    if not args.work_dir:
        shutil.rmtree(work, ignore_errors=True)
    log(f"done in {res['total_s']:.0f}s: {args.out_dir}/results.md")
    with open(os.path.join(args.out_dir, "results.md")) as f:
        print(f.read())


if __name__ == "__main__":
    main()
