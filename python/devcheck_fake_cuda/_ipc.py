"""CUDA IPC under fake CUDA: a cuda tensor sent to another process (a
torch.multiprocessing Queue, a spawned child's arguments, a DataLoader
worker's batch) shares its memory with the receiver, as a GPU's does through
cudaIpcMemHandle, so an in-place update on either side is seen by the other.

Fake CUDA's memory is host memory, so it is shared as torch shares a CPU
tensor: the storage moves (in place: every tensor on it keeps its identity)
into shared memory made for the sharing strategy in force
(torch.multiprocessing.get_sharing_strategy()), torch's own reduction of a
CPU storage sends that (a file descriptor, or a file name with
"file_system"), and the receiver maps the same pages as a cuda tensor on the
same device index. The C++ half is src/fake/cuda/ipc.cc."""

from multiprocessing.reduction import ForkingPickler

import torch
import torch.multiprocessing as multiprocessing
from torch.multiprocessing import reductions

from ._compat import _ops, _untyped_storage


def _host_storage(tensor, strategy):
    """The CPU storage of shared memory that `tensor`'s storage shows, moved
    there first if it is not yet."""
    host = _ops().fake_cuda_shared_host(tensor, strategy)
    if host is None:
        shared = torch.UntypedStorage(_untyped_storage(tensor).nbytes())
        shared.share_memory_()
        host = torch.empty(0, dtype=torch.uint8).set_(shared)
        _ops().fake_cuda_share_into_(tensor, host, strategy)
    return _untyped_storage(host)


def rebuild_fake_cuda_tensor(tensor_cls, rebuild_storage, storage_args, strategy, device, dtype, offset, size,
                             stride, requires_grad):
    """The receiver's half: a cuda tensor over the sender's shared memory.
    As torch's rebuild_cuda_tensor, CUDA is initialised first (a forked child
    of a process that used CUDA fails here with torch's own message)."""
    torch.cuda._lazy_init()
    host = torch.empty(0, dtype=torch.uint8).set_(rebuild_storage(*storage_args))
    t = _ops().fake_cuda_from_host(host, device, strategy, dtype, offset, list(size), list(stride))
    if tensor_cls == torch.nn.parameter.Parameter:
        # As torch's: integer tensors must get requires_grad=False in the constructor.
        return torch.nn.parameter.Parameter(t, requires_grad=requires_grad)
    t.requires_grad = requires_grad
    return t


def _reducer(reduce_tensor):
    def reduce_fake_cuda_tensor(tensor):
        # Non-cuda tensors, and the refusal of a non-leaf that requires grad
        # (with torch's own message), are torch's.
        if not tensor.is_cuda or (tensor.requires_grad and not tensor.is_leaf):
            return reduce_tensor(tensor)
        torch.utils.hooks.warn_if_has_hooks(tensor)
        strategy = multiprocessing.get_sharing_strategy()
        if _untyped_storage(tensor).nbytes() == 0:
            storage = torch.UntypedStorage(0)
        else:
            storage = _host_storage(tensor, strategy)
        rebuild_storage, storage_args = reductions.reduce_storage(storage)
        return (rebuild_fake_cuda_tensor,
                (type(tensor), rebuild_storage, storage_args, strategy, tensor.device.index, tensor.dtype,
                 tensor.storage_offset(), tuple(tensor.size()), tuple(tensor.stride()), tensor.requires_grad))

    reduce_fake_cuda_tensor._devcheck_fake_cuda = True
    reduce_fake_cuda_tensor.__wrapped__ = reduce_tensor
    return reduce_fake_cuda_tensor


def _share_cuda_tensors_as_host_memory():
    """Replaces torch's reduction of tensors (torch.multiprocessing's
    init_reductions registered it for every tensor class) with one that
    shares fake cuda tensors' memory and leaves every other tensor to it."""
    _share_memory_moves_cuda_storages_now()
    original = reductions.reduce_tensor
    if getattr(original, "_devcheck_fake_cuda", False):
        return
    ours = _reducer(original)
    reductions.reduce_tensor = ours
    for cls, reduce in list(ForkingPickler._extra_reducers.items()):
        if reduce is original:
            ForkingPickler.register(cls, ours)


def _share_memory_moves_cuda_storages_now():
    """share_memory_() of a fake cuda storage (Tensor.share_memory_(),
    Module.share_memory()): a GPU's is a no-op, its memory being shareable as
    it is; fake CUDA's moves into shared memory now, in the calling thread,
    so that sending it later (from a Queue's feeder thread, while the program
    computes on it) moves nothing."""
    storage_class = torch.UntypedStorage
    original = storage_class.share_memory_
    if getattr(original, "_devcheck_fake_cuda", False):
        return

    def share_memory_(self, *args, **kwargs):
        if not self.is_cuda:
            return original(self, *args, **kwargs)
        if self.nbytes() > 0:
            tensor = torch.empty(0, dtype=torch.uint8, device=self.device).set_(self)
            _host_storage(tensor, multiprocessing.get_sharing_strategy())
        return self

    share_memory_._devcheck_fake_cuda = True
    share_memory_.__wrapped__ = original
    share_memory_.__doc__ = original.__doc__
    storage_class.share_memory_ = share_memory_
