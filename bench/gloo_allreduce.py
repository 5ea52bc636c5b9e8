"""Gloo's own all-reduce time on this machine, through Python's
torch.distributed (the same Gloo LibTorch uses): the floor under any
data-parallel step. Run it under a launcher, e.g.

  devcheck launch -n 2 -- /usr/bin/python3 bench/gloo_allreduce.py

Sizes: 4 B, 4 KB, the classifier's gradients (216,330 floats, 0.87 MB), 4 MB.
Rank 0 prints one line per size: the mean of 50 all-reduces after 5 warm-up.
"""
import time

import torch
import torch.distributed as dist


def main():
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    for n in (1, 1000, 216330, 1000000):
        t = torch.ones(n)
        for _ in range(5):
            dist.all_reduce(t)
        start = time.perf_counter()
        for _ in range(50):
            dist.all_reduce(t)
        seconds = (time.perf_counter() - start) / 50
        if dist.get_rank() == 0:
            print(f"gloo all-reduce of {n * 4 / 1e6:.3f} MB over {dist.get_world_size()} ranks: "
                  f"{seconds * 1e3:.2f} ms")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
