#!/usr/bin/env python3
"""checkpoint-resume.test.py STRAIGHT FIRST SECOND: the losses and lrs of the
first run followed by the resumed run equal those of the straight run,
exactly, step for step."""
import json
import sys


def read(path):
    return [json.loads(line) for line in open(path)]


straight, first, second = (read(p) for p in sys.argv[1:4])
joined = first + second
if [r["step"] for r in joined] != [r["step"] for r in straight]:
    sys.exit(f"FAIL: steps differ: {[r['step'] for r in joined]}")
for a, b in zip(joined, straight):
    if a["loss"] != b["loss"] or a["lr"] != b["lr"]:
        sys.exit(f"FAIL: step {a['step']}: resumed {a['loss']} (lr {a['lr']}) "
                 f"vs straight {b['loss']} (lr {b['lr']})")
print(f"PASS: {len(joined)} steps identical")
