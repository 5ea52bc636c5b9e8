"""Runs Python scripts as `python3 SCRIPT ARGS...` would, from one interpreter
that imported torch once.

    python3 fork_server.py

Each script run with real PyTorch paid torch's import first: 1.5 s on torch
1.13, 2.5 s on 2.x, more than most of the checks themselves. This server
imports torch once, then reads one JSON request per line on stdin:

    {"prog": SCRIPT, "args": [...], "cwd": DIR, "out": FILE, "err": FILE,
     "timeout": SECONDS, "start_method": null or "fork"/"spawn"/"forkserver"}

and runs each in a fork of itself as the interpreter runs a script: in a
process group of its own, stdin on /dev/null, stdout to `out` and stderr to
`err` (the same file when they are equal), in `cwd`, the script's folder first
on sys.path, sys.argv = [SCRIPT, *args], run as __main__; it ends as the
interpreter ends (an uncaught exception prints its traceback and exits 1,
atexit handlers run, non-daemon threads are joined). It answers one line,
{"rc": exit status (minus the signal when killed), "timed_out": bool}; past
`timeout` the run's process group is killed and "rc" is null. The server runs
no torch op before it forks (torch starts its thread pools at the first op).

Used by tests/fake_cuda/run_corpus.py (its plain-CPU runs) and by the gtest
programs' torch_check (tests/checkpoint/fixtures.h).
"""
import json
import os
import runpy
import signal
import sys
import time

import torch  # noqa: F401 -- what every run would import again


def run_script(request):
    os.setpgid(0, 0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    out = os.open(request["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(out, 1)
    if request["err"] == request["out"]:
        os.dup2(out, 2)
    else:
        err = os.open(request["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(err, 2)
        os.close(err)
    os.close(out)
    sys.stdin = open(os.devnull, encoding="utf-8")
    os.chdir(request["cwd"])
    sys.argv = [request["prog"], *request.get("args", [])]
    sys.path[0] = os.path.dirname(os.path.abspath(request["prog"]))
    if request.get("start_method"):
        import multiprocessing  # pylint: disable=import-outside-toplevel
        multiprocessing.set_start_method(request["start_method"], force=True)
    runpy.run_path(request["prog"], run_name="__main__")
    sys.exit(0)


def wait(pid, timeout):
    """The run's exit status, or None after killing it past `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
            return None
        time.sleep(0.01)


def serve():
    answers = os.fdopen(os.dup(1), "w")
    while True:
        line = sys.stdin.readline()
        if not line:
            return
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        answers.flush()
        pid = os.fork()
        if pid == 0:
            answers.close()
            run_script(request)  # ends this process as the interpreter ends a script
        rc = wait(pid, request["timeout"])
        answers.write(json.dumps({"rc": rc, "timed_out": rc is None}) + "\n")
        answers.flush()


if __name__ == "__main__":
    serve()
