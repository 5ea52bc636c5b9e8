"""The rest of torch that fake CUDA changes once it is on: names
torch/cuda/*.py bound from torch._C at import, storages made on cuda, DDP and
collectives over cuda tensors (refused, naming what is not emulated), and
libraries loaded later (their CUDA kernels taken over)."""

import importlib
import sys

import torch

from ._comm import _coalesced
from ._compat import _CPU_BUILD, _ops
from ._torch_c import _CudaDeviceProperties, _cudart, _exchange_device


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
    # nn.DataParallel's backward asks NCCL to reduce; fake CUDA has no NCCL,
    # so torch's own reduction copies each gradient: as NCCL's one call, one
    # coalesced transfer (torch.cuda.comm re-exports these).
    import torch.cuda.nccl as nccl
    nccl.is_available = lambda tensors: False
    import torch.nn.parallel.comm as comm
    for name in ("reduce_add", "reduce_add_coalesced"):
        if hasattr(comm, name) and not hasattr(getattr(comm, name), "__wrapped__"):
            setattr(comm, name, _coalesced(getattr(comm, name)))


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
