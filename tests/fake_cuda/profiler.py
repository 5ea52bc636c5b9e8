"""torch's profiler records CUDA time under fake CUDA, as on a GPU.

Asked for CUDA time (`torch.autograd.profiler.profile(use_cuda=True)`, or
`use_device="cuda"` where use_cuda is gone), the profiler records an event on
the current device beside each op and times the events; fake CUDA answers
with events on the host clock (src/fake/cuda/profiler.cc). A CPU build's
answer is to fail every event ("Failed to record CUDA event. CUDA used in
profiler but not enabled.", logged with a stack trace per op): a program that
profiles its CUDA code printed that for every op, and no CUDA time.

A program under `devcheck run --fake-cuda` profiles matrix products on
cuda:1 with each profiler this torch has (the legacy one, Kineto's, which
falls back on the same events where it has no CUPTI, and emit_nvtx, whose
ranges go nowhere here) and prints what the profiler recorded. Asserted: the
run is clean (exit 0, no finding, none of the CPU build's failures on
stderr), every mm was recorded with CUDA time above 0 and no more than the
profiled block's wall time, and the ops ran on cuda:1 (their results'
device).

    /usr/bin/python3 profiler.py --devcheck build/devcheck
"""

import argparse
import inspect
import json
import os
import subprocess
import sys
import time

CALLS = 5
FAILURES = ("Failed to record CUDA event", "CUDA used in profiler but not enabled", "Can't profile CUDA")


def child():
    """Profiles mm on cuda:1 with each profiler; prints one JSON line."""
    import torch
    from torch.autograd import profiler

    params = inspect.signature(profiler.profile).parameters
    cuda = {"use_device": "cuda"} if "use_device" in params else {"use_cuda": True}
    modes = {"legacy": dict(use_kineto=False, **cuda)}
    if torch.autograd.kineto_available():
        modes["kineto"] = dict(use_kineto=True, **cuda)
    out = {}
    with torch.cuda.device(1):
        a = torch.randn(128, 128, device="cuda")
        for mode, kwargs in modes.items():
            start = time.perf_counter()
            with profiler.profile(**kwargs) as prof:
                for _ in range(CALLS):
                    b = a.mm(a)
            wall_us = (time.perf_counter() - start) * 1e6
            mm = [e for e in prof.key_averages() if e.key == "aten::mm"]
            device_us = getattr(mm[0], "device_time_total", None) if mm else None
            if mm and device_us is None:
                device_us = mm[0].cuda_time_total
            out[mode] = dict(count=mm[0].count if mm else 0, device_us=device_us, wall_us=wall_us,
                             device=str(b.device))
        with profiler.emit_nvtx():
            c = a.mm(a)
        out["emit_nvtx"] = dict(device=str(c.device))
    print("RESULT " + json.dumps(out), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devcheck", help="the devcheck CLI")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        child()
        return 0
    if not options.devcheck:
        parser.error("give --devcheck")
    argv = [options.devcheck, "run", "--fake-cuda=2", "--", sys.executable, os.path.abspath(__file__), "--child"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    tail = "\n--- stdout\n%s\n--- stderr\n%s" % (done.stdout[-3000:], done.stderr[-3000:])
    if done.returncode != 0 or len(lines) != 1:
        raise AssertionError("the profiled program failed: exit %d%s" % (done.returncode, tail))
    failures = [f for f in FAILURES if f in done.stderr]
    if failures:
        raise AssertionError("the profiler could not record CUDA events: %s%s" % ("; ".join(failures), tail))
    if "0 findings" not in done.stderr:
        raise AssertionError("the sanitizer reported findings on a clean program%s" % tail)
    result = json.loads(lines[0][len("RESULT "):])
    for mode, got in result.items():
        if got["device"] != "cuda:1":
            raise AssertionError("%s: the ops ran on %s, not cuda:1" % (mode, got["device"]))
        if mode == "emit_nvtx":
            print("%-9s ran clean on cuda:1 (its NVTX ranges go nowhere)" % mode)
            continue
        if got["count"] != CALLS:
            raise AssertionError("%s: the profiler recorded %d aten::mm, not %d%s" % (mode, got["count"], CALLS, tail))
        if not 0 < got["device_us"] <= got["wall_us"]:
            raise AssertionError("%s: aten::mm's CUDA time is %s us, not in (0, %.0f us], the profiled block's wall "
                                 "time%s" % (mode, got["device_us"], got["wall_us"], tail))
        print("%-9s %d aten::mm on cuda:1, CUDA time %.0f us of a %.0f us block"
              % (mode, got["count"], got["device_us"], got["wall_us"]))
    print("profiler: CUDA time recorded by %s" % ", ".join(m for m in result if m != "emit_nvtx"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
