# devcheck bug corpus: DC110
# From: https://github.com/lululxvi/deepxde/pull/1530
# The fix calls torch.set_default_device("cuda") on torch 2.1 and later and
# keeps the old call only for older versions, behind a version test.
# Written for devcheck's tests after the thread; not the project's code.
"""pytorch backend implementation"""
from packaging.version import Version

import torch

if Version(torch.__version__) < Version("1.9.0"):
    raise RuntimeError("This package requires PyTorch>=1.9.0.")

# Use the GPU by default when there is one, instead of threading a device
# through every tensor the solver makes.
if torch.cuda.is_available():
    if Version(torch.__version__) >= Version("2.1.0"):  # <- fixed
        torch.set_default_device("cuda")  # <- fixed
    else:  # <- fixed
        torch.set_default_tensor_type(torch.cuda.FloatTensor)  # <- fixed

lib = torch


def data_type_dict():
    return {"float16": torch.float16, "float32": torch.float32, "float64": torch.float64,
            "int32": torch.int32, "int64": torch.int64, "bool": torch.bool}


def is_gpu_available():
    return torch.cuda.is_available()


def is_tensor(obj):
    return torch.is_tensor(obj)


def as_tensor(data, dtype=None):
    if isinstance(data, torch.Tensor):
        return data if dtype is None or data.dtype == dtype else data.type(dtype=dtype)
    return torch.as_tensor(data, dtype=dtype)


def to_numpy(input_tensor):
    return input_tensor.detach().cpu().numpy()


def zeros(shape, dtype):
    return torch.zeros(shape, dtype=dtype)


def matmul(x, y):
    return torch.mm(x, y)
