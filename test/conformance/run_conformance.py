#!/usr/bin/env python3
"""Run the ONNX backend node tests through the inference executable.

For every node test of the ONNX backend suite (Debian's libonnx-testdata:
DATA/node/test_*/model.onnx plus test_data_set_*/input_*.pb and
output_*.pb) whose nodes all are operators we support, this

  1. compiles the model: `autodist-compile model.onnx -o t.infer --quiet`;
  2. writes the inputs of each data set as an .npz named by the graph inputs
     and runs `t.infer --inputs=in.npz --outputs=out.npz`;
  3. compares every output with the expected one (same shape and dtype;
     integers and booleans exactly; floats |a - b| <= atol + rtol * |b|,
     rtol 1e-4, atol 1e-5; bfloat16, which numpy lacks, as float32).

Each test ends as
  pass      every data set matches;
  bound     every data set matches once its int64/bool inputs of rank <= 1
            (shapes, axes, bounds given as graph inputs) are bound to their
            values with `autodist-compile --bind-input` (the same values in
            every data set);
  rejected  the compiler refused it with an error naming the problem
            (an unsupported attribute value, input type, ...): no output;
  wrong     it compiled and ran but an output differs: a silent wrong answer;
  crash     the compiler or the executable died or failed at run time;
  random    the expected output depends on the reference's random number
            generator (dropout in training mode with ratio > 0), which no
            other implementation reproduces: not run;
  baddata   the test's data contradicts its model (an input array's shape
            differs from the input's declared static shape, which
            onnxruntime refuses too): not run;
  oldref    the expected output follows the reference of onnx 1.12 (the
            data's version) where later onnx releases corrected it; the
            test checks both that the expected output is the old
            reference's and that ours is the operator's definition.

Prints one line per test and a per-operator table; exits 1 if any test is
wrong or crashed (rejections are allowed: docs/conformance.md lists them).

  run_conformance.py --data /usr/share/libonnx-testdata/data --work DIR
      [--compiler autodist-compile] [--jobs 2] [--markdown docs/conformance.md]
      [--only PATTERN ...] [--min-pass N]
"""
import argparse
import collections
import concurrent.futures
import glob
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper

# The operators of docs/operators.md (the importer's ONNX op types).
def supported_operators(compiler):
    """The importer registry's operators (autodist-translate beside the
    compiler, --print-onnx-operator-names): the tests of every registered
    operator are selected, with nothing to keep in step by hand."""
    path = shutil.which(compiler) or compiler
    translate = os.path.join(os.path.dirname(os.path.abspath(path)), "autodist-translate")
    if not os.access(translate, os.X_OK):
        translate = shutil.which("autodist-translate") or translate
    out = subprocess.run([translate, "--print-onnx-operator-names"], check=True,
                         capture_output=True, text=True).stdout
    return set(out.split())


RTOL, ATOL = 1e-4, 1e-5

# Node tests whose expected outputs come from numpy's random generator.
RANDOM = {"test_training_dropout", "test_training_dropout_default",
          "test_training_dropout_mask", "test_training_dropout_default_mask"}


def bf16_round_nearest_even(f):
    u = f.astype(np.float32).view(np.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000).view(np.float32)


def bf16_truncate(f):
    return (f.astype(np.float32).view(np.uint32) & 0xFFFF0000).view(np.float32)


def check_bf16_rounding(ins, exp, got):
    """onnx 1.12's Cast to BFLOAT16 truncates; onnx >= 1.14's reference,
    PyTorch and the hardware round to nearest even (NaNs excluded)."""
    x = ins["input"]
    keep = ~np.isnan(x)
    if not np.array_equal(exp[keep], bf16_truncate(x)[keep]):
        return "the expected output is not the truncation either"
    if not np.array_equal(got[keep], bf16_round_nearest_even(x)[keep]):
        return "our output is not rounded to nearest even"
    return None


# Expected outputs of onnx 1.12's reference that later releases corrected:
# test -> (what differs, a check of both claims on inputs/expected/got).
OLD_REFERENCE = {
    "test_cast_FLOAT_to_BFLOAT16": (
        "onnx 1.12's reference truncates to bfloat16; onnx >= 1.14 and "
        "PyTorch round to nearest even, as we do (checked: expected = "
        "truncation, ours = rounding)", check_bf16_rounding),
}


def load_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def bf16_bits_to_f32(a):
    """onnx's numpy_helper gives bfloat16 as its uint16 bits; the compiled
    executables read and write bfloat16 in .npy as float32 (numpy has none)."""
    return (a.astype(np.uint32) << 16).view(np.float32)


def first_error(text):
    for line in text.splitlines():
        if "error" in line:
            return re.sub(r"^\S*model\.onnx:\d+:\d+: ", "", line.strip())
    lines = text.strip().splitlines()
    return lines[-1] if lines else "(no message)"


def compare(got, exp):
    if got.shape != exp.shape:
        return f"shape {list(got.shape)}, expected {list(exp.shape)}"
    # The type too: a double computed as float would pass the tolerance.
    if got.dtype != exp.dtype:
        return f"dtype {got.dtype}, expected {exp.dtype}"
    if exp.dtype.kind in "biu":
        if not np.array_equal(got.astype(exp.dtype), exp):
            return "integer/boolean values differ"
        return None
    g, e = got.astype(np.float64), exp.astype(np.float64)
    same_nan = np.isnan(g) == np.isnan(e)
    ok = np.isclose(g, e, rtol=RTOL, atol=ATOL, equal_nan=True)
    if not (ok.all() and same_nan.all()):
        bad = np.argmax(~ok)
        return (f"max abs difference {np.nanmax(np.abs(g - e)):.3g} "
                f"(first at flat index {bad}: {g.flat[bad]:.6g} vs {e.flat[bad]:.6g})")
    return None


def run_test(test_dir, work, compiler):
    name = os.path.basename(test_dir)
    model = onnx.load(os.path.join(test_dir, "model.onnx"))
    # The operator under test (expanded tests start with Constant nodes).
    ops = [n.op_type for n in model.graph.node if n.op_type != "Constant"]
    op = ops[0] if ops else "Constant"
    if name in RANDOM:
        return name, op, "random", ("expected output drawn by the reference's "
                                    "random generator (dropout, training mode)")
    inits = {i.name for i in model.graph.initializer}
    in_names = [i.name for i in model.graph.input if i.name not in inits]
    out_names = [o.name for o in model.graph.output]
    bf16 = {v.name for v in list(model.graph.input) + list(model.graph.output)
            if v.type.tensor_type.elem_type == onnx.TensorProto.BFLOAT16}

    def load_value(path, name):
        a = load_pb(path)
        return bf16_bits_to_f32(a) if name in bf16 else a
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    exe = os.path.join(d, "t.infer")
    sets = sorted(glob.glob(os.path.join(test_dir, "test_data_set_*")))

    def load_data():
        return [{n: load_value(os.path.join(s, f"input_{i}.pb"), n)
                 for i, n in enumerate(in_names)} for s in sets]

    def compile_model(binds):
        flags = [f"--bind-input={n}=" + ",".join(str(int(v)) for v in a.ravel())
                 for n, a in binds.items()]
        return subprocess.run([compiler, os.path.join(test_dir, "model.onnx"), "-o", exe,
                               "--quiet"] + flags,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    p = compile_model({})
    binds = {}
    if p.returncode == 0 or p.returncode < 0:
        pass
    elif "must be a constant" in p.stdout or "depends on a dynamic dim" in p.stdout or \
            "input must be a constant" in p.stdout:
        # Shapes, axes or bounds given as graph inputs: bind the int64/bool
        # inputs of rank <= 1 to the values of every data set (the same in all).
        data = load_data()
        binds = {n: a for n, a in data[0].items()
                 if a.dtype.kind in "ib" and a.ndim <= 1}
        same = all(np.array_equal(ds[n], a) for ds in data for n, a in binds.items())
        if binds and same:
            q = compile_model(binds)
            if q.returncode == 0:
                p = q
            else:
                binds = {}
        else:
            binds = {}
    if p.returncode != 0:
        died = p.returncode < 0 or "Stack dump" in p.stdout or "Assertion" in p.stdout
        if died or "error" not in p.stdout:
            return name, op, "crash", "compiler: " + first_error(p.stdout)
        return name, op, "rejected", first_error(p.stdout)
    try:
        data = load_data()
    except Exception as e:  # e.g. sequence inputs, which we reject anyway
        return name, op, "crash", f"cannot read the test data: {e}"
    def contradicting_data():
        """Why the data contradicts the model's declared input shapes, or None."""
        declared = {i.name: [d.dim_value if d.HasField("dim_value") else None
                             for d in i.type.tensor_type.shape.dim]
                    for i in model.graph.input}
        for ins in data:
            for n, a in ins.items():
                dims = declared.get(n)
                if dims is not None and None not in dims and list(a.shape) != dims:
                    return (f"input '{n}' of the data has shape {list(a.shape)}, "
                            f"but the model declares {dims}")
        return None

    old_reference = None
    for s, ins in zip(sets, data):
        ins = {n: a for n, a in ins.items() if n not in binds}
        np.savez(os.path.join(d, "in.npz"), **ins)
        out = os.path.join(d, "out.npz")
        if os.path.exists(out):
            os.remove(out)
        r = subprocess.run([exe, f"--inputs={d}/in.npz", f"--outputs={out}"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            bad = contradicting_data()
            if bad:  # the executable refused it, rightly
                return name, op, "baddata", bad
            return name, op, "crash", "run: " + first_error(r.stdout)
        got = np.load(out)
        for i, n in enumerate(out_names):
            exp = load_value(os.path.join(s, f"output_{i}.pb"), n)
            if n not in got.files:
                return name, op, "wrong", f"output '{n}' missing"
            if name in OLD_REFERENCE:
                what, check = OLD_REFERENCE[name]
                why = check(ins, exp, got[n])
                if why:
                    return name, op, "wrong", f"{os.path.basename(s)}: {why}"
                old_reference = what
                continue
            why = compare(got[n], exp)
            if why:
                return name, op, "wrong", f"{os.path.basename(s)} output '{n}': {why}"
    if old_reference:
        return name, op, "oldref", old_reference
    if binds:
        return name, op, "bound", "passes with --bind-input " + " ".join(sorted(binds))
    return name, op, "pass", ""


def selected_tests(data, only, supported):
    tests = []
    for m in sorted(glob.glob(os.path.join(data, "node", "test_*", "model.onnx"))):
        t = os.path.dirname(m)
        if only and not any(re.search(p, os.path.basename(t)) for p in only):
            continue
        model = onnx.load(m, load_external_data=False)
        types = {n.op_type for n in model.graph.node}
        if types and types <= supported:
            tests.append(t)
    return tests


HEADER = """# ONNX backend conformance

The node tests of the ONNX backend test suite shipped by Debian's
`libonnx-testdata` (1.12) whose nodes all are supported operators, each
compiled by `autodist-compile` to an inference executable and run on its test
data (`--inputs`/`--outputs`); outputs compared in shape and dtype, values
with rtol 1e-4, atol 1e-5 (integers and booleans exactly; bfloat16, which
numpy lacks, as float32). Generated by

    python3 test/conformance/run_conformance.py --work /tmp/conf --markdown docs/conformance.md

(`test/conformance/onnx-backend.test` runs the same in the test suite and fails
on any wrong answer or crash, or when fewer tests pass than its floor.)

Statuses: *pass*; *pass with --bind-input*: passes once the
int64 inputs that carry shapes, axes or bounds are bound to constants
(`autodist-compile --bind-input=NAME=V0,V1,...`: Split, Tile, Expand, Pad,
ConstantOfShape, Range and Dropout need them at compile time; Reshape,
Squeeze, Unsqueeze, ReduceSum and Slice read them at run time against the
declared output shape); *rejected*: the compiler refuses the model with an error
naming the node, op, opset and the unsupported feature (no output is
written); *wrong*: compiled and ran but differs (a silent wrong answer: must
be 0); *crash*: the compiler or executable died; *random*: the expected output
comes from the reference's random generator (dropout in training mode), not
run; *bad data*: the test's data contradicts its model (an input's shape
differs from the declared one; the executable refuses it, as onnxruntime
does); *old reference*: the expected output is that of onnx 1.12's reference
where later releases corrected it (checked both ways: the expected output is
the old reference's and ours is the operator's definition). Most rejections
are unsigned integer inputs (uint8 to uint64), strings, sequences and
optionals; the others are 3-D pooling, a float Range and a general Loop.

"""


def markdown(results):
    by_op = collections.defaultdict(collections.Counter)
    for _, op, status, _ in results:
        by_op[op][status] += 1
    cols = ["pass", "bound", "rejected", "wrong", "crash", "random", "baddata",
            "oldref"]
    lines = ["| operator | tests | pass | pass with --bind-input | rejected (clear error) "
             "| wrong | crash | random | bad data | old reference |",
             "|---|" + "---:|" * (len(cols) + 1)]
    for op in sorted(by_op):
        c = by_op[op]
        lines.append(f"| {op} | {sum(c.values())} | " +
                     " | ".join(str(c[k]) for k in cols) + " |")
    total = collections.Counter(s for _, _, s, _ in results)
    lines.append(f"| **all** | {len(results)} | " +
                 " | ".join(str(total[k]) for k in cols) + " |")
    lines += ["", "Tests not passing, with the reason:", "",
              "| test | status | reason |", "|---|---|---|"]
    for name, _, status, why in sorted(results):
        if status not in ("pass", "bound"):
            lines.append(f"| `{name}` | {status} | {why.replace('|', '/')} |")
    return HEADER + "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--work", required=True)
    ap.add_argument("--compiler", default="autodist-compile")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--markdown", help="write the per-operator table here")
    ap.add_argument("--only", nargs="*", help="regular expressions on test names")
    ap.add_argument("--min-pass", type=int, default=0,
                    help="fail when fewer tests pass (a regression floor)")
    a = ap.parse_args()
    tests = selected_tests(a.data, a.only, supported_operators(a.compiler))
    if not tests:
        sys.exit(f"run_conformance.py: no node tests of supported operators under {a.data}")
    print(f"{len(tests)} node tests use only supported operators", flush=True)
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(lambda t: run_test(t, a.work, a.compiler), tests))
    for name, op, status, why in results:
        print(f"{status.upper():8s} {name} ({op}){': ' + why if why else ''}")
    md = markdown(results)
    print(md)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(md)
    total = collections.Counter(s for _, _, s, _ in results)
    print(f"conformance: {total['pass']} pass, {total['bound']} bound, "
          f"{total['rejected']} rejected, "
          f"{total['wrong']} wrong, {total['crash']} crash, {total['random']} random, "
          f"{total['baddata']} bad data, {total['oldref']} old reference")
    if total["pass"] < a.min_pass:
        print(f"conformance: FAIL: {total['pass']} pass, fewer than --min-pass {a.min_pass}")
        sys.exit(1)
    sys.exit(1 if total["wrong"] or total["crash"] else 0)


if __name__ == "__main__":
    main()
