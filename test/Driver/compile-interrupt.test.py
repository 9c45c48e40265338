"""Signals during a compile. `codegen`: SIGINT while the partition objects
are written (a deep MLP, so that code generation takes a while): no
temporary is left, the old output is intact. `link`: SIGTERM to the
compiler alone while a linker (a stand-in on PATH that sleeps in a child)
runs: the linker and its child are ended too, no temporary is left. `nohup`:
SIGHUP, ignored from the start, during the link: it stays ignored, and the
compile succeeds with its objects intact."""
import glob
import os
import signal
import subprocess
import sys
import time

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

out_dir, mode = sys.argv[1], sys.argv[2]
layers = 160 if mode == "codegen" else 2
width = 32
nodes, inits = [], []
x = "x"
for i in range(layers):
    w = numpy_helper.from_array(np.full((width, width), 0.01, np.float32), f"W{i}")
    b = numpy_helper.from_array(np.zeros(width, np.float32), f"b{i}")
    inits += [w, b]
    nodes.append(helper.make_node("Gemm", [x, f"W{i}", f"b{i}"], [f"g{i}"], name=f"gemm{i}"))
    nodes.append(helper.make_node("Relu", [f"g{i}"], [f"r{i}"], name=f"relu{i}"))
    x = f"r{i}"
graph = helper.make_graph(
    nodes, "deep", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", width])],
    [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["N", width])], inits)
model_path = os.path.join(out_dir, "deep.onnx")
save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), model_path)

# The stand-in linker: records its pid and its child's, checks that the
# objects it was given exist, then sleeps (link) or writes -o (nohup).
bin_dir = os.path.join(out_dir, "bin")
os.makedirs(bin_dir, exist_ok=True)
pids = os.path.join(out_dir, "linker.pids")
linker = os.path.join(bin_dir, "c++")
with open(linker, "w") as f:
    f.write(f"""#!/bin/sh
out=; prev=
for a in "$@"; do [ "$prev" = -o ] && out=$a; prev=$a; done
sleep 60 &
echo $$ $! > {pids}.new && mv {pids}.new {pids}
[ "{mode}" = link ] && wait
sleep 1
for a in "$@"; do
  case $a in *.o) [ -f "$a" ] || {{ echo "missing $a" >&2; exit 1; }} ;; esac
done
kill $!
echo linked > "$out"
""")
os.chmod(linker, 0o755)
env = dict(os.environ)
if mode != "codegen":
    env["PATH"] = bin_dir + os.pathsep + env["PATH"]

out = os.path.join(out_dir, "deep.train")
with open(out, "w") as f:
    f.write("old output\n")
# lit runs tests with SIGINT ignored: each mode sets what it means.
sig = {"codegen": signal.SIGINT, "link": signal.SIGTERM, "nohup": signal.SIGHUP}[mode]
def child_signals():
    signal.signal(sig, signal.SIG_IGN if mode == "nohup" else signal.SIG_DFL)
proc = subprocess.Popen(["autodist-compile", model_path, "--train", "--loss=mse", "-j2",
                         "-o", out], env=env, preexec_fn=child_signals)
deadline = time.time() + 300
while time.time() < deadline and proc.poll() is None:
    if mode == "codegen" and glob.glob(out + ".tmp-*.part*.o"):
        break
    if mode != "codegen" and os.path.exists(pids):
        break
    time.sleep(0.01)
if proc.poll() is not None:
    sys.exit(f"the compile ended (rc {proc.returncode}) before the signal")
proc.send_signal(sig)
rc = proc.wait()


def alive(pid):
    """Whether `pid` runs (a zombie does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


left = sorted(os.path.basename(p) for p in glob.glob(out + ".*"))
print("rc", rc)
print("left", left)
print("output", open(out).read().strip())
if mode != "codegen":
    linker_pids = open(pids).read().split()
    time.sleep(0.2)
    print("linker alive", [alive(int(p)) for p in linker_pids])
    for p in linker_pids:  # what an unfixed compiler left running
        try:
            os.kill(int(p), signal.SIGKILL)
        except ProcessLookupError:
            pass
