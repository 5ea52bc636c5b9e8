"""The pytest plugin, run on a small test project in a temporary folder."""

import textwrap

PROJECT = '''
import torch


def test_mixes_devices(fake_device):
    a = torch.ones(3)  # stray-made
    try:
        a + torch.ones(3, device=fake_device)  # mixed-op
    except RuntimeError:
        pass


def test_clean(fake_devices):
    x = torch.ones(3, device=fake_devices[1])
    assert (x * 2).sum().item() == 6.0
'''


def write_project(tmp_path):
    (tmp_path / "test_project.py").write_text(textwrap.dedent(PROJECT).lstrip("\n"))
    lines = PROJECT.lstrip("\n").splitlines()
    return {m: next(i for i, l in enumerate(lines, 1) if m in l) for m in ("# stray-made", "# mixed-op")}


def test_with_devcheck_a_test_that_mixed_devices_fails_naming_the_test_op_and_lines(tmp_path, python):
    at = write_project(tmp_path)
    r = python("-m", "pytest", "-p", "no:cacheprovider", "--devcheck", "-q", "test_project.py", cwd=tmp_path)
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    assert "1 failed, 1 passed" in out
    assert "[devcheck] test_project.py::test_mixes_devices: 1 op(s) mixed devices" in out
    assert f"device mismatch in aten::add at {tmp_path}/test_project.py:{at['# mixed-op']}" in out
    assert f"made by aten::ones at {tmp_path}/test_project.py:{at['# stray-made']}" in out
    assert "FAILED test_project.py::test_mixes_devices" in out


def test_without_devcheck_the_plugin_checks_nothing(tmp_path, python):
    write_project(tmp_path)
    r = python("-m", "pytest", "-p", "no:cacheprovider", "-q", "test_project.py", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 passed" in r.stdout


def test_the_option_is_listed_in_help(python):
    r = python("-m", "pytest", "--help")
    assert "--devcheck" in r.stdout and "device sanitizer" in r.stdout
