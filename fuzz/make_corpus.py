#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz harnesses (fuzz/*Fuzzer.cpp).

    make_corpus.py --out-dir DIR [--compile build/bin/autodist-compile]

DIR/<harness>/ gets, for each harness:

  onnx-importer  small models of the example generators (MLPs, a Transformer
                 block, a GPT block, one model per operator family, the CNN
                 operators), and the models the importer must reject (--bad)
  strategy-file  the strategy files of test/Strategy/Inputs and, with
                 --compile, `autodist-compile --emit=strategy` of every builder
  resource-spec  the cluster YAMLs of the tests
  npz            .npy and .npz (stored and compressed) arrays written by numpy
  checkpoint     a checkpoint written by numpy, and with --compile the one a
                 2-step Adam training run of the MLP writes; each also as the
                 entry list CheckpointFuzzer.cpp zips itself

Everything is generated (fixed seeds), nothing checked in: regenerate rather
than edit. Only minimized crash reproducers live in the repository
(fuzz/regressions/<harness>/).
"""
import argparse
import glob
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile

import numpy as np

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = sys.executable

# The model CheckpointFuzzer.cpp reads checkpoints of (kParams, kState).
MLP_ARGS = ["--in", "4", "--hidden", "3", "--classes", "2"]
MLP_PARAMS = {"fc1.weight": (3, 4), "fc1.bias": (3,), "fc2.weight": (2, 3),
              "fc2.bias": (2,)}


def run(cmd, **kw):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, **kw)


def example(script, *args):
    run([PY, os.path.join(SRC, "examples", script), *args])


def onnx_importer(out, tmp):
    example("mlp/make_mlp.py", "--out", f"{out}/mlp-gemm.onnx", *MLP_ARGS)
    example("mlp/make_mlp.py", "--out", f"{out}/mlp-matmul.onnx", "--kind",
            "matmul", *MLP_ARGS)
    example("models/make_models.py", "--kind", "transformer", "--out",
            f"{out}/transformer.onnx", "--vocab", "10", "--seq", "4", "--dim",
            "8")
    example("models/make_gpt_block.py", "--out", f"{out}/gpt-block.onnx",
            "--vocab", "10", "--seq", "4", "--dim", "8", "--heads", "2")
    for script in ["ops/make_op_models.py", "ops/make_conv_models.py"]:
        for bad in [[], ["--bad"]]:
            d = os.path.join(tmp, os.path.basename(script) + "".join(bad))
            example(script, "--out-dir", d, *bad)
            prefix = os.path.splitext(os.path.basename(script))[0][5:]
            for f in sorted(glob.glob(f"{d}/**/*.onnx", recursive=True)):
                name = os.path.relpath(f, d).replace(os.sep, "-")
                shutil.copy(f, f"{out}/{prefix}{'-bad' if bad else ''}-{name}")


def strategy_file(out, tmp, compile_tool):
    for f in sorted(glob.glob(f"{SRC}/test/Strategy/Inputs/*.json")):
        shutil.copy(f, out)
    if not compile_tool:
        return
    model = os.path.join(tmp, "mlp.onnx")
    example("mlp/make_mlp.py", "--out", model, *MLP_ARGS)
    # Every builder on one node, and the two that place servers on two.
    cluster = f"{SRC}/test/e2e/Inputs/cluster-2x2.yaml"
    runs = [(b, None) for b in ["ps", "ps-lb", "partitioned-ps", "uneven-ps",
                                "allreduce", "partitioned-ar",
                                "random-axis-ar", "parallax"]]
    runs += [("ps-lb", cluster), ("parallax", cluster)]
    for builder, cluster in runs:
        name = builder + ("-cluster" if cluster else "")
        run([compile_tool, model, "--train", f"--strategy={builder}",
             "--emit=strategy", "-o", f"{out}/{name}.json", "--quiet"] +
            ([f"--cluster={cluster}"] if cluster else []))


def resource_spec(out):
    for pattern in ["test/Strategy/Inputs/*.yaml", "test/e2e/Inputs/*.yaml"]:
        for f in sorted(glob.glob(os.path.join(SRC, pattern))):
            shutil.copy(f, out)


def npz(out):
    rng = np.random.default_rng(0)
    arrays = {
        "x": rng.standard_normal((3, 4)).astype(np.float32),
        "x64": rng.standard_normal((2, 2, 2)),
        "labels": np.array([0, 1, 2], dtype=np.int64),
        "ids32": np.array([[1, 2], [3, 4]], dtype=np.int32),
        "scalar": np.array(1.5, dtype=np.float32),
        "empty": np.zeros((0, 3), dtype=np.float32),
    }
    for name, a in arrays.items():
        np.save(f"{out}/{name}.npy", a)
    np.savez(f"{out}/stored.npz", **arrays)
    np.savez_compressed(f"{out}/compressed.npz", **arrays)
    np.savez(f"{out}/train.npz", x=arrays["x"], labels=arrays["labels"])


def entry_list(npz_path):
    """The entries of `npz_path` in CheckpointFuzzer.cpp's input form."""
    out = io.BytesIO()
    with zipfile.ZipFile(npz_path) as z:
        for info in z.infolist():
            name = info.filename.encode()
            data = z.read(info)
            out.write(struct.pack("<B", len(name)) + name)
            out.write(struct.pack("<I", len(data)) + data)
    return out.getvalue()


def numpy_checkpoint(path):
    """A checkpoint of the MLP as the runtime would write it, by numpy."""
    rng = np.random.default_rng(1)
    arrays = {}
    for name, shape in MLP_PARAMS.items():
        arrays[f"params/{name}"] = rng.standard_normal(shape).astype(np.float32)
    for suffix in ["adam_m", "adam_v"]:
        for name, shape in MLP_PARAMS.items():
            arrays[f"state/{name}/{suffix}"] = np.zeros(shape, np.float32)
    arrays["residuals/rank0"] = np.zeros(5, np.float32)
    state = [f"{n}/{s}" for s in ["adam_m", "adam_v"] for n in MLP_PARAMS]
    meta = {"format": "autodist-checkpoint", "version": 1, "step": 2,
            "world_size": 1, "batch_size": 4, "model": "mlp.onnx",
            "params": list(MLP_PARAMS), "state": state,
            "residual_sizes": [2, 3], "seed": 7}
    np.savez(path, **arrays)
    with zipfile.ZipFile(path, "a") as z:
        z.writestr("checkpoint.json", json.dumps(meta) + "\n")


def trained_checkpoint(path, tmp, compile_tool):
    """The checkpoint a 2-step Adam training run of the MLP writes."""
    model, exe = os.path.join(tmp, "ck.onnx"), os.path.join(tmp, "ck.train")
    data, ckdir = os.path.join(tmp, "ck.npz"), os.path.join(tmp, "ck")
    example("mlp/make_mlp.py", "--out", model, *MLP_ARGS)
    rng = np.random.default_rng(2)
    np.savez(data, x=rng.standard_normal((8, 4)).astype(np.float32),
             labels=rng.integers(0, 2, 8).astype(np.int64))
    run([compile_tool, model, "--train", "--optimizer=adam", "--lr=0.01",
         "-o", exe, "--quiet"])
    run([exe, f"--data={data}", "--steps=2", "--batch-size=4",
         f"--checkpoint={ckdir}"])
    shutil.copy(os.path.join(ckdir, "checkpoint.npz"), path)


def checkpoint(out, tmp, compile_tool):
    sources = [f"{out}/numpy.npz"]
    numpy_checkpoint(sources[0])
    if compile_tool:
        sources.append(f"{out}/trained.npz")
        trained_checkpoint(sources[1], tmp, compile_tool)
    for s in sources:
        with open(os.path.splitext(s)[0] + ".entries", "wb") as f:
            f.write(entry_list(s))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--compile", help="autodist-compile, for the strategies "
                    "of the builders and a trained checkpoint")
    args = ap.parse_args()
    harnesses = ["onnx-importer", "strategy-file", "resource-spec", "npz",
                 "checkpoint"]
    for h in harnesses:
        d = os.path.join(args.out_dir, h)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    with tempfile.TemporaryDirectory() as tmp:
        onnx_importer(f"{args.out_dir}/onnx-importer", tmp)
        strategy_file(f"{args.out_dir}/strategy-file", tmp, args.compile)
        resource_spec(f"{args.out_dir}/resource-spec")
        npz(f"{args.out_dir}/npz")
        checkpoint(f"{args.out_dir}/checkpoint", tmp, args.compile)
    for h in harnesses:
        print(f"{h}: {len(os.listdir(os.path.join(args.out_dir, h)))} inputs")


if __name__ == "__main__":
    main()
