"""The seed classifier trained with Python DistributedDataParallel on Gloo:
the Python anchor for `devcheck train --nproc N` (issue 12's bench).

Same model as apps/classifier/classifier.cc (Conv2d(1, 32, 3) -> ReLU ->
Flatten -> Linear(32*26*26, 10)), Adam (lr 2.5e-3, cosine decay as
`devcheck train`'s default --lr-schedule), cross-entropy, seed 0, the
Fashion-MNIST IDX files of Debian's dataset-fashion-mnist (the files
apps/classifier/fashion_mnist.cc reads). Each rank reads its shard through a
DistributedSampler; --batch-size is the GLOBAL batch, split evenly across the
ranks, so one process and N processes take the same optimizer steps.

Run it as an unchanged torchrun script, e.g. under devcheck's launcher:

  devcheck launch -n 2 -- /usr/bin/python3 bench/ddp_train.py --max-steps 500

One thread per rank unless --threads says otherwise. Rank 0 prints one JSON
object on one line of stdout (`[rank0]: {...}` under the launcher): samples/s
over the timed steps, which exclude loading the data and building the model;
the other ranks print nothing. Without the launcher's variables it trains in
one process (the one-process anchor, same global batch).
"""
import argparse
import json
import os
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from train_compare import LR, load, train_step  # the one-process anchor's data and step


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--batch-size", type=int, default=64, help="global batch, all ranks together")
    p.add_argument("--threads", type=int, default=1, help="per rank")
    p.add_argument("--max-steps", type=int, default=0, help="per epoch; 0: the whole epoch")
    p.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    a = p.parse_args()

    torch.set_num_threads(a.threads)
    distributed = "WORLD_SIZE" in os.environ
    if distributed:
        dist.init_process_group("gloo", init_method="env://")
    rank = dist.get_rank() if distributed else 0
    world = dist.get_world_size() if distributed else 1
    if a.batch_size % world != 0:
        raise SystemExit(f"ddp_train.py: --batch-size {a.batch_size} is not a multiple of the "
                         f"{world} ranks")
    per_rank = a.batch_size // world

    torch.manual_seed(0)
    train_x, train_y = load(a.data, "train")
    model = nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.Flatten(), nn.Linear(32 * 26 * 26, 10))
    trained = DistributedDataParallel(model) if distributed else model
    optimizer = torch.optim.Adam(trained.parameters(), lr=LR)
    loss_fn = nn.CrossEntropyLoss()
    dataset = torch.utils.data.TensorDataset(train_x, train_y)
    sampler = torch.utils.data.DistributedSampler(dataset, num_replicas=world, rank=rank,
                                                  shuffle=True, seed=0, drop_last=True)
    loader = torch.utils.data.DataLoader(dataset, batch_size=per_rank, sampler=sampler,
                                         drop_last=True)
    steps_per_epoch = len(loader) if a.max_steps <= 0 else min(a.max_steps, len(loader))

    if distributed:
        dist.barrier()
    started = time.perf_counter()
    steps = 0
    total = torch.zeros(())
    for epoch in range(a.epochs):
        sampler.set_epoch(epoch)
        for step, (x, y) in enumerate(loader):
            if step == steps_per_epoch:
                break
            done = (epoch + step / steps_per_epoch) / a.epochs
            total += train_step(trained, optimizer, loss_fn, x, y, done)
            steps += 1
    if distributed:
        dist.barrier()
    seconds = time.perf_counter() - started
    checksum = sum(p.double().sum().item() for p in model.parameters())
    if rank == 0:
        samples = steps * a.batch_size
        print(json.dumps({
            "torch": torch.__version__, "backend": "gloo" if distributed else "none",
            "world_size": world, "threads_per_rank": torch.get_num_threads(),
            "global_batch": a.batch_size, "per_rank_batch": per_rank, "steps": steps,
            "samples": samples, "seconds": seconds, "samples_per_second": samples / seconds,
            "mean_loss_rank0": total.item() / max(steps, 1), "param_checksum": checksum,
        }))
    if distributed:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
