#!/usr/bin/env python3
"""Helper of fault-injection.test: faults at seeded random points.

  ranks SEED TRIALS TIMEOUT -- EXE ARGS...
      Each trial starts `mpirun -np 2 EXE ARGS... --comm-timeout=TIMEOUT`,
      waits for a random number of logged steps (and a random fraction of a
      step more), then sends SIGKILL or SIGSTOP (alternately) to a random
      rank. The job must end within TIMEOUT + 12 s of the fault, with a
      non-zero exit and a line naming the rank: mpirun's "exited on signal
      9" for a kill, the runtime's "rank R did not arrive" for a stop.
  checkpoint SEED TRIALS CKDIR -- EXE ARGS...
      CKDIR holds a good checkpoint. Each trial copies it, truncates the
      copy at a random length or flips random bytes of it, and resumes from
      it (`EXE ARGS... --checkpoint=COPY --resume --log=LOG`). The resume
      must either refuse it (exit 1, one `error:` line naming the
      checkpoint, no crash) or, when the damage hit bytes nothing reads (a
      zip timestamp, say), train exactly as from the intact one. Never a
      crash, another exit code, or other losses.

Prints one PASS line per trial; exits non-zero at the first failure. Every
wait is bounded and every process it starts is killed at the end.
"""
import importlib.util
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

# comm-timeout.test.py's Job: mpirun under a fault, cleaned up.
_spec = importlib.util.spec_from_file_location(
    "comm_timeout", os.path.join(os.path.dirname(__file__),
                                 "comm-timeout.test.py"))
procs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(procs)


def fail(msg):
    sys.exit("FAIL: " + msg)


def rank_trial(rng, trial, timeout, cmd, tmp):
    sig = signal.SIGKILL if trial % 2 == 0 else signal.SIGSTOP
    steps, extra = rng.randint(2, 40), rng.uniform(0.0, 0.05)
    victim = rng.randrange(2)
    with procs.Job(2, cmd, timeout, tmp, f"trial{trial}") as job:
        job.wait_steps(steps)
        time.sleep(extra)
        job.hit(victim, sig)
        code, took = job.wait_end()
        text = job.stderr()
    # mpirun's words for a killed rank (its PID it may print as 0).
    want = ([f"process rank {victim} with PID", "exited on signal 9"]
            if sig == signal.SIGKILL else [f"rank {victim} did not arrive"])
    if code == 0 or not all(w in text for w in want):
        fail(f"trial {trial}: {sig.name} to rank {victim} after {steps} "
             f"steps: exit {code}, expected {want} in: {text}")
    print(f"PASS: trial {trial}: {sig.name} to rank {victim} after {steps} "
          f"steps: exit {code} {took:.1f} s later")


def resume(cmd, ck, log):
    try:
        p = subprocess.run(cmd + [f"--checkpoint={ck}", "--resume",
                                  f"--log={log}"],
                           capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        fail(f"resuming from {ck} did not end in 120 s")
    losses = ([json.loads(line)["loss"] for line in open(log)]
              if p.returncode == 0 else None)
    return p, losses


def checkpoint_trial(rng, trial, good, cmd, tmp, reference):
    ck = os.path.join(tmp, f"ck{trial}")
    shutil.copytree(good, ck)
    path = os.path.join(ck, "checkpoint.npz")
    data = bytearray(open(path, "rb").read())
    if trial % 2 == 0:
        cut = rng.randrange(len(data))
        del data[cut:]
        what = f"truncated at byte {cut}"
    else:
        spots = sorted(rng.randrange(len(data))
                       for _ in range(rng.randint(1, 8)))
        for i in spots:
            data[i] ^= 1 << rng.randrange(8)
        what = f"bits flipped at bytes {spots}"
    open(path, "wb").write(bytes(data))
    p, losses = resume(cmd, ck, os.path.join(tmp, f"log{trial}.jsonl"))
    errors = [l for l in p.stderr.splitlines() if l.startswith("error: ")]
    if p.returncode == 1:
        if len(errors) != 1 or "checkpoint" not in errors[0]:
            fail(f"trial {trial} ({what}): exit 1 without one error line "
                 f"naming the checkpoint: {p.stderr!r}")
        print(f"PASS: trial {trial} ({what}): refused: {errors[0]}")
    elif p.returncode == 0:
        if losses != reference:
            fail(f"trial {trial} ({what}): resumed with other losses "
                 f"{losses} than the intact checkpoint's {reference}")
        print(f"PASS: trial {trial} ({what}): unread bytes, same losses")
    else:
        fail(f"trial {trial} ({what}): exit {p.returncode}: {p.stderr!r}")


def main():
    mode, seed, trials = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    arg = sys.argv[4]
    cmd = sys.argv[sys.argv.index("--") + 1:]
    rng = random.Random(seed)
    tmp = tempfile.mkdtemp()
    try:
        if mode == "ranks":
            for t in range(trials):
                rank_trial(rng, t, arg, cmd, tmp)
        else:
            _, reference = resume(cmd, arg, os.path.join(tmp, "ref.jsonl"))
            if reference is None:
                fail(f"the intact checkpoint in {arg} does not resume")
            for t in range(trials):
                checkpoint_trial(rng, t, arg, cmd, tmp, reference)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
