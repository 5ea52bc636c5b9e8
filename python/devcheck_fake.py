"""devcheck's fake device for Python programs.

    import devcheck_fake
    dev = devcheck_fake.load("/path/to/libdevcheck_fake_device.so")  # torch.device
    model.to(dev)

load() loads the library into torch (torch.ops.load_library), registers the
backend, and returns fake device `index`. In torch 2.x the backend is named
"fake" (devices print as fake:N), and torch wants a module torch.fake for it:
load() registers a small one (device count, current device, lazy init). In
torch 1.13 devices are "privateuseone:N" and nothing more is needed.
"""

import os
import threading
import types

import torch

_lock = threading.Lock()
_count = None


def _device_module(count):
    """The torch.<backend> module torch 2.x looks up for a PrivateUse1 backend."""
    mod = types.ModuleType("torch.fake")
    state = threading.local()

    def current_device():
        return getattr(state, "index", 0)

    def set_device(device):
        index = torch.device(device).index if not isinstance(device, int) else device
        if index is None:
            return
        if not 0 <= index < count:
            raise RuntimeError(f"fake device index {index} is out of range (0..{count - 1})")
        state.index = index

    mod._lazy_init = lambda: None
    mod.is_initialized = lambda: True
    mod.is_available = lambda: True
    mod.device_count = lambda: count
    mod.current_device = current_device
    mod.set_device = set_device
    mod._is_in_bad_fork = lambda: False
    mod.manual_seed_all = lambda seed: None  # random ops use the CPU generator
    return mod


def load(library=None, index=0):
    """Registers devcheck's fake device once and returns torch.device for `index`.

    `library` defaults to $DEVCHECK_FAKE_DEVICE_LIBRARY, then the dynamic
    linker's search path. Raises RuntimeError naming the problem (a bad
    DEVCHECK_FAKE_DEVICES, an index out of range).
    """
    global _count
    with _lock:
        if _count is None:
            path = library or os.environ.get("DEVCHECK_FAKE_DEVICE_LIBRARY") or "libdevcheck_fake_device.so"
            torch.ops.load_library(path)
            count = int(torch.ops.devcheck.register_fake_device())
            get_name = getattr(torch._C, "_get_privateuse1_backend_name", None)
            name = get_name() if get_name else "privateuseone"
            if name != "privateuseone" and not hasattr(torch, name):
                torch._register_device_module(name, _device_module(count))
            _count = count
    if not 0 <= index < _count:
        raise RuntimeError(f"fake device index {index} is out of range: {_count} fake devices")
    get_name = getattr(torch._C, "_get_privateuse1_backend_name", None)
    return torch.device(get_name() if get_name else "privateuseone", index)


def device_count():
    """How many fake devices load() registered; None before it ran."""
    return _count
