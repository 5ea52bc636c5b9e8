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

Everything that differs between torch 1.13 (a CPU build: torch._C has no
CUDA functions at all) and 2.x (a CUDA build without a GPU: they call the
driver) is in the section "torch 1.13 and 2.x" below; the C++ side's
differences are in src/detail/compat.h.
"""

import importlib
import os
import sys
import threading
import time

import torch

_lock = threading.Lock()
_count = 0

# The name the devices give themselves (get_device_name).
DEVICE_NAME = "devcheck fake CUDA (host memory, CPU kernels)"

# ---- torch 1.13 and 2.x ------------------------------------------------------
_VERSION = tuple(int(x) for x in torch.__version__.split("+")[0].split(".")[:2])
# 1.13 passes streams as one packed integer (_cdata); 2.x as (stream_id,
# device_index, device_type).
_PACKED_STREAMS = _VERSION < (2, 0)
# A CPU build of torch reports no CUDA version; a CUDA build of 2.x its own.
_CPU_BUILD = torch.version.cuda is None
# What a CUDA build of 1.13 would report: the CUDA 11.7 of its default wheel.
_COMPILED_VERSION = 11070 if _CPU_BUILD else None
_CUDA_DEVICE_TYPE = 1  # c10::DeviceType::CUDA


def _ops():
    return torch.ops.devcheck


# ---- what torch._C gives a CUDA build's torch.cuda ---------------------------
def _host_memory_bytes():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return 16 * 2**30


class _CudaDeviceProperties:
    """torch.cuda.get_device_properties(i): an sm_80 device (bfloat16, TF32)
    whose memory is the host's."""

    def __init__(self, index):
        self.name = DEVICE_NAME
        self.major, self.minor = 8, 0
        self.total_memory = _host_memory_bytes()
        self.multi_processor_count = 108
        self.is_integrated = 0
        self.is_multi_gpu_board = 0
        self.max_threads_per_multi_processor = 2048
        self.regs_per_multiprocessor = 65536
        self.warp_size = 32
        self.L2_cache_size = 40 * 2**20
        self.gcnArchName = "NVIDIA CUDA does not support the graphics code name"
        self.uuid = "devcheck-fake-cuda-%d" % index

    def __repr__(self):
        return ("_CudaDeviceProperties(name='%s', major=%d, minor=%d, total_memory=%dMB, "
                "multi_processor_count=%d)" % (self.name, self.major, self.minor,
                                               self.total_memory // 2**20, self.multi_processor_count))


def _pack(stream_id, device_index):
    # c10::Stream::pack() of 1.13: type in bits 56-63, index in 48-55, id below.
    return (_CUDA_DEVICE_TYPE << 56) | ((device_index & 0xFF) << 48) | (stream_id & ((1 << 48) - 1))


def _unpack(packed):
    stream_id = packed & ((1 << 48) - 1)
    if stream_id >= 1 << 47:
        stream_id -= 1 << 48
    return stream_id, (packed >> 48) & 0xFF


def _stream_data(data):
    """torch._C's answer for a stream, from [id, device index, device type]."""
    if _PACKED_STREAMS:
        return _pack(data[0], data[1])
    return (data[0], data[1], data[2])


class _CudaStreamBase(torch._C.Stream):
    """torch.cuda.Stream's base: a stream of a fake device (every op has
    finished when it returns, so a stream is always idle). A torch._C.Stream,
    as a CUDA build's is, so that C++ takes it (tensor.record_stream)."""

    def __new__(cls, priority=0, stream_id=None, device_index=None, device_type=None,
                stream_ptr=0, _cdata=None, **kwargs):
        if _cdata is not None:
            stream_id, device_index = _unpack(_cdata)
        elif stream_id is None or device_index is None:
            if stream_ptr:
                raise RuntimeError("devcheck fake CUDA: an external stream (cudaStream_t) has no "
                                   "fake CUDA device behind it")
            stream_id, device_index, _ = _ops().fake_cuda_stream(-1, 2)
        if _PACKED_STREAMS:
            self = torch._C.Stream.__new__(cls, _cdata=_pack(int(stream_id), int(device_index)))
        else:
            self = torch._C.Stream.__new__(cls, stream_id=int(stream_id), device_index=int(device_index),
                                           device_type=_CUDA_DEVICE_TYPE)
        self.priority = priority
        return self

    if _PACKED_STREAMS:
        # torch 1.13's torch._C.Stream holds the packed stream only.
        @property
        def stream_id(self):
            return _unpack(self._cdata)[0]

        @property
        def device_index(self):
            return _unpack(self._cdata)[1]

        @property
        def device_type(self):
            return _CUDA_DEVICE_TYPE
    else:
        @property
        def _cdata(self):
            return _pack(self.stream_id, self.device_index)

    @property
    def device(self):
        return torch.device("cuda", self.device_index)

    @property
    def cuda_stream(self):
        return self.stream_id  # 0 for the default stream, as on a GPU

    def query(self):
        return True

    def synchronize(self):
        pass

    def __eq__(self, other):
        return (isinstance(other, _CudaStreamBase) and self.stream_id == other.stream_id
                and self.device_index == other.device_index)

    def __hash__(self):
        return hash((self.stream_id, self.device_index))

    @staticmethod
    def priority_range():
        return (0, -1)


class _CudaEventBase:
    """torch.cuda.Event's base: complete once recorded; elapsed_time() is the
    host time between two records, in milliseconds."""

    def __new__(cls, enable_timing=False, blocking=False, interprocess=False, external=False):
        # external (2.10+): how a CUDA graph captures the event; no graphs here.
        self = object.__new__(cls)
        self._enable_timing = enable_timing
        self._time = None
        self._device = None
        return self

    @property
    def device(self):
        return self._device

    @property
    def cuda_event(self):
        return id(self) if self._time is not None else 0

    @property
    def event_id(self):
        return self.cuda_event

    def record(self, stream=None):
        if stream is None:
            stream = torch.cuda.current_stream()
        self._time = time.perf_counter()
        self._device = stream.device

    def wait(self, stream=None):
        pass  # work on every stream has finished already

    def query(self):
        return True

    def elapsed_time(self, end_event):
        if not (self._enable_timing and end_event._enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self._time is None or end_event._time is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return (end_event._time - self._time) * 1000.0

    def synchronize(self):
        pass

    def ipc_handle(self):
        raise RuntimeError("devcheck fake CUDA: events cannot be shared between processes "
                           "(inter-process events are not emulated)")

    @classmethod
    def from_ipc_handle(cls, device, handle):
        raise RuntimeError("devcheck fake CUDA: events cannot be shared between processes "
                           "(inter-process events are not emulated)")


class _cudart:
    """torch.cuda.cudart(): the few runtime calls torch.cuda makes itself."""

    class cudaError(int):
        success = 0

    @staticmethod
    def cudaGetErrorString(error):
        return "no error" if int(error) == 0 else "devcheck fake CUDA error %d" % int(error)

    @staticmethod
    def cudaMemGetInfo(device):
        total = _host_memory_bytes()
        reserved = _ops().fake_cuda_memory_stats(int(device))[8]  # cached blocks are not free
        return (max(total - reserved, 0), total)

    @staticmethod
    def cudaProfilerStart():
        return 0

    @staticmethod
    def cudaProfilerStop():
        return 0

    @staticmethod
    def cudaHostRegister(ptr, size, flags):
        return 0

    @staticmethod
    def cudaHostUnregister(ptr):
        return 0

    @staticmethod
    def cudaStreamCreate(ptr):
        return 0

    @staticmethod
    def cudaStreamDestroy(stream):
        return 0


_props = {}


def _get_device_properties(index):
    _ops().fake_cuda_memory_stats(int(index))  # CUDA's "invalid device ordinal" for a bad index
    if index not in _props:
        _props[index] = _CudaDeviceProperties(index)
    return _props[index]


def _cuda_init():
    _ops().fake_cuda_init()
    cuda = sys.modules["torch.cuda"]
    cuda._get_device_properties = _get_device_properties
    cuda.default_generators = tuple(_ops().fake_cuda_generator(i) for i in range(_count))
    cuda.has_half = True
    cuda.has_magma = False


def _device_index(device):
    if device is None:
        return -1
    if isinstance(device, torch.device):
        return -1 if device.index is None else device.index
    return int(device)


def _exchange_device(device):
    old = _ops().fake_cuda_get_device()
    if device >= 0 and device != old:
        _ops().fake_cuda_set_device(device)
    return old


# The memory statistics CUDA's caching allocator keeps, in its nested layout,
# from fake CUDA's counters. Freed blocks of 16 KiB and more stay cached for
# reuse until empty_cache(): reserved = allocated + cached. Every block counts
# in the large pool; requested and active bytes are the allocated bytes.
_BYTE_METRICS = ("allocated_bytes", "active_bytes", "requested_bytes")
_BLOCK_METRICS = ("allocation", "active")
_EMPTY_METRICS = ("inactive_split", "inactive_split_bytes", "oversize_allocations",
                  "oversize_segments")


def _cuda_memoryStats(device):
    (allocated, peak, allocated_total, freed_total, allocations, frees, blocks, peak_blocks,
     reserved, peak_reserved, segments, peak_segments, host_allocations, host_frees,
     host_allocated, host_freed) = _ops().fake_cuda_memory_stats(int(device))
    zero = {"current": 0, "peak": 0, "allocated": 0, "freed": 0}
    byte_stat = {"current": allocated, "peak": peak, "allocated": allocated_total,
                 "freed": freed_total}
    block_stat = {"current": blocks, "peak": peak_blocks, "allocated": allocations, "freed": frees}
    # Reserved "allocated"/"freed": the bytes of the blocks taken from and given
    # back to host memory (a tensor an op made below 16 KiB is reserved but
    # was never such a block).
    reserved_stat = {"current": reserved, "peak": peak_reserved, "allocated": host_allocated,
                     "freed": host_freed}
    segment_stat = {"current": segments, "peak": peak_segments, "allocated": host_allocations,
                    "freed": host_frees}
    out = {"num_alloc_retries": 0, "num_ooms": 0, "max_split_size": -1, "num_sync_all_streams": 0,
           "num_device_alloc": host_allocations, "num_device_free": host_frees}
    for metric, stat in ([(m, byte_stat) for m in _BYTE_METRICS] +
                         [(m, block_stat) for m in _BLOCK_METRICS] +
                         [("reserved_bytes", reserved_stat), ("segment", segment_stat)]):
        out[metric] = {"all": dict(stat), "large_pool": dict(stat), "small_pool": dict(zero)}
    for metric in _EMPTY_METRICS:
        if metric.startswith("oversize"):
            out[metric] = dict(zero)
        else:
            out[metric] = {pool: dict(zero) for pool in ("all", "large_pool", "small_pool")}
    return out


def _reset(peak, accumulated):
    def reset(device):
        _ops().fake_cuda_reset_memory_stats(int(device), peak, accumulated)
    return reset


def _devices(devices):
    return [torch.device("cuda", d) if isinstance(d, int) else torch.device(d) for d in devices]


# torch/csrc/cuda/python_comm.cpp's functions (nn.DataParallel, torch.cuda.comm)
def _broadcast_coalesced(tensors, devices, buffer_size):
    return [[t if t.device == d else t.to(d, copy=True) for t in tensors] for d in _devices(devices)]


def _broadcast(tensor, devices):
    return [tensor if tensor.device == d else tensor.to(d, copy=True) for d in _devices(devices)]


def _broadcast_out(tensor, out_tensors):
    for out in out_tensors:
        out.copy_(tensor)
    return out_tensors


def _scatter(tensor, devices, chunk_sizes, dim, streams):
    if chunk_sizes is None:
        chunks = tensor.chunk(len(devices), dim)
    else:
        chunks = tensor.split(list(chunk_sizes), dim)
    return tuple(c.to(d, copy=True).contiguous() for c, d in zip(chunks, _devices(devices)))


def _scatter_out(tensor, out_tensors, dim, streams):
    chunks = tensor.split([out.size(dim) for out in out_tensors], dim)
    for chunk, out in zip(chunks, out_tensors):
        out.copy_(chunk)
    return tuple(out_tensors)


def _gather(tensors, dim, destination_index):
    if destination_index == -1:
        destination = torch.device("cpu")
    else:
        index = _ops().fake_cuda_get_device() if destination_index is None else destination_index
        destination = torch.device("cuda", index)
    return torch.cat([t.to(destination) for t in tensors], dim)


def _gather_out(tensors, out_tensor, dim):
    torch.cat([t.to(out_tensor.device) for t in tensors], dim, out=out_tensor)
    return out_tensor


def _not_emulated(what):
    def fail(*args, **kwargs):
        raise RuntimeError("devcheck fake CUDA: %s is not emulated (it needs a real GPU)" % what)
    return fail


def _torch_c_functions():
    ops = _ops()

    def get_stream(which):
        return lambda device=None: _stream_data(ops.fake_cuda_stream(_device_index(device), which))

    def set_stream(*args, **kwargs):
        if _PACKED_STREAMS:
            stream_id, device_index = _unpack(args[0] if args else kwargs["_cdata"])
        else:
            stream_id = kwargs.get("stream_id", args[0] if args else None)
            device_index = kwargs.get("device_index", args[1] if len(args) > 1 else None)
        ops.fake_cuda_set_stream(int(stream_id), int(device_index))

    sync_debug_mode = [0]
    functions = dict(
        _cuda_getDeviceCount=lambda: _count,
        _cuda_init=_cuda_init,
        _cuda_setDevice=lambda device: ops.fake_cuda_set_device(int(device)),
        _cuda_getDevice=lambda: ops.fake_cuda_get_device(),
        _cuda_exchangeDevice=_exchange_device,
        _cuda_maybeExchangeDevice=_exchange_device,
        _cuda_synchronize=lambda: None,
        _cuda_getCurrentStream=get_stream(0),
        _cuda_getDefaultStream=get_stream(1),
        _cuda_setStream=set_stream,
        _cuda_getCurrentRawStream=lambda device=None: ops.fake_cuda_stream(_device_index(device), 0)[0],
        _cuda_isCurrentStreamCapturing=lambda: False,
        _cuda_hasPrimaryContext=lambda device: 0 <= int(device) < _count,
        _cuda_memoryStats=_cuda_memoryStats,
        _cuda_emptyCache=lambda: ops.fake_cuda_empty_cache(),
        _cuda_resetPeakMemoryStats=_reset(True, False),
        _cuda_resetAccumulatedMemoryStats=_reset(False, True),
        _cuda_memorySnapshot=lambda *args, **kwargs: {"segments": [], "device_traces": []},
        _cuda_getAllocatorBackend=lambda: "native",
        _cuda_canDeviceAccessPeer=lambda device, peer: 0 <= int(peer) < _count,
        _cuda_get_sync_debug_mode=lambda: sync_debug_mode[0],
        _cuda_set_sync_debug_mode=lambda mode: sync_debug_mode.__setitem__(0, int(mode)),
        _cuda_ipc_collect=lambda: None,
        _cuda_getCurrentBlasHandle=lambda: 0,
        _cuda_sleep=lambda cycles: None,
        _cuda_isInBadFork=lambda: bool(ops.fake_cuda_in_bad_fork()),
        _cuda_record_memory_history=_not_emulated("memory history recording"),
        _cuda_record_memory_history_legacy=_not_emulated("memory history recording"),
        _cuda_setMemoryFraction=lambda fraction, device: None,
        _CudaDeviceProperties=_CudaDeviceProperties,
        _CudaStreamBase=_CudaStreamBase,
        _CudaEventBase=_CudaEventBase,
        _cudart=_cudart,
        _broadcast_coalesced=_broadcast_coalesced,
        _broadcast=_broadcast,
        _broadcast_out=_broadcast_out,
        _scatter=_scatter,
        _scatter_out=_scatter_out,
        _gather=_gather,
        _gather_out=_gather_out,
    )
    if _CPU_BUILD:
        # A CPU build has none of these; a CUDA build's own answer without a GPU.
        functions.update(
            _cuda_getCompiledVersion=lambda: _COMPILED_VERSION,
            _cuda_getArchFlags=lambda: "sm_80",
            _cuda_get_cudnn_benchmark_limit=lambda: 10,
            _cuda_set_cudnn_benchmark_limit=lambda limit: None,
        )
    return functions


def _patch_storage():
    """torch.UntypedStorage(n, device="cuda") (torch.load, storage.cuda()):
    a CPU build refuses CUDA there and a CUDA build asks the driver, so make
    it the storage of a byte tensor on the fake device."""
    storage_type = torch.UntypedStorage
    original = storage_type.__new__
    if getattr(original, "_devcheck_fake_cuda", False):
        return

    def __new__(cls, *args, device=None, **kwargs):
        target = None if device is None else torch.device(device)
        if target is None or target.type != "cuda":
            if device is None:
                return original(cls, *args, **kwargs)
            return original(cls, *args, device=device, **kwargs)
        if target.index is None:
            target = torch.device("cuda", _ops().fake_cuda_get_device())
        if not args:
            t = torch.empty(0, dtype=torch.uint8, device=target)
        elif isinstance(args[0], int):
            t = torch.empty(args[0], dtype=torch.uint8, device=target)
        else:
            t = torch.tensor(list(args[0]), dtype=torch.uint8, device=target)
        return t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage().untyped()

    __new__._devcheck_fake_cuda = True
    storage_type.__new__ = __new__


def _rebind_torch_cuda():
    """Names torch/cuda/*.py bound from torch._C when torch was imported."""
    cuda = sys.modules["torch.cuda"]
    streams = importlib.reload(sys.modules["torch.cuda.streams"])
    for name in ("Stream", "Event", "ExternalStream"):
        if hasattr(streams, name):
            setattr(cuda, name, getattr(streams, name))
    cuda._CudaDeviceProperties = _CudaDeviceProperties
    cuda._cudart = _cudart
    cuda._is_in_bad_fork = torch._C._cuda_isInBadFork
    graphs = sys.modules.get("torch.cuda.graphs")
    if graphs is not None and hasattr(graphs, "_cuda_isCurrentStreamCapturing"):
        graphs._cuda_isCurrentStreamCapturing = torch._C._cuda_isCurrentStreamCapturing
    if hasattr(cuda, "_exchange_device"):
        cuda._exchange_device = _exchange_device
        cuda._maybe_exchange_device = _exchange_device
    # The devices are fake CUDA's, not NVML's (a CUDA build asks NVML first).
    if hasattr(cuda, "_device_count_nvml"):
        cuda._device_count_nvml = lambda: -1
    cuda._cached_device_count = None
    if _CPU_BUILD:
        # is_bf16_supported() reads torch.version.cuda, which a CPU build has
        # none of; fake CUDA's devices are sm_80, which supports bfloat16.
        cuda.is_bf16_supported = lambda including_emulation=True: True
        # torch.cuda.Stream() asks it first from 2.10 on ("requires CUDA
        # support"): a CUDA build's answer.
        import torch.backends.cuda as backends_cuda

        backends_cuda.is_built = lambda: True
    # Fake CUDA runs no cuDNN kernel (its hooks say so to ATen): nn.RNN's
    # flatten_parameters() must not try, nor warn that a CPU build has none.
    import torch.backends.cudnn as cudnn
    cudnn.is_acceptable = lambda tensor: False
    # nn.DataParallel's backward asks NCCL to reduce; fake CUDA has no NCCL.
    import torch.cuda.nccl as nccl
    nccl.is_available = lambda tensors: False


_DISTRIBUTED_NOTE = ("is not emulated: it hands CUDA tensors to the process group (NCCL, or Gloo's CUDA "
                     "path), which needs a real GPU; run the distributed part on the CPU (gloo) or on "
                     "devcheck's fake accelerator")


def _refuse_distributed_cuda():
    """DDP and collectives over cuda tensors: a clear error naming what is
    not emulated, before the process group reaches the CUDA runtime."""
    try:
        import torch.distributed as dist
        from torch.nn.parallel import DistributedDataParallel
    except ImportError:
        return
    if not dist.is_available() or getattr(DistributedDataParallel.__init__, "_devcheck_fake_cuda", False):
        return
    init = DistributedDataParallel.__init__

    def ddp_init(self, module, *args, **kwargs):
        if any(p.is_cuda for p in module.parameters()) or any(b.is_cuda for b in module.buffers()):
            raise RuntimeError("devcheck fake CUDA: DistributedDataParallel over cuda tensors " + _DISTRIBUTED_NOTE)
        init(self, module, *args, **kwargs)

    ddp_init._devcheck_fake_cuda = True
    DistributedDataParallel.__init__ = ddp_init

    def tensors_in(value):
        if isinstance(value, torch.Tensor):
            yield value
        elif isinstance(value, (list, tuple)):
            for v in value:
                yield from tensors_in(v)

    def guard(name):
        collective = getattr(dist, name)

        def guarded(*args, **kwargs):
            for value in list(args) + list(kwargs.values()):
                if any(t.is_cuda for t in tensors_in(value)):
                    raise RuntimeError("devcheck fake CUDA: torch.distributed.%s of cuda tensors %s"
                                       % (name, _DISTRIBUTED_NOTE))
            return collective(*args, **kwargs)

        guarded.__wrapped__ = collective
        guarded.__name__ = name
        return guarded

    for name in ("all_reduce", "reduce", "broadcast", "all_gather", "all_gather_into_tensor", "gather", "scatter",
                 "reduce_scatter", "reduce_scatter_tensor", "all_to_all", "all_to_all_single", "send", "recv",
                 "isend", "irecv", "broadcast_object_list"):
        if hasattr(dist, name):
            setattr(dist, name, guard(name))


def _refresh_after_extension_loads():
    """A library loaded later (torch.ops.load_library, an extension module's
    import) may register CUDA kernels of its own: fake CUDA takes them over
    after each load (C++: fake_cuda_refresh, a no-op when no op was added)."""
    import importlib.machinery

    load_library = torch.ops.load_library
    if not getattr(load_library, "_devcheck_fake_cuda", False):
        def refreshing_load_library(path):
            load_library(path)
            _ops().fake_cuda_refresh()

        refreshing_load_library._devcheck_fake_cuda = True
        torch.ops.load_library = refreshing_load_library

    loader = importlib.machinery.ExtensionFileLoader
    exec_module = loader.exec_module
    if not getattr(exec_module, "_devcheck_fake_cuda", False):
        def refreshing_exec_module(self, module):
            exec_module(self, module)
            _ops().fake_cuda_refresh()

        refreshing_exec_module._devcheck_fake_cuda = True
        loader.exec_module = refreshing_exec_module


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
        # after this is unpickled): the call names this module's folder.
        # builtins.exec is the one callable every interpreter can unpickle.
        here = os.path.dirname(os.path.abspath(__file__))
        # torch first: an import hook of torch's (devcheck run's
        # sitecustomize) may import this module itself.
        source = ("import sys\n"
                  "if %r not in sys.path: sys.path.append(%r)\n"
                  "import torch\n"
                  "import devcheck_fake_cuda\n"
                  "devcheck_fake_cuda.install(%r, %d, %r)\n" % ((here, here) + self.args))
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
    no-op) and returns its devices, [torch.device("cuda", 0), ...].

    `library` defaults to $DEVCHECK_FAKE_DEVICE_LIBRARY, then the dynamic
    linker's search path. `force` turns it on even where a real GPU is
    visible (which it then hides). Raises RuntimeError naming the problem: a
    count outside 1..8 or unlike an earlier one, a real GPU without force.
    """
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
            _children_start_with_fake_cuda(os.path.abspath(path) if os.path.exists(path) else path, n,
                                           bool(force))
        elif int(count) != _count:
            _ops().fake_cuda(int(count), bool(force))  # C++ says why not
    return [torch.device("cuda", i) for i in range(_count)]


def device_count():
    """How many fake CUDA devices install() made; 0 before."""
    return _count
