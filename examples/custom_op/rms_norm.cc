// devcheck::rms_norm's registration: the schemas, the checks every kernel
// shares, the Meta kernels, the kernel behind the public op, and autograd.
// The CPU kernels are in rms_norm_cpu.cc, the CUDA ones in rms_norm_cuda.cu.

#include "rms_norm.h"

#include <ATen/core/LegacyTypeDispatch.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <fmt/format.h>
#include <torch/autograd.h>
#include <torch/library.h>

#include <string>
#include <tuple>

#include "devcheck/error.h"
#include "devcheck/op.h"
#include "rms_norm_kernels.h"

namespace devcheck {
namespace custom_op {

namespace {

std::string describe(const at::Tensor& t) { return c10::str(t.sizes(), " ", t.scalar_type()); }

}  // namespace

void check_rms_norm_args(const char* op, const at::Tensor& x, const at::Tensor& weight,
                         double eps) {
  if (x.dim() == 0) {
    throw InvalidArgumentError(fmt::format(
        "[devcheck] {}: expected x with at least one dimension (the one normalised), got a 0-dim "
        "tensor",
        op));
  }
  if (weight.dim() != 1 || weight.size(0) != x.size(-1)) {
    throw InvalidArgumentError(fmt::format(
        "[devcheck] {}: expected weight of shape [{}] (x's last dimension; x is {}), got {}", op,
        x.size(-1), describe(x), describe(weight)));
  }
  if (weight.scalar_type() != x.scalar_type()) {
    throw InvalidArgumentError(
        fmt::format("[devcheck] {}: expected weight of x's dtype {}, got {}; convert one first", op,
                    c10::toString(x.scalar_type()), c10::toString(weight.scalar_type())));
  }
  if (!(eps >= 0)) {
    throw InvalidArgumentError(fmt::format("[devcheck] {}: expected eps >= 0, got {}", op, eps));
  }
}

void check_rms_norm_backward_args(const char* op, const at::Tensor& grad_y, const at::Tensor& x,
                                  const at::Tensor& weight, const at::Tensor& rstd) {
  check_rms_norm_args(op, x, weight, 0.0);
  if (grad_y.sizes() != x.sizes() || grad_y.scalar_type() != x.scalar_type()) {
    throw InvalidArgumentError(fmt::format("[devcheck] {}: expected grad_y like x ({}), got {}", op,
                                           describe(x), describe(grad_y)));
  }
  if (rstd.sizes() != x.sizes().slice(0, x.dim() - 1) ||
      rstd.scalar_type() != rstd_dtype(x.scalar_type())) {
    throw InvalidArgumentError(fmt::format(
        "[devcheck] {}: expected rstd of shape {} and dtype {} (what rms_norm_forward returns "
        "for x {}), got {}",
        op, c10::str(x.sizes().slice(0, x.dim() - 1)), c10::toString(rstd_dtype(x.scalar_type())),
        describe(x), describe(rstd)));
  }
}

BackwardArgs contiguous_backward_args(const at::Tensor& grad_y, const at::Tensor& x,
                                      const at::Tensor& weight, const at::Tensor& rstd) {
  check_rms_norm_backward_args("devcheck::rms_norm_backward", grad_y, x, weight, rstd);
  return {grad_y.contiguous(), x.contiguous(), weight.contiguous(), rstd.contiguous()};
}

c10::ScalarType rstd_dtype(c10::ScalarType x_dtype) {
  return x_dtype == at::kBFloat16 || x_dtype == at::kHalf ? at::kFloat : x_dtype;
}

std::tuple<at::Tensor, at::Tensor> empty_forward_outputs(const at::Tensor& x) {
  at::Tensor y = at::empty_like(x, at::MemoryFormat::Contiguous);
  at::Tensor rstd =
      at::empty(x.sizes().slice(0, x.dim() - 1), x.options().dtype(rstd_dtype(x.scalar_type())));
  return {y, rstd};
}

namespace {

// Meta: the shapes, dtypes and device of the outputs, after the same checks.
std::tuple<at::Tensor, at::Tensor> rms_norm_forward_meta(const at::Tensor& x,
                                                         const at::Tensor& weight, double eps) {
  const auto inputs = DEVCHECK_OP_INPUTS("devcheck::rms_norm_forward", x, weight);
  check_rms_norm_args("devcheck::rms_norm_forward", x, weight, eps);
  return empty_forward_outputs(x);
}

std::tuple<at::Tensor, at::Tensor> rms_norm_backward_meta(const at::Tensor& grad_y,
                                                          const at::Tensor& x,
                                                          const at::Tensor& weight,
                                                          const at::Tensor& rstd) {
  const auto inputs = DEVCHECK_OP_INPUTS("devcheck::rms_norm_backward", grad_y, x, weight, rstd);
  check_rms_norm_backward_args("devcheck::rms_norm_backward", grad_y, x, weight, rstd);
  return {at::empty_like(x, at::MemoryFormat::Contiguous),
          at::empty_like(weight, at::MemoryFormat::Contiguous)};
}

using ForwardFn = std::tuple<at::Tensor, at::Tensor>(const at::Tensor&, const at::Tensor&, double);
using BackwardFn = std::tuple<at::Tensor, at::Tensor>(const at::Tensor&, const at::Tensor&,
                                                      const at::Tensor&, const at::Tensor&);

const c10::TypedOperatorHandle<ForwardFn>& forward_op() {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("devcheck::rms_norm_forward", "")
                             .typed<ForwardFn>();
  return op;
}

const c10::TypedOperatorHandle<BackwardFn>& backward_op() {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("devcheck::rms_norm_backward", "")
                             .typed<BackwardFn>();
  return op;
}

// devcheck::rms_norm without autograd (inference mode, or below autograd):
// the check names the public op, then the device's forward kernel runs.
at::Tensor rms_norm_no_grad(const at::Tensor& x, const at::Tensor& weight, double eps) {
  const auto inputs = DEVCHECK_OP_INPUTS("devcheck::rms_norm", x, weight);
  return std::get<0>(forward_op().call(x, weight, eps));
}

// The analytic backward: with r = 1/rms(x) per row and g = grad_y,
//   grad_x = r * (g * w - x * r^2 * mean(g * w * x)),  grad_w = sum_rows(g * x * r).
class RmsNormFunction : public torch::autograd::Function<RmsNormFunction> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x,
                            const at::Tensor& weight, double eps) {
    const at::AutoDispatchBelowADInplaceOrView below_autograd;
    auto [y, rstd] = forward_op().call(x, weight, eps);
    ctx->save_for_backward({x, weight, rstd});
    return y;
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    const torch::autograd::variable_list saved = ctx->get_saved_variables();
    if (!grads[0].defined()) return {at::Tensor(), at::Tensor(), at::Tensor()};
    auto [grad_x, grad_weight] = backward_op().call(grads[0], saved[0], saved[1], saved[2]);
    return {grad_x, grad_weight, at::Tensor()};
  }
};

at::Tensor rms_norm_autograd(const at::Tensor& x, const at::Tensor& weight, double eps) {
  const auto inputs = DEVCHECK_OP_INPUTS("devcheck::rms_norm", x, weight);
  return RmsNormFunction::apply(x, weight, eps);
}

}  // namespace
}  // namespace custom_op

at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps) {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("devcheck::rms_norm", "")
                             .typed<at::Tensor(const at::Tensor&, const at::Tensor&, double)>();
  return op.call(x, weight, eps);
}

}  // namespace devcheck

// The namespace `devcheck` is shared with the fake device's library
// (register_fake_device): each library adds a fragment.
TORCH_LIBRARY_FRAGMENT(devcheck, m) {
  m.def("rms_norm(Tensor x, Tensor weight, float eps=1e-06) -> Tensor");
  m.def("rms_norm_forward(Tensor x, Tensor weight, float eps) -> (Tensor y, Tensor rstd)");
  m.def(
      "rms_norm_backward(Tensor grad_y, Tensor x, Tensor weight, Tensor rstd) -> "
      "(Tensor grad_x, Tensor grad_weight)");
}

TORCH_LIBRARY_IMPL(devcheck, CompositeExplicitAutograd, m) {
  m.impl("rms_norm", TORCH_FN(devcheck::custom_op::rms_norm_no_grad));
}

TORCH_LIBRARY_IMPL(devcheck, Autograd, m) {
  m.impl("rms_norm", TORCH_FN(devcheck::custom_op::rms_norm_autograd));
  // The two halves are what rms_norm's autograd calls: they are not
  // differentiable themselves (no double backward), and they pass through
  // autograd on every device (LibTorch 1.13 lets only some device types fall
  // through by default; meta and the fake device are not among them).
  m.impl("rms_norm_forward", torch::CppFunction::makeFallthrough());
  m.impl("rms_norm_backward", torch::CppFunction::makeFallthrough());
}

TORCH_LIBRARY_IMPL(devcheck, CPU, m) {
  m.impl("rms_norm_forward", TORCH_FN(devcheck::custom_op::rms_norm_forward_cpu));
  m.impl("rms_norm_backward", TORCH_FN(devcheck::custom_op::rms_norm_backward_cpu));
}

TORCH_LIBRARY_IMPL(devcheck, Meta, m) {
  m.impl("rms_norm_forward", TORCH_FN(devcheck::custom_op::rms_norm_forward_meta));
  m.impl("rms_norm_backward", TORCH_FN(devcheck::custom_op::rms_norm_backward_meta));
}
