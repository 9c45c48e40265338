#!/usr/bin/env python3
"""Peak memory of compiling a model with 1 GiB of external weights.

Writes into DIR a model of LAYERS Gemm layers [N, D] -> [N, D] whose D x D
float weights (random, 256 MiB each for D = 8192) are ONNX external data in
one file beside it (each at its offset; the biases stay inline), compiles
it to an inference executable with ``autodist-compile`` and reads the peak
resident set size of the compiler and the processes it started (the linker)
from ``wait4``: the largest of them. The compiler only
needs the weights' shapes, so the peak must stay under --max-rss-mib
whatever their size. Then runs the executable once on 2 samples and
compares its output with numpy's (float64 reference, relative 1e-4).
Removes DIR's large files at the end, pass or fail. Prints the peak and
PASS, or FAIL: reason (exit 1).

Example::

    python3 test/e2e/external-data-memory.test.py /tmp/big --max-rss-mib 300
"""
import argparse
import os
import subprocess
import sys
import time


def write_model(path, dim, layers):
    """The model at `path`, its weights in `path`.data."""
    import numpy as np
    from onnx import TensorProto, helper, save
    rng = np.random.default_rng(0)
    data = path + ".data"
    inits, nodes, x = [], [], "x"
    with open(data, "wb") as f:
        for i in range(layers):
            w = rng.standard_normal((dim, dim), dtype=np.float32)
            w *= np.float32(1 / np.sqrt(dim))
            offset = f.tell()
            w.tofile(f)
            t = TensorProto(name=f"w{i}", data_type=TensorProto.FLOAT,
                            dims=[dim, dim],
                            data_location=TensorProto.EXTERNAL)
            for key, value in [("location", os.path.basename(data)),
                               ("offset", str(offset)),
                               ("length", str(w.nbytes))]:
                t.external_data.add(key=key, value=value)
            inits.append(t)
            inits.append(helper.make_tensor(
                f"b{i}", TensorProto.FLOAT, [dim],
                np.full(dim, 0.01 * (i + 1), np.float32)))
            nodes.append(helper.make_node("Gemm", [x, f"w{i}", f"b{i}"],
                                          [f"h{i}"]))
            x = f"h{i}"
    graph = helper.make_graph(
        nodes, "big",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", dim])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["N", dim])],
        inits)
    save(helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return data


def peak_rss_mib(cmd):
    """Runs `cmd`; its peak RSS (and its children's: the largest) in MiB.

    Linux keeps a process's RSS high-water mark across exec, so the RSS of
    the process that starts `cmd` counts too: call this from a small one.
    """
    proc = subprocess.Popen(cmd)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, cmd)
    return usage.ru_maxrss / 1024


def reference(data, x, dim, layers):
    """numpy's forward pass, float64, reading the weights from `data`."""
    import numpy as np
    weights = np.memmap(data, dtype=np.float32, mode="r")
    y = x.astype(np.float64)
    for i in range(layers):
        w = weights[i * dim * dim:(i + 1) * dim * dim].reshape(dim, dim)
        y = y @ w + 0.01 * (i + 1)
    return y


def run(args):
    os.makedirs(args.dir, exist_ok=True)
    model = os.path.join(args.dir, "big.onnx")
    exe = os.path.join(args.dir, "big.infer")
    start = time.time()
    # In a process of its own: this one stays small (see peak_rss_mib).
    subprocess.run([sys.executable, __file__, args.dir, "--generate",
                    f"--dim={args.dim}", f"--layers={args.layers}"],
                   check=True)
    data = model + ".data"
    gib = os.path.getsize(data) / 2**30
    print(f"wrote {gib:.2f} GiB of external weights in "
          f"{time.time() - start:.1f} s")

    # A sanitized build adds ASan's quarantine and shadow memory
    # (test/lit.cfg.py): the bound still fails if the 1 GiB is read whole.
    args.max_rss_mib += int(os.environ.get("AUTODIST_SANITIZER_RSS_MIB", "0"))
    start = time.time()
    peak_mib = peak_rss_mib(["autodist-compile", model, "-o", exe, "--quiet"])
    print(f"autodist-compile: {time.time() - start:.1f} s, peak RSS "
          f"{peak_mib:.0f} MiB (bound {args.max_rss_mib} MiB)")
    if peak_mib >= args.max_rss_mib:
        return f"peak RSS {peak_mib:.0f} MiB >= {args.max_rss_mib} MiB"
    if os.path.getsize(exe) > 2**26:
        return f"the executable holds the weights ({os.path.getsize(exe)} B)"

    import numpy as np
    x = np.random.default_rng(1).standard_normal((2, args.dim)) \
        .astype(np.float32)
    np.savez(os.path.join(args.dir, "in.npz"), x=x)
    out = os.path.join(args.dir, "out.npz")
    subprocess.run([exe, "--inputs=" + os.path.join(args.dir, "in.npz"),
                    "--outputs=" + out], check=True)
    got = np.load(out)[f"h{args.layers - 1}"]
    want = reference(data, x, args.dim, args.layers)
    rel = np.abs(got - want).max() / np.abs(want).max()
    print(f"output vs numpy: max relative difference {rel:.2e}")
    if not rel <= 1e-4:
        return f"output differs from numpy by {rel:.2e}"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", help="scratch directory (its big files removed)")
    ap.add_argument("--dim", type=int, default=8192)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--max-rss-mib", type=int)
    ap.add_argument("--generate", action="store_true",
                    help="only write the model (a step of the check)")
    args = ap.parse_args()
    if args.generate:
        write_model(os.path.join(args.dir, "big.onnx"), args.dim, args.layers)
        return
    try:
        problem = run(args)
    except subprocess.CalledProcessError as e:
        problem = f"{e.cmd[0]} failed (exit {e.returncode})"
    finally:
        for name in ["big.onnx.data", "big.infer", "big.onnx"]:
            path = os.path.join(args.dir, name)
            if os.path.exists(path):
                os.remove(path)
    if problem:
        print("FAIL: " + problem)
        sys.exit(1)
    print("PASS")


if __name__ == "__main__":
    main()
