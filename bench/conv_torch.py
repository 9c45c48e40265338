"""PyTorch reference for bench/conv_onednn.cpp: the same convolution layers
(LeNet B=64, ResNet-18 3x32x32 B=8), one thread, forward / weight gradient /
input gradient each through aten.convolution_backward with one output asked
for. Median ms over reps (about `--seconds` per op after 3 warm-up calls).

  /usr/bin/python3 bench/conv_torch.py --layers-from /tmp/conv_onednn [--seconds 1.0]

(--layers-from: the conv_onednn binary bench/conv_onednn.sh built; its
`layers` mode lists the layers, so both measure the same ones.)

Prints a markdown table, per-model sums, and JSON lines (prefix "JSON ")."""
import argparse
import json
import statistics
import subprocess
import time

import torch


def layers(binary):
    """The layers of bench/conv_onednn.cpp (`conv_onednn layers`)."""
    out = subprocess.run([binary, "layers"], capture_output=True, text=True,
                         check=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def median_ms(fn, seconds):
    for _ in range(3):
        fn()
    times = []
    start = time.perf_counter()
    while len(times) < 21 or time.perf_counter() - start < seconds:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--layers-from", required=True,
                    help="the conv_onednn binary (its `layers` mode)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, mkldnn {torch.backends.mkldnn.is_available()}, "
          f"threads {torch.get_num_threads()}\n")
    print("| model | layer | count | op | torch ms |\n|---|---|---:|---|---:|")
    sums = {}
    conv_bw = torch.ops.aten.convolution_backward
    with torch.no_grad():
        for layer in layers(args.layers_from):
            model, name, count = layer["model"], layer["layer"], layer["count"]
            m, k, s, p = layer["m"], layer["k"], layer["s"], layer["p"]
            x = torch.randn(layer["n"], layer["c"], layer["h"], layer["w"])
            w = torch.randn(m, layer["c"], k, k)
            b = torch.randn(m) if layer["bias"] else None
            y = torch.nn.functional.conv2d(x, w, b, s, p)
            dy = torch.randn_like(y)

            def backward(mask):
                return lambda: conv_bw(dy, x, w, None, [s, s], [p, p], [1, 1],
                                       False, [0, 0], 1, mask)

            ops = [("forward",
                    lambda: torch.nn.functional.conv2d(x, w, b, s, p)),
                   ("weight grad", backward([False, True, False]))]
            if layer["dgrad"]:
                ops.append(("input grad", backward([True, False, False])))
            for op, fn in ops:
                ms = median_ms(fn, args.seconds)
                sums[model] = sums.get(model, 0.0) + count * ms
                print(f"| {model} | {name} | {count} | {op} | {ms:.3f} |")
                print("JSON " + json.dumps({"model": model, "layer": name,
                                            "count": count, "op": op,
                                            "torch_ms": round(ms, 4)}))
    print("\n| model | torch ms per step's convolutions |\n|---|---:|")
    for model, ms in sums.items():
        print(f"| {model} | {ms:.2f} |")
        print("JSON " + json.dumps({"model_sum": model,
                                    "torch_ms": round(ms, 3)}))


if __name__ == "__main__":
    main()
