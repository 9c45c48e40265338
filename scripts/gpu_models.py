#!/usr/bin/env python3
"""The models, data and PyTorch references of the cuda target's GPU check.

scripts/gpu-bundle.sh (on a CPU machine with the build) and
scripts/gpu-check.sh (on the GPU machine) call it:

  gpu_models.py prepare --out DIR --torch-python PY
      writes DIR/<name>.onnx and DIR/<name>.npz for every model of the check
      (MLP, LeNet-style CNN, ResNet-18, the Transformer encoder, the GPT
      block; ResNet-18 and a larger GPT for the benchmark) and DIR/models.json
      (how to compile and run each). Large models keep their weights in an
      external data file that `fill-weights` writes: the bundle carries the
      graph only, and the GPU machine regenerates the same bytes.
  gpu_models.py regenerate DIR
      (re)writes the external weights of DIR's models and the benchmark
      data from fixed numpy generators (legacy RandomState: the same bytes on
      any numpy).
  gpu_models.py bench-torch --model resnet18|gpt --batch B --steps N [--compile]
                             [--precision fp32|bf16]
      PyTorch's samples/s for the same architecture on the GPU (fp32, or
      bf16 autocast), one JSON line.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)

# The benchmark shapes (one place: the bundle compiles them, the PyTorch side
# builds the same architectures).
RESNET_BENCH = {"batch": 64, "image": 224, "classes": 1000}
GPT_BENCH = {"batch": 16, "vocab": 4096, "seq": 256, "d": 512, "heads": 8,
             "layers": 6}


def run(argv, **kw):
    print("+", " ".join(argv), flush=True)
    subprocess.run(argv, check=True, **kw)


def prepare(out, torch_python):
    import numpy as np
    os.makedirs(out, exist_ok=True)
    models = []

    # MLP on the digits.
    run([sys.executable, f"{SRC}/examples/mlp/make_mlp.py", "--out", f"{out}/mlp.onnx"])
    run([sys.executable, f"{SRC}/examples/digits/make_data.py", "--out-dir", f"{out}/digits"])
    os.replace(f"{out}/digits/train.npz", f"{out}/mlp.npz")
    models.append({"name": "mlp", "batch": 32, "flags": []})

    # LeNet-style CNN, Transformer encoder (onnx.helper models).
    rng = np.random.RandomState(1)
    run([sys.executable, f"{SRC}/examples/models/make_models.py", "--kind", "cnn",
         "--out", f"{out}/lenet.onnx"])
    np.savez(f"{out}/lenet.npz", x=rng.randn(256, 1, 28, 28).astype(np.float32),
             labels=rng.randint(0, 10, 256).astype(np.int64))
    models.append({"name": "lenet", "batch": 16, "flags": []})
    run([sys.executable, f"{SRC}/examples/models/make_models.py", "--kind", "transformer",
         "--out", f"{out}/transformer.onnx"])
    np.savez(f"{out}/transformer.npz", ids=rng.randint(0, 100, (256, 8)).astype(np.int64),
             labels=rng.randint(0, 4, 256).astype(np.int64))
    models.append({"name": "transformer", "batch": 16, "flags": ["--optimizer=adam", "--lr=1e-3"]})

    # The GPT block (its data's labels are `targets`).
    run([sys.executable, f"{SRC}/examples/models/make_gpt_block.py", "--out", f"{out}/gpt_block.onnx",
         "--data", f"{out}/gpt_block.npz", "--samples", "256"])
    models.append({"name": "gpt_block", "batch": 16,
                   "flags": ["--label=targets", "--optimizer=adam", "--lr=1e-3"]})

    # ResNet-18 (CIFAR-sized, batch norm in training mode) and the benchmark
    # models, exported by PyTorch with external weights.
    run([torch_python, __file__, "export-torch", "--out", out])
    models.append({"name": "resnet18", "batch": 8, "flags": ["--lr=1e-3"], "external": True})
    models.append({"name": "resnet18_bench", "bench": True, "batch": RESNET_BENCH["batch"],
                   "flags": [], "external": True})
    models.append({"name": "gpt_bench", "bench": True, "batch": GPT_BENCH["batch"],
                   "flags": ["--optimizer=adamw", "--lr=3e-4"], "external": True})
    # --precision=bf16: numerics against the CPU build's bf16 (the same
    # rounding, sums in another order), and the benchmark against PyTorch's
    # bf16 autocast.
    for m in list(models):
        if m["name"] in ("mlp", "gpt_block", "resnet18", "resnet18_bench", "gpt_bench"):
            models.append(dict(m, precision="bf16",
                               flags=m["flags"] + ["--precision=bf16"]))
    for m in models:
        m.setdefault("precision", "fp32")
        m["key"] = m["name"] + ("" if m["precision"] == "fp32" else "." + m["precision"])
    with open(f"{out}/models.json", "w") as f:
        json.dump(models, f, indent=1)
    regenerate(out)


def regenerate(out):
    """What the bundle leaves out, made again from fixed seeds."""
    fill_weights(out)
    bench_data(out)


def export_torch(out):
    """Runs under a Python with torch, torchvision and onnx."""
    import numpy as np
    import onnx
    import torch
    import torchvision
    sys.path.insert(0, f"{SRC}/examples/torch")
    import torch_models

    def export(model, example, name, dynamic, data):
        model.train()
        path = f"{out}/{name}.onnx"
        torch.onnx.export(model, example, path, input_names=[list(dynamic)[0]],
                          output_names=["logits"], dynamic_axes=dynamic, opset_version=14,
                          training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)
        m = onnx.load(path)
        onnx.save_model(m, path, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=f"{name}.weights", size_threshold=0)
        if data is not None:
            np.savez(f"{out}/{name}.npz", **data)

    g = np.random.RandomState(2)
    torch.manual_seed(0)
    export(torchvision.models.resnet18(num_classes=10), (torch.randn(2, 3, 32, 32),),
           "resnet18", {"x": {0: "batch"}},
           {"x": g.randn(64, 3, 32, 32).astype(np.float32),
            "labels": g.randint(0, 10, 64).astype(np.int64)})
    # The benchmark models' data is made where it runs (bench_data).
    r = RESNET_BENCH
    export(torchvision.models.resnet18(num_classes=r["classes"]),
           (torch.randn(2, 3, r["image"], r["image"]),), "resnet18_bench", {"x": {0: "batch"}},
           None)
    c = GPT_BENCH
    gpt = torch_models.GPT(vocab=c["vocab"], seq=c["seq"], d=c["d"], heads=c["heads"],
                           layers=c["layers"])
    export(gpt, (torch.randint(0, c["vocab"], (2, c["seq"])),), "gpt_bench",
           {"ids": {0: "batch"}}, None)


def bench_data(out):
    """The benchmark models' data (large: made, not carried)."""
    import numpy as np
    g = np.random.RandomState(3)
    r, c = RESNET_BENCH, GPT_BENCH
    np.savez(f"{out}/resnet18_bench.npz",
             x=g.randn(2 * r["batch"], 3, r["image"], r["image"]).astype(np.float32),
             labels=g.randint(0, r["classes"], 2 * r["batch"]).astype(np.int64))
    ids = g.randint(0, c["vocab"], (2 * c["batch"], c["seq"])).astype(np.int64)
    np.savez(f"{out}/gpt_bench.npz", ids=ids, labels=(ids + 1) % c["vocab"])


def fill_weights(out):
    """Every external weight from RandomState(0), in file order: norm scales
    near 1, running variances 1, running means and counters 0, the rest
    uniform in +-1/sqrt(fan_in)."""
    import numpy as np
    with open(f"{out}/models.json") as f:
        models = json.load(f)
    for m in models:
        if not m.get("external"):
            continue
        layout = weight_layout(f"{out}/{m['name']}.onnx", out)
        rng = np.random.RandomState(0)
        path = f"{out}/{m['name']}.weights"
        size = max(o + n for _, _, o, n, _ in layout) if layout else 0
        buf = bytearray(size)
        for name, shape, offset, nbytes, dtype in layout:
            count = int(np.prod(shape)) if shape else 1
            if dtype != "f32":
                v = np.zeros(count, dtype=np.int64 if dtype == "i64" else np.float32)
            elif name.endswith("running_var"):
                v = np.ones(count, np.float32)
            elif name.endswith("running_mean"):
                v = np.zeros(count, np.float32)
            elif len(shape) == 1 and name.endswith("weight"):
                v = (1 + rng.uniform(-0.02, 0.02, count)).astype(np.float32)
            else:
                fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else count
                b = 1 / np.sqrt(max(fan_in, 1))
                v = rng.uniform(-b, b, count).astype(np.float32)
            raw = v.tobytes()
            assert len(raw) == nbytes, (name, len(raw), nbytes)
            buf[offset:offset + nbytes] = raw
        with open(path, "wb") as f:
            f.write(buf)
        print(f"wrote {path} ({len(buf)} bytes, {len(layout)} tensors)")


def weight_layout(onnx_path, out):
    """[(name, shape, offset, length, dtype)] of the external initializers,
    cached beside the model as <model>.layout.json (the GPU machine reads
    that, needing no onnx package)."""
    cache = onnx_path[:-len(".onnx")] + ".layout.json"
    if os.path.exists(cache):
        with open(cache) as f:
            return [tuple(x) for x in json.load(f)]
    import onnx
    m = onnx.load(onnx_path, load_external_data=False)
    types = {onnx.TensorProto.FLOAT: "f32", onnx.TensorProto.INT64: "i64"}
    layout = []
    for t in m.graph.initializer:
        if t.data_location != onnx.TensorProto.EXTERNAL:
            continue
        info = {e.key: e.value for e in t.external_data}
        layout.append((t.name, list(t.dims), int(info.get("offset", 0)),
                       int(info["length"]), types[t.data_type]))
    with open(cache, "w") as f:
        json.dump(layout, f)
    return layout


def bench_torch(model, batch, steps, compile_, precision):
    import torch
    sys.path.insert(0, f"{SRC}/examples/torch")
    dev = torch.device("cuda")
    # Like for like: our fp32 computes f32 products exactly (TF32 only with
    # --precision=tf32), and PyTorch's cuDNN default would allow TF32.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    if model == "resnet18":
        import torchvision
        r = RESNET_BENCH
        net = torchvision.models.resnet18(num_classes=r["classes"])
        x = torch.randn(batch, 3, r["image"], r["image"], device=dev)
        y = torch.randint(0, r["classes"], (batch,), device=dev)
        loss_fn = lambda out: torch.nn.functional.cross_entropy(out, y)
        opt_kind = "sgd"
    else:
        import torch_models
        c = GPT_BENCH
        net = torch_models.GPT(vocab=c["vocab"], seq=c["seq"], d=c["d"], heads=c["heads"],
                               layers=c["layers"])
        x = torch.randint(0, c["vocab"], (batch, c["seq"]), device=dev)
        y = (x + 1) % c["vocab"]
        loss_fn = lambda out: torch.nn.functional.cross_entropy(
            out.reshape(-1, out.shape[-1]), y.reshape(-1))
        opt_kind = "adamw"
    net = net.to(dev).train()
    opt = (torch.optim.SGD(net.parameters(), lr=0.01) if opt_kind == "sgd"
           else torch.optim.AdamW(net.parameters(), lr=3e-4))
    fwd = torch.compile(net) if compile_ else net

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=precision == "bf16"):
            loss = loss_fn(fwd(x))
        loss.backward()
        opt.step()
        return loss

    for _ in range(5):
        step()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(steps):
        step()
    end.record()
    torch.cuda.synchronize()
    seconds = start.elapsed_time(end) / 1000
    print(json.dumps({"model": model, "mode": "compile" if compile_ else "eager",
                      "precision": precision, "batch": batch, "steps": steps, "samples_per_s": batch * steps / seconds,
                      "torch": torch.__version__}))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("prepare")
    a.add_argument("--out", required=True)
    a.add_argument("--torch-python", required=True)
    a = sub.add_parser("export-torch")
    a.add_argument("--out", required=True)
    a = sub.add_parser("regenerate")
    a.add_argument("dir")
    a = sub.add_parser("bench-torch")
    a.add_argument("--model", choices=["resnet18", "gpt"], required=True)
    a.add_argument("--batch", type=int, required=True)
    a.add_argument("--steps", type=int, default=30)
    a.add_argument("--compile", action="store_true")
    a.add_argument("--precision", choices=["fp32", "bf16"], default="fp32")
    args = p.parse_args()
    if args.cmd == "prepare":
        prepare(args.out, args.torch_python)
    elif args.cmd == "export-torch":
        export_torch(args.out)
    elif args.cmd == "regenerate":
        regenerate(args.dir)
    else:
        bench_torch(args.model, args.batch, args.steps, args.compile, args.precision)


if __name__ == "__main__":
    main()
