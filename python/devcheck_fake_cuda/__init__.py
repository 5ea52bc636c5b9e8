"""devcheck's fake CUDA for Python programs: torch.cuda with N devices whose
tensors live in host memory and compute with the CPU kernels.

    import devcheck_fake_cuda
    devices = devcheck_fake_cuda.install("/path/to/libdevcheck_fake_device.so", count=2)
    model.cuda()                       # cuda:0, as on a GPU machine

install() loads devcheck's fake backend library into torch, turns fake CUDA on
in C++ (devcheck::fake_cuda: the CUDA key's kernels, guard, allocator and
hooks) and gives torch._C what a CUDA build's torch.cuda asks it for
(_cuda_getDeviceCount, _cuda_init, streams, events, memory statistics,
device properties, DataParallel's scatter and gather), so the real
torch/cuda/*.py runs on top, unmodified. It works before or after
`import torch` has finished (it imports torch) and must run before the
program's first CUDA call.

`count` is the machine's: the devices the process sees are the ones
CUDA_VISIBLE_DEVICES shows of them, read as the CUDA runtime reads it, at
the first CUDA call (or when install() hands out the devices; start() turns
fake CUDA on without deciding them).

The package's modules, one concept each: _torch_c.py (what torch._C gives
torch.cuda), _streams.py (streams and events), _comm.py (DataParallel's
scatter and gather), _ipc.py (cuda tensors sent to other processes),
_patches.py (the rest of torch it changes),
_request.py (DEVCHECK_FAKE_CUDA, as the C++ side reads it) and _compat.py
(everything that differs between torch 1.13 and 2.x; the C++ side's
differences are in src/detail/compat.h).
"""

import os
import threading

import torch

from ._compat import _ops
from ._ipc import _share_cuda_tensors_as_host_memory
from ._patches import (_patch_storage, _rebind_torch_cuda, _refresh_after_extension_loads,
                       _refuse_distributed_cuda)
from ._request import request_from_environment
from ._torch_c import DEVICE_NAME, _torch_c_functions

__all__ = ["DEVICE_NAME", "device_count", "install", "request_from_environment", "start"]

_lock = threading.Lock()
_count = 0


def _library(library):
    if library:
        return library
    env = os.environ.get("DEVCHECK_FAKE_DEVICE_LIBRARY")
    if env:
        return env
    return "libdevcheck_fake_device.so"


class _InstallInChild:
    """Pickled into the preparation data that multiprocessing's spawn and
    forkserver start methods send a child before it imports the parent's
    __main__: unpickling it turns fake CUDA on in the child, with the
    parent's count, first. A GPU is visible to such children (a fresh
    process, not a fork), so fake CUDA's devices are too."""

    def __init__(self, library, count, force):
        self.args = (library, count, force)

    def __reduce__(self):
        # The child's sys.path is not yet the parent's (prepare() sets it
        # after this is unpickled): the call names the folder this package
        # is in. builtins.exec is the one callable every interpreter can unpickle.
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        # torch first: an import hook of torch's (devcheck run's
        # sitecustomize) may import this package itself.
        source = ("import sys\n"
                  "if %r not in sys.path: sys.path.append(%r)\n"
                  "import torch\n"
                  "import devcheck_fake_cuda\n"
                  "devcheck_fake_cuda.start(%r, %d, %r)\n" % ((here, here) + self.args))
        return (exec, (source, {}))


def _children_start_with_fake_cuda(library, count, force):
    """spawn and forkserver children (Python 3.14's default start method,
    DataLoader workers) start a fresh interpreter: they get fake CUDA before
    anything of the program runs in them. A forked child inherits this
    process's fake CUDA as a forked child inherits CUDA (poisoned once the
    parent used it)."""
    import multiprocessing.spawn as spawn

    get = spawn.get_preparation_data
    if getattr(get, "_devcheck_fake_cuda", False):
        return

    def get_preparation_data(name):
        data = get(name)
        data["devcheck_fake_cuda"] = _InstallInChild(library, count, force)
        return data

    get_preparation_data._devcheck_fake_cuda = True
    spawn.get_preparation_data = get_preparation_data


def install(library=None, count=2, force=False):
    """Turns fake CUDA on (once per process; again with the same count is a
    no-op) and returns the devices the process sees, [torch.device("cuda",
    0), ...]: the `count` devices of the machine, or those CUDA_VISIBLE_DEVICES
    shows (read now, as the CUDA runtime reads it at its first call).

    `library` defaults to $DEVCHECK_FAKE_DEVICE_LIBRARY, then the dynamic
    linker's search path. `force` turns it on even where a real GPU is
    visible (which it then hides). Raises RuntimeError naming the problem: a
    count outside 1..8 or unlike an earlier one, a real GPU without force.
    """
    start(library, count, force)
    return [torch.device("cuda", i) for i in range(int(_ops().fake_cuda_count()))]


def start(library=None, count=2, force=False):
    """install() without handing out the devices: which of the `count`
    devices the process sees is decided at its first CUDA call, from the
    CUDA_VISIBLE_DEVICES it has set by then (devcheck run's start, spawned
    children's). Returns `count`; raises as install() does."""
    global _count
    with _lock:
        if _count == 0:
            path = _library(library)
            if not hasattr(torch.ops.devcheck, "fake_cuda"):
                torch.ops.load_library(path)
            n = int(_ops().fake_cuda(int(count), bool(force)))
            for name, value in _torch_c_functions().items():
                setattr(torch._C, name, value)
            _count = n
            _rebind_torch_cuda()
            _refresh_after_extension_loads()
            _refuse_distributed_cuda()
            _patch_storage()
            _share_cuda_tensors_as_host_memory()
            _children_start_with_fake_cuda(os.path.abspath(path) if os.path.exists(path) else path, n,
                                           bool(force))
        elif int(count) != _count:
            _ops().fake_cuda(int(count), bool(force))  # C++ says why not
    return _count


def device_count():
    """How many fake CUDA devices the machine has (install()'s count; the
    process may see fewer: CUDA_VISIBLE_DEVICES); 0 before install()."""
    return _count
