#!/usr/bin/env python3
"""Driver of gradcheck-torch.test: the gradient of every differentiable
operator, as the compiled training step computes it, against PyTorch
autograd.

  gradcheck-torch.test.py --src SRC_ROOT --work DIR --torchpy PYTHON
                          [--seeds 0,1,2,3] [--reps 2] [--rtol R]
                          [--only conv,gelu,...]

PYTHON (an interpreter with torch) runs examples/ops/make_torch_grad_models.py,
which writes per seed a model whose loss sums every operator under test on
random shapes and attributes (all operands float32 parameters), with the
gradients PyTorch autograd gives for the same loss (written with torch,
computed in float64 from the same float32 values). Each model is compiled
with --train --loss=output --optimizer=sgd --lr=1 and trained one step
(e2e_driver.trained_step); the compiled gradient of parameter W is
W - W_saved. An entry passes when

  |g - ref| - ulp(W_saved) <= rtol * max(|ref|, 1e-2 * max|ref over W|),

i.e. a relative error once the rounding of the stored weight (one float32
ulp) is allowed for, entries under 1% of the parameter's largest gradient
being judged against that 1%. BatchNormalization's running mean/var
(not trained) must equal the reference update within rtol. Prints the worst
error per operator (over all seeds and draws) and exits non-zero if any
operator fails.
"""
import argparse
import os
import sys

import numpy as np

from e2e_driver import generate, relative_error, report, trained_step


def errors_of(initial, saved, ref):
    """case -> (worst error, parameter) of one model."""
    worst = {}
    for name, w0 in initial.items():
        case = name.split(".")[0]
        if "grad:" + name in ref:
            ws = saved[name]
            got = w0.astype(np.float64) - ws.astype(np.float64)
            ulp = np.spacing(np.abs(ws).astype(np.float32)).astype(np.float64)
            err = relative_error(got, ref["grad:" + name], slack=ulp)
        elif "state:" + name in ref:
            err = relative_error(saved[name], ref["state:" + name])
        else:
            raise ValueError(f"no reference for initializer {name}")
        if err >= worst.get(case, (-1.0, ""))[0]:
            worst[case] = (err, name)
    return worst


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", required=True, help="source root")
    ap.add_argument("--work", required=True, help="scratch directory")
    ap.add_argument("--torchpy", required=True,
                    help="a Python interpreter with torch, numpy and onnx")
    ap.add_argument("--seeds", default="0,1,2,3")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    models = os.path.join(args.work, "models")
    log = []
    gen = [args.torchpy,
           os.path.join(args.src, "examples/ops/make_torch_grad_models.py"),
           "--out-dir", models, "--seeds", args.seeds,
           "--reps", str(args.reps)]
    if not generate(gen, log, args.only):
        return 1
    data = os.path.join(args.work, "none.npz")
    np.savez(data)                      # the models have no graph input
    worst, failed_models = {}, []
    for seed in args.seeds.split(","):
        name = f"grad_s{seed}"
        base = os.path.join(args.work, name)
        try:
            initial, saved = trained_step(base.replace(args.work, models) +
                                          ".onnx", data, base, 1, log)
            ref = dict(np.load(os.path.join(models, name + ".ref.npz")))
            for case, (err, param) in errors_of(initial, saved, ref).items():
                if err >= worst.get(case, (-1.0, ""))[0]:
                    worst[case] = (err, f"{param} of {name}")
        except (RuntimeError, ValueError, OSError) as e:
            failed_models.append((f"model {name}", False, str(e)))
    results = [(case, worst[case][0] <= args.rtol,
                f"max relative error {worst[case][0]:.2e} ({worst[case][1]})")
               for case in sorted(worst)] + failed_models
    overall = max((e for e, _ in worst.values()), default=0.0)
    return report(results, log, f"operators' gradients match PyTorch (worst "
                  f"{overall:.2e}, rtol {args.rtol:g})")

if __name__ == "__main__":
    sys.exit(main())
