#!/usr/bin/env python3
"""End-to-end test of the runtime with the hand-written fake model.

fake_model.train is fake_model.cpp (a linear softmax regression with the
compiled-object ABI of docs/abi.md) linked through autodist-runtime-link.txt.
This script checks that:
  * 2 ranks with --batch-size=4 log the same per-step losses as 1 process with
    --batch-size=8 (to 1e-6 relative), and both match a float64 reference;
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
LR = 0.5  # the fake model's manifest
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


def reference_train(xs, ys, global_batch, steps):
    W, b = [row[:] for row in W0], B0[:]
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
        W = [[W[j][k] - LR * gW[j][k] for k in range(4)] for j in range(3)]
        b = [b[j] - LR * gb[j] for j in range(3)]
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
    check(all(set(r) == {"step", "loss", "samples_per_s", "lr", "time_s"}
              and r["lr"] == LR and r["samples_per_s"] > 0 for r in log1 + log2),
          "log records have step, loss, samples_per_s, lr, time_s")
    check(all(close(a["loss"], b["loss"], 1e-6) for a, b in zip(log1, log2))
          and len(log1) == len(log2),
          "per-step losses of -np 2 x 4 and 1 x 8 match to 1e-6: %s vs %s" %
          ([r["loss"] for r in log2[:3]], [r["loss"] for r in log1[:3]]))
    ref_losses, W, b = reference_train(xs, ys, 8, STEPS)
    check(all(close(r["loss"], l, 1e-4) for r, l in zip(log1, ref_losses)),
          "losses match the float64 reference (batch order, SGD)")
    check(log1[-1]["loss"] < log1[0]["loss"], "loss decreases")

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

    p = run([exe, "--help"])
    check(p is not None and all(f in p.stdout for f in (
        "--data", "--steps", "--batch-size", "--lr", "--log", "--save",
        "--eval", "--predict")), "--help lists every flag")


if __name__ == "__main__":
    main()
    print("%d failure(s)" % len(FAILURES))
    sys.exit(1 if FAILURES else 0)
