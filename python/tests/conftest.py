"""The package's own suite: runs against the installed devcheck and the real torch.

    python -m pytest python/tests        (in a venv where devcheck is installed)
"""

import os
import subprocess
import sys

import pytest


def run_python(*args, cwd=None, env=None, timeout=300):
    """Runs this Python with `args`; returns the CompletedProcess (text)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([sys.executable, *args], cwd=cwd, env=full_env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture
def python():
    return run_python
