#!/usr/bin/env python3
"""Staleness on models that are not in the repository, as a new user would
bring them (issue 15, "Done when"): written here in PyTorch, exported with
torch.onnx, compiled with --staleness=1 --compensation=weight_prediction, and
measured with bench/staleness.py's method on 2 emulated nodes:

- speed: the link set so that the synchronous communication (one all-reduce
  of the step's gradients) takes as long as the computation; samples/s of stale
  (automatic stale set, and all parameters; the automatic set with weight
  prediction) against synchronous all-reduce;
  and the wire bound of any schedule: a step cannot be shorter than its
  gradients' time on the link (bytes * 8 / rate), so stale / sync is at most
  sync / max(computation, wire);
- accuracy: the final loss (mean of the last 10 steps) after --acc-steps
  steps, sync / stale / stale + WP / stale + DC, on tasks whose loss levels
  off above 0 (30% of the labels random) and, except for `digits-noisy`,
  with more samples than the run reads (each step sees new samples, so the
  training loss is not a measure of how fast the model memorizes).

Models:
- resmlp: a residual MLP (LayerNorm, GELU, 4 blocks of width 256, 1.07M
  parameters). Tasks: digits-noisy (the 1437 digits, memorized within the
  run) and blobs (sklearn's make_classification, 64 features, 10 classes).
- textclf: PyTorch's text-classification tutorial model (an EmbeddingBag of
  the token ids, mean, then a classifier), with two hidden layers of 512 on
  top; 20000 ids of dimension 64. Task: topics (synthetic documents of 64
  tokens, 4 topics).

    python3 bench/staleness_new_model.py [--models resmlp,textclf] [--rounds 5]
        [--steps 40] [--acc-steps 300]

Needs what bench/staleness.py needs (root, build/, the torch venv). Writes
the models' results into bench/results/staleness-new-model.json (other
models' entries kept) and prints a table.
"""
import argparse
import json
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import staleness  # noqa: E402

RESMLP = r'''
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

TEXTCLF = r'''
import sys, torch, torch.nn as nn
VOCAB, DIM, HIDDEN, CLASSES, TOKENS = 20000, 64, 512, 4, 64
class TextClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.EmbeddingBag(VOCAB, DIM, mode="mean")
        self.fc1 = nn.Linear(DIM, HIDDEN)
        self.fc2 = nn.Linear(HIDDEN, HIDDEN)
        self.out = nn.Linear(HIDDEN, CLASSES)
    def forward(self, ids):
        h = torch.relu(self.fc1(self.embedding(ids)))
        return self.out(torch.relu(self.fc2(h)))
torch.manual_seed(0)
torch.onnx.export(TextClassifier(), torch.randint(0, VOCAB, (2, TOKENS)), sys.argv[1],
                  input_names=["ids"], output_names=["logits"],
                  dynamic_axes={"ids": {0: "batch"}}, opset_version=14)
'''
VOCAB, TOKENS, TOPICS = 20000, 64, 4


def noisy_labels(labels, classes, rng):
    """30% of the labels drawn at random, as the bench's LM task."""
    noisy = rng.random(len(labels)) < staleness.LM_LABEL_NOISE
    return np.where(noisy, rng.integers(0, classes, len(labels)), labels)


def blobs(n, rng):
    from sklearn.datasets import make_classification
    x, y = make_classification(n_samples=n, n_features=64, n_informative=48,
                               n_redundant=0, n_classes=10, n_clusters_per_class=2,
                               random_state=0)
    return {"x": x.astype(np.float32), "labels": noisy_labels(y, 10, rng).astype(np.int64)}


def topics(n, rng):
    """Documents of TOKENS ids: a Zipf background with 15% of the tokens from
    the topic's own 200 words."""
    p = 1.0 / np.arange(1, VOCAB + 1) ** 1.1
    words = np.stack([rng.choice(VOCAB, 200, replace=False) for _ in range(TOPICS)])
    y = rng.integers(0, TOPICS, n)
    ids = rng.choice(VOCAB, size=(n, TOKENS), p=p / p.sum())
    mine = words[y[:, None], rng.integers(0, 200, (n, TOKENS))]
    ids = np.where(rng.random((n, TOKENS)) < 0.15, mine, ids)
    return {"ids": ids.astype(np.int64), "labels": noisy_labels(y, TOPICS, rng).astype(np.int64)}


def digits_noisy(work, rng):
    staleness.run([sys.executable, os.path.join(staleness.ROOT, "examples", "digits",
                                                "make_data.py"), "--out-dir",
                   os.path.join(work, "digits")])
    d = dict(np.load(os.path.join(work, "digits", "train.npz")))
    d["labels"] = noisy_labels(d["labels"], 10, rng)
    return d


# name -> (description, export script, batch per rank for speed, speed data,
#          {task: (make data, batch per rank)})
MODELS = {
    "resmlp": ("ResMLP (4 blocks, d=256, 1.07M parameters), Adam 3e-4", RESMLP, 256,
               lambda n, rng: {"x": rng.standard_normal((n, 64)).astype(np.float32),
                               "labels": rng.integers(0, 10, n).astype(np.int64)},
               {"digits-noisy": (lambda work, n, rng: digits_noisy(work, rng), 32),
                "blobs": (lambda work, n, rng: blobs(n, rng), 64)}),
    "textclf": ("EmbeddingBag(20000, 64, mean) + 2 x Linear 512 + Linear 4 "
                "(1.55M parameters), Adam 3e-4", TEXTCLF, 2048,
                lambda n, rng: {"ids": rng.integers(0, VOCAB, (n, TOKENS)).astype(np.int64),
                                "labels": rng.integers(0, TOPICS, n).astype(np.int64)},
                {"topics": (lambda work, n, rng: topics(n, rng), 64)}),
}


# The bench's three programs and the one "Done when" names: the automatic
# stale set with weight prediction (its prediction is an optimizer update
# more per step).
SPEED_VARIANTS = dict(staleness.VARIANTS, **{
    "stale + WP (auto)": ["--staleness=1", "--stale=auto",
                          "--compensation=weight_prediction", "--stale-warmup=5"]})


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", default="resmlp,textclf")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--acc-steps", type=int, default=300)
    a = p.parse_args()
    names = [m for m in a.models.split(",") if m]
    for m in names:
        if m not in MODELS:
            sys.exit(f"staleness_new_model.py: unknown model '{m}' "
                     f"(known: {', '.join(MODELS)})")
    torch_py = os.environ.get("AUTODIST_TORCH_PYTHON",
                              os.path.join(staleness.ROOT, "build", "torch-venv", "bin", "python"))
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    flags = ["--optimizer=adam", "--lr=3e-4"]
    results = {}
    with tempfile.TemporaryDirectory() as work:
        for name in names:
            desc, script_text, batch, speed_data, tasks = MODELS[name]
            onnx = os.path.join(work, name + ".onnx")
            script = os.path.join(work, name + ".py")
            with open(script, "w") as f:
                f.write(script_text)
            staleness.run([torch_py, script, onnx])
            rng = np.random.default_rng(0)
            syn = os.path.join(work, name + "-speed.npz")
            np.savez(syn, **speed_data(4 * batch, rng))
            print(f"speed: {name}", flush=True)
            sp = staleness.speed(a, staleness.Model(name, onnx, syn, batch, flags), work, env,
                                 SPEED_VARIANTS)
            sp.pop("runs_ms")
            acc = {}
            for task, (make, task_batch) in tasks.items():
                data = os.path.join(work, f"{name}-{task}.npz")
                # Samples for every step of the 2 ranks without wrapping.
                np.savez(data, **make(work, 2 * task_batch * (a.acc_steps + 10), rng))
                print(f"accuracy: {name} on {task}", flush=True)
                acc[task] = staleness.accuracy(
                    a, staleness.Model(f"{name}_{task}", onnx, data, task_batch, flags),
                    work, env, sp["bandwidth_gbit"], a.acc_steps)
                acc[task].pop("curves")
                acc[task]["batch_per_rank"] = task_batch
            results[name] = {"model": desc, "speed": sp, "accuracy": acc}
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    out = os.path.join(HERE, "results", "staleness-new-model.json")
    # A run of some models keeps the others' last results.
    kept = {}
    if os.path.exists(out):
        with open(out) as f:
            kept = json.load(f)
    with open(out, "w") as f:
        json.dump(dict(kept, **results), f, indent=1)
    for name, r in results.items():
        sp = r["speed"]
        s, t = sp["speedup"], sp["median_step_ms"]
        print(f"{name}: {r['model']}")
        print(f"  link {sp['bandwidth_gbit']:.3g} Gbit/s, compute {sp['compute_ms']:.1f} ms, "
              f"wire {sp['wire_ms']:.1f} ms/step, sync {t['sync']:.1f} ms; stale set (auto): "
              f"{len(sp['stale_auto'])} parameters: {', '.join(sp['stale_auto']) or '(empty)'}")
        print(f"  samples/s vs sync: stale (auto) {s['stale (auto)']:.2f}x, stale (all) "
              f"{s['stale (all)']:.2f}x, stale + WP (auto) {s['stale + WP (auto)']:.2f}x; "
              f"wire bound sync / max(compute, wire) {sp['wire_bound']:.2f}x")
        for task, acc in r["accuracy"].items():
            c = acc["relative_to_sync"]
            print(f"  {task}, final loss: " + ", ".join(
                f"{v} {acc['final_loss'][v]:.4f} ({100 * c[v]:+.2f}%)" for v in acc["final_loss"]))


if __name__ == "__main__":
    main()
