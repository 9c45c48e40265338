#!/usr/bin/env python3
"""Delay compensation on the staleness bench's LM task: an independent
PyTorch implementation of the staleness-1 rule, swept over every delay
compensation SAPipe's code and DC-ASGD define, and checked against the
compiled programs.

The task is bench/staleness.py's: the GPT-style decoder of
examples/torch/torch_models.py (--layers blocks, the weights of its ONNX
export), next token = (id + 1) mod 64 with 30% of the labels random, Adam at
lr 0.003, the global batch (256) on one rank (the stale rule does not depend
on the rank count), --steps steps; the final loss is the mean of the last 10
steps' losses.

The rule (docs/strategies.md): step t computes g_t at w_t and applies the
corrected g_{t-1}: w_{t+1} = Opt(w_t, g~), g~ = g_{t-1} + C, with
dw = w_t - w_{t-1}, per parameter tensor:

    dc                  C = lam * g*g*dw                      (SAPipe, DC-ASGD)
    dc_adaptive         C = lam * g*g*dw / sqrt(g*g + 1e-7)   (SAPipe)
    dc_outerprod        C = lam * <g, dw> * g                 (SAPipe)
    outerprod_adaptive  C = lam * <g, dw> / sqrt(|g|^2 + 1e-7) * g  (SAPipe)
    dcasgd_a            C = lam * g*g*dw / sqrt(MS), MS = 0.95*MS + 0.05*g*g
                        (DC-ASGD's adaptive form)
    fisher              C = lam * v^ * dw, v^ = Adam's bias-corrected second
                        moment (the Fisher diagonal of the batch mean;
                        lam ~ the batch size; not published, tried here)

The first two are what autodist-compile implements (--dc-variant). With
--stale, only the parameters named are stale (the others apply this step's
gradient, as --stale=NAME,... compiles); `--stale bench` takes the automatic
stale set of the last bench/staleness.py run, the configuration it times.
With --check, the synchronous, stale and compiled dc / dc_adaptive programs
are trained on the same data and their final losses compared with this
implementation's (the two are independent: this one never reads our IR).

    python3 bench/dc_sweep.py [--steps 150] [--jobs 2] [--check]
        [--init torch|gpt2] [--warmup W] [--stale all|bench|NAME,...]
        [--sweep VARIANT:LAM,LAM,...]...

Needs torch (AUTODIST_TORCH_PYTHON, default build/torch-venv/bin/python;
the script re-runs itself with it) and, for --check, build/bin. Writes
bench/results/dc-sweep[-init-gpt2][-warmup-W][-stale-bench|-stale-list].{json,md}
(--out-dir).
"""
import argparse
import concurrent.futures
import json
import os
import sys
import tempfile

import numpy as np

from staleness import COMPILER, ROOT, final_loss, lm_task_data, rows, run

VOCAB = 64

VARIANTS = ["dc", "dc_adaptive", "dc_outerprod", "outerprod_adaptive", "dcasgd_a",
            "fisher"]
# Each up to (or past) the lambda where training diverges on the bench's task.
DEFAULT_SWEEP = [
    "dc:0.5,100,1e4,1e5",
    "dc_adaptive:32,100,300,1000",
    "dc_outerprod:1,10,100",
    "outerprod_adaptive:0.1,1,3,10,30",
    "dcasgd_a:1,10,100,300,1000",
    "fisher:256,1024,2048",
]


def correction(variant, lam, g, dw, state):
    import torch
    if variant == "dc":
        return lam * g * g * dw
    if variant == "dc_adaptive":
        return lam * g * g * dw / torch.sqrt(g * g + 1e-7)
    if variant == "dc_outerprod":
        return lam * (g * dw).sum() * g
    if variant == "outerprod_adaptive":
        return lam * (g * dw).sum() / torch.sqrt((g * g).sum() + 1e-7) * g
    if variant == "dcasgd_a":
        ms = state.get("ms")
        ms = g * g if ms is None else 0.95 * ms + 0.05 * g * g
        state["ms"] = ms
        return lam * g * g * dw / torch.sqrt(ms + 1e-7)
    if variant == "fisher":
        v = state["adam"].get("exp_avg_sq")
        if v is None:
            return torch.zeros_like(g)
        step = float(state["adam"]["step"])
        return lam * v / (1 - 0.999 ** step) * dw
    raise ValueError(f"unknown variant {variant!r}")


def train(job):
    """One run: job = (mode, variant, lam, args dict). Returns the losses."""
    import torch
    import torch.nn.functional as F
    sys.path.insert(0, os.path.join(ROOT, "examples", "torch"))
    from torch_models import build
    mode, variant, lam, a = job
    torch.set_num_threads(1)
    model, *_ = build("gpt", 0, 4, layers=a["layers"])
    if a["init"] == "gpt2":
        # GPT-2's initialization: N(0, 0.02) matrices, zero biases.
        torch.manual_seed(5)
        with torch.no_grad():
            for name, p in model.named_parameters():
                if p.dim() >= 2:
                    p.normal_(0, 0.02)
                elif name.endswith("bias"):
                    p.zero_()
    d = np.load(a["data"])
    ids, labels = torch.from_numpy(d["ids"]), torch.from_numpy(d["labels"])
    named = list(model.named_parameters())
    params = [p for _, p in named]
    # The stale parameters; the others apply this step's gradient.
    stale = [a["stale"] is None or name in a["stale"] for name, _ in named]
    opt = torch.optim.Adam(params, lr=a["lr"])
    b = a["batch"]
    prev_g, prev_w = None, None
    state = [{"adam": opt.state[p]} for p in params]
    losses = []
    for t in range(a["steps"]):
        w_t = [p.detach().clone() for p in params]
        sl = slice(t * b, (t + 1) * b)
        loss = F.cross_entropy(model(ids[sl]).reshape(-1, VOCAB), labels[sl].reshape(-1))
        g = [x.detach() for x in torch.autograd.grad(loss, params)]
        losses.append(loss.item())
        if mode == "sync" or t < a["warmup"]:
            applied = g
        elif prev_g is None:
            applied = [torch.zeros_like(x) for x in g]  # g_{-1} = 0
        elif mode == "dc" and prev_w is not None:
            applied = [pg + correction(variant, lam, pg, w - pw, s)
                       for pg, w, pw, s in zip(prev_g, w_t, prev_w, state)]
        else:
            applied = prev_g
        applied = [x if st else gx for x, gx, st in zip(applied, g, stale)]
        for p, x in zip(params, applied):
            p.grad = x.clone()
        opt.step()
        prev_g, prev_w = g, w_t
    return losses


def make_data(a, work, torch_py):
    """The bench's LM task (bench/staleness.py): the model and its data."""
    d = os.path.join(work, "gpt")
    run([torch_py, os.path.join(ROOT, "examples", "torch", "make_torch_models.py"),
         "export", "--model", "gpt", "--layers", str(a.layers), "--samples",
         str(a.samples), "--out-dir", d])
    return os.path.join(d, "gpt.onnx"), lm_task_data(d)


def compiled_loss(onnx, data, work, name, flags, a):
    exe = os.path.join(work, name + ".train")
    log = os.path.join(work, name + ".jsonl")
    run([COMPILER, onnx, "--train", "--quiet", "--optimizer=adam", f"--lr={a.lr}",
         f"--input-shape=ids:{a.batch}x16", "-o", exe] + flags)
    run([exe, f"--data={data}", f"--steps={a.steps}", f"--batch-size={a.batch}",
         f"--log={log}", "--pin=none"], env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
    return final_loss(x["loss"] for x in rows(log))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=150)
    ap.add_argument("--batch", type=int, default=256, help="the global batch")
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--samples", type=int, default=2 * 128 * 301,
                    help="samples exported (bench/staleness.py's: 2 ranks x 128 "
                         "x (300 + 1); the first ones are the batches)")
    ap.add_argument("--lr", type=float, default=0.003)
    ap.add_argument("--warmup", type=int, default=0,
                    help="synchronous steps first (the bench gives DC none)")
    ap.add_argument("--init", choices=["torch", "gpt2"], default="torch",
                    help="the export's weights, or GPT-2's initialization")
    ap.add_argument("--stale", default="all",
                    help="the stale parameters: all, bench (the automatic set of the "
                         "last bench/staleness.py run, results/staleness.json) or "
                         "NAME,NAME,...")
    ap.add_argument("--sweep", action="append",
                    help="VARIANT:LAM,LAM,... (repeatable; default: every variant)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--check", action="store_true",
                    help="also train the compiled sync / stale / dc / dc_adaptive "
                         "programs and compare (needs build/bin, --init torch, "
                         "--warmup 0)")
    ap.add_argument("--out-dir", default=os.path.join(ROOT, "bench", "results"))
    a = ap.parse_args()
    torch_py = os.environ.get("AUTODIST_TORCH_PYTHON",
                              os.path.join(ROOT, "build", "torch-venv", "bin", "python"))
    try:
        import torch  # noqa: F401
    except ImportError:
        if not os.path.exists(torch_py):
            sys.exit(f"dc_sweep.py: no interpreter with torch at {torch_py} "
                     "(scripts/setup-torch.sh, or set AUTODIST_TORCH_PYTHON)")
        os.execv(torch_py, [torch_py] + sys.argv)
    if a.samples < a.batch * a.steps:
        sys.exit(f"dc_sweep.py: --samples {a.samples} holds fewer than --steps x --batch "
                 f"= {a.batch * a.steps} samples")
    if a.check and (a.init != "torch" or a.warmup):
        sys.exit("dc_sweep.py: --check compares the bench's configuration: "
                 "--init torch --warmup 0")
    sweep = []
    for spec in a.sweep or DEFAULT_SWEEP:
        variant, _, lams = spec.partition(":")
        if variant not in VARIANTS:
            sys.exit(f"dc_sweep.py: --sweep {spec!r}: unknown variant {variant!r} "
                     f"(known: {', '.join(VARIANTS)})")
        try:
            sweep += [(variant, float(x)) for x in lams.split(",")]
        except ValueError:
            sys.exit(f"dc_sweep.py: --sweep {spec!r}: expected VARIANT:LAM,LAM,...")
    if a.stale == "all":
        stale = None
    elif a.stale == "bench":
        path = os.path.join(ROOT, "bench", "results", "staleness.json")
        try:
            with open(path) as f:
                stale = json.load(f)["speed"]["gpt"]["stale_auto"]
        except (OSError, KeyError, ValueError) as e:
            sys.exit(f"dc_sweep.py: --stale bench: no GPT stale set in {path} ({e})")
    else:
        stale = [x for x in a.stale.split(",") if x]
    work = tempfile.mkdtemp(prefix="dc_sweep.")
    print(f"work directory {work}", flush=True)
    onnx, data = make_data(a, work, sys.executable)
    if stale is not None:
        sys.path.insert(0, os.path.join(ROOT, "examples", "torch"))
        from torch_models import build
        names = {n for n, _ in build("gpt", 0, 4, layers=a.layers)[0].named_parameters()}
        unknown = sorted(set(stale) - names)
        if unknown:
            sys.exit(f"dc_sweep.py: --stale names no parameter of the model: "
                     f"{', '.join(unknown)}")
    args = {"data": data, "layers": a.layers, "lr": a.lr, "batch": a.batch,
            "steps": a.steps, "warmup": a.warmup, "init": a.init, "stale": stale}
    jobs = [("sync", None, None, args), ("stale", None, None, args)]
    jobs += [("dc", v, lam, args) for v, lam in sweep]
    results = {}
    with concurrent.futures.ProcessPoolExecutor(max(1, a.jobs)) as pool:
        futures = {pool.submit(train, j): j for j in jobs}
        for f in concurrent.futures.as_completed(futures):
            mode, v, lam, _ = futures[f]
            key = mode if mode != "dc" else f"{v} {lam:g}"
            losses = f.result()
            results[key] = final_loss(losses) if all(np.isfinite(losses)) else float("nan")
            print(f"  {key}: final loss {results[key]:.4f}", flush=True)
    sync = results["sync"]
    out = {"config": {k: v for k, v in args.items() if k != "data"},
           "final_loss": results,
           "relative_to_sync": {k: (x - sync) / sync for k, x in results.items()}}
    stale_text = "all" if stale is None else f"{len(stale)} ({', '.join(stale)})"
    lines = [f"Delay compensation on the LM task ({a.layers}-block GPT, Adam lr {a.lr}, "
             f"batch {a.batch}, {a.steps} steps, init {a.init}, warm-up {a.warmup}, "
             f"stale parameters: {stale_text}); "
             "final loss = mean of the last 10 steps; PyTorch reference.", "",
             "| run | final loss | vs sync |", "|---|---|---|"]
    order = ["sync", "stale"] + [f"{v} {lam:g}" for v, lam in sweep]
    for k in order:
        if np.isfinite(results[k]):
            lines.append(f"| {k} | {results[k]:.4f} | "
                         f"{100 * out['relative_to_sync'][k]:+.2f}% |")
        else:
            lines.append(f"| {k} | diverged (NaN) | |")
    if a.check:
        print("check: the compiled programs", flush=True)
        only = [] if stale is None else ["--stale=" + ",".join(stale)]
        compiled = {
            "sync": [], "stale": ["--staleness=1"] + only,
            "dc 0.5": ["--staleness=1", "--compensation=delay_compensation",
                       "--dc-lambda=0.5"] + only,
            "dc 10000": ["--staleness=1", "--compensation=delay_compensation",
                         "--dc-lambda=10000"] + only,
            "dc_adaptive 300": ["--staleness=1", "--compensation=delay_compensation",
                                "--dc-variant=dc_adaptive", "--dc-lambda=300"] + only}
        ref = {"dc 0.5": ("dc", 0.5), "dc 10000": ("dc", 1e4),
               "dc_adaptive 300": ("dc_adaptive", 300.0)}
        out["compiled"] = {}
        lines += ["", "The compiled programs (autodist-compile, 1 rank) against this reference:",
                  "", "| run | compiled | reference | relative difference |", "|---|---|---|---|"]
        for k, flags in compiled.items():
            got = compiled_loss(onnx, data, work, k.replace(" ", "_"), flags, a)
            want = results.get(k)
            if want is None:
                mode, (v, lam) = "dc", ref[k]
                want = final_loss(train((mode, v, lam, args)))
            out["compiled"][k] = {"compiled": got, "reference": want}
            lines.append(f"| {k} | {got:.6f} | {want:.6f} | {abs(got - want) / want:.1e} |")
    os.makedirs(a.out_dir, exist_ok=True)
    stem = "dc-sweep" + (f"-init-{a.init}" if a.init != "torch" else "") + (
        f"-warmup-{a.warmup}" if a.warmup else "") + (
        "" if a.stale == "all" else "-stale-bench" if a.stale == "bench" else "-stale-list")
    with open(os.path.join(a.out_dir, stem + ".json"), "w") as f:
        json.dump(out, f, indent=1)
    text = "\n".join(lines) + "\n"
    with open(os.path.join(a.out_dir, stem + ".md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
