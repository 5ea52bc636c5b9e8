"""Run the real-bug corpus under fake CUDA and on the plain CPU.

    /usr/bin/python3 run_corpus.py --lib build/src/libdevcheck_fake_device.so \
        [--devcheck build/devcheck] [--json out.json] [-j N] [files...]

For every corpus/<kind>_<n>_bug.py and its twin <kind>_<n>_fixed.py:

  bug, fake CUDA   fails (exit status not 0) with its `# expect:` text on
                   stderr -- the GPU's own message. With --devcheck it runs as
                   `devcheck run --fake-cuda=N --mode fail --json F -- python3
                   prog.py`, and the JSON report must name the line marked
                   `# BUG:op` (and the one marked `# BUG:stray` where the
                   report says where the stray tensor was made). Bugs marked
                   `# expect-finding: sync` do not crash: the report must count
                   at least --sync-min synchronizing ops at the `# BUG:sync`
                   line (they need --devcheck; without it they only have to run).
  bug, plain CPU   `python3 prog.py` exits 0: on a machine without a GPU the bug
                   is invisible, which is why fake CUDA exists. (Plain-CPU runs
                   are forks of one interpreter that imported torch once:
                   tests/support/fork_server.py. --no-cpu-server starts each
                   as its own process.)
  fixed twin       exits 0 under fake CUDA (and on the CPU); with --devcheck its
                   report has no finding (and no sync site reaching --sync-min).

Header keys read from the bug file (comment lines at its top):
  # kind:        the bug's family
  # source:      the public thread or commit it was reconstructed from
  # expect:      text the GPU prints (torch 1.13; `# expect-2.x:` overrides it
                 for torch 2.x)
  # message-1.13, # message-2.x:  the whole first line of the GPU's error for
                 torch 1.13 / 2.x, with the "(when checking argument for argument X in
                 method Y)" that PyTorch's generated device checks add; compared
                 exactly (column "exact"; a difference fails only with
                 --strict-messages)
  # sanitizer:   mismatch (the report must name the lines) or none (the op is
                 not a device mismatch an ATen op sees: numpy, pickling, keys...)
  # devices:     fake CUDA devices for the program (default 2)
  # prepare:     a helper script run first in the same folder (as a previous
                 run of the user's training would have been: under fake CUDA
                 with --prepare-devices devices, plainly on the CPU lane)

Prints a table and totals; exits 1 on any miss (a bug not caught, a line not
named, a twin not clean, a bug that is not silent on the CPU).
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
LAUNCH = os.path.join(HERE, "launch.py")
MARKER = re.compile(r"#\s*BUG:(stray|op|sync)\b")
HEADER = re.compile(r"^#\s*([a-z0-9.\-]+):\s?(.*)$")


# ---- reading a corpus file ---------------------------------------------------
def read_program(path):
    """Header keys (lists, in order) and marked lines {'op': [..], ...}."""
    header, marks = {}, {"stray": [], "op": [], "sync": []}
    in_header = True
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            stripped = line.strip()
            if in_header:
                if stripped.startswith("#"):
                    m = HEADER.match(stripped)
                    if m:
                        header.setdefault(m.group(1), []).append(m.group(2).strip())
                    continue
                if stripped:
                    in_header = False
            for m in MARKER.finditer(line):
                marks[m.group(1)].append(number)
    return header, marks


def first(header, key, default=None):
    values = header.get(key)
    return values[0] if values else default


# ---- running -----------------------------------------------------------------
def run(cmd, cwd, timeout, env=None):
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, env=env)
        return dict(rc=p.returncode, out=p.stdout.decode(errors="replace"),
                    err=p.stderr.decode(errors="replace"), seconds=time.monotonic() - start,
                    timed_out=False)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace")
        err = (e.stderr or b"").decode(errors="replace")
        return dict(rc=None, out=out, err=err, seconds=time.monotonic() - start, timed_out=True)


# ---- plain-CPU runs from one interpreter ---------------------------------------
# A plain-CPU run is `python3 prog.py`, and half the corpus's runs are such
# runs: each paid torch's import (1.5 s on torch 1.13, 2.5 s on 2.x) before the
# program's first line. tests/support/fork_server.py imports torch once and
# runs each program in a fork of itself as the interpreter runs a script.
# --no-cpu-server runs `python3 prog.py` instead.
FORK_SERVER = os.path.join(os.path.dirname(HERE), "support", "fork_server.py")


class CpuServer:
    """One fork_server.py process: runs one program at a time."""

    def __init__(self, python):
        self.process = subprocess.Popen([python, FORK_SERVER], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        # Outside the run's folder: a program that lists its folder sees its own files only.
        self.outputs = tempfile.mkdtemp(prefix="fake-cuda-cpu-output-")

    def run(self, prog, cwd, timeout, start_method=None):
        start = time.monotonic()
        out, err = os.path.join(self.outputs, "out"), os.path.join(self.outputs, "err")
        request = dict(prog=prog, cwd=cwd, timeout=timeout, out=out, err=err,
                       start_method=start_method)
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            raise RuntimeError("the plain-CPU server ended (exit %s)" % self.process.wait())
        answer = json.loads(answer)
        texts = []
        for path in (out, err):
            with open(path, encoding="utf-8", errors="replace") as f:
                texts.append(f.read())
            os.remove(path)
        return dict(rc=answer["rc"], out=texts[0], err=texts[1],
                    seconds=time.monotonic() - start, timed_out=answer["timed_out"])

    def close(self):
        self.process.stdin.close()
        self.process.wait()
        shutil.rmtree(self.outputs, ignore_errors=True)


EXCEPTION_LINE = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception)): (.*)$")


def exception_message(text):
    """The message of the last exception line ("RuntimeError: <message>")."""
    found = None
    for line in text.splitlines():
        m = EXCEPTION_LINE.match(line)
        if m:
            found = m.group(2)
    return found


def last_error_line(text):
    """The exception line at the end of a traceback (or the last line)."""
    lines = [l for l in text.splitlines() if l.strip()]
    for line in reversed(lines):
        if re.match(r"^[A-Za-z_][\w.]*(Error|Exception)\b", line):
            return line[:300]
    return lines[-1][:300] if lines else ""


class Runner:
    def __init__(self, options):
        self.o = options
        self.local = threading.local()
        self.servers = []
        self.lock = threading.Lock()

    def cpu_server(self):
        """This thread's plain-CPU server (None with --no-cpu-server)."""
        if not self.o.cpu_server:
            return None
        server = getattr(self.local, "server", None)
        if server is None:
            server = self.local.server = CpuServer(self.o.python)
            with self.lock:
                self.servers.append(server)
        return server

    def run_on_cpu(self, prog, header, cwd):
        server = self.cpu_server()
        if server is None:
            return run(self.program(prog, header), cwd, self.o.timeout)
        return server.run(prog, cwd, self.o.timeout, first(header, "start-method"))

    def close(self):
        for server in self.servers:
            server.close()

    def program(self, prog, header):
        """The command that runs `prog` as its author ran it. `# start-method:
        fork` marks a program written for Linux's default before Python 3.14
        (fork); on 3.14, whose default is forkserver, its unguarded top level
        would run again in every DataLoader worker, on any device."""
        method = first(header, "start-method")
        if not method:
            return [self.o.python, prog]
        wrap = ("import multiprocessing, runpy, sys; multiprocessing.set_start_method(%r); "
                "sys.argv = [sys.argv[1]]; runpy.run_path(sys.argv[0], run_name='__main__')" % method)
        return [self.o.python, "-c", wrap, prog]

    def fake_cmd(self, prog, devices, json_path, header):
        if self.o.devcheck:
            return [self.o.devcheck, "run", "--fake-cuda=%d" % devices, "--mode", "fail",
                    "--json", json_path, "--"] + self.program(prog, header)
        method = first(header, "start-method")
        return [self.o.python, LAUNCH, "--lib", self.o.lib, "--devices", str(devices)] + \
            (["--start-method", method] if method else []) + [prog]

    def prepare(self, header, cwd, fake):
        script = first(header, "prepare")
        if not script:
            return None
        path = os.path.join(CORPUS, script)
        if fake:
            cmd = [self.o.python, LAUNCH, "--lib", self.o.lib, "--devices",
                   str(self.o.prepare_devices), path]
            r = run(cmd, cwd, self.o.timeout)
        else:
            r = self.run_on_cpu(path, {}, cwd)
        if r["rc"] != 0:
            return "prepare %s failed: %s" % (script, last_error_line(r["err"]))
        return None

    def run_lane(self, prog, header, fake):
        """One program in a fresh folder; returns the run and its JSON report."""
        devices = int(first(header, "devices", "2"))
        with tempfile.TemporaryDirectory(prefix="fake-cuda-corpus-") as cwd:
            problem = self.prepare(header, cwd, fake)
            if problem:
                return dict(rc=None, out="", err=problem, seconds=0.0, timed_out=False,
                            prepare_failed=True), None
            json_path = os.path.join(cwd, "report.json")
            if fake:
                r = run(self.fake_cmd(prog, devices, json_path, header), cwd, self.o.timeout)
            else:
                r = self.run_on_cpu(prog, header, cwd)
            report = None
            if fake and self.o.devcheck and os.path.exists(json_path):
                try:
                    with open(json_path, encoding="utf-8") as f:
                        report = json.load(f)
                except ValueError as e:
                    r["err"] += "\n[run_corpus] unreadable JSON report: %s" % e
            return r, report


# ---- what a report says ------------------------------------------------------
def strings_in(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings_in(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings_in(v)


def file_line_pairs(value):
    """(file, line) from dicts that carry them as separate fields."""
    if isinstance(value, dict):
        f = value.get("file") or value.get("filename") or value.get("path")
        n = value.get("line") or value.get("lineno")
        if isinstance(f, str) and isinstance(n, int):
            yield f, n
        for v in value.values():
            yield from file_line_pairs(v)
    elif isinstance(value, list):
        for v in value:
            yield from file_line_pairs(v)


def names_line(report, prog, line):
    if report is None:
        return False
    base = os.path.basename(prog)
    pattern = re.compile(r"(^|[/\s(])" + re.escape(base) + r":" + str(line) + r"(?!\d)")
    if any(pattern.search(s) for s in strings_in(report)):
        return True
    return any(os.path.basename(f) == base and n == line for f, n in file_line_pairs(report))


def processes(report):
    return (report or {}).get("processes", [])


def findings(report):
    return [f for p in processes(report) for f in p.get("findings", [])]


def has_provenance(report):
    """True when some finding says where its stray tensor (the argument the
    report marks "stray") was made."""
    for f in findings(report):
        for a in f.get("arguments", []):
            if a.get("stray") and a.get("origin"):
                return True
    return False


def sync_count_at(report, prog, line):
    base = os.path.basename(prog)
    pattern = re.compile(r"(^|[/\s(])" + re.escape(base) + r":" + str(line) + r"(?!\d)")
    total = 0
    for p in processes(report):
        for s in p.get("syncs", []):
            if pattern.search(str(s.get("site", ""))):
                total += int(s.get("count", 0))
    return total


def max_sync_count(report):
    counts = [int(s.get("count", 0)) for p in processes(report) for s in p.get("syncs", [])]
    return max(counts) if counts else 0


# ---- one corpus entry --------------------------------------------------------
def check_entry(runner, bug, torch_major):
    o = runner.o
    header, marks = read_program(bug)
    twin = bug[: -len("_bug.py")] + "_fixed.py"
    kind = first(header, "kind", "?")
    expect = first(header, "expect")
    if torch_major >= 2 and first(header, "expect-2.x"):
        expect = first(header, "expect-2.x")
    is_sync = first(header, "expect-finding") == "sync"
    sanitizer = first(header, "sanitizer", "sync" if is_sync else "mismatch")
    result = dict(file=os.path.basename(bug), kind=kind, source=header.get("source", []),
                  expect=expect, exact=None, sync=is_sync, notes=[])

    # bug under fake CUDA
    r, report = runner.run_lane(bug, header, fake=True)
    result["fake_rc"] = r["rc"]
    result["fake_error"] = last_error_line(r["err"])
    result["fake_seconds"] = round(r["seconds"], 2)
    if r["timed_out"]:
        result["caught"] = False
        result["notes"].append("bug timed out after %ds under fake CUDA (hang)" % o.timeout)
    elif is_sync:
        if r["rc"] != 0:
            result["caught"] = False
            result["notes"].append("sync bug crashed: " + result["fake_error"])
        elif not o.devcheck:
            result["caught"] = None  # needs the sanitizer's report
        else:
            line = marks["sync"][0] if marks["sync"] else None
            count = sync_count_at(report, bug, line) if line else 0
            result["sync_count"] = count
            result["caught"] = count >= o.sync_min
            if not result["caught"]:
                result["notes"].append("report counts %d syncs at line %s (want >= %d)"
                                       % (count, line, o.sync_min))
    else:
        text = r["err"] + r["out"]
        result["caught"] = r["rc"] not in (0, None) and bool(expect) and expect in text
        if not result["caught"]:
            result["notes"].append("got: " + (result["fake_error"] or "exit %s" % r["rc"]))
        message = first(header, "message-2.x" if torch_major >= 2 else "message-1.13")
        if message:
            got = exception_message(r["err"])
            result["exact"] = got == message
            if not result["exact"] and result["caught"]:
                result["notes"].append("GPU says: " + message)
                result["notes"].append("fake says: %s" % got)

    # lines named by the report
    result["lines"] = None
    if o.devcheck and not is_sync and sanitizer == "mismatch" and not r["timed_out"]:
        op_ok = all(names_line(report, bug, n) for n in marks["op"]) if marks["op"] else False
        want_stray = bool(marks["stray"]) and has_provenance(report)
        stray_ok = all(names_line(report, bug, n) for n in marks["stray"]) if want_stray else None
        result["op_named"] = op_ok
        result["stray_named"] = stray_ok
        result["lines"] = op_ok and stray_ok is not False
        if not findings(report):
            result["notes"].append("report has no finding")
        else:
            if not op_ok:
                result["notes"].append("report does not name BUG:op line %s" % marks["op"])
            if stray_ok is False:
                origins = sorted({a.get("origin") for f in findings(report)
                                  for a in f.get("arguments", []) if a.get("stray") and a.get("origin")})
                result["notes"].append("report does not name BUG:stray line %s; it says the stray "
                                       "tensor was made at %s" % (marks["stray"], "; ".join(origins)))
            if marks["stray"] and not want_stray:
                result["notes"].append("report has no provenance for the stray tensor")

    # bug on the plain CPU: silent
    r, _ = runner.run_lane(bug, header, fake=False)
    result["cpu_silent"] = r["rc"] == 0
    if not result["cpu_silent"]:
        result["notes"].append("not silent on the CPU: " + last_error_line(r["err"]))

    # fixed twin
    if not os.path.exists(twin):
        result["twin_clean"] = False
        result["notes"].append("no fixed twin")
        return result
    twin_header = dict(header)
    r, report = runner.run_lane(twin, twin_header, fake=True)
    clean = r["rc"] == 0
    if r["timed_out"]:
        result["notes"].append("twin timed out under fake CUDA (hang)")
    elif not clean and exception_message(r["err"]) is not None:
        result["notes"].append("twin under fake CUDA: " + last_error_line(r["err"]))
    elif not clean and not findings(report):
        result["notes"].append("twin under fake CUDA: exit status %s" % r["rc"])
    if o.devcheck and findings(report):
        clean = False
        for f in findings(report):
            result["notes"].append("twin report finding: " + f.get("message", "").splitlines()[0])
        if max_sync_count(report) >= o.sync_min and is_sync:
            clean = False
            result["notes"].append("twin still syncs %d times at one site" % max_sync_count(report))
    r, _ = runner.run_lane(twin, twin_header, fake=False)
    if r["rc"] != 0:
        clean = False
        result["notes"].append("twin on the CPU: " + last_error_line(r["err"]))
    result["twin_clean"] = clean
    return result


def mark(value):
    return {True: "yes", False: "NO", None: "-"}[value]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lib", required=True, help="libdevcheck_fake_device.so")
    parser.add_argument("--devcheck", help="the devcheck CLI; checks the JSON report too")
    parser.add_argument("--python", default=sys.executable,
                        help="python3 with torch for the programs (default: this one)")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per run (default 120)")
    parser.add_argument("--sync-min", type=int, default=10,
                        help="syncs at one site that make a per-step sync (default 10)")
    parser.add_argument("--prepare-devices", type=int, default=2,
                        help="fake CUDA devices for prepare scripts (default 2)")
    parser.add_argument("--strict-messages", action="store_true",
                        help="count a GPU message that differs past its `# expect:` text as a miss")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="entries run at once (default 1)")
    parser.add_argument("--no-cpu-server", dest="cpu_server", action="store_false",
                        help="run each plain-CPU run as its own `python3 prog.py` (default: a fork of "
                             "one interpreter that imported torch once)")
    parser.add_argument("files", nargs="*", help="bug files (default: every corpus/*_bug.py)")
    options = parser.parse_args()
    options.lib = os.path.abspath(options.lib)
    if options.devcheck:
        options.devcheck = os.path.abspath(options.devcheck)

    if options.files:
        bugs = [os.path.abspath(f) for f in options.files]
    else:
        bugs = sorted(os.path.join(CORPUS, f) for f in os.listdir(CORPUS)
                      if f.endswith("_bug.py") and not f.startswith("_"))
    version = subprocess.run([options.python, "-c", "import torch; print(torch.__version__)"],
                             stdout=subprocess.PIPE, check=True).stdout.decode().strip()
    torch_major = int(version.split(".")[0])

    runner = Runner(options)
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
            results = list(pool.map(lambda b: check_entry(runner, b, torch_major), bugs))
    finally:
        runner.close()

    lane = "devcheck run --fake-cuda" if options.devcheck else "launch.py (no sanitizer)"
    print("fake CUDA corpus: torch %s, %s, %d entries" % (version, lane, len(results)))
    print("%-16s %-24s %-7s %-6s %-6s %-6s %-7s" % ("file", "kind", "caught", "exact", "lines", "twin",
                                                      "cpu-ok"))
    for r in results:
        print("%-16s %-24s %-7s %-6s %-6s %-6s %-7s" % (
            r["file"][: -len("_bug.py")], r["kind"][:24], mark(r["caught"]), mark(r["exact"]),
            mark(r["lines"]), mark(r["twin_clean"]), mark(r["cpu_silent"])))
        for note in r["notes"]:
            print("    " + note)
    crash = [r for r in results if r["caught"] is not None]
    lines = [r for r in results if r["lines"] is not None]
    exact = [r for r in results if r["exact"] is not None]
    syncs = [r for r in crash if r["sync"]]
    crash = [r for r in crash if not r["sync"]]
    print("crash bugs caught %d/%d, exact GPU message %d/%d, lines named %d/%d; sync bugs found %d/%d; "
          "twins clean %d/%d; silent on the CPU %d/%d"
          % (sum(r["caught"] for r in crash), len(crash), sum(r["exact"] for r in exact), len(exact),
             sum(r["lines"] for r in lines), len(lines), sum(r["caught"] for r in syncs), len(syncs),
             sum(r["twin_clean"] for r in results), len(results),
             sum(r["cpu_silent"] for r in results), len(results)))
    skipped = sum(1 for r in results if r["caught"] is None)
    if skipped:
        print("%d sync entries need --devcheck for their finding (they ran clean)" % skipped)

    if options.json:
        with open(options.json, "w", encoding="utf-8") as f:
            json.dump(dict(torch=version, lane=lane, results=results), f, indent=2)
    missed = any(r["caught"] is False or r["lines"] is False or not r["twin_clean"]
                 or not r["cpu_silent"] or (options.strict_messages and r["exact"] is False)
                 for r in results)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
