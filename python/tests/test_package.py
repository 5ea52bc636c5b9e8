"""The build facts, the import guard and the errors."""

import os
import shutil

import torch

import devcheck


def test_records_the_torch_it_was_built_for():
    assert devcheck.TORCH_VERSION == torch.__version__
    assert devcheck.CUDA_VERSION == torch.version.cuda
    assert devcheck.CXX11_ABI == bool(torch._C._GLIBCXX_USE_CXX11_ABI)


def test_import_under_another_torch_fails_with_one_line_naming_both_versions(tmp_path, python):
    copy = tmp_path / "devcheck"
    shutil.copytree(os.path.dirname(devcheck.__file__), copy)
    info = copy / "_build_info.py"
    info.write_text(info.read_text().replace(repr(devcheck.TORCH_VERSION), repr("0.9.0")))
    r = python("-c", "import torch, devcheck", env={"PYTHONPATH": str(tmp_path)})
    assert r.returncode != 0
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: [devcheck] this devcheck was built for torch 0.9.0")
    assert f"this Python has torch {torch.__version__}" in last
    assert "pip install --no-build-isolation --no-deps --force-reinstall" in last
    # The guard runs before the extension is loaded: no LibTorch of another build is mapped.
    r = python("-c", "import sys, torch\ntry:\n import devcheck\nexcept ImportError: pass\n"
               "print(any('_devcheck' in m for m in sys.modules))", env={"PYTHONPATH": str(tmp_path)})
    assert r.stdout.strip() == "False", r.stderr


def test_errors_are_runtime_errors_of_one_family():
    assert issubclass(devcheck.DeviceMismatchError, devcheck.DevcheckError)
    assert issubclass(devcheck.DevcheckError, RuntimeError)
    assert issubclass(devcheck.InvalidArgumentError, ValueError)
    assert issubclass(devcheck.DevcheckIOError, OSError)


def test_import_after_torch_is_fast(python):
    r = python("-c", "import time, torch\nt = time.perf_counter()\nimport devcheck\n"
               "print((time.perf_counter() - t) * 1000)")
    assert r.returncode == 0, r.stderr
    assert float(r.stdout) < 200, f"import devcheck took {r.stdout.strip()} ms"
