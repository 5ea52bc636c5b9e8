#pragma once
// What the files of devcheck::rms_norm share: argument checks, output
// allocation, and the kernels registered for each device.

#include <ATen/core/Tensor.h>

#include <tuple>

namespace devcheck::custom_op {

// Checks the arguments of `op` (shapes, dtypes, eps) the way every kernel
// must; throws InvalidArgumentError naming the op and the argument.
void check_rms_norm_args(const char* op, const at::Tensor& x, const at::Tensor& weight, double eps);

// Checks rms_norm_backward's arguments beyond check_rms_norm_args: grad_y
// has x's shape and dtype, rstd has x's shape without its last dimension.
void check_rms_norm_backward_args(const char* op, const at::Tensor& grad_y, const at::Tensor& x,
                                  const at::Tensor& weight, const at::Tensor& rstd);

// rms_norm_backward's arguments, checked (check_rms_norm_backward_args) and
// made contiguous: what every device's backward kernel starts from.
struct BackwardArgs {
  at::Tensor grad_y;
  at::Tensor x;
  at::Tensor weight;
  at::Tensor rstd;
};
BackwardArgs contiguous_backward_args(const at::Tensor& grad_y, const at::Tensor& x,
                                      const at::Tensor& weight, const at::Tensor& rstd);

// The dtype of the saved 1/rms per row: float for reduced-precision inputs.
c10::ScalarType rstd_dtype(c10::ScalarType x_dtype);

// The outputs (y, rstd) of rms_norm_forward for `x`, on x's device, contiguous.
std::tuple<at::Tensor, at::Tensor> empty_forward_outputs(const at::Tensor& x);

// CPU kernels (rms_norm_cpu.cc); the fake device runs them on its tensors.
std::tuple<at::Tensor, at::Tensor> rms_norm_forward_cpu(const at::Tensor& x,
                                                        const at::Tensor& weight, double eps);
std::tuple<at::Tensor, at::Tensor> rms_norm_backward_cpu(const at::Tensor& grad_y,
                                                         const at::Tensor& x,
                                                         const at::Tensor& weight,
                                                         const at::Tensor& rstd);

// The CPU kernel proper, compiled once per CPU capability from
// rms_norm_cpu_kernel.cc (as ATen compiles its own): DEFAULT with the
// compiler's baseline flags, AVX2 with -mavx2 -mfma (x86-64 only).
// rms_norm_cpu.cc picks one at run time. Arguments are contiguous and
// checked; outputs are allocated.
#define DEVCHECK_RMS_NORM_CPU_KERNELS                                                        \
  void rms_norm_forward_kernel(const at::Tensor& x, const at::Tensor& weight, at::Tensor& y, \
                               at::Tensor& rstd, double eps);                                \
  void rms_norm_backward_kernel(const at::Tensor& grad_y, const at::Tensor& x,               \
                                const at::Tensor& weight, const at::Tensor& rstd,            \
                                at::Tensor& grad_x, at::Tensor& grad_weight);
namespace DEFAULT {
DEVCHECK_RMS_NORM_CPU_KERNELS
}  // namespace DEFAULT
namespace AVX2 {
DEVCHECK_RMS_NORM_CPU_KERNELS
}  // namespace AVX2
#undef DEVCHECK_RMS_NORM_CPU_KERNELS

}  // namespace devcheck::custom_op
