"""Everything that differs between torch 1.13 (a CPU build: torch._C has no
CUDA functions at all) and 2.x (a CUDA build without a GPU: they call the
driver), for fake CUDA's Python side; the C++ side's differences are in
src/detail/compat.h."""

import torch

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
    """Fake CUDA's C++ side (src/fake/cuda/cuda.cc), once its library is loaded."""
    return torch.ops.devcheck


def _untyped_storage(tensor):
    """A tensor's storage as a torch.UntypedStorage: 2.x has
    Tensor.untyped_storage(); 1.13 has TypedStorage.untyped() (and 2.x warns
    that TypedStorage is deprecated)."""
    if hasattr(tensor, "untyped_storage"):
        return tensor.untyped_storage()
    return tensor.storage().untyped()
