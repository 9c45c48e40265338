"""Writes the metrics logs of step-profile.test into DIR (or, with
--check-unchanged, checks that slow.jsonl is still what it wrote)."""
import json
import os
import sys


def log(dts):
    t, lines = 0.0, []
    for i, dt in enumerate(dts):
        t += dt
        lines.append(json.dumps({"step": i + 1, "loss": 1.0, "time_s": t}))
    return "\n".join(lines) + "\n"


# 5 start-up steps of 5 s, then 1 s per step and one outlier of 100 s.
SLOW = log([5.0] * 5 + [1.0] * 9 + [100.0])

if sys.argv[1] == "--check-unchanged":
    with open(os.path.join(sys.argv[2], "slow.jsonl")) as f:
        sys.exit(0 if f.read() == SLOW else "slow.jsonl was overwritten")
d = sys.argv[1]
files = {
    "slow.jsonl": SLOW,
    "fast.jsonl": log([1e-4] * 12),
    "bad.jsonl": log([1.0, 1.0]) + "{\"step\": 3}\n" + log([1.0]),
    "short.jsonl": log([1.0] * 3),
    "still.jsonl": log([0.0] * 6),
}
for name, text in files.items():
    with open(os.path.join(d, name), "w") as f:
        f.write(text)
