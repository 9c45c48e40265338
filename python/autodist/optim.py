"""Optimizers and learning-rate schedules of the compiled training step.

Their names and defaults follow PyTorch's (torch.optim); each becomes the
flags of autodist-compile (`--optimizer`, `--lr`, ...)."""

from __future__ import annotations

import dataclasses
from typing import List, Tuple

Flags = List[Tuple[str, str]]


def _num(x: float) -> str:
    return repr(float(x))


@dataclasses.dataclass
class SGD:
    """torch.optim.SGD: plain SGD, or with `momentum` > 0 heavy-ball
    momentum (`nesterov` for Nesterov's)."""

    lr: float = 0.01
    momentum: float = 0.0
    nesterov: bool = False
    weight_decay: float = 0.0

    def _flags(self) -> Flags:
        if self.nesterov and self.momentum == 0:
            raise ValueError("SGD(nesterov=True) needs momentum > 0")
        f: Flags = [("lr", _num(self.lr))]
        if self.momentum:
            f += [("optimizer", "momentum"), ("momentum", _num(self.momentum))]
            if self.nesterov:
                f.append(("nesterov", "true"))
        else:
            f.append(("optimizer", "sgd"))
        if self.weight_decay:
            f.append(("weight-decay", _num(self.weight_decay)))
        return f


@dataclasses.dataclass
class Adam:
    """torch.optim.Adam (L2 weight decay added to the gradient)."""

    lr: float = 1e-3
    betas: Tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-8
    weight_decay: float = 0.0
    _name = "adam"

    def _flags(self) -> Flags:
        f: Flags = [("optimizer", self._name), ("lr", _num(self.lr)),
                    ("beta1", _num(self.betas[0])),
                    ("beta2", _num(self.betas[1])), ("eps", _num(self.eps))]
        if self.weight_decay:
            f.append(("weight-decay", _num(self.weight_decay)))
        return f


@dataclasses.dataclass
class AdamW(Adam):
    """torch.optim.AdamW (decoupled weight decay, default 0.01)."""

    weight_decay: float = 0.01
    _name = "adamw"


@dataclasses.dataclass
class CosineSchedule:
    """Linear warm-up over `warmup_steps`, then cosine decay to `min_lr` at
    `total_steps`."""

    total_steps: int
    warmup_steps: int = 0
    min_lr: float = 0.0

    def _flags(self) -> Flags:
        return [("lr-schedule", "cosine"),
                ("total-steps", str(int(self.total_steps))),
                ("warmup-steps", str(int(self.warmup_steps))),
                ("min-lr", _num(self.min_lr))]


@dataclasses.dataclass
class StepSchedule:
    """torch.optim.lr_scheduler.StepLR: lr × gamma every `step_size` steps."""

    step_size: int
    gamma: float = 0.1

    def _flags(self) -> Flags:
        return [("lr-schedule", "step"), ("step-size", str(int(self.step_size))),
                ("gamma", _num(self.gamma))]
