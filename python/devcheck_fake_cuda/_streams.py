"""torch.cuda.Stream's and torch.cuda.Event's bases for fake CUDA's devices:
every op has finished when it returns, so a stream is always idle and an
event complete once recorded."""

import time

import torch

from ._compat import _CUDA_DEVICE_TYPE, _PACKED_STREAMS, _ops


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
