#!/usr/bin/env python3
"""Write malformed / unsupported inputs for the compiler's error-path tests.

From a valid model M.onnx writes into DIR:
  * truncated.onnx   - the first half (floor(size/2)) of M.onnx's bytes;
  * unsupported.onnx - a valid model (onnx.checker passes, onnxruntime runs
                       it) with a ``Sin`` node named ``bad_sin`` inserted
                       right after the first Gemm/MatMul node (for the
                       make_mlp.py gemm model: Gemm -> Sin -> Relu -> Gemm);
                       the compiler should reject op ``Sin``/node ``bad_sin``;
  * nolabels.npz     - array(s) named like the model's graph inputs (4 rows
                       of random float32, symbolic dims set to 4) but no
                       ``labels``.

Example::

    python3 test/e2e/make_bad_inputs.py --model mlp.onnx --out-dir out/bad
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import helper

BATCH = 4


def make_unsupported(model):
    m = onnx.ModelProto()
    m.CopyFrom(model)
    nodes = list(m.graph.node)
    pos = next((i for i, n in enumerate(nodes)
                if n.op_type in ("Gemm", "MatMul")), None)
    if pos is None:
        raise ValueError("model has no Gemm/MatMul node to put Sin after")
    src = nodes[pos].output[0]
    if src in {o.name for o in m.graph.output}:
        raise ValueError(f"first Gemm/MatMul output '{src}' is a graph "
                         f"output; nothing to insert Sin before")
    dst = src + "_sin"
    for n in nodes[pos + 1:]:
        for k, name in enumerate(n.input):
            if name == src:
                n.input[k] = dst
    sin = helper.make_node("Sin", [src], [dst], name="bad_sin")
    nodes.insert(pos + 1, sin)
    del m.graph.node[:]
    m.graph.node.extend(nodes)
    onnx.checker.check_model(m, full_check=True)
    return m


def make_nolabels(model):
    inits = {t.name for t in model.graph.initializer}
    rng = np.random.default_rng(0)
    arrays = {}
    for inp in model.graph.input:
        if inp.name in inits:
            continue
        dims = [d.dim_value if d.HasField("dim_value") else BATCH
                for d in inp.type.tensor_type.shape.dim]
        arrays[inp.name] = rng.random(dims).astype(np.float32)
    if not arrays:
        raise ValueError("model has no non-initializer inputs")
    return arrays


def main():
    ap = argparse.ArgumentParser(
        description="Write truncated.onnx, unsupported.onnx (Sin node "
                    "'bad_sin') and nolabels.npz derived from a valid model.")
    ap.add_argument("--model", required=True, help="valid input .onnx model")
    ap.add_argument("--out-dir", required=True, help="output directory")
    args = ap.parse_args()
    try:
        with open(args.model, "rb") as f:
            raw = f.read()
        model = onnx.load_from_string(raw)
        unsup = make_unsupported(model)
        arrays = make_nolabels(model)
        import onnxruntime as ort   # make sure the Sin model really is valid
        ort.InferenceSession(unsup.SerializeToString(),
                             providers=["CPUExecutionProvider"]).run(
            None, arrays)
        os.makedirs(args.out_dir, exist_ok=True)
        p = lambda n: os.path.join(args.out_dir, n)
        with open(p("truncated.onnx"), "wb") as f:
            f.write(raw[:len(raw) // 2])
        onnx.save(unsup, p("unsupported.onnx"))
        np.savez(p("nolabels.npz"), **arrays)
    except Exception as e:
        sys.exit(f"make_bad_inputs.py: error: {e}")
    print(f"wrote {p('truncated.onnx')} ({len(raw) // 2} of {len(raw)} bytes)")
    print(f"wrote {p('unsupported.onnx')} (Sin node 'bad_sin' after the first "
          f"Gemm/MatMul)")
    print(f"wrote {p('nolabels.npz')} (arrays {sorted(arrays)}, no labels)")


if __name__ == "__main__":
    main()
