#!/usr/bin/env python3
"""What --comm-timeout's polled collectives cost per step, against the blocking
calls of --comm-timeout=0, on the same executable: `mpirun -np 2`, 3000 steps,
the per-step time of steps 500..3000 from --log's time_s, rounds interleaved.

  python3 bench/comm_timeout_cost.py EXE DATA.npz [ROUNDS] [--batch-size=B]

EXE is a training executable (e.g. examples/mlp/make_mlp.py compiled with
`autodist-compile --train`), DATA its .npz (examples/digits/make_data.py).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile


def main():
    exe, data = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    batch = next((a.split("=", 1)[1] for a in sys.argv[4:] if a.startswith("--batch-size=")), "16")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    res = {"600 (default)": [], "0": []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(rounds):
            for mode in res:
                log = os.path.join(tmp, f"{r}.jsonl")
                extra = [] if mode.startswith("600") else ["--comm-timeout=0"]
                subprocess.run(["mpirun", "-np", "2", exe, "--data=" + data, "--steps=3000",
                                "--batch-size=" + batch, "--log=" + log] + extra,
                               check=True, env=env, stdout=subprocess.DEVNULL)
                rows = [json.loads(l) for l in open(log)]
                res[mode].append((rows[-1]["time_s"] - rows[499]["time_s"]) / (len(rows) - 500) * 1e6)
    for mode, v in res.items():
        print(f"--comm-timeout={mode}: median {statistics.median(v):.1f} us/step over {len(v)} "
              f"runs (min {min(v):.1f}, max {max(v):.1f})")


if __name__ == "__main__":
    main()
