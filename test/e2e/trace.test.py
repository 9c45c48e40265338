"""Checks the per-rank Chrome traces written by --trace (see trace.test)."""
import argparse
import json

ap = argparse.ArgumentParser()
ap.add_argument("files", nargs="+")
ap.add_argument("--steps", type=int, required=True)
ap.add_argument("--bytes", type=int, required=True)
args = ap.parse_args()

for rank, path in enumerate(args.files):
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    meta = [e for e in events if e["ph"] == "M"]
    assert meta and meta[0]["args"]["name"] == f"rank {rank}", meta
    spans = [e for e in events if e["ph"] == "X"]
    assert all(e["pid"] == rank and e["dur"] >= 0 for e in spans)
    steps = [e for e in spans if e["name"] == "train_step"]
    assert [e["args"]["step"] for e in steps] == list(range(1, args.steps + 1))
    assert all(isinstance(e["args"]["loss"], float) for e in steps)
    for a, b in zip(steps, steps[1:]):
        assert a["ts"] + a["dur"] <= b["ts"], (a, b)
    by_name = {}
    for e in spans:
        if e["name"] == "train_step":
            continue
        by_name.setdefault(e["name"], []).append(e)
        inside = [s for s in steps if s["ts"] <= e["ts"] + 1e-3 and
                  e["ts"] + e["dur"] <= s["ts"] + s["dur"] + 1e-3]
        assert len(inside) == 1, e
    reduces = by_name.get("allreduce", [])
    assert len(reduces) == args.steps, len(reduces)
    assert all(e["args"]["bytes"] == args.bytes for e in reduces), reduces
    gemms = by_name.get("sgemm", [])
    assert gemms and all(min(e["args"][d] for d in "mnk") > 0 for e in gemms)
    assert by_name.get("compute"), "no compute events"
    assert set(by_name) == {"allreduce", "sgemm", "compute"}, set(by_name)
    print(f"rank {rank}: {len(steps)} steps, {len(reduces)} allreduce of "
          f"{args.bytes} bytes, sgemm and compute inside steps")
