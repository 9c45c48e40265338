"""What the compiled training step does: loss, optimizer, schedule."""

from __future__ import annotations

import dataclasses
from typing import Optional, Sequence, Union

from . import optim as _optim

Optimizer = Union[_optim.SGD, _optim.Adam, _optim.AdamW]
Schedule = Union[_optim.CosineSchedule, _optim.StepSchedule]


@dataclasses.dataclass
class Training:
    """The training step built on the model's forward pass.

    loss: "cross_entropy" (class indices in the `label` array), "mse" (a
        target array) or "output" (the model's first output is the loss).
    optimizer: an autodist.optim optimizer (default SGD(lr=0.01)).
    schedule: None (constant lr), CosineSchedule or StepSchedule.
    clip_norm: clip the gradients to this global L2 norm.
    freeze: parameters not to train.
    sync_batchnorm: BatchNormalization statistics over the global batch.
    seed: dropout's masks (the run's `seed` overrides it).
    """

    loss: str = "cross_entropy"
    optimizer: Optimizer = dataclasses.field(default_factory=_optim.SGD)
    schedule: Optional[Schedule] = None
    clip_norm: Optional[float] = None
    label: str = "labels"
    freeze: Sequence[str] = ()
    sync_batchnorm: bool = False
    seed: Optional[int] = None

    def _flags(self):
        f = [("train", "true"), ("loss", self.loss), ("label", self.label)]
        f += self.optimizer._flags()
        if self.schedule is not None:
            f += self.schedule._flags()
        if self.clip_norm:
            f.append(("clip-norm", repr(float(self.clip_norm))))
        for name in self.freeze:
            f.append(("freeze", name))
        if self.sync_batchnorm:
            f.append(("sync-batchnorm", "true"))
        if self.seed is not None:
            f.append(("seed", str(int(self.seed))))
        return f
