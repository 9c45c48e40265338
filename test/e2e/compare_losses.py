#!/usr/bin/env python3
"""Compare the per-step losses of two training logs (JSONL).

Each file has one JSON object per line with at least ``step`` (1-based int)
and ``loss`` (number); other keys are ignored, blank lines skipped. Typically
A is the training executable's ``--log`` and B the output of
``reference_train.py``.

For every step the relative difference is

    rel = |loss_A - loss_B| / max(|loss_A|, |loss_B|, 1e-12)

and the result is PASS iff max(rel) <= --rtol. It is FAIL (exit 1) when the
two files have different step sets, fewer than --steps steps, duplicate
steps, a non-finite loss, or max(rel) > --rtol. Prints the max relative
difference, the step where it occurs, and PASS/FAIL.

Example::

    python3 test/e2e/compare_losses.py run.jsonl ref.jsonl --rtol 1e-5 --steps 20
"""
import argparse
import json
import math
import sys


def read_log(path):
    losses = {}
    try:
        with open(path) as f:
            for ln, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                    step, loss = int(obj["step"]), float(obj["loss"])
                except (ValueError, KeyError, TypeError) as e:
                    raise ValueError(f"{path}:{ln}: not a {{step, loss}} "
                                     f"JSON object ({e})")
                if step in losses:
                    raise ValueError(f"{path}:{ln}: duplicate step {step}")
                losses[step] = loss
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror}")
    return losses


def main():
    ap = argparse.ArgumentParser(
        description="Compare per-step losses of two JSONL training logs; "
                    "print the max relative difference and PASS/FAIL.")
    ap.add_argument("a", help="first JSONL log (e.g. the executable's --log)")
    ap.add_argument("b", help="second JSONL log (e.g. reference_train.py)")
    ap.add_argument("--rtol", type=float, default=1e-5,
                    help="max allowed relative difference (default 1e-5)")
    ap.add_argument("--steps", type=int, default=1,
                    help="minimum number of steps each log must have "
                         "(default 1)")
    args = ap.parse_args()
    try:
        a, b = read_log(args.a), read_log(args.b)
    except ValueError as e:
        print(f"FAIL: {e}")
        sys.exit(1)
    problems = []
    if set(a) != set(b):
        only_a, only_b = sorted(set(a) - set(b)), sorted(set(b) - set(a))
        problems.append(f"step sets differ ({len(a)} vs {len(b)} steps; "
                        f"only in A: {only_a[:5]}, only in B: {only_b[:5]})")
    for name, d in (("A", a), ("B", b)):
        if len(d) < args.steps:
            problems.append(f"{name} has {len(d)} steps, fewer than "
                            f"--steps {args.steps}")
        bad = [s for s, v in d.items() if not math.isfinite(v)]
        if bad:
            problems.append(f"{name} has non-finite loss at step(s) "
                            f"{sorted(bad)[:5]}")
    common = sorted(set(a) & set(b))
    worst, worst_step = 0.0, None
    for s in common:
        x, y = a[s], b[s]
        if not (math.isfinite(x) and math.isfinite(y)):
            continue
        rel = abs(x - y) / max(abs(x), abs(y), 1e-12)
        if worst_step is None or rel > worst:
            worst, worst_step = rel, s
    if worst_step is not None:
        print(f"compared {len(common)} steps: max relative difference "
              f"{worst:.3e} at step {worst_step} "
              f"(A={a[worst_step]!r}, B={b[worst_step]!r}), rtol {args.rtol:g}")
    if worst > args.rtol:
        problems.append(f"max relative difference {worst:.3e} > rtol "
                        f"{args.rtol:g}")
    if problems:
        print("FAIL: " + "; ".join(problems))
        sys.exit(1)
    print("PASS")


if __name__ == "__main__":
    main()
