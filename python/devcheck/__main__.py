"""python -m devcheck run [--mode report|warn|fail] [--no-provenance] [--json FILE]
                         [--trace FILE] [--fake-cuda[=N] [--fake-cuda-force]]
                         (script.py | -m MODULE) [ARGS...]

Runs a script (or a module, as `python -m MODULE`) under devcheck's
sanitizer in this process, as `python -m cProfile` does, then prints the
report to stderr when it found anything. An exception the program does not
catch is printed as Python prints it, then the report. Exit status: the
program's (1 after an uncaught exception); in fail mode 1 when it exited 0
with a device mismatch; 2 for bad usage.

--fake-cuda[=N] (or DEVCHECK_FAKE_CUDA=N) gives the program N fake CUDA
devices first (devcheck.fake_cuda; default 2); without it, a program that
asks torch.cuda whether CUDA is there on a machine without a GPU gets one
line at the end saying its CUDA paths did not run.

`devcheck run -- python3 script.py` runs this itself when the Python has the
package (--report-dir: the report goes to the folder devcheck run reads,
as report-PID.json/.txt/.trace.json, and devcheck run prints it).
"""

import argparse
import os
import runpy
import sys


def _write(path, text):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def _run_program(args):
    """Runs the script or module as __main__; returns its exit status."""
    try:
        if args.module:
            sys.argv = [args.module, *args.args]  # runpy puts the module's path in argv[0]
            runpy.run_module(args.module, run_name="__main__", alter_sys=True)
        else:
            sys.argv = [args.script, *args.args]
            sys.path.insert(0, os.path.dirname(os.path.abspath(args.script)))
            runpy.run_path(args.script, run_name="__main__")
    except SystemExit as e:
        code = e.code
        if code is None or isinstance(code, int):
            return code or 0
        print(code, file=sys.stderr)
        return 1
    except BaseException:  # as Python itself: the traceback, exit status 1
        import traceback

        traceback.print_exc()
        return 1
    return 0


def _fake_cuda_request(args):
    """(count, force): --fake-cuda's N, else DEVCHECK_FAKE_CUDA's (0 for none);
    --fake-cuda-force or DEVCHECK_FAKE_CUDA_FORCE (devcheck_fake_cuda's
    request_from_environment, the C++ reader's twin). None (after printing
    why) when DEVCHECK_FAKE_CUDA is malformed."""
    import devcheck_fake_cuda

    try:
        return devcheck_fake_cuda.request_from_environment(args.fake_cuda, args.fake_cuda_force)
    except ValueError as e:
        print(e, file=sys.stderr)
        return None


class _CudaQuestions:
    """Notes whether the program asks torch.cuda if CUDA is there."""

    def __init__(self, torch):
        self.asked = False
        self._cuda = torch.cuda
        self._saved = {}
        for name in ("is_available", "device_count"):
            original = getattr(self._cuda, name)

            def answer(*a, _original=original, **k):
                self.asked = True
                return _original(*a, **k)

            answer.__wrapped__ = original
            self._saved[name] = original
            setattr(self._cuda, name, answer)

    def restore(self):
        for name, original in self._saved.items():
            setattr(self._cuda, name, original)


def _run(args):
    import devcheck
    import torch

    if args.module is None and not os.path.isfile(args.script):
        print(f"[devcheck] run: cannot open {args.script}: no such file\nfix: give the path of a Python script",
              file=sys.stderr)
        return 2
    request = _fake_cuda_request(args)
    if request is None:
        return 2
    fake_cuda, force = request
    questions = None
    if fake_cuda:
        try:
            from devcheck._api import _start_fake_cuda

            _start_fake_cuda(fake_cuda, force)
        except devcheck.DevcheckError as e:
            text = str(e).replace("fake_cuda(force=True) replaces them anyway", "--fake-cuda-force replaces them "
                                  "anyway")
            print(f"{text}; the program was not started", file=sys.stderr)
            return 2
    else:
        questions = _CudaQuestions(torch)
    trace = bool(args.trace or args.trace_events)
    # fail: each finding printed when it happens (warn); the exit status says the rest.
    w = devcheck.watch(mode="warn" if args.mode == "fail" else args.mode, provenance=not args.no_provenance,
                       trace=trace)
    with w:
        status = _run_program(args)
    report = w.report()
    asked = questions is not None and questions.asked
    if questions is not None:
        questions.restore()
    if asked and args.report_dir:
        _write(os.path.join(args.report_dir, f"cuda-asked-{os.getpid()}"), "")
    text = report.to_text()
    if args.report_dir:
        stem = os.path.join(args.report_dir, f"report-{os.getpid()}")
        _write(stem + ".json", report.to_json())
        if trace:
            report.write_trace(stem + ".trace.json")
        _write(stem + ".txt", text)
    elif not report.ok:
        print(text, file=sys.stderr, end="" if text.endswith("\n") else "\n")
    if args.json:
        _write(args.json, report.to_json())
    if args.trace:
        report.write_trace(args.trace)
    if asked and not args.report_dir and not devcheck.real_cuda_devices():
        print("[devcheck] run: the program asked for CUDA and this machine has none, so its CUDA paths did not run; "
              "python -m devcheck run --fake-cuda runs them on fake CUDA devices", file=sys.stderr)
    if args.mode == "fail" and status == 0 and report.mismatches:
        return 1
    return status


def _split_program(argv):
    """devcheck's options, then `-m MODULE ARGS` or `[--] script ARGS`: every
    argument from the program on is the program's (as python's own command line)."""
    takes_value = {"--mode", "--json", "--trace", "--report-dir"}  # and --fake-cuda's optional N
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            return argv[:i], None, argv[i + 1:]
        if a == "-m":
            return argv[:i], argv[i + 1] if i + 1 < len(argv) else "", argv[i + 2:]
        if a in takes_value:
            i += 2
        elif a == "--fake-cuda" and i + 1 < len(argv) and argv[i + 1] in "12345678" and len(argv[i + 1]) == 1:
            i += 2
        elif a.startswith("-") and a != "-":
            i += 1
        else:
            break
    return argv[:i], None, argv[i:]


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m devcheck", description="devcheck for Python programs")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a script under the device sanitizer, in this process",
                         usage="python -m devcheck run [options] (script.py | -m MODULE) [ARGS...]")
    run.add_argument("--mode", choices=("report", "warn", "fail"), default="warn")
    run.add_argument("--no-provenance", action="store_true", help="do not remember where tensors were made")
    run.add_argument("--json", metavar="FILE", help="write the JSON report here")
    run.add_argument("--trace", metavar="FILE", help="write a Chrome trace of copies and syncs here")
    run.add_argument("--fake-cuda", metavar="N", nargs="?", type=int, const=2, choices=range(1, 9), default=None,
                     help="give the program N fake CUDA devices (1..8, default 2; also DEVCHECK_FAKE_CUDA=N)")
    run.add_argument("--fake-cuda-force", action="store_true",
                     help="use fake CUDA even where a real GPU is visible (it hides the GPU)")
    # For devcheck run: where it reads the report, and whether to record the trace there.
    run.add_argument("--report-dir", help=argparse.SUPPRESS)
    run.add_argument("--trace-events", action="store_true", help=argparse.SUPPRESS)
    if not argv or argv[0] != "run":
        parser.parse_args(argv)  # --help, or the usage error (exit 2)
        return 2
    options, module, program = _split_program(argv[1:])
    args = run.parse_args(options)
    args.module = module
    if module is None:
        if not program:
            run.error("expected a script or -m MODULE")
        args.script, args.args = program[0], program[1:]
    else:
        if not module:
            run.error("-m needs a module name")
        args.script, args.args = None, program
    return _run(args)


if __name__ == "__main__":
    sys.exit(main())
