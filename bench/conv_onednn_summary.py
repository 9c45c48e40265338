"""Tables of bench/conv_onednn.sh all: medians over rounds of the per-run
medians of bench/conv_onednn.cpp (conv, sgemm with OPENBLAS_CORETYPE unset
and Haswell) and bench/conv_torch.py, as markdown.

  python3 bench/conv_onednn_summary.py OUTDIR > OUTDIR/summary.md"""
import glob
import json
import os
import statistics
import sys


def records(pattern):
    """JSON lines of every file matching `pattern`, one list per file."""
    runs = []
    for path in sorted(glob.glob(pattern)):
        with open(path) as f:
            runs.append([json.loads(line[5:]) for line in f
                         if line.startswith("JSON ")])
    return runs


def med(values):
    return statistics.median(values) if values else float("nan")


def loads(outdir):
    out = []
    for path in sorted(glob.glob(os.path.join(outdir, "*.load"))):
        with open(path) as f:
            out += [line.split("load average:")[1].split(",")[0].strip()
                    for line in f if "load average:" in line]
    return out


ARMS = ["ours_openblas", "ours_dnnl_sgemm", "onednn_nchw", "onednn_any_prim",
        "onednn_any_act", "onednn_any_all"]
HEAD = ["ours (OpenBLAS)", "ours (dnnl_sgemm)", "oneDNN nchw",
        "oneDNN any: primitive", "any + activation reorders",
        "any + all reorders"]


def conv_tables(outdir):
    conv = records(os.path.join(outdir, "conv*.out"))
    torch_runs = records(os.path.join(outdir, "torch*.out"))
    if not conv:
        return
    key = lambda r: (r["model"], r["layer"], r["op"])
    rows = [r for r in conv[0] if "layer" in r]
    torch_ms = {}
    for run in torch_runs:
        for r in run:
            if "layer" in r:
                torch_ms.setdefault(key(r), []).append(r["torch_ms"])
    print(f"Convolutions: {len(conv)} runs of `conv_onednn conv`, "
          f"{len(torch_runs)} of `conv_torch.py`; ms, median over runs of "
          "each run's median.\n")
    print("| model | layer | n | op | " + " | ".join(HEAD) +
          " | torch 1.13 | ours / any+act | oneDNN impl (any) |")
    print("|---|---|---:|---|" + "---:|" * (len(HEAD) + 2) + "---|")
    sums, sgemm_sums = {}, {}
    for r in rows:
        k = key(r)
        same = [x for run in conv for x in run if "layer" in x and key(x) == k]
        v = [med([x[a + "_ms"] for x in same]) for a in ARMS]
        t = med(torch_ms.get(k, []))
        gemm = med([x["ours_openblas_sgemm_ms"] for x in same])
        s = sums.setdefault(r["model"], [0.0] * (len(ARMS) + 1))
        for i, x in enumerate(v + [t]):
            s[i] += r["count"] * x
        sgemm_sums[r["model"]] = (sgemm_sums.get(r["model"], 0.0) +
                                  r["count"] * gemm)
        print(f"| {r['model']} | {r['layer']} | {r['count']} | {r['op']} | " +
              " | ".join(f"{x:.3f}" for x in v) + f" | {t:.3f} | "
              f"{v[0] / v[4]:.2f} | {r['impl_any']} |")
    errs = [e for run in conv for x in run if "relerr" in x
            for e in x["relerr"]]
    print(f"\nLargest relative difference of any arm's output from ours "
          f"(max |a-b| / max |a|): {max(errs):.1e}.\n")
    print("Per model, one training step's convolutions (sum of count x op), "
          "ms:\n")
    print("| model | " + " | ".join(HEAD) + " | torch 1.13 | of which ours' "
          "sgemm |")
    print("|---|" + "---:|" * (len(HEAD) + 2))
    for model, s in sums.items():
        print(f"| {model} | " + " | ".join(f"{x:.2f}" for x in s) +
              f" | {sgemm_sums[model]:.2f} |")
    print()


def sgemm_tables(outdir):
    runs = {ct: records(os.path.join(outdir, f"sgemm-{ct}-*.out"))
            for ct in ("unset", "Haswell")}
    if not runs["unset"]:
        return
    print(f"sgemm: {len(runs['unset'])} + {len(runs['Haswell'])} runs "
          "(OPENBLAS_CORETYPE unset / Haswell, alternated); ms, median over "
          "runs; OpenBLAS and dnnl_sgemm interleaved within each run.\n")
    print("| shape | m n k | trans | OpenBLAS (Cooperlake) | dnnl_sgemm | "
          "OpenBLAS (Haswell) | dnnl_sgemm (Haswell runs) | "
          "OpenBLAS/dnnl (Cooperlake) | OpenBLAS/dnnl (Haswell) |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    names = [r["shape"] for r in runs["unset"][0] if "shape" in r]
    for name in names:
        v = {}
        for ct, rs in runs.items():
            same = [x for run in rs for x in run if x.get("shape") == name]
            v[ct] = (med([x["openblas_ms"] for x in same]),
                     med([x["dnnl_ms"] for x in same]))
            first = same[0]
        flops = 2e-9 * first["m"] * first["n"] * first["k"]
        print(f"| {name} | {first['m']} {first['n']} {first['k']} | "
              f"{first['trans']} | {v['unset'][0]:.3f} "
              f"({flops / v['unset'][0] * 1e3:.0f} GF/s) | {v['unset'][1]:.3f} "
              f"({flops / v['unset'][1] * 1e3:.0f}) | {v['Haswell'][0]:.3f} "
              f"({flops / v['Haswell'][0] * 1e3:.0f}) | {v['Haswell'][1]:.3f} | "
              f"{v['unset'][0] / v['unset'][1]:.2f} | "
              f"{v['Haswell'][0] / v['Haswell'][1]:.2f} |")
    print("\nPer MLP training step (sum of the products of one batch size), "
          "ms:\n")
    print("| batch | OpenBLAS (Cooperlake) | dnnl_sgemm | OpenBLAS (Haswell) | "
          "dnnl_sgemm (Haswell runs) |")
    print("|---|---:|---:|---:|---:|")
    for batch in (128, 256):
        cells = []
        for ct in ("unset", "Haswell"):
            same = [x for run in runs[ct] for x in run
                    if x.get("mlp_step_batch") == batch]
            cells += [med([x["openblas_ms"] for x in same]),
                      med([x["dnnl_ms"] for x in same])]
        print(f"| {batch} | " + " | ".join(f"{c:.2f}" for c in cells) + " |")
    print()


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "."
    conv_tables(outdir)
    sgemm_tables(outdir)
    load = [float(x) for x in loads(outdir)]
    if load:
        print(f"Load average (1 min, `uptime` before and after each run): "
              f"{min(load):.2f} to {max(load):.2f}, median "
              f"{statistics.median(load):.2f}.")


if __name__ == "__main__":
    main()
