"""The devcheck package's costs, each against an anchor measured in the same run.

    python bench/python_bench.py [--ops N] [--repeats R]

1. The sanitizer in-process: a loop of tiny ops (add, mul, sum on 16-float
   tensors) under devcheck.watch() against the same loop without it; the
   ratio (target <= 1.2x, as for `devcheck run`), with provenance on and off.
2. `import devcheck` after `import torch`, in fresh processes (target <= 50
   ms), beside `import torch` itself.
Best of R repeats each, interleaved so both sides see the same machine. It
prints its conditions first (CPUs, torch threads, load average before and
after) and says which runs were cold: the first repeat of each import is the
first after the bench started (files maybe not in the page cache); the watch
loop runs once untimed before its repeats (warm).
"""

import argparse
import os
import subprocess
import sys
import time

import torch

import devcheck


def tiny_ops(n):
    x = torch.ones(16)
    w = torch.full((16,), 0.5)
    acc = torch.zeros(())
    for _ in range(n):
        y = x + w
        y = y * w
        acc = acc + y.sum()
    return acc


def timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def bench_watch(n, repeats):
    tiny_ops(n // 10)  # warm up
    plain, on, cheap = [], [], []
    for _ in range(repeats):
        plain.append(timed(lambda: tiny_ops(n)))
        with devcheck.watch(mode="report", provenance=True):
            on.append(timed(lambda: tiny_ops(n)))
        with devcheck.watch(mode="report", provenance=False):
            cheap.append(timed(lambda: tiny_ops(n)))
    ops = 4 * n
    base = min(plain)
    print(f"tiny ops ({ops} ATen ops, best of {repeats}):")
    print(f"  without devcheck (anchor)      {base * 1e3:8.1f} ms  {base / ops * 1e9:7.0f} ns/op")
    for name, t in (("watch(provenance=True)", min(on)), ("watch(provenance=False)", min(cheap))):
        print(f"  {name:<30} {t * 1e3:8.1f} ms  {t / ops * 1e9:7.0f} ns/op  {t / base:5.2f}x")


def import_ms(module, after):
    code = f"import time\nimport {after}\nt = time.perf_counter()\nimport {module}\nprint((time.perf_counter() - t) * 1e3)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(r.stdout)


def bench_import(repeats):
    torch_ms, devcheck_ms = [], []
    for _ in range(repeats):
        torch_ms.append(import_ms("torch", "sys"))
        devcheck_ms.append(import_ms("devcheck", "torch"))
    t, d = min(torch_ms), min(devcheck_ms)
    print(f"import (fresh process each, best of {repeats}; the first, cold, was "
          f"torch {torch_ms[0]:.1f} ms, devcheck {devcheck_ms[0]:.1f} ms):")
    print(f"  import torch (anchor)          {t:8.1f} ms")
    print(f"  import devcheck after torch    {d:8.1f} ms  {d / t:5.2f}x of import torch  (target <= 50 ms)")


def conditions(when):
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{when}: load average {load} (1, 5, 15 min) on {os.cpu_count()} CPUs"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ops", type=int, default=20000, help="loop iterations (4 ATen ops each)")
    p.add_argument("--repeats", type=int, default=5)
    a = p.parse_args()
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, devcheck built for {devcheck.TORCH_VERSION}, Python {sys.version.split()[0]}, "
          f"torch threads {torch.get_num_threads()}")
    print(conditions("before"))
    bench_watch(a.ops, a.repeats)
    bench_import(a.repeats)
    print(conditions("after"))


if __name__ == "__main__":
    main()
