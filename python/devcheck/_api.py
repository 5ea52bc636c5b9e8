"""The faces of devcheck's C++ functions: devices, checks, moves, scopes, the
fake device and checkpoints. Each calls the C++ function, so the messages are
the C++ library's."""

import collections
import dataclasses
import json
import os

import torch
from torch.overrides import TorchFunctionMode

from . import _devcheck as _C

Selection = collections.namedtuple("Selection", ["device", "reason"])
Selection.__doc__ = "Where to run (a torch.device) and why (one sentence for logs)."


def _is_fake_spec(text):
    t = text.strip().lower()
    return t.startswith("fake") or t.startswith("privateuseone")


def select_device(spec="auto"):
    """Chooses a device for `spec` ("auto", "gpu", "cpu", "cuda", "cuda:N",
    "meta", "fake", "fake:N") as devcheck::select_device does; $DEVCHECK_DEVICE,
    when set, wins over `spec`. Returns Selection(device, reason). Raises
    InvalidArgumentError for a malformed spec (or DEVCHECK_DEVICE) and
    DeviceUnavailableError for a device this machine lacks."""
    wanted = os.environ.get("DEVCHECK_DEVICE") or spec
    if _is_fake_spec(wanted):
        _load_fake()
    device, reason = _C.select_device(None, spec)
    return Selection(device, reason)


def _device(device):
    """A torch.device from a torch.device, an int (a CUDA index) or text; text
    goes through devcheck's DeviceSpec ("auto" is chosen here, DEVCHECK_DEVICE
    is not read)."""
    if isinstance(device, torch.device):
        return device
    if isinstance(device, int):
        return torch.device("cuda", device)
    if isinstance(device, str):
        if _is_fake_spec(device):
            _load_fake()
        return _C.select_device(device)[0]
    raise TypeError(f"[devcheck] expected a device (torch.device or text such as 'cuda:1'), found {type(device).__name__}")


def _named(tensors):
    names, values = [], []
    for name, value in tensors.items():
        if value is None:
            continue
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"[devcheck] check: '{name}' is a {type(value).__name__}, expected a tensor")
        names.append(name)
        values.append(value)
    return names, values


def check(what="", /, **tensors):
    """Raises DeviceMismatchError unless every tensor is on one device, naming
    `what` and each tensor by its keyword: devcheck.check("linear", x=x, w=w).
    None values are skipped; 0-dim CPU tensors are allowed beside any device."""
    names, values = _named(tensors)
    _C.check_same_device(names, values, what)


def check_on(device, what="", /, **tensors):
    """Raises DeviceMismatchError unless every tensor is on `device`."""
    names, values = _named(tensors)
    _C.check_on(_device(device), names, values, what)


def _entries(model):
    entries = [(name, p, False) for name, p in model.named_parameters()]
    entries += [(name, b, True) for name, b in model.named_buffers() if b is not None]
    return type(model).__name__, entries


def module_device(model):
    """The one device of `model`'s parameters and buffers. Raises
    DeviceMismatchError naming the tensors on each device when they are spread
    over several, InvalidArgumentError when it has none."""
    return _C.module_device(*_entries(model))


PlacementEntry = collections.namedtuple("PlacementEntry", ["name", "is_buffer", "device", "dtype", "shape", "nbytes"])


class PlacementReport:
    """Where a module's parameters and buffers are (devcheck::PlacementReport)."""

    def __init__(self, ok, expected, misplaced, text, json_text):
        self.ok = ok
        self.expected = torch.device(expected) if expected else None
        self.misplaced = [PlacementEntry(*m) for m in misplaced]
        self._text = text
        self._json = json_text

    def to_text(self):
        return self._text

    def to_json(self):
        return self._json

    def __bool__(self):
        return self.ok

    def __str__(self):
        return self._text

    def __repr__(self):
        return f"<devcheck.PlacementReport ok={self.ok} expected={self.expected} misplaced={len(self.misplaced)}>"


def audit(model, expected=None):
    """Counts `model`'s parameters and buffers per device and names each one
    off `expected` (default: the device most of them are on). Never raises for
    a misplaced tensor: the report says it."""
    name, entries = _entries(model)
    return PlacementReport(*_C.audit(name, entries, None if expected is None else _device(expected)))


def to_device(value, device, non_blocking=False):
    """`value` with every tensor moved to `device`, through dicts, lists,
    tuples, namedtuples, dataclasses and sets; other values are returned as
    they are. Types are kept (a namedtuple stays that namedtuple)."""
    target = _device(device)

    def move(v):
        if isinstance(v, torch.Tensor):
            return _C.to_device(v, target, non_blocking)
        if isinstance(v, dict):
            out = type(v).__new__(type(v)) if type(v) is not dict else {}
            if isinstance(v, collections.defaultdict):
                out = collections.defaultdict(v.default_factory)
            elif type(v) is not dict:
                try:
                    out = type(v)()
                except TypeError:
                    out = {}
            for k, x in v.items():
                out[k] = move(x)
            return out
        if isinstance(v, tuple) and hasattr(v, "_fields"):
            return type(v)(*(move(x) for x in v))
        if isinstance(v, (list, tuple, set, frozenset)):
            moved = [move(x) for x in v]
            return moved if type(v) is list else type(v)(moved)
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            changes = {f.name: move(getattr(v, f.name)) for f in dataclasses.fields(v) if f.init}
            return dataclasses.replace(v, **changes)
        return v

    return move(value)


# Factory functions that take device=, as torch 2.x's torch.device context fills it.
_FACTORIES = {
    getattr(torch, name)
    for name in (
        "empty", "empty_strided", "empty_quantized", "ones", "arange", "bartlett_window",
        "blackman_window", "eye", "fft.fftfreq", "fft.rfftfreq", "full", "fill", "hamming_window",
        "hann_window", "kaiser_window", "linspace", "logspace", "nested.nested_tensor", "rand",
        "randn", "randint", "randperm", "range", "sparse_coo_tensor", "sparse_compressed_tensor",
        "sparse_csr_tensor", "sparse_csc_tensor", "sparse_bsr_tensor", "sparse_bsc_tensor",
        "tril_indices", "triu_indices", "vander", "zeros", "asarray", "tensor", "as_tensor",
        "scalar_tensor", "normal",
    )
    if "." not in name and hasattr(torch, name)
}


class _DefaultDevice(TorchFunctionMode):
    def __init__(self, device):
        super().__init__()
        self.device = device

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in _FACTORIES and kwargs.get("device") is None:
            kwargs["device"] = self.device
        return func(*args, **kwargs)


class device_scope:
    """`with devcheck.device_scope("cuda:1"):` makes the device the default of
    this thread until the block ends: torch factories (torch.zeros, the
    parameters of a new nn.Linear) that name no device create there, it is the
    current device (a device guard, as torch.cuda.device), and C++ code sees it
    as devcheck::default_device(). Nestable; other threads are unaffected.
    Text goes through DeviceSpec ("auto" picks the best device here)."""

    def __init__(self, device):
        self.device = _device(device)
        self._scope = None
        self._mode = None

    def __enter__(self):
        self._scope = _C.DeviceScope(self.device)
        self._scope.enter()
        self._mode = _DefaultDevice(self.device)
        self._mode.__enter__()
        return self.device

    def __exit__(self, *exc):
        self._mode.__exit__(*exc)
        self._scope.exit()
        return False


def _fake_library():
    here = os.path.dirname(os.path.abspath(__file__))
    for name in sorted(os.listdir(here)):
        if name.startswith("libdevcheck_fake_device.so"):
            return os.path.join(here, name)
    raise _C.DevcheckIOError(
        f"[devcheck] fake_device: libdevcheck_fake_device.so is missing from {here}; fix: reinstall devcheck")


def _load_fake():
    """Registers the fake device once (python/devcheck_fake.py, installed with
    the package) from the package's own library; returns how many there are."""
    import devcheck_fake

    devcheck_fake.load(_fake_library(), 0)
    return devcheck_fake.device_count()


def fake_device(index=0):
    """devcheck's fake accelerator, registered on first use: returns the
    torch.device of fake device `index` (privateuseone:N in torch 1.13, fake:N
    from 2.1 on). It holds host memory and computes with the CPU's kernels
    (bitwise equal results) while failing device mixes as a GPU does.
    DEVCHECK_FAKE_DEVICES=N (1..8, default 2) sets how many there are.
    Raises InvalidArgumentError for an index out of range."""
    count = _load_fake()
    if not 0 <= index < count:
        raise _C.InvalidArgumentError(
            f"[devcheck] fake_device: index {index} is out of range: this process has {count} fake devices "
            f"(0..{count - 1})\nfix: DEVCHECK_FAKE_DEVICES=N (1..8) before the first use sets how many")
    get_name = getattr(torch._C, "_get_privateuse1_backend_name", None)
    return torch.device(get_name() if get_name else "privateuseone", index)


def fake_cuda(n=2, force=False):
    """Turns fake CUDA on in this process and returns its devices,
    [torch.device("cuda", 0), ...]: torch.cuda.is_available() is then True,
    device_count() is n (1..8; CUDA_VISIBLE_DEVICES, read now, shows fewer
    as on a GPU machine), and cuda:N tensors live in host memory,
    compute with the CPU's kernels (bitwise equal results) and fail as on a
    GPU ("Expected all tensors to be on the same device, ... cuda:0 and
    cpu!"). Call it before the program's first CUDA call (before or after
    `import torch`); again with the same n is a no-op. Raises
    InvalidArgumentError for n outside 1..8 or unlike an earlier call's, and
    DeviceUnavailableError where a real GPU is visible, which fake CUDA would
    hide, unless force=True."""
    import devcheck_fake_cuda

    try:
        return devcheck_fake_cuda.install(_fake_library(), int(n), bool(force))
    except RuntimeError as e:
        raise _as_devcheck_error(e) from None


def _start_fake_cuda(n, force):
    """fake_cuda() for `python -m devcheck run`: the devices the program sees
    are decided at its first CUDA call (CUDA_VISIBLE_DEVICES as it has set
    it by then), not before it starts. Raises as fake_cuda() does."""
    import devcheck_fake_cuda

    try:
        devcheck_fake_cuda.start(_fake_library(), int(n), bool(force))
    except RuntimeError as e:
        raise _as_devcheck_error(e) from None


def _as_devcheck_error(error):
    """A devcheck message that crossed torch.ops as a RuntimeError, as the
    devcheck error of its kind."""
    text = str(error).split("\nException raised from")[0]
    if "real CUDA device" in text:
        text = text.replace("(FakeCudaOptions::force replaces them anyway)",
                            "(fake_cuda(force=True) replaces them anyway)")
        return _C.DeviceUnavailableError(text)
    if text.startswith("[devcheck]"):
        return _C.InvalidArgumentError(text)
    return error


class CheckpointInfo:
    """What devcheck.inspect() read: the file's format, tensors, devices and
    findings, without tensor data (devcheck::format::Checkpoint)."""

    def __init__(self, checkpoint):
        self._c = checkpoint
        self._data = json.loads(checkpoint.to_json())
        self.path = checkpoint.path
        self.format = self._data.get("format")
        self.tensors = self._data.get("tensors", [])
        self.devices = self._data.get("devices", [])
        self.findings = self._data.get("findings", [])

    def has_errors(self):
        return self._c.has_errors()

    def to_text(self):
        return self._c.to_text()

    def to_json(self):
        return self._c.to_json()

    def __str__(self):
        return self.to_text()


def inspect(path):
    """Reads a torch.save checkpoint or TorchScript archive without running its
    pickle code and returns where its tensors were saved (CheckpointInfo).
    Raises DevcheckIOError, FormatError or UnsafeContentError naming the file."""
    return CheckpointInfo(_C.Checkpoint.open(os.fspath(path)))


def remap(src, dst, to=None, map_location=None, strip_prefix="", rewrite_code=False, force=False):
    """Writes `dst`: checkpoint `src` with its storages' saved locations moved
    (torch.load's map_location, offline): `to` moves everything to one device,
    `map_location` ({"cuda:1": "cuda:0"}) maps locations one by one. Never
    touches `src`; a failure leaves no `dst`. Returns the report (to_text(),
    to_json())."""
    rules = [(str(k), str(v)) for k, v in (map_location or {}).items()]
    return _C.remap(os.fspath(src), os.fspath(dst), None if to is None else str(to), rules,
                    strip_prefix, rewrite_code, force)
