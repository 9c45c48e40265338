#!/usr/bin/env python3
"""Helper of comm-timeout.test: a rank that stops mid-run ends the job.

comm-timeout.test.py NP STOP_RANK TIMEOUT -- MPIRUN_ARGS...

Starts `mpirun -np NP MPIRUN_ARGS... --comm-timeout=TIMEOUT --log=LOG`,
waits for a few training steps in LOG, sends SIGSTOP to rank STOP_RANK (found
by OMPI_COMM_WORLD_RANK in the environment of mpirun's children) and waits
for mpirun to end. Prints the job's stderr, then `exit: nonzero` and
`bounded: yes` when the job failed within TIMEOUT + 12 seconds of the stop.
Never hangs: every wait has a limit, and every process it started or found
is continued and killed at the end.
"""
import os
import signal
import subprocess
import sys
import tempfile
import time

SLACK = 12  # seconds past the timeout: the roll call's grace, MPI_Abort


def children(pid):
    """All descendants of `pid`, from /proc."""
    parent = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            parent[int(entry)] = int(stat[stat.rindex(")") + 2:].split()[1])
        except (OSError, ValueError):
            pass
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        out += kids
        todo += kids
    return out


def world_rank(pid):
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            for var in f.read().split(b"\0"):
                if var.startswith(b"OMPI_COMM_WORLD_RANK="):
                    return int(var.split(b"=", 1)[1])
    except OSError:
        pass
    return None


def main():
    np_, stop_rank, timeout = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    args = sys.argv[sys.argv.index("--") + 1:]
    tmp = tempfile.mkdtemp()
    log, err = os.path.join(tmp, "log.jsonl"), os.path.join(tmp, "stderr")
    with open(err, "wb") as errf:
        job = subprocess.Popen(
            ["mpirun", "-np", str(np_)] + args +
            [f"--comm-timeout={timeout}", f"--log={log}"],
            stdout=subprocess.DEVNULL, stderr=errf, start_new_session=True)
    ranks = {}
    try:
        # A few steps first, so the stop lands mid-training.
        start = time.time()
        while time.time() - start < 120 and job.poll() is None:
            if os.path.exists(log) and sum(1 for _ in open(log)) >= 5:
                break
            time.sleep(0.05)
        else:
            sys.exit(f"FAIL: the job did not train 5 steps "
                     f"(exit {job.poll()}): {open(err).read()}")
        for pid in children(job.pid):
            r = world_rank(pid)
            if r is not None and r not in ranks:
                ranks[r] = pid
        if stop_rank not in ranks:
            sys.exit(f"FAIL: no process of rank {stop_rank} among {ranks}")
        os.kill(ranks[stop_rank], signal.SIGSTOP)
        stopped = time.time()
        try:
            code = job.wait(timeout=float(timeout) + SLACK)
        except subprocess.TimeoutExpired:
            sys.exit(f"FAIL: the job still runs {float(timeout) + SLACK} s "
                     f"after rank {stop_rank} stopped: "
                     f"{open(err).read()}")
        took = time.time() - stopped
        sys.stdout.write(open(err).read())
        print(f"ended {took:.1f} s after the stop")
        print("exit: " + ("nonzero" if code != 0 else "zero"))
        print("bounded: " + ("yes" if took <= float(timeout) + SLACK
                             else "no"))
    finally:
        for pid in ranks.values():
            for sig in (signal.SIGCONT, signal.SIGKILL):
                try:
                    os.kill(pid, sig)
                except OSError:
                    pass
        if job.poll() is None:
            os.killpg(job.pid, signal.SIGKILL)
            job.wait(timeout=10)


if __name__ == "__main__":
    main()
