#!/usr/bin/env python3
"""Driver of op-models.test: every model of examples/ops/make_op_models.py
(or of --generator) is compiled to an inference executable, run on random
inputs, and its output 0 compared with onnxruntime (check_forward.py).

  op-models.test.py --src SRC_ROOT --work DIR [--batch-size K] [--rtol R]
                    [--flags "AUTODIST-COMPILE FLAGS"]
                    [--generator examples/ops/make_conv_models.py]

For each family M: make_op_data.py writes DIR/M.npz (13 samples, so the
last chunk of --batch-size 4 is partial), `autodist-compile M.onnx -o
M.infer --quiet`, `M.infer --steps=0 --batch-size=K --eval=M.npz
--predict=M.pred.npy`, then check_forward.py. A model with metadata
`autodist.test.input_shape` (one that reads its batch dim through Shape)
is compiled with that --input-shape, run once on that many samples with
--inputs/--outputs, and checked with check_outputs.py. Prints one line per model
and exits non-zero if any failed.
"""
import argparse
import glob
import os
import sys

import onnx

from e2e_driver import generate, report, run_steps


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", required=True, help="source root")
    ap.add_argument("--work", required=True, help="scratch directory")
    ap.add_argument("--batch-size", type=int, default=4)
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--generator", default="examples/ops/make_op_models.py",
                    help="model generator script, relative to --src")
    ap.add_argument("--flags", default="",
                    help="extra autodist-compile flags, space-separated")
    args = ap.parse_args()
    py = sys.executable
    os.makedirs(args.work, exist_ok=True)
    models = os.path.join(args.work, "models")
    log = []
    if not generate([py, os.path.join(args.src, args.generator),
                     "--out-dir", models], log):
        return 1
    results = []
    paths = sorted(glob.glob(os.path.join(models, "*.onnx")))
    for model in paths:
        name = os.path.splitext(os.path.basename(model))[0]
        base = os.path.join(args.work, name)
        # A model that reads its batch dim is compiled for a fixed batch
        # (metadata autodist.test.input_shape, e.g. x:4x6x4), fed exactly
        # that many samples through --inputs/--outputs (a fixed-size output
        # cannot be concatenated over chunks) and checked with
        # check_outputs.py.
        props = {p.key: p.value for p in onnx.load(model).metadata_props}
        shape = props.get("autodist.test.input_shape")
        gen_data = [py, os.path.join(args.src, "examples/ops/make_op_data.py"),
                    "--model", model, "--out", base + ".npz"]
        compile_ = ["autodist-compile", model, "-o", base + ".infer",
                    "--quiet"] + args.flags.split()
        if shape:
            batch = shape.split(":")[1].split("x")[0]
            steps = [
                gen_data + ["--samples", batch],
                compile_ + [f"--input-shape={shape}"],
                [base + ".infer", f"--inputs={base}.npz",
                 f"--outputs={base}.out.npz"],
                [py, os.path.join(args.src, "test/e2e/check_outputs.py"),
                 "--model", model, "--inputs", base + ".npz",
                 "--outputs", base + ".out.npz", "--rtol", str(args.rtol)],
            ]
        else:
            steps = [
                gen_data,
                compile_,
                [base + ".infer", "--steps=0",
                 f"--batch-size={args.batch_size}", f"--eval={base}.npz",
                 f"--predict={base}.pred.npy"],
                [py, os.path.join(args.src, "test/e2e/check_forward.py"),
                 "--model", model, "--data", base + ".npz",
                 "--pred", base + ".pred.npy", "--rtol", str(args.rtol)],
            ]
        results.append((name,
                        *run_steps(steps, log, detail_marker="max relative")))
    return report(results, log, "op models match onnxruntime")


if __name__ == "__main__":
    sys.exit(main())
