#!/usr/bin/env python3
"""Checks a compressed run's log: the loss falls (by --min-drop of the first
step's loss over the run) and every step's payload is --comm-bytes (the
compressed size, which the test derives)."""
import argparse
import json
import sys

ap = argparse.ArgumentParser()
ap.add_argument("log")
ap.add_argument("--comm-bytes", type=int, required=True)
ap.add_argument("--min-drop", type=float, required=True)
args = ap.parse_args()
rows = [json.loads(line) for line in open(args.log) if line.strip()]
ok = True
want = args.comm_bytes
for r in rows:
    if r["comm_bytes"] != want:
        print(f"step {r['step']}: comm_bytes {r['comm_bytes']}, want {want}")
        ok = False
first, last = rows[0]["loss"], rows[-1]["loss"]
if not last <= first * (1 - args.min_drop):
    print(f"loss fell from {first} to {last}, less than {args.min_drop:.0%}")
    ok = False
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
