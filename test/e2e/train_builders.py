#!/usr/bin/env python3
"""Train generated models under strategy builders on N ranks and on 1.

For every --model and --builder: compiles the model with the builder (and
--cluster), trains it for --steps steps on 1 rank with the global batch and
under ``mpirun -np N`` for every --ranks N with global batch / N per rank
(or, with --netcluster SPEC, on the emulated cluster of SPEC),
and checks

  * losses: every N-rank run's per-step losses equal the 1-rank run's
    within --rtol (compare_losses.py's relative difference);
  * traffic: every step of every run logs the collectives and payload bytes
    the strategy implies (docs/strategies.md, "Communication per step"):
    one all-reduce per all-reduce group carrying its gradients, and per
    parameter server (and replication mode) one reduce carrying its
    gradients and one broadcast carrying its updated values; the loss
    (4 bytes) rides in the first all-reduce, or else in the first server's
    reduce and broadcast.

Prints one line per (builder, model, ranks) and exits 1 if any check fails.
--local-replication turns on local_replication for every parameter server
(through a strategy file). Models: mlp (examples/mlp, digits data), cnn
(LeNet without BatchNorm, random data), transformer (random token ids),
resnet18 (torchvision's ResNet-18 exported in training mode by
examples/torch/make_torch_models.py, 32x32 random images; needs
--torch-python). --sync-batchnorm compiles with global-batch statistics,
which add three all-reduces per BatchNormalization of C channels, of
(C + 1) + C + 2C floats (docs/design.md).

Example::

    train_builders.py --src-root . --workdir /tmp/w --builder ps-lb \\
        --model mlp --ranks 2 4 --cluster test/e2e/Inputs/cluster-2x2.yaml
"""
import argparse
import functools
import json
import os
import subprocess
import sys

import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_losses import read_log  # noqa: E402


def run(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, **kw)
    if r.returncode != 0:
        print(f"FAIL: {' '.join(cmd)} exited with {r.returncode}:\n{r.stdout}")
        sys.exit(1)
    return r.stdout


def make_model(args, kind, work):
    """Returns (model.onnx, train.npz)."""
    py, src = sys.executable, args.src_root
    onnx_path = os.path.join(work, f"{kind}.onnx")
    data = os.path.join(work, f"{kind}.npz")
    if os.path.exists(onnx_path) and os.path.exists(data):
        return onnx_path, data
    if kind == "resnet18":
        if not args.torch_python:
            sys.exit("FAIL: --model resnet18 needs --torch-python")
        out = os.path.join(work, "resnet18-export")
        run([args.torch_python, f"{src}/examples/torch/make_torch_models.py",
             "export", "--model", "resnet18", "--training", "--opset", "14",
             "--samples", str(4 * args.batch), "--out-dir", out])
        os.replace(os.path.join(out, "resnet18.onnx"), onnx_path)
        os.replace(os.path.join(out, "data.npz"), data)
        return onnx_path, data
    if kind == "mlp":
        run([py, f"{src}/examples/mlp/make_mlp.py", "--out", onnx_path])
        run([py, f"{src}/examples/digits/make_data.py", "--out-dir",
             os.path.join(work, "digits")])
        os.replace(os.path.join(work, "digits", "train.npz"), data)
        return onnx_path, data
    run([py, f"{src}/examples/models/make_models.py", "--kind", kind,
         "--out", onnx_path])
    extra = (["--labels", "10"] if kind == "cnn"
             else ["--labels", "4", "--int-high", "100"])
    run([py, f"{src}/examples/ops/make_op_data.py", "--model", onnx_path,
         "--out", data, "--samples", str(4 * args.batch)] + extra)
    return onnx_path, data


def expected_traffic(strategy, onnx_path, sync_batchnorm):
    """(collectives, bytes) per step that `strategy` implies (and, with
    `sync_batchnorm`, the statistics' all-reduces)."""
    model = onnx.load(onnx_path)
    arrays = {t.name: numpy_helper.to_array(t)
              for t in model.graph.initializer}
    groups, servers = set(), set()
    ar_bytes = ps_bytes = 0

    def add(sync_node, nbytes):
        nonlocal ar_bytes, ps_bytes
        if "AllReduceSynchronizer" in sync_node:
            groups.add(sync_node["AllReduceSynchronizer"].get("group", 0))
            ar_bytes += nbytes
        else:
            ps = sync_node["PSSynchronizer"]
            servers.add((ps["reduction_destination"],
                         ps.get("local_replication", False)))
            ps_bytes += nbytes

    # BatchNormalization's running mean and var are parameters of the
    # strategy, but updated from the statistics, not synchronized.
    running = {n.input[i] for n in model.graph.node
               if n.op_type == "BatchNormalization" for i in (3, 4)}
    for node in strategy["node_config"]:
        if node["var_name"] in running:
            continue
        a = arrays[node["var_name"]]
        if not node.get("partitioner"):
            add(node, a.nbytes)
            continue
        counts = [int(c) for c in node["partitioner"].split(",")]
        axis = next(i for i, c in enumerate(counts) if c > 1)
        n, dim = counts[axis], a.shape[axis]
        sizes = node.get("partition_sizes") or [
            dim // n + (1 if i < dim % n else 0) for i in range(n)]
        for part, size in zip(node["part_config"], sizes):
            add(part, a.nbytes // dim * size)
    collectives = len(groups) + 2 * len(servers)
    nbytes = ar_bytes + 2 * ps_bytes + (4 if groups else 8)
    if sync_batchnorm:
        for node in model.graph.node:
            if node.op_type == "BatchNormalization":
                channels = arrays[node.input[1]].size
                collectives += 3
                nbytes += 4 * ((channels + 1) + channels + 2 * channels)
    return collectives, nbytes


def compile_model(args, builder, onnx_path, work):
    exe = os.path.join(work, f"{builder}-{os.path.basename(onnx_path)}.train")
    strategy = exe + ".strategy.json"
    common = ["--train", "--optimizer", args.optimizer, "--lr", str(args.lr),
              "--quiet"]
    if args.sync_batchnorm:
        common.append("--sync-batchnorm")
    if args.ps_placement:
        common.append(f"--ps-placement={args.ps_placement}")
    if args.bucket_bytes is not None:
        common.append(f"--bucket-bytes={args.bucket_bytes}")
    if args.cluster:
        common.append(f"--cluster={args.cluster}")
    if args.local_replication:
        built = exe + ".built.json"
        run(["autodist-compile", onnx_path, f"--strategy={builder}",
             "--emit=strategy", "-o", built] + common)
        s = json.load(open(built))
        for node in s["node_config"]:
            for n in [node] + node.get("part_config", []):
                if "PSSynchronizer" in n:
                    n["PSSynchronizer"]["local_replication"] = True
        json.dump(s, open(strategy, "w"))
        run(["autodist-compile", onnx_path, f"--strategy-file={strategy}",
             "-o", exe] + common)
    else:
        run(["autodist-compile", onnx_path, f"--strategy={builder}",
             f"--dump-strategy={strategy}", "-o", exe] + common)
    return exe, json.load(open(strategy))


def train(args, exe, data, ranks, log):
    cmd = [exe, f"--data={data}", f"--steps={args.steps}",
           f"--batch-size={args.batch // ranks}", f"--log={log}"]
    if ranks > 1 and args.netcluster:
        nodes = netcluster_nodes(args.netcluster)
        cmd = [os.path.join(args.src_root, "scripts", "netcluster.sh"), "run",
               f"--cluster={args.netcluster}",
               f"--ranks-per-node={ranks // nodes}", "--quiet", "--"] + cmd
    elif ranks > 1:
        cmd = ["mpirun", "-np", str(ranks)] + cmd
    run(cmd)
    return [json.loads(line) for line in open(log) if line.strip()]


@functools.lru_cache(maxsize=None)
def netcluster_nodes(spec):
    """The node count of the emulated cluster's spec (read once)."""
    import yaml
    with open(spec) as f:
        return len(yaml.safe_load(f)["nodes"])


def max_rel(a, b):
    worst = 0.0
    for s in b:
        x, y = a[s], b[s]
        worst = max(worst, abs(x - y) / max(abs(x), abs(y), 1e-12))
    return worst


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src-root", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--builder", action="append", required=True)
    ap.add_argument("--model", action="append", required=True,
                    choices=["mlp", "cnn", "transformer", "resnet18"])
    ap.add_argument("--ranks", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--batch", type=int, default=16, help="global batch")
    ap.add_argument("--cluster")
    ap.add_argument("--optimizer", default="adam")
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--rtol", type=float, default=1e-5)
    ap.add_argument("--local-replication", action="store_true")
    ap.add_argument("--sync-batchnorm", action="store_true")
    ap.add_argument("--ps-placement", choices=["bytes", "bandwidth"],
                    help="autodist-compile's --ps-placement")
    ap.add_argument("--bucket-bytes", type=int,
                    help="autodist-compile's --bucket-bytes (0: one "
                    "all-reduce per group, as the traffic check assumes)")
    ap.add_argument("--netcluster", metavar="SPEC",
                    help="run the N-rank jobs on the emulated cluster of "
                    "SPEC (scripts/netcluster.sh), N / nodes ranks per node")
    ap.add_argument("--torch-python", help="an interpreter with torch and "
                    "torchvision (for --model resnet18)")
    args = ap.parse_args()
    for n in args.ranks:
        if args.batch % n:
            ap.error(f"--batch {args.batch} is not divisible by {n} ranks")
        if args.netcluster and n % netcluster_nodes(args.netcluster):
            ap.error(f"{n} ranks do not spread evenly over the nodes of "
                     f"{args.netcluster}")
    os.makedirs(args.workdir, exist_ok=True)
    failed = False
    for kind in args.model:
        onnx_path, data = make_model(args, kind, args.workdir)
        for builder in args.builder:
            exe, strategy = compile_model(args, builder, onnx_path,
                                          args.workdir)
            want = expected_traffic(strategy, onnx_path, args.sync_batchnorm)
            one = train(args, exe, data, 1, exe + ".1.jsonl")
            ref = read_log(exe + ".1.jsonl")
            for n in args.ranks:
                log = f"{exe}.{n}.jsonl"
                rows = train(args, exe, data, n, log)
                losses = read_log(log)
                rel = max_rel(losses, ref)
                ok = (set(losses) == set(ref) and len(ref) == args.steps
                      and rel <= args.rtol)
                got = {(r["collectives"], r["comm_bytes"]) for r in rows + one}
                traffic_ok = got == {want}
                failed |= not (ok and traffic_ok)
                where = (f" on {netcluster_nodes(args.netcluster)} nodes"
                         if args.netcluster and n > 1 else "")
                print(f"{builder} {kind} np={n}{where}: losses "
                      f"{'PASS' if ok else 'FAIL'} (max rel {rel:.1e}), "
                      f"traffic {'PASS' if traffic_ok else 'FAIL'} "
                      f"({want[0]} collectives, {want[1]} bytes"
                      f"{'' if traffic_ok else f'; logged {sorted(got)}'})",
                      flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
