"""python -m devcheck run script.py ARGS."""

import json

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
