"""Exporting a PyTorch module to the ONNX the compiler imports."""

from __future__ import annotations

import os
from typing import Any, Dict, Optional, Sequence, Union


def from_torch(module, example_inputs: Union[Any, Sequence[Any]],
               path: Union[str, os.PathLike], training: bool = True,
               input_names: Optional[Sequence[str]] = None,
               output_names: Sequence[str] = ("logits",),
               dynamic_batch: bool = True, opset: int = 17) -> str:
    """Exports `module` with `example_inputs` to `path` (ONNX) with
    torch.onnx.export, as the compiler expects it: initializers as
    parameters, no constant folding (it would fold the weights away), the
    batch dim symbolic (so the executable runs at any batch), and in
    training mode when `training` (Dropout and BatchNormalization kept as
    training ops). Returns the path."""
    import torch

    inputs = tuple(example_inputs) if isinstance(example_inputs, (list, tuple)) \
        else (example_inputs,)
    names = list(input_names) if input_names else (
        ["input"] if len(inputs) == 1 else [f"input{i}" for i in range(len(inputs))])
    if len(names) != len(inputs):
        raise ValueError(f"{len(names)} input names for {len(inputs)} inputs")
    axes: Dict[str, Dict[int, str]] = {}
    if dynamic_batch:
        axes = {n: {0: "batch"} for n in list(names) + list(output_names)}
    mode = torch.onnx.TrainingMode.TRAINING if training else torch.onnx.TrainingMode.EVAL
    was_training = module.training
    module.train(training)
    try:
        torch.onnx.export(module, inputs, os.fspath(path), input_names=names,
                          output_names=list(output_names), opset_version=opset,
                          dynamic_axes=axes or None, training=mode,
                          do_constant_folding=False)
    finally:
        module.train(was_training)
    return os.fspath(path)
