"""torch/csrc/cuda/python_comm.cpp's functions for fake CUDA (nn.DataParallel,
torch.cuda.comm): each one coalesced transfer, as on a GPU."""

import functools

import torch

from ._compat import _ops


def _devices(devices):
    return [torch.device("cuda", d) if isinstance(d, int) else torch.device(d) for d in devices]


# torch/csrc/cuda/python_comm.cpp's functions (nn.DataParallel, torch.cuda.comm).
# On a GPU each call is one coalesced transfer inside NCCL or comm, not the
# program's own copies: each runs in a "devcheck.coalesced:<op>" scope, which
# the sanitizer counts as one transfer per direction at the user's line
# (src/sanitizer/steps.h), never as many small copies.
def _coalesced(function):
    scope = "devcheck.coalesced:torch.cuda.comm." + function.__name__.lstrip("_")

    @functools.wraps(function)
    def one_transfer(*args, **kwargs):
        with torch.autograd.profiler.record_function(scope):
            return function(*args, **kwargs)
    return one_transfer


@_coalesced
def _broadcast_coalesced(tensors, devices, buffer_size):
    return [[t if t.device == d else t.to(d, copy=True) for t in tensors] for d in _devices(devices)]


@_coalesced
def _broadcast(tensor, devices):
    return [tensor if tensor.device == d else tensor.to(d, copy=True) for d in _devices(devices)]


@_coalesced
def _broadcast_out(tensor, out_tensors):
    for out in out_tensors:
        out.copy_(tensor)
    return out_tensors


@_coalesced
def _scatter(tensor, devices, chunk_sizes, dim, streams):
    if chunk_sizes is None:
        chunks = tensor.chunk(len(devices), dim)
    else:
        chunks = tensor.split(list(chunk_sizes), dim)
    return tuple(c.to(d, copy=True).contiguous() for c, d in zip(chunks, _devices(devices)))


@_coalesced
def _scatter_out(tensor, out_tensors, dim, streams):
    chunks = tensor.split([out.size(dim) for out in out_tensors], dim)
    for chunk, out in zip(chunks, out_tensors):
        out.copy_(chunk)
    return tuple(out_tensors)


@_coalesced
def _gather(tensors, dim, destination_index):
    if destination_index == -1:
        destination = torch.device("cpu")
    else:
        index = _ops().fake_cuda_get_device() if destination_index is None else destination_index
        destination = torch.device("cuda", index)
    return torch.cat([t.to(destination) for t in tensors], dim)


@_coalesced
def _gather_out(tensors, out_tensor, dim):
    torch.cat([t.to(out_tensor.device) for t in tensors], dim, out=out_tensor)
    return out_tensor
