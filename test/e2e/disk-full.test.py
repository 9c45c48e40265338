#!/usr/bin/env python3
"""Helper of disk-full.test: every output on a full disk.

  disk-full.test.py --work DIR --model M.onnx --data D.npz --train EXE

Mounts a 1 MiB tmpfs on DIR/full (run it under `unshare -m`, as root: the
mount is private to it and goes with it), fills it, and writes each output
there over an existing file: autodist-compile -o, --save, --predict, --log
(also on 2 ranks, where rank 0's failure ends the job), --checkpoint. Each must
exit non-zero (not by a signal) with an error line naming the full disk, leave
the existing file byte-identical and leave no temporary. Prints one PASS line per output; exits non-zero at the first
failure.
"""
import argparse
import glob
import os
import subprocess
import sys

TEMP_PATTERNS = ["*.tmp-*", "*.part*.o", "*.tmp"]


def fail(msg):
    sys.exit("FAIL: " + msg)


def run(cmd, timeout=300):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=timeout)


def temps_in(d):
    return sorted({p for pat in TEMP_PATTERNS for p in glob.glob(os.path.join(d, pat))})


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def one_error_line(out):
    errors = [l for l in out.splitlines() if "error:" in l]
    return errors[0] if errors else None


def disk_full(a):
    mnt = os.path.join(a.work, "full")
    os.makedirs(mnt, exist_ok=True)
    r = run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt])
    if r.returncode != 0:
        fail("cannot mount a tmpfs (run under unshare -m as root): " + r.stdout)
    try:
        cases = [
            ("autodist-compile -o", "model.train",
             ["autodist-compile", a.model, "--train", "--lr=0.1", "--quiet", "-o", "{out}"]),
            ("--save", "trained.onnx",
             [a.train, "--data=" + a.data, "--steps=2", "--batch-size=4", "--save={out}"]),
            ("--predict", "pred.npy",
             [a.train, "--data=" + a.data, "--steps=1", "--batch-size=4",
              "--eval=" + a.data, "--predict={out}"]),
            ("--log", "metrics.jsonl",
             [a.train, "--data=" + a.data, "--steps=50", "--batch-size=4", "--log={out}"]),
            ("--log on 2 ranks", "metrics2.jsonl",
             ["mpirun", "-np", "2", a.train, "--data=" + a.data, "--steps=50",
              "--batch-size=4", "--log={out}"]),
            ("--checkpoint", "ck/checkpoint.npz",
             [a.train, "--data=" + a.data, "--steps=2", "--batch-size=4",
              "--checkpoint=" + os.path.join(mnt, "ck"), "--overwrite"]),
        ]
        for name, rel, cmd in cases:
            out = os.path.join(mnt, rel)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            old = b"an existing output, kept on failure\n"
            with open(out, "wb") as f:
                f.write(old)
            filler = os.path.join(mnt, "filler")
            run(["sh", "-c", f"cat /dev/zero > {filler}"])  # until ENOSPC
            r = run([c.replace("{out}", out) for c in cmd])
            if r.returncode == 0:
                fail(f"{name} on a full disk exited 0:\n{r.stdout}")
            if r.returncode < 0:
                fail(f"{name} on a full disk died of signal {-r.returncode}:\n{r.stdout}")
            err = one_error_line(r.stdout)
            if not err or "space" not in err.lower():
                fail(f"{name}: no error line naming the full disk:\n{r.stdout}")
            if read_bytes(out) != old:
                fail(f"{name}: the existing {rel} was changed on failure")
            left = [p for p in temps_in(os.path.dirname(out))]
            if left:
                fail(f"{name}: temporaries left: {left}")
            os.unlink(filler)
            print(f"PASS: disk full, {name}: exit {r.returncode}, '{err.strip()}', "
                  f"old file intact, no temporary")
    finally:
        run(["umount", "-l", mnt])


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--train", required=True)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    disk_full(a)


if __name__ == "__main__":
    main()
