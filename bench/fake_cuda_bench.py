"""Fake CUDA's cost against the same program on the CPU, in one run.

    python3 bench/fake_cuda_bench.py --lib build/src/libdevcheck_fake_device.so [--rounds R]

A Python program, as users run fake CUDA (devcheck_fake_cuda.install, the
path `devcheck run --fake-cuda` and devcheck.fake_cuda() take), timing the
same code on "cpu" and on "cuda" in one process, one intra-op thread:
  - tiny op: `a + b` on two 16-float tensors, per op           target <= 2x
  - small training step: the Fashion-MNIST classifier of `devcheck train`
    (Conv2d(1, 32, 3) -> ReLU -> Linear(21632, 10), Adam, cross-entropy,
    a batch of 32 28x28 images)                                 target <= 1.3x
  - tiny training step: a 64-128-10 MLP, batch 32, SGD: bound by the cost per
    op and the autograd engine's hand-over to the device's thread, which a GPU
    has too (reported, no target)
Each round times both devices back to back, alternating which goes first;
a target is checked on the median of the per-round ratios (the machine is
shared and noisy). The conditions are printed first: CPU, threads, load
average before and after, torch version.

Fake CUDA keeps freed blocks for reuse, as CUDA's caching allocator does,
while the CPU run pays glibc's page faults for buffers it returned to the
kernel; the training steps are therefore timed once more, in a second
process, with glibc told to keep freed memory on both devices
(MALLOC_TRIM_THRESHOLD_, MALLOC_MMAP_THRESHOLD_, MALLOC_TOP_PAD_): that line
is the emulation's own cost (reported, no target).
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

import torch


def tiny_op(device, n=20000):
    a = torch.ones(16, device=device)
    b = torch.ones(16, device=device)
    for _ in range(200):
        a + b
    t = time.perf_counter()
    for _ in range(n):
        a + b
    return (time.perf_counter() - t) / n * 1e6  # microseconds per op


def training_step(model_factory, optimizer_factory, x_shape, classes, steps):
    def run(device):
        torch.manual_seed(0)
        model = model_factory().to(device)
        opt = optimizer_factory(model.parameters())
        x = torch.rand(*x_shape, device=device)
        y = torch.randint(0, classes, (x_shape[0],), device=device)

        def one():
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()

        for _ in range(3):
            one()
        t = time.perf_counter()
        for _ in range(steps):
            one()
        return (time.perf_counter() - t) / steps * 1e3  # milliseconds per step

    return run


CLASSIFIER = training_step(
    lambda: torch.nn.Sequential(torch.nn.Conv2d(1, 32, 3), torch.nn.ReLU(), torch.nn.Flatten(),
                                torch.nn.Linear(32 * 26 * 26, 10)),
    lambda p: torch.optim.Adam(p, lr=2.5e-3), (32, 1, 28, 28), 10, 20)
MLP = training_step(
    lambda: torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10)),
    lambda p: torch.optim.SGD(p, lr=0.1), (32, 64), 10, 300)

CASES = (
    ("tiny op (a + b, 16 floats)", "us/op", tiny_op, 2.0),
    ("small training step (classifier)", "ms/step", CLASSIFIER, 1.3),
    ("tiny training step (MLP 64-128-10)", "ms/step", MLP, None),
)

# glibc keeping every freed byte: no page faults on either device.
GLIBC_KEEPS = {"MALLOC_TRIM_THRESHOLD_": "4294967295", "MALLOC_MMAP_THRESHOLD_": "4294967295",
               "MALLOC_TOP_PAD_": "268435456"}


def conditions(when):
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{when}: load average {load}"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lib", required=True, help="libdevcheck_fake_device.so")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--glibc-keeps", action="store_true",
                   help="(the second process) time the training steps only, without targets")
    a = p.parse_args()
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    import devcheck_fake_cuda

    torch.set_num_threads(1)
    if not a.glibc_keeps:
        cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                    if l.startswith("model name")), "?")
        print(f"fake CUDA against the CPU: torch {torch.__version__}, {cpu}, {os.cpu_count()} CPUs, "
              f"1 intra-op thread, {a.rounds} rounds, page cache warm (after one untimed run)")
        print(conditions("before"))
    devcheck_fake_cuda.install(a.lib, 2)
    failed = False
    cases = CASES[1:] if a.glibc_keeps else CASES
    for name, unit, fn, target in cases:
        if a.glibc_keeps:
            name, target = name.replace("training step", "step, glibc keeps"), None
        fn("cpu")  # warm both once, untimed
        fn("cuda")
        ratios, cpus, cudas = [], [], []
        for r in range(a.rounds):
            order = ("cpu", "cuda") if r % 2 == 0 else ("cuda", "cpu")
            got = {device: fn(device) for device in order}
            cpus.append(got["cpu"])
            cudas.append(got["cuda"])
            ratios.append(got["cuda"] / got["cpu"])
        ratio = statistics.median(ratios)
        verdict = "no target" if target is None else (
            f"target <= {target}x: {'met' if ratio <= target else 'NOT met'}")
        failed = failed or (target is not None and ratio > target)
        print(f"{name:<38} cpu {statistics.median(cpus):8.3f} {unit}  cuda {statistics.median(cudas):8.3f} {unit}"
              f"  ratio {ratio:5.2f}x (rounds {min(ratios):.2f}-{max(ratios):.2f})  {verdict}", flush=True)
    if not a.glibc_keeps:
        print("the training steps again, glibc keeping freed memory on both devices ("
              + " ".join(f"{k}={v}" for k, v in GLIBC_KEEPS.items()) + "): fake CUDA's own cost",
              flush=True)
        child = subprocess.run([sys.executable, os.path.abspath(__file__), "--lib", a.lib,
                                "--rounds", str(a.rounds), "--glibc-keeps"],
                               env=dict(os.environ, **GLIBC_KEEPS), check=False)
        failed = failed or child.returncode != 0
        print(conditions("after"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
