"""Shared pieces of the e2e drivers that compile and run many models
(op-models.test.py, gradcheck.test.py, gradcheck-cnn.test.py,
gradcheck-torch.test.py); imported from the directory of those scripts.

- run / run_steps / generate: run commands (a model generator), keeping a
  log to print when something fails;
- trained_step: compile a model whose output is a scalar loss with
  ``--train --loss=output --optimizer=sgd --lr=1``, train it one step with
  ``--save``, and return the initial and saved initializers, so that
  ``W - W_saved`` is the gradient the compiled training step computed;
- relative_error: the gradcheck tolerance measure;
- report: the PASS/FAIL lines, the count and the log of a failed run.
"""
import subprocess

import numpy as np
import onnx
from onnx import numpy_helper


def run(cmd, log):
    """Runs cmd, appends the command line and its output to log; returns
    (succeeded, output)."""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    log.append(f"$ {' '.join(cmd)}\n{p.stdout}")
    return p.returncode == 0, p.stdout


def run_steps(steps, log, detail_marker=None):
    """Runs the commands in order until one fails. Returns (succeeded,
    detail): the failing command's last output line, or else the last
    output line containing detail_marker ("" if none)."""
    detail = ""
    for step in steps:
        ok, out = run(step, log)
        if not ok:
            return False, out.strip().splitlines()[-1] if out.strip() else ""
        if detail_marker:
            detail = next((l for l in out.splitlines() if detail_marker in l),
                          detail)
    return True, detail


def generate(cmd, log, only=""):
    """Runs a model generator, with `--only ONLY` when only is given;
    prints its output and returns False if it fails."""
    ok, out = run(cmd + (["--only", only] if only else []), log)
    if not ok:
        print(out)
    return ok


def report(results, log, summary):
    """Prints `PASS|FAIL NAME: DETAIL` for each (name, ok, detail) of
    results, then `P/N SUMMARY`, and the log if anything failed; returns
    the exit code (1 on a failure)."""
    failed = 0
    for name, ok, detail in results:
        print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}")
        failed += not ok
    print(f"{len(results) - failed}/{len(results)} {summary}")
    if failed:
        print("\n".join(log))
        return 1
    return 0


def initializers(path):
    """name -> array of every initializer of the ONNX model at path."""
    return {t.name: numpy_helper.to_array(t)
            for t in onnx.load(path).graph.initializer}


def trained_step(model, data, base, samples, log, flags=()):
    """Compiles model (output 0: a scalar loss) to base.train with plain
    SGD at lr 1 and trains it one step on `samples` rows of the npz `data`,
    saving base.saved.onnx. Returns (initial, saved) initializer dicts, or
    raises RuntimeError with the failing command's last output line."""
    ok, detail = run_steps([
        ["autodist-compile", model, "--train", "--loss=output",
         "--optimizer=sgd", "--lr=1", "-o", base + ".train", "--quiet"] +
        list(flags),
        [base + ".train", f"--data={data}", "--steps=1",
         f"--batch-size={samples}", f"--save={base}.saved.onnx"],
    ], log)
    if not ok:
        raise RuntimeError(detail)
    return initializers(model), initializers(base + ".saved.onnx")


def relative_error(got, ref, floor=1e-2, slack=None):
    """max over entries of (|got - ref| - slack) / max(|ref|, floor *
    max|ref|): a relative error, entries under `floor` of the largest
    reference entry being judged against that fraction (zero-size or
    all-zero references: the absolute error). slack (an array like ref, or
    None) is an allowance subtracted first, e.g. the rounding of the
    stored weight."""
    got = np.asarray(got, np.float64)
    ref = np.asarray(ref, np.float64)
    if ref.size == 0:
        return 0.0
    err = np.abs(got - ref)
    if slack is not None:
        err = np.maximum(err - slack, 0.0)
    denom = np.maximum(np.abs(ref), floor * np.abs(ref).max())
    denom = np.where(denom == 0, 1.0, denom)
    return float((err / denom).max())

