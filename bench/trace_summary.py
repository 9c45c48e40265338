"""Per-step time split of `--trace` files: median over steps (after
--skip) of the step, the sgemm calls, and the all-reduces (blocking calls,
starts, waits), per rank file; then the compiled loop nests ("op" events,
named after their ONNX nodes) that took the most time per step. Usage:
  python3 bench/trace_summary.py t.rank0.json t.rank1.json [--skip 10] [--top 8]"""
import argparse
import json
import statistics

NAMES = ("sgemm", "allreduce", "allreduce_start", "allreduce_wait")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--skip", type=int, default=10,
                    help="first steps left out (default 10)")
    ap.add_argument("--top", type=int, default=8,
                    help="loop nests listed per file (default 8)")
    args = ap.parse_args()
    for path in args.files:
        with open(path) as f:
            spans = [e for e in json.load(f)["traceEvents"] if e["ph"] == "X"]
        steps = [e for e in spans if e["name"] == "train_step"][args.skip:]
        if not steps:
            raise SystemExit(f"{path}: no steps after the first {args.skip}")
        rows = []
        for s in steps:
            inside = [e for e in spans if e["name"] in NAMES and
                      s["ts"] <= e["ts"] < s["ts"] + s["dur"]]
            rows.append([s["dur"]] + [sum(e["dur"] for e in inside
                                          if e["name"] == n) for n in NAMES] +
                        [sum(e["name"] in ("allreduce", "allreduce_start")
                             for e in inside)])
        med = [statistics.median(c) / 1000 for c in zip(*rows)]
        print(f"{path}: step {med[0]:.2f} ms, sgemm {med[1]:.2f} ms, "
              f"blocking all-reduce {med[2]:.2f} ms, starts {med[3]:.2f} ms, "
              f"waits {med[4]:.2f} ms, all-reduces/step {med[5] * 1000:.0f}")
        first = steps[0]["ts"]
        per_op = {}
        for e in spans:
            if e.get("cat") == "op" and e["ts"] >= first:
                per_op[e["name"]] = per_op.get(e["name"], 0) + e["dur"]
        for name, us in sorted(per_op.items(), key=lambda kv: -kv[1])[:args.top]:
            print(f"  {us / len(steps) / 1000:7.3f} ms/step  {name}")


if __name__ == "__main__":
    main()
