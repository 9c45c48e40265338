"""SIGINT during code generation: no temporary file is left and the old
output is intact. Makes a deep MLP (many Gemm + Relu layers, so that code
generation takes a while), starts autodist-compile, waits until a partition
object file (<out>.tmp-*.partN.o) exists, interrupts it."""
import glob
import os
import signal
import subprocess
import sys
import time

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

out_dir = sys.argv[1]
layers, width = 160, 32
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

out = os.path.join(out_dir, "deep.train")
with open(out, "w") as f:
    f.write("old output\n")
proc = subprocess.Popen(["autodist-compile", model_path, "--train", "--loss=mse", "-j2",
                         "-o", out], stderr=subprocess.DEVNULL)
deadline = time.time() + 300
while time.time() < deadline and proc.poll() is None:
    if glob.glob(out + ".tmp-*.part*.o"):
        break
    time.sleep(0.01)
if proc.poll() is not None:
    sys.exit(f"the compile ended (rc {proc.returncode}) before it could be interrupted")
proc.send_signal(signal.SIGINT)
rc = proc.wait()
left = sorted(os.path.basename(p) for p in glob.glob(out + ".*"))
print("rc", rc)
print("left", left)
print("old", open(out).read().strip())
