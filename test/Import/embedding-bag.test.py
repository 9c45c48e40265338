"""Writes DIR/bag_{sum,mean,max}.onnx (nn.EmbeddingBag(16, 4, mode) of 2-D
ids [batch, 5], PyTorch's TorchScript export, opset 14), DIR/bag_offsets.onnx
(1-D ids with per-bag offsets) and DIR/loop.onnx (a Loop that is not an
EmbeddingBag: a running sum)."""
import os
import sys
import warnings

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
warnings.filterwarnings("ignore")
torch.manual_seed(0)


class Offsets(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bag = torch.nn.EmbeddingBag(16, 4, mode="sum")

    def forward(self, ids, offsets):
        return self.bag(ids, offsets)


for mode in ["sum", "mean", "max"]:
    m = torch.nn.EmbeddingBag(16, 4, mode=mode)
    torch.onnx.export(m, (torch.zeros(2, 5, dtype=torch.int64),),
                      os.path.join(out, f"bag_{mode}.onnx"), opset_version=14,
                      input_names=["ids"], dynamic_axes={"ids": {0: "batch"}},
                      do_constant_folding=False)
torch.onnx.export(Offsets(), (torch.zeros(6, dtype=torch.int64),
                              torch.tensor([0, 2, 5])),
                  os.path.join(out, "bag_offsets.onnx"), opset_version=14,
                  input_names=["ids", "offsets"], do_constant_folding=False)

# Loop(3) { acc -> acc + x }: a loop-carried value, not the bag pattern.
body = helper.make_graph(
    [helper.make_node("Add", ["acc_in", "x"], ["acc_out"]),
     helper.make_node("Identity", ["cond_in"], ["cond_out"])], "body",
    [helper.make_tensor_value_info("i", TensorProto.INT64, []),
     helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
     helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [4])],
    [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
     helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [4])])
g = helper.make_graph(
    [helper.make_node("Loop", ["n", "c", "x"], ["y"], name="running_sum",
                      body=body)], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
    [numpy_helper.from_array(np.array(3, np.int64), "n"),
     numpy_helper.from_array(np.array(True), "c")])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)]),
          os.path.join(out, "loop.onnx"))
