"""Python side of checkpoint_bench: makes the ~1 GB checkpoint and times torch itself.

usage: checkpoint_bench.py make OUT | load FILE | load-weights-only FILE | loadsave FILE OUT
Prints the measured seconds (the load commands and loadsave) on the last line.
"""
import sys
import time

import torch

cmd = sys.argv[1]
if cmd == "make":
    torch.manual_seed(0)
    # ~200 tensors, ~1 GB: 196 weights of 5 MB plus a few small buffers.
    state = {}
    for i in range(196):
        state[f"layers.{i}.weight"] = torch.rand(1280, 1024)
    for i in range(4):
        state[f"norm.{i}.bias"] = torch.rand(1024)
    torch.save(state, sys.argv[2])
elif cmd == "load":
    start = time.perf_counter()
    torch.load(sys.argv[2], map_location="cpu")
    print(time.perf_counter() - start)
elif cmd == "load-weights-only":
    start = time.perf_counter()
    torch.load(sys.argv[2], map_location="cpu", weights_only=True)
    print(time.perf_counter() - start)
elif cmd == "loadsave":
    start = time.perf_counter()
    torch.save(torch.load(sys.argv[2], map_location="cpu"), sys.argv[3])
    print(time.perf_counter() - start)
