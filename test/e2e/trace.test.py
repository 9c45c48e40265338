"""Checks the per-rank Chrome traces written by --trace (see trace.test)."""
import argparse
import json

ap = argparse.ArgumentParser()
ap.add_argument("files", nargs="+")
ap.add_argument("--steps", type=int, required=True)
ap.add_argument("--bytes", type=int, required=True,
                help="bytes all-reduced per step (all buckets)")
ap.add_argument("--buckets", type=int, default=1,
                help="all-reduce buckets per step")
ap.add_argument("--ops", action="store_true",
                help="also report the named loop-nest events")
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
    # The compiled loop nests ("op" events, named after their ONNX nodes)
    # nest inside the compute events between runtime calls.
    ops = [e for e in spans if e["cat"] == "op"]
    computes = [e for e in spans if e["name"] == "compute"]
    for e in ops:
        assert any(c["ts"] <= e["ts"] + 1e-3 and
                   e["ts"] + e["dur"] <= c["ts"] + c["dur"] + 1e-3
                   for c in computes), e
    op_names = {e["name"] for e in ops}
    grads = {n for n in op_names if n.startswith("grad ")}
    by_name = {}
    for e in spans:
        if e["name"] == "train_step" or e["cat"] == "op":
            continue
        by_name.setdefault(e["name"], []).append(e)
        inside = [s for s in steps if s["ts"] <= e["ts"] + 1e-3 and
                  e["ts"] + e["dur"] <= s["ts"] + s["dur"] + 1e-3]
        assert len(inside) == 1, e
    # An all-reduce is blocking (`allreduce`) or a start and a wait (same
    # handle, the wait later); a step has --buckets of them, carrying
    # --bytes in all.
    blocking = by_name.get("allreduce", [])
    starts = by_name.get("allreduce_start", [])
    waits = by_name.get("allreduce_wait", [])
    assert len(starts) == len(waits), (len(starts), len(waits))
    assert len(blocking) + len(starts) == args.steps * args.buckets
    for step in steps:
        mine = [e for e in blocking + starts
                 if step["ts"] <= e["ts"] <= step["ts"] + step["dur"]]
        assert len(mine) == args.buckets, mine
        assert sum(e["args"]["bytes"] for e in mine) == args.bytes, mine
    overlapped = 0
    pending = {}
    for e in sorted(spans, key=lambda e: e["ts"]):
        if e["name"] == "allreduce_start":
            assert e["args"]["handle"] not in pending, e
            pending[e["args"]["handle"]] = e
        elif e["name"] == "allreduce_wait":
            start = pending.pop(e["args"]["handle"])
            assert start["args"]["bytes"] == e["args"]["bytes"], (start, e)
            assert start["ts"] + start["dur"] <= e["ts"] + 1e-3, (start, e)
        elif pending and e["name"] == "sgemm":
            overlapped += 1
    assert not pending, pending
    gemms = by_name.get("sgemm", [])
    assert gemms and all(min(e["args"][d] for d in "mnk") > 0 for e in gemms)
    assert by_name.get("compute"), "no compute events"
    assert set(by_name) <= {"allreduce", "allreduce_start", "allreduce_wait",
                            "sgemm", "compute"}, set(by_name)
    assert {"sgemm", "compute"} <= set(by_name), set(by_name)
    print(f"rank {rank}: {len(steps)} steps, per step "
          f"{len(blocking) // args.steps} blocking and "
          f"{len(starts) // args.steps} started/waited all-reduces "
          f"({args.bytes} bytes), sgemm and compute inside steps" +
          (", sgemm while a bucket travels" if overlapped else "") +
          (f"; loop nests of {len(op_names) - len(grads)} forward and "
           f"{len(grads)} gradient names" if args.ops else ""))
