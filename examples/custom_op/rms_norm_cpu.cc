// devcheck::rms_norm's CPU kernels: the checks, the outputs, and the choice
// of the kernel compiled for this CPU (AVX2 + FMA when it has them).

#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>

#include <cstdlib>
#include <cstring>
#include <tuple>

#include "devcheck/op.h"
#include "rms_norm_kernels.h"

namespace devcheck::custom_op {
namespace {

// The AVX2 kernel when it was built (x86-64) and this CPU runs it, unless
// ATEN_CPU_CAPABILITY=default asks for the baseline, as it does of ATen.
bool use_avx2() {
#if defined(DEVCHECK_RMS_NORM_AVX2)
  static const bool avx2 = [] {
    const char* env = std::getenv("ATEN_CPU_CAPABILITY");
    if (env != nullptr && std::strcmp(env, "default") == 0) return false;
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return avx2;
#else
  return false;
#endif
}

}  // namespace

std::tuple<at::Tensor, at::Tensor> rms_norm_forward_cpu(const at::Tensor& x,
                                                        const at::Tensor& weight, double eps) {
  const auto inputs = DEVCHECK_OP_INPUTS("devcheck::rms_norm_forward", x, weight);
  check_rms_norm_args("devcheck::rms_norm_forward", x, weight, eps);
  const at::Tensor xc = x.contiguous();
  const at::Tensor wc = weight.contiguous();
  auto [y, rstd] = empty_forward_outputs(xc);
  if (use_avx2()) {
    AVX2::rms_norm_forward_kernel(xc, wc, y, rstd, eps);
  } else {
    DEFAULT::rms_norm_forward_kernel(xc, wc, y, rstd, eps);
  }
  return {y, rstd};
}

std::tuple<at::Tensor, at::Tensor> rms_norm_backward_cpu(const at::Tensor& grad_y,
                                                         const at::Tensor& x,
                                                         const at::Tensor& weight,
                                                         const at::Tensor& rstd) {
  const auto inputs = DEVCHECK_OP_INPUTS("devcheck::rms_norm_backward", grad_y, x, weight, rstd);
  const BackwardArgs args = contiguous_backward_args(grad_y, x, weight, rstd);
  const at::Tensor& gc = args.grad_y;
  const at::Tensor& xc = args.x;
  const at::Tensor& wc = args.weight;
  const at::Tensor& rc = args.rstd;
  at::Tensor grad_x = at::empty_like(xc, at::MemoryFormat::Contiguous);
  at::Tensor grad_weight = at::empty_like(wc, at::MemoryFormat::Contiguous);
  if (use_avx2()) {
    AVX2::rms_norm_backward_kernel(gc, xc, wc, rc, grad_x, grad_weight);
  } else {
    DEFAULT::rms_norm_backward_kernel(gc, xc, wc, rc, grad_x, grad_weight);
  }
  return {grad_x, grad_weight};
}

}  // namespace devcheck::custom_op
