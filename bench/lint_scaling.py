#!/usr/bin/env python3
"""How `devcheck lint` grows with a file: each shape at N and 4N units, as a process.

    python3 bench/lint_scaling.py DEVCHECK [N] [ROUNDS]

A linter must stay about linear in the size of what it reads: a generated
file of thousands of statements, a long chain of calls or a deep expression
is code users have (CPython compiles every shape here at N=500; the deepest
ones at 4N only where its own recursion limit allows) and must neither crash
nor take minutes. For each shape the file is written at N and at 4N units
(default N=1000), and `DEVCHECK lint FILE` is run ROUNDS times each (default
3; the median counts), the CLI as a process, start-up included. Printed per
shape: both times, and how the time grew from N to 4N less the start-up
(an empty file's lint, measured in the same run, is the anchor: a linear
cost gives about 4, a quadratic one 16, a cubic one 64). The first shape,
N plain assignments of literals, is linear by construction. The exit status
is 1 where a run crashed (a signal) or timed out (60 s), else 0.
Conditions printed first: the machine's load, the page cache (warm: each
file is linted once untimed before its rounds), one thread (-j 1).
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time


def shapes(n):
    """Each shape's source at n units."""
    yield "plain assignments", "".join(f"x{i} = {i}\n" for i in range(n))
    yield "module-level tensor lines", "import torch\n" + "".join(
        f"x{i} = torch.zeros(1).cuda() + torch.ones(1)\n" for i in range(n))
    yield "module-level loops", "import torch\nmodel = torch.nn.Linear(1, 1).cuda()\n" + "".join(
        f"for b{i} in loader:\n    y = model(b{i})\n    print(y.item())\n" for i in range(n))
    yield "elif chain", "import torch\nif a == 0:\n    x = torch.zeros(1).cuda()\n" + "".join(
        f"elif a == {i}:\n    x = torch.zeros(1).cuda() + torch.ones(1)\n" for i in range(1, n))
    yield "list of device tensors", "import torch\nx = [" + ", ".join(
        ["torch.zeros(1).cuda()"] * n) + "]\n"
    yield "chained .cuda() calls", "import torch\nx = torch.zeros(1)" + ".cuda()" * n + "\n"
    yield "sum of terms", "import torch\nx = " + " + ".join(["torch.zeros(1)"] * n) + "\n"
    yield "chain of functions", "import torch\n" + "".join(
        f"def f{i}(x):\n    return f{i + 1}(x) + torch.zeros(1)\n" for i in range(n)) + (
        f"def f{n}(x):\n    return x.cuda()\n")
    yield "methods calling the next", "import torch\nclass M(torch.nn.Module):\n" + "".join(
        f"    def m{i}(self, x):\n        return self.m{i + 1}(x) + torch.zeros(1)\n"
        for i in range(n)) + f"    def m{n}(self, x):\n        return x.cuda()\n"
    yield "attributes set in __init__", (
        "import torch\nclass M(torch.nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.a0 = torch.zeros(1)\n" + "".join(
            f"        self.a{i + 1} = self.a{i} + torch.ones(1)\n" for i in range(n)) +
        f"    def forward(self, x):\n        return x + self.a{n}\n")


def run(devcheck, path, rounds):
    """Median seconds of `devcheck lint path`, or a string saying why none."""
    subprocess.run([devcheck, "lint", "-j", "1", path], capture_output=True, timeout=60, check=False)
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        try:
            out = subprocess.run([devcheck, "lint", "-j", "1", path], capture_output=True,
                                 timeout=60, check=False)
        except subprocess.TimeoutExpired:
            return "timeout (60 s)"
        if out.returncode < 0 or out.returncode > 2:
            return f"crashed (status {out.returncode})"
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    devcheck = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    print(f"devcheck lint -j 1, N={n} and 4N={4 * n}, median of {rounds} runs each, page cache "
          f"warm; load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}; "
          f"{os.cpu_count()} cores")
    failed = False
    with tempfile.TemporaryDirectory() as folder:
        empty = os.path.join(folder, "empty.py")
        with open(empty, "w", encoding="utf-8") as f:
            f.write("")
        start_up = run(devcheck, empty, max(rounds, 5))
        if isinstance(start_up, str):
            sys.exit(f"lint_scaling: {devcheck} lint on an empty file: {start_up}")
        print(f"anchor: an empty file's lint (start-up) {start_up:.3f} s")
        print(f"{'shape':30} {'N (s)':>9} {'4N (s)':>9} {'growth':>7}")
        small = dict(shapes(n))
        large = dict(shapes(4 * n))
        for name in small:
            times = []
            for size, code in (("n", small[name]), ("4n", large[name])):
                path = os.path.join(folder, f"{size}.py")
                with open(path, "w", encoding="utf-8") as f:
                    f.write(code)
                times.append(run(devcheck, path, rounds))
            if any(isinstance(t, str) for t in times):
                failed = True
                shown = [t if isinstance(t, str) else f"{t:.3f}" for t in times]
                print(f"{name:30} {shown[0]:>9} {shown[1]:>9}")
                continue
            growth = (times[1] - start_up) / max(times[0] - start_up, 1e-3)
            print(f"{name:30} {times[0]:9.3f} {times[1]:9.3f} {growth:7.1f}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
