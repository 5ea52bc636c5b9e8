"""devcheck for Python: named device checks, the runtime device sanitizer, the
fake accelerator, checkpoint inspection -- the C++ library's own functions,
with its messages. docs/python.md has the API.

    import devcheck
    device, reason = devcheck.select_device("auto")
    with devcheck.watch(mode="warn") as w:
        train()
    print(w.report().to_text())
"""

import torch as _torch

from . import _build_info


def _same_torch(built, running):
    # A local suffix or pre-release tag ("1.13.0a0", "2.6.0+cu124") is the
    # same LibTorch only when the whole version matches.
    return built == running


if not _same_torch(_build_info.TORCH_VERSION, _torch.__version__) or _build_info.CUDA_VERSION != _torch.version.cuda:
    raise ImportError(
        f"[devcheck] this devcheck was built for torch {_build_info.TORCH_VERSION} "
        f"(CUDA {_build_info.CUDA_VERSION or 'none'}), but this Python has torch {_torch.__version__} "
        f"(CUDA {_torch.version.cuda or 'none'}); fix: rebuild it for this torch: "
        f"{__import__('sys').executable} -m pip install --no-build-isolation --no-deps --force-reinstall "
        f"{_build_info.SOURCE_DIR}"
    )

from ._devcheck import (  # noqa: E402
    DevcheckError,
    DevcheckIOError,
    DeviceMismatchError,
    DeviceUnavailableError,
    FormatError,
    InvalidArgumentError,
    UnsafeContentError,
    real_cuda_devices,
)
from ._api import (  # noqa: E402
    audit,
    check,
    check_on,
    device_scope,
    fake_cuda,
    fake_device,
    inspect,
    module_device,
    remap,
    select_device,
    to_device,
)
from ._watch import Report, watch  # noqa: E402

__version__ = "0.1.0"


def load_ipython_extension(ipython):
    """`%load_ext devcheck`: the %%devcheck, %devcheck_fake_cuda and %devcheck_lint magics (magics.py)."""
    from .magics import load_ipython_extension as load

    load(ipython)


TORCH_VERSION = _build_info.TORCH_VERSION
CUDA_VERSION = _build_info.CUDA_VERSION
CXX11_ABI = _build_info.CXX11_ABI

__all__ = [
    "DevcheckError", "DevcheckIOError", "DeviceMismatchError", "DeviceUnavailableError",
    "FormatError", "InvalidArgumentError", "UnsafeContentError",
    "audit", "check", "check_on", "device_scope", "fake_cuda", "fake_device", "real_cuda_devices", "inspect", "module_device",
    "remap", "select_device", "to_device", "watch", "Report",
    "TORCH_VERSION", "CUDA_VERSION", "CXX11_ABI",
]
