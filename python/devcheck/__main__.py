"""python -m devcheck run [--mode report|warn|fail] [--no-provenance] [--json FILE]
                         [--trace FILE] script.py [ARGS...]

Runs a script under devcheck's sanitizer in this process, as `python -m
cProfile` does, then prints the report to stderr when it found anything.
Exit status: the script's; in fail mode 1 when it exited 0 with a device
mismatch; 2 for bad usage.
"""

import argparse
import os
import runpy
import sys


def _run(args):
    import devcheck

    script = args.script
    if not os.path.isfile(script):
        print(f"[devcheck] run: cannot open {script}: no such file\nfix: give the path of a Python script", file=sys.stderr)
        return 2
    sys.argv = [script, *args.args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    status = 0
    w = devcheck.watch(mode=args.mode if args.mode != "fail" else "warn", provenance=not args.no_provenance,
                       trace=bool(args.trace))
    with w:
        try:
            runpy.run_path(script, run_name="__main__")
        except SystemExit as e:
            code = e.code
            status = code if isinstance(code, int) else (0 if code is None else 1)
            if not isinstance(code, int) and code is not None:
                print(code, file=sys.stderr)
    report = w.report()
    if not report.ok:
        print(report.to_text(), file=sys.stderr, end="" if report.to_text().endswith("\n") else "\n")
    if args.json:
        with open(args.json, "w") as f:
            f.write(report.to_json())
    if args.trace:
        report.write_trace(args.trace)
    if args.mode == "fail" and status == 0 and report.mismatches:
        return 1
    return status


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m devcheck", description="devcheck for Python programs")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a script under the device sanitizer, in this process")
    run.add_argument("--mode", choices=("report", "warn", "fail"), default="warn")
    run.add_argument("--no-provenance", action="store_true", help="do not remember where tensors were made")
    run.add_argument("--json", metavar="FILE", help="write the JSON report here")
    run.add_argument("--trace", metavar="FILE", help="write a Chrome trace of copies and syncs here")
    run.add_argument("script")
    run.add_argument("args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if args.command == "run":
        return _run(args)
    return 2


if __name__ == "__main__":
    sys.exit(main())
