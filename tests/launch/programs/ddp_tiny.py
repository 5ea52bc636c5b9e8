#!/usr/bin/python3
"""An unchanged-torchrun-style Python DDP script for the launcher's tests.

Gloo, env:// (the launcher's RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT), a
tiny model, STEPS steps on data that differs per rank; prints
"checksum <sum of all parameters>" on every rank. DDP keeps the ranks'
parameters equal, so the checksums must be equal.

  ddp_tiny.py [--steps N] [--fail-rank K --fail-step S --how exit3|kill9] [--dir DIR]

With --fail-rank, rank K fails at step S (after writing DIR/rankK.pid like
the other ranks), in the middle of training.
"""
import argparse
import os
import signal

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--fail-rank", type=int, default=-1)
    parser.add_argument("--fail-step", type=int, default=2)
    parser.add_argument("--how", default="exit3")
    parser.add_argument("--dir", default="")
    args = parser.parse_args()

    dist.init_process_group("gloo", init_method="env://")
    rank = dist.get_rank()
    if args.dir:
        with open(os.path.join(args.dir, f"rank{rank}.pid"), "w") as f:
            f.write(str(os.getpid()))
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
    ddp = DistributedDataParallel(model)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1)
    data = torch.Generator().manual_seed(100 + rank)
    for step in range(args.steps):
        if rank == args.fail_rank and step == args.fail_step:
            print(f"rank {rank} fails at step {step} ({args.how})", flush=True)
            if args.how == "kill9":
                os.kill(os.getpid(), signal.SIGKILL)
            os._exit(int(args.how.removeprefix("exit")))
        x = torch.randn(32, 8, generator=data)
        y = torch.randint(0, 2, (32,), generator=data)
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(ddp(x), y)
        loss.backward()
        optimizer.step()
        if args.fail_rank >= 0:
            # Hold the survivors in training long enough to be stopped there.
            dist.barrier()
    checksum = sum(p.double().sum().item() for p in model.parameters())
    print(f"world {dist.get_world_size()} rank {rank} checksum {checksum:.10f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
