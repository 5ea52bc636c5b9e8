"""The fake-CUDA request of a command line and the environment, as devcheck's
C++ reads it (devcheck::fake_cuda_request_from_environment,
include/devcheck/fake_cuda.h): the twin of that one reader for `python -m
devcheck run`, which runs without fake CUDA's library unless asked."""

import os

_MAX_DEVICES = 8


def _is_set(value):
    return value not in (None, "", "0")


def request_from_environment(count=None, force=False):
    """Returns (count, force): `count` when given (above 0), else
    DEVCHECK_FAKE_CUDA's N (1..8; 0 when it is unset, empty or "0", and read
    only then); force when `force` or DEVCHECK_FAKE_CUDA_FORCE is set to
    anything but "" or "0". Raises ValueError naming DEVCHECK_FAKE_CUDA and
    its value when the value is anything else."""
    if not count:
        text = os.environ.get("DEVCHECK_FAKE_CUDA")
        count = 0
        if _is_set(text):
            if len(text) != 1 or not "1" <= text <= str(_MAX_DEVICES):
                raise ValueError("[devcheck] invalid DEVCHECK_FAKE_CUDA='%s': expected a number of fake CUDA devices "
                                 "from 1 to %d, or 0 for none" % (text, _MAX_DEVICES))
            count = int(text)
    return int(count), bool(force) or _is_set(os.environ.get("DEVCHECK_FAKE_CUDA_FORCE"))
