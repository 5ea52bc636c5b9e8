#pragma once
/// devcheck::rms_norm, the worked custom operator (examples/custom_op/):
/// RMS normalisation over the last dimension, as in today's transformer
/// models, registered with the dispatcher as `devcheck::rms_norm` with CPU,
/// CUDA (when LibTorch has CUDA), Meta and autograd kernels. The fake device
/// runs the CPU kernel. From Python, after
/// `torch.ops.load_library("libdevcheck_custom_op.so")`:
/// `torch.ops.devcheck.rms_norm(x, weight, 1e-6)`.

#include <ATen/core/Tensor.h>

// The library is built with hidden symbols, as devcheck's are: its API is
// what carries this mark (the kernels and their registration stay inside).
#define DEVCHECK_RMS_NORM_API [[gnu::visibility("default")]]

namespace devcheck {

/// y = x / sqrt(mean(x * x, -1) + eps) * weight, over x's last dimension.
/// `x`: at least 1-D, float32, float64 or bfloat16 (float16 too on CUDA), any
/// strides; `weight`: 1-D, x.size(-1) elements, x's dtype, on x's device
/// (0-dim CPU tensors are not weights). Differentiable in x and weight (an
/// analytic backward). The result is contiguous, on x's device. Throws
/// DeviceMismatchError naming `x` and `weight` and both devices when they
/// are on different devices, InvalidArgumentError for bad shapes, dtypes or
/// a negative eps. Thread-safe.
DEVCHECK_RMS_NORM_API at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& weight,
                                          double eps = 1e-6);

}  // namespace devcheck
