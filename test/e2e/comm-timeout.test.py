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
import glob
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


class Job:
    """`mpirun -np NP ARGS... --comm-timeout=TIMEOUT --log=LOG`, stderr in
    a file. Leaving the `with` block continues and kills every process of it
    that is left, so nothing outlives the test."""

    def __init__(self, np_, args, timeout, tmp, name="job"):
        self.timeout = float(timeout)
        self.log = os.path.join(tmp, name + ".jsonl")
        self.err = os.path.join(tmp, name + ".stderr")
        self.ranks = {}
        with open(self.err, "wb") as errf:
            self.proc = subprocess.Popen(
                ["mpirun", "-np", str(np_)] + args +
                [f"--comm-timeout={timeout}", f"--log={self.log}"],
                stdout=subprocess.DEVNULL, stderr=errf,
                start_new_session=True)

    def __enter__(self):
        return self

    def stderr(self):
        return open(self.err).read()

    def wait_steps(self, n):
        """Until the log has `n` steps (at most 120 s). A running job writes
        its log to LOG.tmp-XXXXXX (renamed to LOG at the end)."""
        start = time.time()
        while time.time() - start < 120 and self.proc.poll() is None:
            for live in glob.glob(glob.escape(self.log) + ".tmp-*"):
                try:
                    if sum(1 for _ in open(live)) >= n:
                        return
                except OSError:
                    pass
            time.sleep(0.01)
        sys.exit(f"FAIL: the job did not train {n} steps "
                 f"(exit {self.proc.poll()}): {self.stderr()}")

    def hit(self, rank, sig):
        """Sends `sig` to the process of world rank `rank`."""
        for pid in children(self.proc.pid):
            r = world_rank(pid)
            if r is not None and r not in self.ranks:
                self.ranks[r] = pid
        if rank not in self.ranks:
            sys.exit(f"FAIL: no process of rank {rank} among {self.ranks}")
        os.kill(self.ranks[rank], sig)
        self.hit_at = time.time()

    def wait_end(self):
        """The exit code and the seconds since the hit; FAIL past
        TIMEOUT + SLACK."""
        limit = self.timeout + SLACK
        try:
            code = self.proc.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            sys.exit(f"FAIL: the job still runs {limit} s after the "
                     f"signal: {self.stderr()}")
        return code, time.time() - self.hit_at

    def __exit__(self, *exc):
        for pid in self.ranks.values():
            for sig in (signal.SIGCONT, signal.SIGKILL):
                try:
                    os.kill(pid, sig)
                except OSError:
                    pass
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)


def main():
    np_, stop_rank, timeout = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    args = sys.argv[sys.argv.index("--") + 1:]
    with Job(np_, args, timeout, tempfile.mkdtemp()) as job:
        job.wait_steps(5)  # so that the stop lands mid-training
        job.hit(stop_rank, signal.SIGSTOP)
        code, took = job.wait_end()
        sys.stdout.write(job.stderr())
        print(f"ended {took:.1f} s after the stop")
        print("exit: " + ("nonzero" if code != 0 else "zero"))
        print("bounded: " + ("yes" if took <= job.timeout + SLACK else "no"))


if __name__ == "__main__":
    main()
