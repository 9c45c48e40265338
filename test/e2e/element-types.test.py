"""Builds models on float64, float16, bfloat16, int16, int8 and unsigned
integer tensors,
compiles each to an inference executable and checks that every op computes
in the tensor's own type: results must equal numpy's computation in that type
(float64 to 1e-15, which a float32 computation cannot meet; the others
exactly), and the output files must carry that type.

Usage: element-types.test.py --work DIR
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper, numpy_helper


def model(name, elem, shape, nodes, outputs, opset=17):
    """One graph with inputs a, b of type `elem` and the given outputs
    ((name, type) pairs)."""
    inputs = [helper.make_tensor_value_info(n, elem, shape) for n in "ab"]
    outs = [helper.make_tensor_value_info(n, t, shape) for n, t in outputs]
    g = helper.make_graph(nodes, name, inputs, outs)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                          ir_version=8)
    onnx.checker.check_model(m, full_check=True)
    return m


def arith_nodes(floats):
    n = [helper.make_node("Constant", [], ["axis"],
                          value=helper.make_tensor("axis", T.INT64, [], [1])),
         helper.make_node("Add", ["a", "b"], ["add"]),
         helper.make_node("Mul", ["a", "b"], ["mul"]),
         helper.make_node("Sub", ["a", "b"], ["sub"]),
         helper.make_node("Max", ["a", "b"], ["max"]),
         helper.make_node("Min", ["a", "b"], ["min"]),
    ]
    if floats:  # (ONNX has no int16/int8 CumSum)
        n.append(helper.make_node("CumSum", ["a", "axis"], ["cumsum"]))
        n.append(helper.make_node("Div", ["a", "b"], ["div"]))
        n.append(helper.make_node("Mod", ["a", "b"], ["mod"], fmod=1))
    return n


def numpy_arith(a, b, floats):
    with np.errstate(over="ignore"):
        out = {"add": a + b, "mul": a * b, "sub": a - b,
               "max": np.maximum(a, b), "min": np.minimum(a, b)}
        if floats:
            out["cumsum"] = np.cumsum(a, axis=1, dtype=a.dtype)
            out["div"] = a / b
            out["mod"] = np.fmod(a, b)
    return out


def run(work, name, m, inputs):
    path = os.path.join(work, name + ".onnx")
    onnx.save(m, path)
    exe = os.path.join(work, name + ".infer")
    subprocess.run(["autodist-compile", path, "-o", exe, "--quiet"], check=True)
    np.savez(os.path.join(work, name + ".in.npz"), **inputs)
    out = os.path.join(work, name + ".out.npz")
    subprocess.run([exe, f"--inputs={work}/{name}.in.npz", f"--outputs={out}"],
                   check=True, stdout=subprocess.DEVNULL)
    return dict(np.load(out))


def check(name, got, want, rtol):
    for k, w in want.items():
        g = got[k]
        if g.dtype != w.dtype:
            sys.exit(f"FAIL {name}/{k}: dtype {g.dtype}, expected {w.dtype}")
        if rtol == 0:
            ok = np.array_equal(g, w, equal_nan=True)
        else:
            ok = np.allclose(g, w, rtol=rtol, atol=0, equal_nan=True)
        if not ok:
            bad = np.argmax(~np.isclose(g, w, rtol=rtol, atol=0))
            sys.exit(f"FAIL {name}/{k}: {g.flat[bad]!r} vs {w.flat[bad]!r}")
    print(f"PASS {name}: {', '.join(sorted(want))}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    rng = np.random.default_rng(7)
    shape = [3, 5]

    # Floats in their own precision.
    for name, elem, dt, rtol in [("f64", T.DOUBLE, np.float64, 1e-15),
                                 ("f16", T.FLOAT16, np.float16, 0)]:
        a = rng.uniform(-4, 4, shape).astype(dt)
        b = rng.uniform(0.5, 3, shape).astype(dt)
        want = numpy_arith(a, b, True)
        outs = [(k, elem) for k in want]
        got = run(args.work, name, model(name, elem, shape, arith_nodes(True),
                                         outs), {"a": a, "b": b})
        check(name, got, want, rtol)

    # CumSum's axis computed at run time (an int32 scalar input), any axis
    # of the rank; outside [-rank, rank) the program stops with a message.
    ins = [helper.make_tensor_value_info("a", T.DOUBLE, shape),
           helper.make_tensor_value_info("ax", T.INT32, [])]
    g = helper.make_graph(
        [helper.make_node("CumSum", ["a", "ax"], ["y"], reverse=1)], "cumsum_rt",
        ins, [helper.make_tensor_value_info("y", T.DOUBLE, shape)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)],
                          ir_version=8)
    a = rng.uniform(-4, 4, shape)
    done = []
    for ax in (-1, 0, 1):
        got = run(args.work, "cumsum_rt", m, {"a": a, "ax": np.int32(ax)})
        want = np.flip(np.cumsum(np.flip(a, ax), axis=ax), ax)
        check(f"cumsum-axis{ax}", got, {"y": want}, 1e-15)
    np.savez(os.path.join(args.work, "bad_axis.npz"), a=a, ax=np.int32(2))
    r = subprocess.run([os.path.join(args.work, "cumsum_rt.infer"),
                        f"--inputs={args.work}/bad_axis.npz",
                        f"--outputs={args.work}/bad_axis.out.npz"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(f"bad axis: exit {r.returncode}:", " ".join(r.stdout.split()))

    # Constants of these types: a DOUBLE one read as data is an f64 constant
    # (not rounded to float), a Cast of it to INT64 runs at run time;
    # FLOAT16 and INT8 constants keep their type.
    mk = helper.make_node
    const = lambda name, arr: mk("Constant", [], [name],
                                 value=numpy_helper.from_array(arr, name))
    c16 = np.array([[0.5, 1.5, -2, 3.25, 0.1]], np.float16)
    c8 = np.array([-3, 7, 127, -128, 0], np.int8)
    nodes = [const("c64", np.array(0.1)), const("c27", np.array(-2.7)),
             const("c16", c16), const("c8", c8),
             mk("Add", ["a", "c64"], ["plus"]),
             mk("Cast", ["a"], ["a16"], to=T.FLOAT16),
             mk("Mul", ["a16", "c16"], ["times16"]),
             mk("Cast", ["c8"], ["c8d"], to=T.DOUBLE),
             mk("Add", ["a", "c8d"], ["plus8"]),
             mk("Cast", ["a"], ["ai"], to=T.INT64),
             mk("Cast", ["c27"], ["c27i"], to=T.INT64),
             mk("Add", ["ai", "c27i"], ["plusi"]),
             mk("Add", ["a", "b"], ["unused"])]
    m = model("constants", T.DOUBLE, shape, nodes,
              [("plus", T.DOUBLE), ("times16", T.FLOAT16), ("plus8", T.DOUBLE),
               ("plusi", T.INT64)])
    a = rng.uniform(-4, 4, shape)
    got = run(args.work, "constants", m, {"a": a, "b": a})
    check("constants", got,
          {"plus": a + 0.1, "times16": a.astype(np.float16) * c16,
           "plus8": a + c8.astype(np.float64),
           "plusi": np.trunc(a).astype(np.int64) + np.int64(-2)}, 1e-15)

    # Signed narrow integers, wrapping as numpy does.
    for name, elem, dt in [("i16", T.INT16, np.int16), ("i8", T.INT8, np.int8)]:
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, shape, endpoint=True).astype(dt)
        b = rng.integers(info.min, info.max, shape, endpoint=True).astype(dt)
        want = numpy_arith(a, b, False)
        outs = [(k, elem) for k in want]
        got = run(args.work, name, model(name, elem, shape, arith_nodes(False),
                                         outs), {"a": a, "b": b})
        check(name, got, want, 0)

    # Unsigned integers: division, remainder, min/max and comparisons in
    # unsigned arithmetic (values above the signed range on purpose).
    for name, elem, dt in [("u8", T.UINT8, np.uint8), ("u16", T.UINT16, np.uint16),
                           ("u32", T.UINT32, np.uint32), ("u64", T.UINT64, np.uint64)]:
        info = np.iinfo(dt)
        a = rng.integers(0, info.max, shape, endpoint=True, dtype=dt)
        b = rng.integers(1, info.max, shape, endpoint=True, dtype=dt)
        a[0, 0], b[0, 0] = info.max, 3
        nodes = arith_nodes(False) + [
            helper.make_node("Div", ["a", "b"], ["div"]),
            helper.make_node("Mod", ["a", "b"], ["mod"]),
            helper.make_node("Less", ["a", "b"], ["less"])]
        with np.errstate(over="ignore"):
            want = numpy_arith(a, b, False)
        want.update(div=a // b, mod=a % b, less=a < b)
        outs = [(k, T.BOOL if k == "less" else elem) for k in want]
        got = run(args.work, name, model(name, elem, shape, nodes, outs),
                  {"a": a, "b": b})
        check(name, got, want, 0)

    # Between signed and unsigned: widening extends by the source's sign,
    # unsigned to float is unsigned.
    u = rng.integers(0, 255, shape, endpoint=True, dtype=np.uint8)
    u[0, :2] = [255, 128]
    nodes = [helper.make_node("Cast", ["a"], ["u_to_f32"], to=T.FLOAT),
             helper.make_node("Cast", ["a"], ["u_to_i16"], to=T.INT16),
             helper.make_node("Cast", ["a"], ["u_to_i8"], to=T.INT8),
             helper.make_node("Cast", ["u_to_i8"], ["i8_to_u16"], to=T.UINT16),
             helper.make_node("Cast", ["u_to_f32"], ["f32_to_u8"], to=T.UINT8),
             helper.make_node("Add", ["a", "b"], ["unused"])]
    m = model("ucasts", T.UINT8, shape, nodes,
              [("u_to_f32", T.FLOAT), ("u_to_i16", T.INT16), ("u_to_i8", T.INT8),
               ("i8_to_u16", T.UINT16), ("f32_to_u8", T.UINT8)])
    got = run(args.work, "ucasts", m, {"a": u, "b": u})
    check("unsigned-casts", got,
          {"u_to_f32": u.astype(np.float32), "u_to_i16": u.astype(np.int16),
           "u_to_i8": u.astype(np.int8),
           "i8_to_u16": u.astype(np.int8).astype(np.uint16), "f32_to_u8": u}, 0)

    # Casts between the float types (rounded to nearest even, once) and to
    # and from the integers (float to integer truncates toward zero).
    a = rng.uniform(-100, 100, shape)
    a[0, :3] = [1 + 2.0**-12, 65504.0, 1e-8]  # f16 rounding, max, underflow
    casts = [("to_f32", T.FLOAT, np.float32), ("to_f16", T.FLOAT16, np.float16),
             ("to_i16", T.INT16, np.int16), ("to_i8", T.INT8, np.int8)]
    nodes = [helper.make_node("Cast", ["a"], [n], to=t) for n, t, _ in casts]
    nodes.append(helper.make_node("Cast", ["to_f16"], ["f16_to_f64"],
                                  to=T.DOUBLE))
    nodes.append(helper.make_node("Cast", ["to_i8"], ["i8_to_f64"], to=T.DOUBLE))
    nodes.append(helper.make_node("Add", ["a", "b"], ["unused"]))
    outs = [(n, t) for n, t, _ in casts] + [("f16_to_f64", T.DOUBLE),
                                            ("i8_to_f64", T.DOUBLE)]
    m = model("casts", T.DOUBLE, shape, nodes, outs)
    small = np.clip(a, -127, 127)
    got = run(args.work, "casts", m, {"a": a, "b": a})
    # Values within int8's range only: an out-of-range float to integer Cast
    # is undefined in ONNX.
    got_i = run(args.work, "casts", m, {"a": small, "b": small})
    want = {"to_f32": a.astype(np.float32), "to_f16": a.astype(np.float16),
            "f16_to_f64": a.astype(np.float16).astype(np.float64)}
    check("casts-float", got, want, 0)
    want_i = {"to_i16": np.trunc(small).astype(np.int16),
              "to_i8": np.trunc(small).astype(np.int8),
              "i8_to_f64": np.trunc(small).astype(np.int8).astype(np.float64)}
    check("casts-int", got_i, want_i, 0)

    # bfloat16: files carry it as float32; a Cast rounds to nearest even.
    f = rng.uniform(-3, 3, shape).astype(np.float32)
    f[0, :2] = [1 + 2.0**-8, 1 + 3 * 2.0**-8]  # ties: to even (down, up)
    bits = f.view(np.uint32)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).view(np.float32)
    nodes = [helper.make_node("Cast", ["a"], ["to_bf16"], to=T.BFLOAT16),
             helper.make_node("Cast", ["to_bf16"], ["back"], to=T.FLOAT),
             helper.make_node("Add", ["a", "b"], ["unused"])]
    m = model("bf16", T.FLOAT, shape, nodes,
              [("to_bf16", T.BFLOAT16), ("back", T.FLOAT)])
    got = run(args.work, "bf16", m, {"a": f, "b": f})
    check("bf16", got, {"to_bf16": rounded, "back": rounded}, 0)


if __name__ == "__main__":
    main()
