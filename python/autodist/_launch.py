"""Running a compiled executable on MPI ranks, and its results."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from typing import IO, Any, Callable, Dict, List, Optional, Sequence, Union

from .errors import RunError

PathLike = Union[str, os.PathLike]
_RANK = re.compile(r"Process name: \[\[\d+,\d+\],(\d+)\]")


class Run:
    """A finished run: `metrics` holds the log's records (one per step:
    step, loss, samples_per_s, lr, time_s, collectives, comm_bytes)."""

    def __init__(self, metrics: List[Dict[str, Any]], stdout: str, stderr: str,
                 returncode: int, wall_s: float, label: str,
                 log: Optional[str], save: Optional[str]):
        self.metrics = metrics
        self.stdout = stdout
        self.stderr = stderr
        self.returncode = returncode
        self.wall_s = wall_s
        self.label = label
        self.log = log
        self.save = save

    @property
    def losses(self) -> List[float]:
        return [m["loss"] for m in self.metrics]

    @property
    def steps(self) -> List[int]:
        return [m["step"] for m in self.metrics]

    @property
    def times(self) -> List[float]:
        """Seconds since the start of training, at the end of each step."""
        return [m["time_s"] for m in self.metrics]

    @property
    def samples_per_s(self) -> float:
        """Global samples per second over the steps after the first (which
        also warms up): their count over their total time."""
        speeds = [m["samples_per_s"] for m in self.metrics[1:]] or \
            [m["samples_per_s"] for m in self.metrics]
        speeds = [s for s in speeds if s > 0]
        return len(speeds) / sum(1.0 / s for s in speeds) if speeds else 0.0

    def plot(self, path: PathLike, *others: "Run", title: Optional[str] = None):
        """Writes loss against step and against time, of this run and
        `others`, to the image `path` (needs matplotlib)."""
        return plot([self, *others], path, title=title)

    def __repr__(self) -> str:
        last = f", final loss {self.losses[-1]:.4f}" if self.metrics else ""
        return f"Run({self.label!r}, {len(self.metrics)} steps{last})"


def plot(runs: Sequence[Run], path: PathLike, title: Optional[str] = None):
    """Loss vs step and loss vs time of several runs on one figure."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError("Run.plot needs matplotlib "
                          "(pip install 'autodist[plot]')") from e
    fig, (by_step, by_time) = plt.subplots(1, 2, figsize=(11, 4))
    for r in runs:
        by_step.plot(r.steps, r.losses, label=r.label)
        by_time.plot(r.times, r.losses, label=r.label)
    by_step.set_xlabel("step")
    by_time.set_xlabel("time (s)")
    for ax in (by_step, by_time):
        ax.set_ylabel("loss")
        ax.grid(alpha=0.3)
        ax.legend()
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(os.fspath(path))
    plt.close(fig)
    return os.fspath(path)


def _pump(src: IO[bytes], sink: Optional[IO[str]], chunks: List[bytes]) -> None:
    while True:
        b = src.read1(4096) if hasattr(src, "read1") else src.read(4096)
        if not b:
            return
        chunks.append(b)
        if sink is not None:
            sink.write(b.decode(errors="replace"))
            sink.flush()


def _failure(stderr: str) -> tuple:
    """The runtime's error line and the rank mpirun names as first failed."""
    message = None
    for line in stderr.replace("\r", "\n").splitlines():
        line = line.strip()
        if line.startswith("error: "):
            message = line[len("error: "):]
            break
    if message is None:
        lines = [l.strip() for l in stderr.replace("\r", "\n").splitlines()
                 if l.strip() and not l.startswith("---")]
        message = lines[-1] if lines else "the run failed"
    m = _RANK.search(stderr)
    return message, int(m.group(1)) if m else None


def launch(executable, ranks: int = 1, data: Optional[PathLike] = None,
           steps: Optional[int] = None, batch_size: Optional[int] = None, *,
           lr: Optional[float] = None, log: Optional[PathLike] = None,
           checkpoint: Optional[PathLike] = None,
           checkpoint_every: Optional[int] = None, resume: bool = False,
           overwrite: bool = False, save: Optional[PathLike] = None,
           eval: Optional[PathLike] = None, seed: Optional[int] = None,
           trace: Optional[PathLike] = None, on_nonfinite: Optional[str] = None,
           comm_timeout: Optional[float] = None, args: Sequence[str] = (),
           mpirun: str = "mpirun", mpirun_args: Sequence[str] = (),
           env: Optional[Dict[str, str]] = None, echo: bool = True,
           label: Optional[str] = None, timeout: Optional[float] = None) -> Run:
    """Runs `executable` (an Executable or a path) on `ranks` MPI ranks:
    `mpirun -np RANKS exe --data=... --steps=... --batch-size=... --log=...`.

    The progress line streams to stderr unless `echo` is False. Returns a
    Run with the metrics log parsed (a temporary log when `log` is None).
    Raises RunError with the failing rank's message when the job fails.
    """
    path = getattr(executable, "path", executable)
    path = os.path.abspath(os.fspath(path))
    if not os.access(path, os.X_OK):
        raise FileNotFoundError(f"no executable '{path}'")
    scratch = tempfile.mkdtemp(prefix="autodist-run-")
    try:
        log_path = os.fspath(log) if log is not None else os.path.join(scratch, "metrics.jsonl")
        cmd_args: List[str] = []
        for flag, value in (("data", data), ("steps", steps),
                            ("batch-size", batch_size), ("lr", lr),
                            ("log", log_path), ("checkpoint", checkpoint),
                            ("checkpoint-every", checkpoint_every),
                            ("save", save), ("eval", eval), ("seed", seed),
                            ("trace", trace), ("on-nonfinite", on_nonfinite),
                            ("comm-timeout", comm_timeout)):
            if value is not None:
                cmd_args.append(f"--{flag}={os.fspath(value) if isinstance(value, os.PathLike) else value}")
        if resume:
            cmd_args.append("--resume")
        if overwrite:
            cmd_args.append("--overwrite")
        cmd_args += list(args)
        launcher = shutil.which(mpirun)
        if launcher is None:
            raise FileNotFoundError(f"no '{mpirun}' on PATH (OpenMPI's mpirun launches the ranks)")
        cmd = [launcher, "--oversubscribe"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.append("--allow-run-as-root")
        cmd += ["-np", str(int(ranks))] + list(mpirun_args) + [path] + cmd_args
        start = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env={**os.environ, **(env or {})})
        out: List[bytes] = []
        err: List[bytes] = []
        threads = [threading.Thread(target=_pump, args=(proc.stdout, sys.stdout if echo else None, out)),
                   threading.Thread(target=_pump, args=(proc.stderr, sys.stderr if echo else None, err))]
        for t in threads:
            t.start()
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise RunError(f"timed out after {timeout} s", None, -9,
                           b"".join(err).decode(errors="replace"))
        finally:
            for t in threads:
                t.join()
        wall = time.monotonic() - start
        stdout = b"".join(out).decode(errors="replace")
        stderr = b"".join(err).decode(errors="replace")
        if rc != 0:
            message, rank = _failure(stderr)
            raise RunError(message, rank, rc, stderr)
        metrics: List[Dict[str, Any]] = []
        if os.path.exists(log_path):
            with open(log_path) as f:
                metrics = [json.loads(l) for l in f if l.strip()]
        strategy = getattr(executable, "strategy", None)
        name = label or f"{strategy.id if strategy else os.path.basename(path)}, {ranks} rank(s)"
        return Run(metrics, stdout, stderr, rc, wall, name,
                   os.fspath(log) if log is not None else None,
                   os.fspath(save) if save is not None else None)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
