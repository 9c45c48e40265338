#!/usr/bin/env python3
"""Models with ONNX external data for external-data.test.

Subcommands:

* ``to-external IN OUT --location F``: IN saved as OUT with onnx's
  ``save_as_external_data`` (every tensor, one shared file F beside OUT, so
  all but the first tensor start at an offset into it); prints each external
  tensor's name, offset and length.
* ``bad IN OUTDIR``: from the external model IN (its data file beside it),
  writes one broken model per error the tools must report into OUTDIR, each
  OUTDIR/<case>.onnx with its data beside it: ``missing`` (no data file),
  ``offset`` (offset past the end of the file), ``length`` (offset + length
  past the end), ``size`` (length not what the shape needs), ``escape``
  (``../`` location), ``absolute`` (absolute location), ``nolocation``
  (no ``location`` key), ``badoffset`` (offset not a number) in the first
  initializer, and ``intmissing`` (no data file) in the first int64 one.
* ``check-saved SAVED REFERENCE INPUTS``: SAVED (written by ``--save`` of a
  model with external data) has its tensors of 1 KiB or more (at least one)
  in SAVED.data at page-aligned offsets and the others inline, its
  initializers equal REFERENCE's (an embedded model saved by the same
  training) exactly, and onnxruntime runs SAVED on INPUTS (.npz) with the
  same outputs as REFERENCE. Prints PASS or FAIL: reasons (exit 1).
"""
import argparse
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def external_entries(t):
    return {e.key: e.value for e in t.external_data}


def to_external(args):
    model = onnx.load(args.input)
    onnx.save_model(model, args.output, save_as_external_data=True,
                    all_tensors_to_one_file=True, location=args.location,
                    size_threshold=0)
    for t in onnx.load(args.output, load_external_data=False).graph.initializer:
        e = external_entries(t)
        print(f"{t.name}: offset {e.get('offset', 0)} length {e.get('length')}")


def set_entry(t, key, value):
    for e in t.external_data:
        if e.key == key:
            if value is None:
                t.external_data.remove(e)
            else:
                e.value = value
            return
    if value is not None:
        t.external_data.add(key=key, value=value)


def bad(args):
    base = onnx.load(args.input, load_external_data=False)
    src_dir = os.path.dirname(os.path.abspath(args.input))
    os.makedirs(args.outdir, exist_ok=True)
    first = base.graph.initializer[0]
    location = external_entries(first)["location"]
    size = os.path.getsize(os.path.join(src_dir, location))
    cases = {
        "missing": ("location", "nothere.bin"),
        "offset": ("offset", str(size + 4)),
        "length": ("length", str(size)),
        "size": ("length", str(int(external_entries(first)["length"]) - 4)),
        "escape": ("location", "../" + location),
        "absolute": ("location", os.path.join(src_dir, location)),
        "nolocation": ("location", None),
        "badoffset": ("offset", "12x"),
        "intmissing": ("location", "nothere.bin"),
    }
    for name, (key, value) in cases.items():
        m = onnx.ModelProto()
        m.CopyFrom(base)
        ints = [t for t in m.graph.initializer
                if t.data_type == onnx.TensorProto.INT64]
        t = ints[0] if name == "intmissing" else m.graph.initializer[0]
        set_entry(t, key, value)
        if name == "length":
            set_entry(t, "offset", "4")
        onnx.save_model(m, os.path.join(args.outdir, name + ".onnx"))
    shutil.copy(os.path.join(src_dir, location),
                os.path.join(args.outdir, location))
    print(f"{len(cases)} broken models, initializer '{first.name}', "
          f"data file {size} bytes")


def check_saved(args):
    problems = []
    saved = onnx.load(args.saved, load_external_data=False)
    data_name = os.path.basename(args.saved) + ".data"
    external = 0
    for t in saved.graph.initializer:
        e = external_entries(t)
        size = int(np.prod(t.dims)) * np.dtype(
            onnx.helper.tensor_dtype_to_np_dtype(t.data_type)).itemsize
        if t.data_location != onnx.TensorProto.EXTERNAL:
            if size >= 1024:
                problems.append(f"initializer '{t.name}' ({size} bytes) is "
                                f"not external")
        elif size < 1024:
            problems.append(f"initializer '{t.name}' ({size} bytes) is "
                            f"external")
        elif e.get("location") != data_name:
            problems.append(f"initializer '{t.name}' is in {e.get('location')}"
                            f", expected {data_name}")
        elif int(e.get("offset", 0)) % 4096:
            problems.append(f"initializer '{t.name}' at unaligned offset")
        else:
            external += 1
    if not external:
        problems.append("no initializer is external")
    loaded = onnx.load(args.saved)  # reads the external data
    onnx.checker.check_model(args.saved)
    ref = onnx.load(args.reference)
    got = {t.name: numpy_helper.to_array(t) for t in loaded.graph.initializer}
    for t in ref.graph.initializer:
        want = numpy_helper.to_array(t)
        have = got.get(t.name)
        if have is None or have.dtype != want.dtype or \
                not np.array_equal(have, want):
            problems.append(f"initializer '{t.name}' differs from the "
                            f"reference")
    import onnxruntime as ort
    data = np.load(args.inputs)
    outs = []
    for path in [args.saved, args.reference]:
        sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        feeds = {i.name: data[i.name] for i in sess.get_inputs()}
        outs.append(sess.run(None, feeds))
    for a, b in zip(*outs):
        if not np.array_equal(a, b):
            problems.append("onnxruntime's outputs of the saved model differ "
                            "from the reference's")
    print(f"{len(ref.graph.initializer)} initializers compared, "
          f"{external} external, "
          f"{len(outs[0])} outputs")
    if problems:
        print("FAIL: " + "; ".join(problems))
        sys.exit(1)
    print("PASS")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("to-external")
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("--location", required=True)
    p.set_defaults(fn=to_external)
    p = sub.add_parser("bad")
    p.add_argument("input")
    p.add_argument("outdir")
    p.set_defaults(fn=bad)
    p = sub.add_parser("check-saved")
    p.add_argument("saved")
    p.add_argument("reference")
    p.add_argument("inputs")
    p.set_defaults(fn=check_saved)
    args = ap.parse_args()
    args.fn(args)


if __name__ == "__main__":
    main()
