#!/usr/bin/env python3
"""End-to-end test of the runtime with the hand-written fake model.

fake_model.train is fake_model.cpp (a linear softmax regression with the
compiled-object ABI of docs/abi.md) linked through autodist-runtime-link.txt.
This script checks that:
  * 2 ranks with --batch-size=4 log the same per-step losses as 1 process with
    --batch-size=8 (to 1e-6 relative), and both match a float64 reference of
    the fake model's optimizer (momentum, whose state the runtime carries) and
    its cosine lr schedule, whose per-step lr the log shows;
  * --checkpoint / --resume: 5 steps, checkpoint, resume to 10 logs exactly
    the losses of 10 straight steps, with 2 ranks and with 1; resuming with
    another rank count or batch size, or without a checkpoint, fails;
  * --eval / --predict / --save produce what the reference predicts, also
    for the inference-only build (fake_model_infer.train);
  * bad flags and bad data files fail with one `error: ` line, a non-zero
    exit code, and no output files.
Only the Python standard library is needed (onnx is used if installed).
"""
import argparse
import json
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import zipfile

# Mirrors FakeModelOnnx.cpp: W[i][j] = ((4i + j) % 5 - 2) / 8, b = (1/4, -1/2, 1/8).
W0 = [[((4 * i + j) % 5 - 2) / 8 for j in range(4)] for i in range(3)]
B0 = [0.25, -0.5, 0.125]
# The fake model's manifest: lr, its cosine schedule, the optimizer's momentum.
LR, WARMUP, TOTAL, MIN_LR, MOMENTUM = 0.5, 3, 10, 0.05, 0.9
STEPS = 12
FAILURES = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILURES.append(what)


# --- data files, written the way numpy.savez does (zip64 local headers) ----


def npy(values, shape, descr):
    fmt = {"<f4": "f", "<f8": "d", "<i8": "q", "<i4": "i"}[descr]
    dims = ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "")
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, dims)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    return (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) +
            header.encode() + struct.pack("<%d%s" % (len(values), fmt), *values))


def write_npz(path, arrays, compressed=False):
    method = zipfile.ZIP_DEFLATED if compressed else zipfile.ZIP_STORED
    with zipfile.ZipFile(path, "w", method) as z:
        for name, data in arrays:
            with z.open(name + ".npy", "w", force_zip64=True) as f:
                f.write(data)


def read_npy(path):
    data = open(path, "rb").read()
    assert data[:6] == b"\x93NUMPY", "not a .npy file"
    hlen = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + hlen].decode()
    shape = tuple(int(d) for d in
                  header.split("(")[1].split(")")[0].split(",") if d.strip())
    assert "'<f4'" in header, header
    n = math.prod(shape)
    return shape, list(struct.unpack("<%df" % n, data[10 + hlen:]))


def make_samples(n, rng):
    """x on a 1/1024 grid (exact in f32 and f64); labels from a fixed rule."""
    xs = [[rng.randint(-1024, 1024) / 1024 for _ in range(4)] for _ in range(n)]
    ys = [max(range(3), key=lambda c: x[c] - 0.5 * x[3] * (c - 1)) for x in xs]
    return xs, ys


# --- float64 reference of the fake model -----------------------------------


def logits(W, b, x):
    return [sum(W[j][k] * x[k] for k in range(4)) + b[j] for j in range(3)]


def schedule(t, lr=LR):
    """The lr of 1-based step t (docs/abi.md, cosine) for base rate lr."""
    if t <= WARMUP:
        return lr * t / WARMUP
    if t >= TOTAL:
        return MIN_LR
    progress = (t - WARMUP) / (TOTAL - WARMUP)
    return MIN_LR + (lr - MIN_LR) * 0.5 * (1 + math.cos(math.pi * progress))


def reference_train(xs, ys, global_batch, steps):
    W, b = [row[:] for row in W0], B0[:]
    mW, mb = [[0.0] * 4 for _ in range(3)], [0.0] * 3
    losses, batches = [], len(xs) // global_batch
    for s in range(steps):
        g = s % batches
        bx = xs[g * global_batch:(g + 1) * global_batch]
        by = ys[g * global_batch:(g + 1) * global_batch]
        gW, gb, loss = [[0.0] * 4 for _ in range(3)], [0.0] * 3, 0.0
        for x, y in zip(bx, by):
            z = logits(W, b, x)
            m = max(z)
            e = [math.exp(v - m) for v in z]
            p = [v / sum(e) for v in e]
            loss -= math.log(p[y])
            for j in range(3):
                d = (p[j] - (j == y)) / len(bx)
                gb[j] += d
                for k in range(4):
                    gW[j][k] += d * x[k]
        losses.append(loss / len(bx))
        # Momentum with bias correction (fake_model.cpp).
        lr, corr = schedule(s + 1), 1 - MOMENTUM ** (s + 1)
        mW = [[MOMENTUM * mW[j][k] + (1 - MOMENTUM) * gW[j][k]
               for k in range(4)] for j in range(3)]
        mb = [MOMENTUM * mb[j] + (1 - MOMENTUM) * gb[j] for j in range(3)]
        W = [[W[j][k] - lr * mW[j][k] / corr for k in range(4)]
             for j in range(3)]
        b = [b[j] - lr * mb[j] / corr for j in range(3)]
    return losses, W, b


# --- running the executable --------------------------------------------------


def run(cmd, expect_rc=0):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                           env=env)
    except subprocess.TimeoutExpired:
        check(False, "timed out (hang?): " + " ".join(cmd))
        return None
    if expect_rc == 0 and p.returncode != 0:
        print(p.stdout + p.stderr)
    check(p.returncode == expect_rc if expect_rc is not None else
          p.returncode != 0,
          "exit code %d of: %s" % (p.returncode, " ".join(cmd[-6:])))
    return p


def read_log(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def close(a, b, rel):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-30)


def checkpoint_meta(path):
    """checkpoint.json of a checkpoint (and the entry names)."""
    with zipfile.ZipFile(path) as z:
        return json.loads(z.read("checkpoint.json")), z.namelist()


def losses(log):
    return [r["loss"] for r in log]


def test_resume(exe, mpi2, log1):
    """Checkpoint at 5 + resume to 10 == 10 straight steps, bit for bit."""
    for name, cmd, batch in (("np2", mpi2, 4), ("np1", [exe], 8)):
        ck, ranks = "ck_" + name, 2 if cmd is mpi2 else 1
        base = cmd + ["--data=train.npz", "--batch-size=%d" % batch]
        runs = [run(base + ["--steps=10", "--log=%s_straight.jsonl" % name,
                            "--save=%s_straight.onnx" % name]),
                run(base + ["--steps=5", "--checkpoint=" + ck,
                            "--log=%s_first.jsonl" % name])]
        if None in runs or FAILURES:
            return
        meta, names = checkpoint_meta(ck + "/checkpoint.npz")
        check(meta == {"format": "autodist-checkpoint", "version": 1,
                       "step": 5, "world_size": ranks, "batch_size": batch,
                       "model": "fake_linear.onnx", "params": ["W", "b"],
                       "state": ["W/momentum", "b/momentum"]} and
              names == ["checkpoint.json", "params/W.npy", "params/b.npy",
                        "state/W/momentum.npy", "state/b/momentum.npy"],
              "%s: checkpoint.json and arrays after 5 steps: %s" % (name, meta))
        p = run(base + ["--steps=10", "--checkpoint=" + ck, "--resume",
                        "--log=%s_second.jsonl" % name,
                        "--save=%s_resumed.onnx" % name])
        if p is None:
            return
        check("resumed from '%s/checkpoint.npz' at step 5" % ck in p.stdout and
              "trained 5 steps on %d ranks" % ranks in p.stdout,
              "%s: resume message and summary: %r" % (name, p.stdout))
        straight = read_log("%s_straight.jsonl" % name)
        first = read_log("%s_first.jsonl" % name)
        second = read_log("%s_second.jsonl" % name)
        check([r["step"] for r in first + second] == list(range(1, 11)),
              "%s: the resumed log continues at step 6" % name)
        check(losses(first + second) == losses(straight) and
              [r["lr"] for r in first + second] == [r["lr"] for r in straight],
              "%s: 5 + resumed 5 steps log exactly the losses and lrs of 10 "
              "straight steps: %s vs %s" % (name, losses(second),
                                           losses(straight)[5:]))
        check(open("%s_resumed.onnx" % name, "rb").read() ==
              open("%s_straight.onnx" % name, "rb").read(),
              "%s: --save after resuming writes the same bytes" % name)
        check(checkpoint_meta(ck + "/checkpoint.npz")[0]["step"] == 10 and
              sorted(os.listdir(ck)) == [".lock", "checkpoint.npz"],
              "%s: the final checkpoint (step 10) replaced the first" % name)

    # --checkpoint-every, then resuming past the end of the first run: the
    # 12-step single-process log of main() continues exactly.
    p = run([exe, "--data=train.npz", "--batch-size=8", "--steps=10",
             "--checkpoint=ck_every", "--checkpoint-every=4"])
    check(p is not None and
          sorted(os.listdir("ck_every")) == [".lock", "checkpoint.npz"] and
          checkpoint_meta("ck_every/checkpoint.npz")[0]["step"] == 10,
          "--checkpoint-every=4 keeps one checkpoint, the final one")
    p = run([exe, "--data=train.npz", "--batch-size=8", "--steps=12",
             "--checkpoint=ck_every", "--resume", "--log=every.jsonl"])
    check(p is not None and losses(read_log("every.jsonl")) == losses(log1)[10:],
          "resuming at step 10 of 12 logs steps 11 and 12 exactly")
    p = run([exe, "--data=train.npz", "--batch-size=8", "--steps=12",
             "--checkpoint=ck_every", "--resume", "--log=none.jsonl"])
    check(p is not None and "no steps left to train" in p.stdout and
          read_log("none.jsonl") == [],
          "resuming a finished run trains nothing")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", required=True)
    ap.add_argument("--infer-exe", required=True,
                    help="the inference-only build (no train step)")
    ap.add_argument("--mpiexec", default="mpirun")
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    exe, infer = os.path.abspath(args.exe), os.path.abspath(args.infer_exe)
    os.chdir(args.workdir)
    mpi2 = [args.mpiexec, "-np", "2", exe]

    rng = random.Random(7)
    xs, ys = make_samples(40, rng)
    flat = [v for x in xs for v in x]
    write_npz("train.npz", [("x", npy(flat, (40, 4), "<f4")),
                            ("labels", npy(ys, (40,), "<i8"))])
    tx, ty = make_samples(13, rng)  # 13: chunks of 4, 4, 4 and 1
    write_npz("test.npz", [("x", npy([v for x in tx for v in x], (13, 4), "<f8")),
                           ("labels", npy(ty, (13,), "<i4"))], compressed=True)

    # Training: 2 ranks x 4 == 1 rank x 8, step by step.
    p2 = run(mpi2 + ["--data=train.npz", "--steps=%d" % STEPS,
                     "--batch-size=4", "--log=np2.jsonl", "--save=np2.onnx"])
    p1 = run([exe, "--data=train.npz", "--steps=%d" % STEPS, "--batch-size=8",
              "--log=np1.jsonl", "--save=np1.onnx", "--eval=test.npz",
              "--predict=trained.npy"])
    if p1 is None or p2 is None or FAILURES:
        return
    check("trained %d steps on 2 ranks, final loss" % STEPS in p2.stdout,
          "summary line (2 ranks): " + p2.stdout.strip())
    log1, log2 = read_log("np1.jsonl"), read_log("np2.jsonl")
    check([r["step"] for r in log1] == list(range(1, STEPS + 1)),
          "log has steps 1..%d" % STEPS)
    check(all(set(r) == {"step", "loss", "samples_per_s", "lr", "time_s",
                         "collectives", "comm_bytes"}
              and r["samples_per_s"] > 0 and r["collectives"] >= 1
              and r["comm_bytes"] > 0 for r in log1 + log2),
          "log records have step, loss, samples_per_s, lr, time_s, "
          "collectives, comm_bytes")
    check(all(close(r["lr"], schedule(r["step"]), 1e-8) for r in log1 + log2),
          "logged lr follows the cosine schedule: %s" %
          [r["lr"] for r in log1])
    check(all(close(a["loss"], b["loss"], 1e-6) for a, b in zip(log1, log2))
          and len(log1) == len(log2),
          "per-step losses of -np 2 x 4 and 1 x 8 match to 1e-6: %s vs %s" %
          ([r["loss"] for r in log2[:3]], [r["loss"] for r in log1[:3]]))
    ref_losses, W, b = reference_train(xs, ys, 8, STEPS)
    check(all(close(r["loss"], l, 1e-4) for r, l in zip(log1, ref_losses)),
          "losses match the float64 reference (batch order, momentum, "
          "schedule)")
    check(log1[-1]["loss"] < log1[0]["loss"], "loss decreases")

    p = run([exe, "--data=train.npz", "--steps=4", "--batch-size=8",
             "--lr=2", "--log=lr2.jsonl"])
    lrs = [r["lr"] for r in read_log("lr2.jsonl")] if p else []
    check(len(lrs) == 4 and
          all(close(a, schedule(t + 1, 2.0), 1e-8) for t, a in enumerate(lrs)),
          "--lr=2 is the schedule's base rate: %s" % lrs)

    test_resume(exe, mpi2, log1)

    # Eval after training: predictions are the trained model's logits.
    shape, pred = read_npy("trained.npy")
    want = [v for x in tx for v in logits(W, b, x)]
    check(shape == (13, 3) and all(abs(a - w) < 1e-4 for a, w in zip(pred, want)),
          "--predict after training writes the trained logits")
    correct = sum(max(range(3), key=lambda j: pred[3 * i + j]) == ty[i]
                  for i in range(13))
    check("test accuracy: %.4f (%d/13)" % (correct / 13, correct) in p1.stdout,
          "accuracy line: " + p1.stdout.strip().splitlines()[-1])

    # Eval only (--steps=0, no --data): the initial model, dynamic last chunk.
    p0 = run([exe, "--steps=0", "--batch-size=4", "--eval=test.npz",
              "--predict=initial.npy"])
    shape, pred = read_npy("initial.npy")
    want = [v for x in tx for v in logits(W0, B0, x)]
    check(p0 is not None and shape == (13, 3) and
          all(abs(a - w) < 1e-6 for a, w in zip(pred, want)),
          "--steps=0 --predict writes the initial model's logits")
    correct = sum(max(range(3), key=lambda j: pred[3 * i + j]) == ty[i]
                  for i in range(13))
    p = run([infer, "--steps=0", "--batch-size=5", "--eval=test.npz"])
    check(p is not None and "test accuracy: %.4f (%d/13)" % (
        correct / 13, correct) in p.stdout,
          "inference-only build evaluates the initial model")

    try:
        import onnx
        from onnx import numpy_helper
    except ImportError:
        print("skip --save contents check (no onnx module)")
    else:
        for path in ("np1.onnx", "np2.onnx"):
            inits = {t.name: t for t in onnx.load(path).graph.initializer}
            saved_w = numpy_helper.to_array(inits["W"]).tolist()
            saved_b = numpy_helper.to_array(inits["b"]).tolist()
            check(not inits["b"].float_data and
                  all(abs(saved_w[j][k] - W[j][k]) < 1e-4
                      for j in range(3) for k in range(4)) and
                  all(abs(saved_b[j] - b[j]) < 1e-4 for j in range(3)),
                  "--save wrote the trained parameters to " + path)

    # Errors: one `error:` line, exit code, no output file.
    write_npz("no_x.npz", [("y", npy(flat, (40, 4), "<f4")),
                           ("labels", npy(ys, (40,), "<i8"))])
    write_npz("wide.npz", [("x", npy(flat, (32, 5), "<f4")),
                           ("labels", npy(ys[:32], (32,), "<i8"))])
    write_npz("float_labels.npz", [("x", npy(flat, (40, 4), "<f4")),
                                   ("labels", npy(ys, (40,), "<f4"))])
    write_npz("bad_label.npz", [("x", npy(flat, (40, 4), "<f4")),
                                ("labels", npy([3] * 40, (40,), "<i8"))])
    with open("not_a_zip.npz", "w") as f:
        f.write("x,labels\n1,2\n")
    os.makedirs("corrupt_ck", exist_ok=True)
    with open("corrupt_ck/checkpoint.npz", "w") as f:
        f.write("not a zip")
    # ck_np1 with W transposed: the model's W is [3, 4].
    os.makedirs("bad_shape_ck", exist_ok=True)
    with zipfile.ZipFile("ck_np1/checkpoint.npz") as src, zipfile.ZipFile(
            "bad_shape_ck/checkpoint.npz", "w") as dst:
        for n in src.namelist():
            dst.writestr(n, npy([0.0] * 12, (4, 3), "<f4")
                         if n == "params/W.npy" else src.read(n))
    checkpoints = {d: open(d + "/checkpoint.npz", "rb").read()
                   for d in ("ck_np1", "ck_np2")}
    resume = ["--data=train.npz", "--steps=12", "--resume"]
    train = ["--data=train.npz", "--steps=3", "--batch-size=4"]
    cases = [
        ([exe, "--data=train.npz", "--steps=abc", "--batch-size=4"], 2,
         "error: invalid value 'abc' for --steps"),
        ([exe] + train + ["--foo"], 2, "error: unknown flag '--foo' (see --help)"),
        ([exe, "--data=train.npz", "--steps=3"], 2,
         "error: missing required flag --batch-size"),
        ([exe, "--data=no_x.npz", "--steps=3", "--batch-size=4"], 1,
         "error: data file 'no_x.npz' has no array 'x' (has: y, labels)"),
        (mpi2 + ["--data=no_x.npz", "--steps=3", "--batch-size=4"], None,
         "error: data file 'no_x.npz' has no array 'x' (has: y, labels)"),
        ([exe, "--data=wide.npz", "--steps=3", "--batch-size=4"], 1,
         "error: array 'x' in data file 'wide.npz' has shape [32, 5], "
         "expected [-1, 4]"),
        ([exe, "--data=float_labels.npz", "--steps=3", "--batch-size=4"], 1,
         "error: array 'labels' in data file 'float_labels.npz' has dtype '<f4'"),
        ([exe, "--data=bad_label.npz", "--steps=3", "--batch-size=4"], 1,
         "error: array 'labels' in data file 'bad_label.npz' has label 3 at "
         "sample 0, outside [0, 3)"),
        ([exe, "--data=not_a_zip.npz", "--steps=3", "--batch-size=4"], 1,
         "error: data file 'not_a_zip.npz' is not a valid .npz (zip) archive"),
        ([exe, "--data=absent.npz", "--steps=3", "--batch-size=4"], 1,
         "error: cannot open data file 'absent.npz'"),
        (mpi2 + ["--data=train.npz", "--steps=3", "--batch-size=32"], None,
         "error: data file 'train.npz' has 40 samples, fewer than one global "
         "batch of 64 (--batch-size=32 x 2 ranks)"),
        ([exe] + train + ["--eval=absent.npz", "--predict=pred.npy"], 1,
         "error: cannot open data file 'absent.npz'"),
        (mpi2 + train + ["--eval=absent.npz"], None,
         "error: cannot open data file 'absent.npz'"),
        ([infer] + train, 1,
         "error: this model was compiled for inference only"),
        ([exe] + train + ["--save=no/such/dir/out.onnx"], 1,
         "error: cannot write 'no/such/dir/out.onnx'"),
        ([exe] + resume + ["--batch-size=4", "--checkpoint=ck_np2"], 1,
         "error: checkpoint 'ck_np2/checkpoint.npz' was written by a run of "
         "2 ranks, but this run has 1; resume with the same number of ranks"),
        (mpi2 + resume + ["--batch-size=8", "--checkpoint=ck_np1"], None,
         "error: checkpoint 'ck_np1/checkpoint.npz' was written by a run of "
         "1 rank, but this run has 2"),
        (mpi2 + resume + ["--batch-size=2", "--checkpoint=ck_np2"], None,
         "error: checkpoint 'ck_np2/checkpoint.npz' was written with "
         "--batch-size=4, but this run has --batch-size=2"),
        ([exe] + train + ["--checkpoint=no_ck", "--resume"], 1,
         "error: cannot resume: there is no checkpoint 'no_ck/checkpoint.npz'"),
        (mpi2 + train + ["--checkpoint=no_ck", "--resume"], None,
         "error: cannot resume: there is no checkpoint 'no_ck/checkpoint.npz'"),
        ([exe] + train + ["--checkpoint=corrupt_ck", "--resume"], 1,
         "error: checkpoint 'corrupt_ck/checkpoint.npz' is not a valid .npz "
         "(zip) archive"),
        ([exe] + resume + ["--batch-size=8", "--checkpoint=bad_shape_ck"], 1,
         "error: parameter 'W' in checkpoint 'bad_shape_ck/checkpoint.npz' has "
         "shape [4, 3], but the model's is [3, 4]"),
        ([exe, "--data=train.npz", "--steps=3", "--batch-size=8",
          "--checkpoint=ck_np1", "--resume"], 1,
         "error: checkpoint 'ck_np1/checkpoint.npz' is at step 10, past "
         "--steps=3"),
        ([exe] + train + ["--resume"], 2,
         "error: --resume needs --checkpoint=DIR"),
        ([exe] + train + ["--checkpoint=train.npz"], 1,
         "error: --checkpoint=train.npz: 'train.npz' is not a directory"),
        ([exe] + train + ["--checkpoint=no/such/dir"], 1,
         "error: cannot write 'no/such/dir'"),
    ]
    for cmd, rc, message in cases:
        for f in ("bad.jsonl", "pred.npy"):
            if os.path.exists(f):
                os.remove(f)
        p = run(cmd + ["--log=bad.jsonl"], rc)
        if p is None:
            continue
        errors = [l for l in p.stderr.splitlines() if l.startswith("error: ")]
        check(len(errors) == 1 and errors[0].startswith(message),
              "one error line %r (got %r)" % (message, errors))
        check(not os.path.exists("bad.jsonl") and not os.path.exists("pred.npy"),
              "no output file after: " + message)
    check(all(open(d + "/checkpoint.npz", "rb").read() == data
              for d, data in checkpoints.items()) and
          not os.path.exists("no_ck"),
          "failed runs leave the checkpoints alone")

    p = run([exe, "--help"])
    check(p is not None and all(f in p.stdout for f in (
        "--data", "--steps", "--batch-size", "--lr", "--log", "--save",
        "--eval", "--predict", "--checkpoint", "--checkpoint-every",
        "--resume")), "--help lists every flag")


if __name__ == "__main__":
    main()
    print("%d failure(s)" % len(FAILURES))
    sys.exit(1 if FAILURES else 0)
