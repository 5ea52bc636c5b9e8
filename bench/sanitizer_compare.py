"""Overhead of device checkers on the same tiny op (add of two 4-element
tensors) in one Debian python3 process: a checker written as a
TorchFunctionMode, one as a TorchDispatchMode, and devcheck's sanitizer
(libdevcheck_sanitizer loaded with ctypes), each against the plain loop.

usage: /usr/bin/python3 bench/sanitizer_compare.py BUILD_DIR/src/libdevcheck_sanitizer.so
"""
import ctypes
import sys
import time

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten


def check_devices(args, kwargs):
    devices = set()
    for a in tree_flatten((args, kwargs or {}))[0]:
        if isinstance(a, torch.Tensor) and not (a.dim() == 0 and a.device.type == "cpu"):
            devices.add(a.device)
    if len(devices) > 1:
        raise RuntimeError(f"device mismatch: {sorted(map(str, devices))}")


class FunctionModeChecker(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        check_devices(args, kwargs)
        return func(*args, **(kwargs or {}))


class DispatchModeChecker(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        check_devices(args, kwargs)
        return func(*args, **(kwargs or {}))


def per_op_ns(n=20000):
    a = torch.ones(4)
    b = torch.ones(4)
    add = torch.add
    for _ in range(1000):
        add(a, b)
    start = time.perf_counter()
    for _ in range(n):
        add(a, b)
    return (time.perf_counter() - start) / n * 1e9


def main():
    torch.set_num_threads(1)
    lib = ctypes.CDLL(sys.argv[1])

    def plain():
        return per_op_ns()

    def function_mode():
        with FunctionModeChecker():
            return per_op_ns()

    def dispatch_mode():
        with DispatchModeChecker():
            return per_op_ns()

    def devcheck(provenance):
        def run():
            assert lib.devcheck_sanitizer_start(provenance) == 0
            try:
                return per_op_ns()
            finally:
                assert lib.devcheck_sanitizer_stop() == 0, "devcheck found something"
        return run

    variants = {
        "plain": plain,
        "TorchFunctionMode checker": function_mode,
        "TorchDispatchMode checker": dispatch_mode,
        "devcheck sanitizer": devcheck(0),
        "devcheck sanitizer + provenance": devcheck(1),
    }
    best = {name: float("inf") for name in variants}
    for _ in range(7):  # interleaved rounds; the minimum of each is the least noisy
        for name, fn in variants.items():
            best[name] = min(best[name], fn())
    base = best["plain"]
    print("tiny op (add of two 4-element tensors) in /usr/bin/python3, torch", torch.__version__)
    for name, ns in best.items():
        print(f"  {name:<34} {ns:9.0f} ns/op  {ns / base:5.2f}x")
    ok = True
    for name in ("devcheck sanitizer", "devcheck sanitizer + provenance"):
        for anchor in ("TorchFunctionMode checker", "TorchDispatchMode checker"):
            beats = best[name] < best[anchor]
            ok = ok and beats
            print(f"  {name} vs {anchor}: {best[name] / base:.2f}x vs "
                  f"{best[anchor] / base:.2f}x: {'PASS' if beats else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
