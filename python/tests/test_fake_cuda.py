"""devcheck.fake_cuda(), python -m devcheck run --fake-cuda, pytest
--devcheck-fake-cuda and the fake_cuda fixture: fake CUDA through the installed
package. Every check runs in a process of its own (fake CUDA cannot be turned
off again, and the rest of this suite expects no CUDA)."""

import os
import sys
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIOS = os.path.join(HERE, "fake_cuda_scenarios.py")
NAMES = ("surface", "tensors", "training_equals_cpu", "mismatch_messages", "rnn_and_conv", "amp", "pinned_memory",
         "save_and_load", "load_beyond_count", "data_parallel", "forked_worker", "fresh_workers", "distributed",
         "bad_count")


@pytest.mark.parametrize("name", NAMES)
def test_scenario_through_devcheck_fake_cuda(python, name):
    r = python(SCENARIOS, name, "--via", "package")
    assert r.returncode == 0, r.stdout + r.stderr
    assert " ok" in r.stdout


@pytest.mark.parametrize("name", ("autocast_lists", "half_paths", "gpt_fp16"))
def test_float16_scenario_through_devcheck_fake_cuda(python, name):
    r = python(os.path.join(HERE, "fake_cuda_fp16.py"), name, "--via", "package")
    assert r.returncode == 0, r.stdout + r.stderr
    assert " ok" in r.stdout


def test_a_count_outside_one_to_eight_is_refused_naming_it(python):
    r = python("-c", textwrap.dedent("""
        import devcheck
        for n in (0, 9):
            try:
                devcheck.fake_cuda(n)
            except devcheck.InvalidArgumentError as e:
                print(str(e))
        import torch
        print("available", torch.cuda.is_available())
        """))
    assert r.returncode == 0, r.stderr
    assert "fake_cuda(0): expected a number of fake CUDA devices from 1 to 8" in r.stdout
    assert "fake_cuda(9)" in r.stdout
    assert "available False" in r.stdout


def test_it_returns_its_devices_and_a_second_call_with_the_same_count_is_a_no_op(python):
    r = python("-c", textwrap.dedent("""
        import devcheck
        first = devcheck.fake_cuda(3)
        import torch
        assert devcheck.fake_cuda(3) == first == [torch.device("cuda", i) for i in range(3)], first
        assert torch.cuda.device_count() == 3
        print("ok")
        """))
    assert r.returncode == 0, r.stderr
    assert "ok" in r.stdout


def test_it_works_before_torch_is_imported_by_the_program(python):
    # devcheck imports torch itself; the program's own `import torch` comes after
    r = python("-c", "import devcheck; devcheck.fake_cuda(); import torch; print(torch.ones(1).cuda().device)")
    assert r.returncode == 0, r.stderr
    assert "cuda:0" in r.stdout


def test_python_m_devcheck_run_fake_cuda_runs_the_cuda_path_and_names_the_bug(python, tmp_path):
    script = tmp_path / "bug.py"
    script.write_text(textwrap.dedent("""\
        import torch
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        weight = torch.ones(3)
        x = torch.ones(3, device=device)
        print("device", device)
        print((x * weight).sum().item())
        """))
    r = python("-m", "devcheck", "run", "--fake-cuda", "--mode", "fail", str(script))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "device cuda\n" in r.stdout
    assert "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!" in r.stderr
    assert f"device mismatch in aten::mul at {script}:6" in r.stderr
    assert f"made by aten::ones at {script}:3" in r.stderr
    # N as its own word, and through the environment
    r = python("-m", "devcheck", "run", "--fake-cuda", "3", str(script))
    assert "device cuda\n" in r.stdout, r.stderr
    r = python("-m", "devcheck", "run", str(script), env={"DEVCHECK_FAKE_CUDA": "1"})
    assert "device cuda\n" in r.stdout, r.stderr


def test_the_request_is_read_as_the_cxx_side_reads_it(python):
    # devcheck_fake_cuda.request_from_environment: the one Python twin of
    # devcheck::fake_cuda_request_from_environment, for python -m devcheck run.
    r = python("-c", textwrap.dedent("""
        import os
        from devcheck_fake_cuda import request_from_environment as request
        os.environ.pop("DEVCHECK_FAKE_CUDA_FORCE", None)
        os.environ["DEVCHECK_FAKE_CUDA"] = "lots"
        print("flag", request(3))
        try:
            request()
        except ValueError as e:
            print(e)
        for value in ("", "0", "4"):
            os.environ["DEVCHECK_FAKE_CUDA"] = value
            print(repr(value), request())
        for value in ("", "0", "1"):
            os.environ["DEVCHECK_FAKE_CUDA_FORCE"] = value
            print("force", repr(value), request(2))
        os.environ.pop("DEVCHECK_FAKE_CUDA_FORCE")
        print("forced", request(2, True))
        """))
    assert r.returncode == 0, r.stderr
    assert "flag (3, False)" in r.stdout
    assert ("[devcheck] invalid DEVCHECK_FAKE_CUDA='lots': expected a number of fake CUDA devices from 1 to 8, "
            "or 0 for none") in r.stdout
    assert "'' (0, False)\n'0' (0, False)\n'4' (4, False)" in r.stdout
    assert "force '' (2, False)\nforce '0' (2, False)\nforce '1' (2, True)" in r.stdout
    assert "forced (2, True)" in r.stdout


def test_python_m_devcheck_run_names_a_bad_count_in_the_environment_unless_the_flag_gives_one(python, tmp_path):
    script = tmp_path / "where.py"
    script.write_text("import torch\nprint('cuda' if torch.cuda.is_available() else 'cpu')\n")
    r = python("-m", "devcheck", "run", str(script), env={"DEVCHECK_FAKE_CUDA": "lots"})
    assert r.returncode == 2, r.stdout + r.stderr
    assert "invalid DEVCHECK_FAKE_CUDA='lots': expected a number of fake CUDA devices from 1 to 8" in r.stderr
    r = python("-m", "devcheck", "run", "--fake-cuda", "2", str(script), env={"DEVCHECK_FAKE_CUDA": "lots"})
    assert r.returncode == 0, r.stdout + r.stderr
    assert "cuda\n" in r.stdout


def test_python_m_devcheck_run_without_it_says_the_cuda_paths_did_not_run(python, tmp_path):
    script = tmp_path / "asks.py"
    script.write_text("import torch\nprint('cuda' if torch.cuda.is_available() else 'cpu')\n")
    r = python("-m", "devcheck", "run", str(script))
    assert r.returncode == 0, r.stderr
    assert "cpu" in r.stdout
    assert ("[devcheck] run: the program asked for CUDA and this machine has none, so its CUDA paths did not run; "
            "python -m devcheck run --fake-cuda runs them on fake CUDA devices") in r.stderr
    quiet = tmp_path / "quiet.py"
    quiet.write_text("import torch\nprint(torch.ones(1).sum().item())\n")
    r = python("-m", "devcheck", "run", str(quiet))
    assert "asked for CUDA" not in r.stderr


def test_pytest_devcheck_fake_cuda_turns_it_on_for_the_session_and_the_fixture_hands_out_the_devices(python,
                                                                                                  tmp_path):
    (tmp_path / "test_on_cuda.py").write_text(textwrap.dedent("""\
        import torch

        def test_session_has_fake_cuda():
            assert torch.cuda.is_available() and torch.cuda.device_count() == 3

        def test_fixture(fake_cuda):
            assert fake_cuda[0] == torch.device("cuda:0") and len(fake_cuda) == 3
            assert (torch.ones(2, device=fake_cuda[2]) * 2).sum().item() == 4
        """))
    r = python("-m", "pytest", "-p", "no:cacheprovider", "-q", "--devcheck-fake-cuda=3", str(tmp_path), cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 passed" in r.stdout
    (tmp_path / "test_fixture_alone.py").write_text(textwrap.dedent("""\
        import torch

        def test_fixture_alone(fake_cuda):
            assert len(fake_cuda) == 2 and torch.cuda.is_available()
        """))
    r = python("-m", "pytest", "-p", "no:cacheprovider", "-q", str(tmp_path / "test_fixture_alone.py"), cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    r = python("-m", "pytest", "-p", "no:cacheprovider", "-q", "--devcheck-fake-cuda=9", str(tmp_path), cwd=tmp_path)
    assert r.returncode != 0 and "from 1 to 8" in r.stdout + r.stderr


CLI = os.environ.get("DEVCHECK_CLI")


@pytest.mark.skipif(not CLI, reason="DEVCHECK_CLI is not set (python/tests/run_suite.sh sets it)")
def test_devcheck_run_fake_cuda_hands_the_count_to_the_package(tmp_path):
    import subprocess

    script = tmp_path / "count.py"
    script.write_text("import torch\nprint('devices', torch.cuda.device_count(), torch.ones(1).cuda().device)\n")
    r = subprocess.run([CLI, "run", "--fake-cuda=3", "--", sys.executable, str(script)], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "watched in-process through it" in r.stderr
    assert "devices 3 cuda:0" in r.stdout
