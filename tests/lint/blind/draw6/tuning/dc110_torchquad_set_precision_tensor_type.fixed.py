# devcheck bug corpus: DC110
# From: https://github.com/esa/torchquad/issues/196
# From: https://github.com/esa/torchquad/commit/d8b81824c92a6da559afee3cfb29b52efba6a32a
# The fix uses torch.set_default_dtype, and torch.set_default_device("cuda")
# when CUDA is initialised, on a torch that has them, keeping the legacy tensor
# types only as the fallback branch for an older torch.
# Written for devcheck's tests after the thread; not the project's code.
import logging
import os

logger = logging.getLogger(__name__)


def set_precision(data_type="float32", backend="torch"):
    """Set the default floating-point precision for a numerical backend."""
    data_type = {"float": "float32", "double": "float64"}.get(data_type.lower(), data_type)
    if data_type not in ("float32", "float64"):
        logger.error("Invalid data type %s, using float32", data_type)
        data_type = "float32"

    if backend == "torch":
        import torch

        cuda_enabled = torch.cuda.is_initialized()
        if hasattr(torch, "set_default_dtype"):  # <- fixed
            dtype_map = {"float32": torch.float32, "float64": torch.float64}  # <- fixed
            torch.set_default_dtype(dtype_map[data_type])  # <- fixed
            if cuda_enabled:  # <- fixed
                torch.set_default_device("cuda")  # <- fixed
            logger.info("Setting Torch's default dtype to %s (CUDA: %s)", data_type, cuda_enabled)  # <- fixed
        else:  # <- fixed
            tensor_dtype, tensor_dtype_name = {
                ("float32", True): (torch.cuda.FloatTensor, "cuda.Float32"),
                ("float64", True): (torch.cuda.DoubleTensor, "cuda.Float64"),
                ("float32", False): (torch.FloatTensor, "Float32"),
                ("float64", False): (torch.DoubleTensor, "Float64"),
            }[(data_type, cuda_enabled)]
            logger.info("Setting Torch's default tensor type to %s", tensor_dtype_name)
            torch.set_default_tensor_type(tensor_dtype)  # <- fixed
    elif backend == "numpy":
        os.environ["TORCHQUAD_DTYPE_NUMPY"] = data_type
        logger.info("NumPy default dtype set to %s", data_type)
    else:
        logger.error("Changing the data type is not supported for backend %s", backend)


def integrate_box(fn, dim, n, backend="torch"):
    import torch

    set_precision("float64", backend=backend)
    points = torch.rand(n, dim)
    return fn(points).mean()
