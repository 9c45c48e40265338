"""Runs an MPI job with --pin and checks what each rank reports, against the
CPU blocks computed here from this process's CPUs (see pin.test).

  pin.test.py --expect cores|none --ranks N [--live] [--trace PREFIX] -- CMD...

With --live the job must still be running after its report: every thread of
every rank process must then have exactly the reported CPUs in
/proc/<pid>/task/<tid>/status (Cpus_allowed_list); the job is then stopped.
With --trace, PREFIX.rank<R>.json must carry the report as its process label.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--expect", choices=["cores", "none"], required=True)
ap.add_argument("--ranks", type=int, required=True)
ap.add_argument("--live", action="store_true")
ap.add_argument("--trace")
ap.add_argument("cmd", nargs=argparse.REMAINDER)
args = ap.parse_args()
cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd

allowed = sorted(os.sched_getaffinity(0))


def block(rank, ranks):
    """[r*C/n, (r+1)*C/n) of the allowed CPUs; CPU r % C if n > C."""
    c = len(allowed)
    if ranks > c:
        return [allowed[rank % c]]
    return allowed[rank * c // ranks:(rank + 1) * c // ranks]


def parse_list(text):
    """The kernel's CPU list syntax, "0-3,6", as a sorted list."""
    cpus = []
    for part in text.strip().split(","):
        lo, _, hi = part.partition("-")
        cpus += range(int(lo), int(hi or lo) + 1)
    return sorted(cpus)


def rank_pids(parent):
    """{world rank: pid} of the processes `parent` (mpirun) started."""
    pids = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        for var in env:
            if ppid == parent and var.startswith(b"OMPI_COMM_WORLD_RANK="):
                pids[int(var.split(b"=")[1])] = int(entry)
    return pids


def thread_cpus(pid):
    """{tid: CPUs} of every thread of `pid`."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for line in f:
                    if line.startswith("Cpus_allowed_list:"):
                        out[int(tid)] = parse_list(line.split(":")[1])
        except OSError:
            pass  # exited meanwhile
    return out


job = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
reports = {}
pattern = re.compile(r"rank (\d+): (.*)$")
try:
    while len(reports) < args.ranks:
        line = job.stdout.readline()
        if not line:
            sys.exit(f"the job ended after {len(reports)} of {args.ranks} "
                     f"reports (exit {job.wait()})")
        m = pattern.match(line.rstrip("\n"))
        if m:
            reports[int(m.group(1))] = m.group(2)
    live = {}
    if args.live:
        pids = {}
        deadline = time.time() + 30
        while len(pids) < args.ranks and time.time() < deadline:
            pids = rank_pids(job.pid)
        assert len(pids) == args.ranks, f"rank processes found: {pids}"
        live = {r: thread_cpus(pid) for r, pid in pids.items()}
finally:
    if args.live:
        job.send_signal(signal.SIGTERM)
    job.communicate(timeout=60)
if not args.live and job.returncode != 0:
    sys.exit(f"the job failed (exit {job.returncode})")

for rank in range(args.ranks):
    text = reports[rank]
    m = re.match(r"(pinned to|not pinned \(--pin=none\),) CPUs? ([-0-9,]+) "
                 r"\((\d+) BLAS threads?\)$", text)
    assert m, f"rank {rank}: unexpected report {text!r}"
    cpus = parse_list(m.group(2))
    threads = int(m.group(3))
    if args.expect == "cores":
        want = block(rank, args.ranks)
        assert m.group(1) == "pinned to", text
        assert cpus == want, f"rank {rank}: CPUs {cpus}, expected {want}"
        assert threads == len(want), f"rank {rank}: {threads} BLAS threads"
    else:
        assert m.group(1) != "pinned to", text
        assert cpus == allowed, f"rank {rank}: CPUs {cpus}, not {allowed}"
        want_threads = max(1, len(allowed) // args.ranks)
        assert threads == want_threads, f"rank {rank}: {threads} BLAS threads"
    if rank in live:
        for tid, got in live[rank].items():
            assert got == cpus, f"rank {rank} thread {tid}: CPUs {got}"
    if args.trace:
        with open(f"{args.trace}.rank{rank}.json") as f:
            meta = [e for e in json.load(f)["traceEvents"]
                    if e["name"] == "process_labels"]
        assert [e["args"]["labels"] for e in meta] == [text], meta
    checked = f", {len(live[rank])} threads checked" if rank in live else ""
    print(f"rank {rank}: as expected{checked}")
