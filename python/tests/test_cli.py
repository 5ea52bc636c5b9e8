"""python -m devcheck run script.py ARGS."""

import json
import os
import subprocess
import sys

import pytest

import devcheck

SCRIPT = '''
import sys
import torch
import devcheck

dev = devcheck.fake_device()
a = torch.ones(2)  # stray-made
try:
    a * torch.ones(2, device=dev)  # mixed-op
except RuntimeError:
    pass
print("args", sys.argv[1:])
sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
'''


def write(tmp_path):
    path = tmp_path / "prog.py"
    path.write_text(SCRIPT)
    lines = SCRIPT.lstrip("\n").splitlines()
    at = {m: 1 + next(i for i, l in enumerate(lines, 1) if m in l) for m in ("# stray-made", "# mixed-op")}
    return path, at


def test_run_reports_a_mismatch_with_the_scripts_lines_and_passes_its_arguments(tmp_path, python):
    path, at = write(tmp_path)
    r = python("-m", "devcheck", "run", "--json", str(tmp_path / "r.json"), str(path), "0", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "args ['0']" in r.stdout
    assert f"device mismatch in aten::mul at {path}:{at['# mixed-op']}" in r.stderr
    assert f"made by aten::ones at {path}:{at['# stray-made']}" in r.stderr
    assert json.loads((tmp_path / "r.json").read_text())["summary"]["mismatches"] == 1


def test_fail_mode_turns_a_clean_exit_into_1_and_keeps_other_statuses(tmp_path, python):
    path, _ = write(tmp_path)
    assert python("-m", "devcheck", "run", "--mode", "fail", str(path), "0").returncode == 1
    assert python("-m", "devcheck", "run", "--mode", "fail", str(path), "3").returncode == 3


def test_a_missing_script_is_exit_2_naming_it(tmp_path, python):
    r = python("-m", "devcheck", "run", str(tmp_path / "nope.py"))
    assert r.returncode == 2
    assert f"cannot open {tmp_path}/nope.py" in r.stderr


# `devcheck run -- python3 script.py` (the C++ CLI) with this Python, which has
# the package: the program is watched in-process through it. run_suite.sh
# sets DEVCHECK_CLI to the build's devcheck.
CLI = os.environ.get("DEVCHECK_CLI")
needs_cli = pytest.mark.skipif(not CLI, reason="DEVCHECK_CLI is not set (python/tests/run_suite.sh sets it)")


def devcheck_run(*args, cwd=None):
    return subprocess.run([CLI, "run", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


@needs_cli
def test_devcheck_run_hands_a_script_to_the_package_and_reports_its_lines(tmp_path):
    path, at = write(tmp_path)
    r = devcheck_run("--json", str(tmp_path / "r.json"), "--", sys.executable, str(path), "0", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "args ['0']" in r.stdout
    assert (f"[devcheck] run: {sys.executable} ({sys.executable}) has the devcheck package for its torch "
            f"{devcheck.TORCH_VERSION} ({os.path.dirname(devcheck.__file__)}): the program is watched "
            "in-process through it (python -m devcheck run), not by the preload library\n") in r.stderr
    assert f"device mismatch in aten::mul at {path}:{at['# mixed-op']}" in r.stderr
    assert f"made by aten::ones at {path}:{at['# stray-made']}" in r.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["command"] == [sys.executable, str(path), "0"]
    assert [p["summary"]["mismatches"] for p in report["processes"]] == [1]


@needs_cli
def test_devcheck_run_fail_mode_through_the_package_is_1_on_a_mismatch_and_keeps_other_statuses(tmp_path):
    path, _ = write(tmp_path)
    r = devcheck_run("--mode", "fail", "--", sys.executable, str(path), "0")
    assert r.returncode == 1, r.stderr
    assert "watched in-process through it" in r.stderr
    assert devcheck_run("--mode", "fail", "--", sys.executable, str(path), "3").returncode == 3


@needs_cli
def test_devcheck_run_hands_a_module_to_the_package_and_reports_an_uncaught_error_with_the_mismatch(tmp_path):
    (tmp_path / "planted.py").write_text(
        "import torch, devcheck\n"
        "a = torch.ones(2)\n"
        "a + torch.ones(2, device=devcheck.fake_device())\n"  # raises: not caught
    )
    r = devcheck_run("--", sys.executable, "-m", "planted", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert "Traceback (most recent call last)" in r.stderr
    assert f"device mismatch in aten::add at {tmp_path}/planted.py:3" in r.stderr
    assert f"made by aten::ones at {tmp_path}/planted.py:2" in r.stderr
