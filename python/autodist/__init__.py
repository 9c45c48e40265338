"""AutoDist-MLIR from Python: compile ONNX (or PyTorch) models into
distributed training executables, launch them on MPI ranks, read and plot
their results. See docs/python.md.

    import autodist as ad
    exe = ad.compile("mlp.onnx", train=ad.Training(optimizer=ad.optim.Adam(lr=1e-3)),
                     strategy=ad.strategy.AllReduce(chunk_size=128), output="mlp.train")
    exe.explain()
    run = exe.launch(ranks=2, data="train.npz", steps=200, batch_size=16)
    run.losses, run.samples_per_s
"""

from . import optim, strategy
from ._compile import Executable, compile, format_table
from ._launch import Run, launch, plot
from ._torch import from_torch
from ._training import Training
from .errors import CompileError, Diagnostic, RunError

__version__ = "0.2.0"

__all__ = ["compile", "Executable", "Training", "optim", "strategy", "launch",
           "Run", "plot", "from_torch", "CompileError", "RunError",
           "Diagnostic", "format_table"]
