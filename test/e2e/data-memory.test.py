#!/usr/bin/env python3
"""Peak memory of each training rank on a data file much larger than a batch.

    data-memory.test.py make DIR --mib 400     # DIR/data.npz (stored), DIR/m.onnx
    data-memory.test.py peak -- EXE ARGS...    # runs EXE, prints its peak RSS

``make`` writes an MLP (1024 inputs) and a numpy.savez (stored) data file of
about MIB MiB: float32 x [N, 1024] and int64 labels [N]. ``peak`` runs one
command (one MPI rank, when started by mpirun) and prints
``rank R: peak RSS M MiB`` from wait4, so each rank is measured on its own
(Linux keeps the high-water mark across exec: measure from a small process).
"""
import os
import subprocess
import sys

import numpy as np

FEATURES = 1024


def make(out_dir, mib):
    os.makedirs(out_dir, exist_ok=True)
    subprocess.run([sys.executable,
                    os.path.join(os.path.dirname(__file__), "..", "..",
                                 "examples", "mlp", "make_mlp.py"),
                    "--out", os.path.join(out_dir, "m.onnx"),
                    "--in", str(FEATURES), "--hidden", "16"], check=True)
    n = mib * 2**20 // (4 * FEATURES)
    rng = np.random.default_rng(0)
    x = rng.random((n, FEATURES), dtype=np.float32)
    labels = rng.integers(0, 10, n, dtype=np.int64)
    np.savez(os.path.join(out_dir, "data.npz"), x=x, labels=labels)
    size = os.path.getsize(os.path.join(out_dir, "data.npz"))
    print(f"wrote {size / 2**20:.0f} MiB of data ({n} samples)")


def peak(cmd):
    proc = subprocess.Popen(cmd)
    _, status, usage = os.wait4(proc.pid, 0)
    rank = os.environ.get("OMPI_COMM_WORLD_RANK", "0")
    print(f"rank {rank}: peak RSS {usage.ru_maxrss / 1024:.0f} MiB", flush=True)
    sys.exit(os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2], int(sys.argv[4]))
    else:
        peak(sys.argv[3:])
