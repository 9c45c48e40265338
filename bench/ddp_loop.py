"""The timed DDP (gloo) training loop shared by bench/ddp_onnx.py (the ONNX
graph run by torch ops) and bench/ddp_torch.py (the PyTorch module itself).

Batches: step s uses global batch g = s mod floor(N / (B*W)) and rank r takes
samples [g*B*W + r*B, g*B*W + (r+1)*B), the compiled runtime's BatchPlan.
The log has the compiled runtime's format: one JSON line per step (rank 0)
with step, loss (the rank-0 local loss), samples_per_s (global samples over
rank 0's step time) and time_s (since the loop started); after the loop
(outside the timed region) {"global_losses": [...]}, the global mean loss of
the first --check-steps steps, for checking against the compiled run.
"""
import argparse
import json
import os
import time

import numpy as np
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def common_args(ap):
    ap.add_argument("--data", required=True)
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--batch-size", type=int, required=True)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--log", default="")
    ap.add_argument("--check-steps", type=int, default=5)


def init():
    """One thread, gloo process group from OpenMPI's or torchrun's env."""
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("RANK", 0)))
    world = int(os.environ.get("OMPI_COMM_WORLD_SIZE", os.environ.get("WORLD_SIZE", 1)))
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29512")
    dist.init_process_group("gloo", rank=rank, world_size=world)
    return rank, world


def train(net, input_names, loss_fn, a, rank, world):
    """SGD(lr) on DDP(net) over the arrays of --data named input_names and
    `labels`; loss_fn(output, labels) is the local-batch mean."""
    model = DDP(net)
    opt = torch.optim.SGD(model.parameters(), lr=a.lr)
    data = np.load(a.data)
    xs = [torch.from_numpy(np.ascontiguousarray(data[n])) for n in input_names]
    y = torch.from_numpy(np.ascontiguousarray(data["labels"], dtype=np.int64))
    B, W = a.batch_size, world
    nglobal = xs[0].shape[0] // (B * W)
    if nglobal < 1:
        raise SystemExit("ddp: fewer samples than one global batch")
    log = open(a.log, "w") if (a.log and rank == 0) else None
    losses = []
    dist.barrier()
    start = time.perf_counter()
    for step in range(a.steps):
        t0 = time.perf_counter()
        first = (step % nglobal) * B * W + rank * B
        xb = [t[first:first + B] for t in xs]
        yb = y[first:first + B]
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(*xb), yb)
        loss.backward()
        opt.step()
        value = loss.item()
        t1 = time.perf_counter()
        if step < a.check_steps:
            losses.append(value)
        if log:
            log.write(json.dumps({"step": step + 1, "loss": value,
                                  "samples_per_s": B * W / (t1 - t0),
                                  "lr": a.lr, "time_s": t1 - start}) + "\n")
    t = torch.tensor(losses, dtype=torch.float64)
    dist.all_reduce(t)
    if log:
        log.write(json.dumps({"global_losses": (t / W).tolist()}) + "\n")
        log.close()
    dist.barrier()
    dist.destroy_process_group()
