"""What torch._C gives a CUDA build's torch.cuda, for fake CUDA's devices:
_cuda_getDeviceCount, _cuda_init, streams, memory statistics, device
properties, the runtime calls torch.cuda makes itself, and DataParallel's
scatter and gather (_comm.py)."""

import os
import sys

import torch

from . import _comm
from ._compat import _COMPILED_VERSION, _CPU_BUILD, _PACKED_STREAMS, _ops
from ._streams import _CudaEventBase, _CudaStreamBase, _stream_data, _unpack

# The name the devices give themselves (get_device_name).
DEVICE_NAME = "devcheck fake CUDA (host memory, CPU kernels)"


def _host_memory_bytes():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return 16 * 2**30


_visible = []


def _visible_devices():
    """The machine indices of the devices the process sees, cuda:0 first:
    decided by C++ at the first CUDA call (CUDA_VISIBLE_DEVICES), then kept."""
    if not _visible:
        _visible.append([int(i) for i in _ops().fake_cuda_visible_devices()])
    return _visible[0]


def _device_count():
    return len(_visible_devices())


class _CudaDeviceProperties:
    """torch.cuda.get_device_properties(i): an sm_80 device (bfloat16, TF32)
    whose memory is the host's; its uuid names the machine's device
    (CUDA_VISIBLE_DEVICES=1: cuda:0 is devcheck-fake-cuda-1)."""

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
        visible = _visible_devices()
        self.uuid = "devcheck-fake-cuda-%d" % (visible[index] if 0 <= index < len(visible) else index)

    def __repr__(self):
        return ("_CudaDeviceProperties(name='%s', major=%d, minor=%d, total_memory=%dMB, "
                "multi_processor_count=%d)" % (self.name, self.major, self.minor,
                                               self.total_memory // 2**20, self.multi_processor_count))


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
    _ops().fake_cuda_init()  # "No CUDA GPUs are available" where the process sees none
    cuda = sys.modules["torch.cuda"]
    cuda._get_device_properties = _get_device_properties
    cuda.default_generators = tuple(_ops().fake_cuda_generator(i) for i in range(_device_count()))
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
        _cuda_getDeviceCount=_device_count,
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
        _cuda_hasPrimaryContext=lambda device: 0 <= int(device) < _device_count(),
        _cuda_memoryStats=_cuda_memoryStats,
        _cuda_emptyCache=lambda: ops.fake_cuda_empty_cache(),
        _cuda_resetPeakMemoryStats=_reset(True, False),
        _cuda_resetAccumulatedMemoryStats=_reset(False, True),
        _cuda_memorySnapshot=lambda *args, **kwargs: {"segments": [], "device_traces": []},
        _cuda_getAllocatorBackend=lambda: "native",
        _cuda_canDeviceAccessPeer=lambda device, peer: 0 <= int(peer) < _device_count(),
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
        _broadcast_coalesced=_comm._broadcast_coalesced,
        _broadcast=_comm._broadcast,
        _broadcast_out=_comm._broadcast_out,
        _scatter=_comm._scatter,
        _scatter_out=_comm._scatter_out,
        _gather=_comm._gather,
        _gather_out=_comm._gather_out,
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
