// Fake CUDA's kernels for ops LibTorch has for CUDA only, which programs
// reach on their CUDA paths: the fused LSTM and GRU cells (at::lstm and
// at::gru take them for CUDA inputs), GradScaler's unscale and scale update,
// cuDNN's convolutions, rms_norm's fused backward (torch 2.14), and pinned
// host memory. Each computes with ATen ops on CPU aliases of its arguments
// (or on the fake tensors themselves), with CUDA's semantics
// (aten/src/ATen/native/cuda/RNN.cu, AmpKernels.cu); the RNN cells keep
// CUDA's workspace layouts and compute float16 in float32, as CUDA's do.

#include <ATen/EmptyTensor.h>
#include <ATen/TensorOperators.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/isfinite.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/zeros_like.h>
#include <c10/core/StorageImpl.h>
#include <torch/library.h>

#include <cmath>
#include <initializer_list>
#include <tuple>
#include <vector>

#include "detail/compat.h"
#include "fake/backend.h"

namespace devcheck::detail {
namespace {

constexpr FakeKind kCuda = FakeKind::kCuda;
const char* const kSameDevice =
    "Expected all tensors to be on the same device, but found at least two devices, ";

// The fused cells' arguments must share one device, as CUDA's kernels check
// (checkAllSameGPU: "Expected all tensors to be on the same device").
void same_device(std::initializer_list<const at::Tensor*> tensors, const char* op) {
  c10::optional<c10::Device> device;
  for (const at::Tensor* t : tensors) {
    if (!t->defined()) continue;
    if (!device) {
      device = t->device();
    } else {
      TORCH_CHECK(*device == t->device(), kSameDevice, *device, " and ", t->device(),
                  "! (when checking argument in method ", op, ")");
    }
  }
}

// CPU aliases in, fake CUDA tensors out, on the device of `like`.
class OnCpu {
 public:
  explicit OnCpu(const at::Tensor& like) : index_(like.device().index()) {}
  static at::Tensor in(const at::Tensor& t) { return fake_cpu_alias(t); }
  static at::Tensor in(const c10::optional<at::Tensor>& t) {
    return t && t->defined() ? fake_cpu_alias(*t) : at::Tensor();
  }
  at::Tensor out(const at::Tensor& t) const { return fake_tensor_owning(kCuda, t, index_); }

 private:
  c10::DeviceIndex index_;
};

// The fused cells' arithmetic: CUDA's kernels compute float16 and bfloat16
// cells in float32 (their accscalar_t) and store results in the tensors' own
// dtype, and LibTorch 1.13's CPU has no Half sigmoid or tanh.
class CellMath {
 public:
  explicit CellMath(const at::Tensor& like) : on_cpu_(like), dtype_(like.scalar_type()) {}
  static at::Tensor in(const at::Tensor& t) { return widen(OnCpu::in(t)); }
  static at::Tensor in(const c10::optional<at::Tensor>& t) { return widen(OnCpu::in(t)); }
  at::Tensor out(const at::Tensor& t) const {
    return on_cpu_.out(t.defined() && t.scalar_type() != dtype_ ? t.to(dtype_) : t);
  }

 private:
  static at::Tensor widen(const at::Tensor& t) {
    const bool reduced =
        t.defined() && (t.scalar_type() == at::kHalf || t.scalar_type() == at::kBFloat16);
    return reduced ? t.to(at::kFloat) : t;
  }

  OnCpu on_cpu_;
  at::ScalarType dtype_;
};

std::tuple<at::Tensor, at::Tensor, at::Tensor> lstm_cell(const at::Tensor& igates,
                                                         const at::Tensor& hgates,
                                                         const at::Tensor& cx,
                                                         const c10::optional<at::Tensor>& b_ih,
                                                         const c10::optional<at::Tensor>& b_hh) {
  const at::Tensor bi = b_ih.value_or(at::Tensor());
  const at::Tensor bh = b_hh.value_or(at::Tensor());
  same_device({&igates, &hgates, &cx, &bi, &bh}, "_thnn_fused_lstm_cell");
  const CellMath c(igates);
  at::Tensor gates = CellMath::in(igates) + CellMath::in(hgates);
  if (bi.defined()) gates = gates + CellMath::in(bi) + CellMath::in(bh);
  const std::vector<at::Tensor> chunks = gates.chunk(4, 1);
  const at::Tensor i = chunks[0].sigmoid();
  const at::Tensor f = chunks[1].sigmoid();
  const at::Tensor g = chunks[2].tanh();
  const at::Tensor o = chunks[3].sigmoid();
  const at::Tensor cy = f * CellMath::in(cx) + i * g;
  const at::Tensor hy = o * cy.tanh();
  return {c.out(hy), c.out(cy), c.out(at::cat({i, f, g, o}, 1))};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> lstm_cell_backward(
    const c10::optional<at::Tensor>& grad_hy, const c10::optional<at::Tensor>& grad_cy,
    const at::Tensor& cx, const at::Tensor& cy, const at::Tensor& workspace, bool has_bias) {
  const CellMath c(workspace);
  const std::vector<at::Tensor> chunks = CellMath::in(workspace).chunk(4, 1);
  const at::Tensor& i = chunks[0];
  const at::Tensor& f = chunks[1];
  const at::Tensor& g = chunks[2];
  const at::Tensor& o = chunks[3];
  const at::Tensor tanh_cy = CellMath::in(cy).tanh();
  at::Tensor ghy = CellMath::in(grad_hy);
  const at::Tensor gcy = CellMath::in(grad_cy);
  if (!ghy.defined()) ghy = at::zeros_like(tanh_cy);
  at::Tensor gcx = ghy * o * (1 - tanh_cy * tanh_cy);
  if (gcy.defined()) gcx = gcx + gcy;
  const at::Tensor go = ghy * tanh_cy * o * (1 - o);
  const at::Tensor gi = gcx * g * i * (1 - i);
  const at::Tensor gg = gcx * i * (1 - g * g);
  const at::Tensor gf = gcx * CellMath::in(cx)*f * (1 - f);
  const at::Tensor grad_gates = at::cat({gi, gf, gg, go}, 1);
  const at::Tensor grad_bias = has_bias ? grad_gates.sum(0) : at::Tensor();
  return {c.out(grad_gates), c.out(gcx * f), c.out(grad_bias)};
}

std::tuple<at::Tensor, at::Tensor> gru_cell(const at::Tensor& igates, const at::Tensor& hgates,
                                            const at::Tensor& hx,
                                            const c10::optional<at::Tensor>& b_ih,
                                            const c10::optional<at::Tensor>& b_hh) {
  const at::Tensor bi = b_ih.value_or(at::Tensor());
  const at::Tensor bh = b_hh.value_or(at::Tensor());
  same_device({&igates, &hgates, &hx, &bi, &bh}, "_thnn_fused_gru_cell");
  const CellMath c(igates);
  at::Tensor ig = CellMath::in(igates);
  at::Tensor hg = CellMath::in(hgates);
  if (bi.defined()) {
    ig = ig + CellMath::in(bi);
    hg = hg + CellMath::in(bh);
  }
  const std::vector<at::Tensor> ic = ig.chunk(3, 1);
  const std::vector<at::Tensor> hc = hg.chunk(3, 1);
  const at::Tensor r = (ic[0] + hc[0]).sigmoid();
  const at::Tensor z = (ic[1] + hc[1]).sigmoid();
  const at::Tensor& hn = hc[2];
  const at::Tensor n = (ic[2] + r * hn).tanh();
  const at::Tensor h = CellMath::in(hx);
  const at::Tensor hy = n + z * (h - n);
  return {c.out(hy), c.out(at::cat({r, z, n, h, hn}, 1))};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> gru_cell_backward(
    const at::Tensor& grad_hy, const at::Tensor& workspace, bool has_bias) {
  const CellMath c(workspace);
  const std::vector<at::Tensor> chunks = CellMath::in(workspace).chunk(5, 1);
  const at::Tensor& r = chunks[0];
  const at::Tensor& z = chunks[1];
  const at::Tensor& n = chunks[2];
  const at::Tensor& h = chunks[3];
  const at::Tensor& hn = chunks[4];
  const at::Tensor go = CellMath::in(grad_hy);
  const at::Tensor gz = go * (h - n) * (1 - z) * z;
  const at::Tensor ghx = go * z;
  const at::Tensor gn = go * (1 - z) * (1 - n * n);
  const at::Tensor ghn = gn * r;
  const at::Tensor gr = gn * hn * (1 - r) * r;
  const at::Tensor gi = at::cat({gr, gz, gn}, 1);
  const at::Tensor gh = at::cat({gr, gz, ghn}, 1);
  const at::Tensor gib = has_bias ? gi.sum(0) : at::Tensor();
  const at::Tensor ghb = has_bias ? gh.sum(0) : at::Tensor();
  return {c.out(gi), c.out(gh), c.out(ghx), c.out(gib), c.out(ghb)};
}

// GradScaler's kernels (CUDA-only in LibTorch 1.13): every gradient is
// multiplied by inv_scale, and found_inf becomes 1 when any holds an inf or
// a NaN.
void amp_unscale(at::TensorList grads, at::Tensor& found_inf, const at::Tensor& inv_scale) {
  const at::Tensor found = OnCpu::in(found_inf);
  const at::Tensor inv = OnCpu::in(inv_scale);
  for (const at::Tensor& grad : grads) {
    if (!grad.defined()) continue;
    same_device({&grad, &found_inf, &inv_scale}, "_amp_foreach_non_finite_check_and_unscale_");
    at::Tensor g = OnCpu::in(grad);
    if (!at::isfinite(g).all().item<bool>()) found.fill_(1.0);
    g.mul_(inv);
  }
}

at::Tensor& amp_update_scale(at::Tensor& self, at::Tensor& growth_tracker,
                             const at::Tensor& found_inf, double growth_factor,
                             double backoff_factor, int64_t growth_interval) {
  same_device({&self, &growth_tracker, &found_inf}, "_amp_update_scale_");
  const at::Tensor scale = OnCpu::in(self);
  const at::Tensor tracker = OnCpu::in(growth_tracker);
  if (OnCpu::in(found_inf).item<float>() != 0.0F) {
    scale.fill_(static_cast<float>(scale.item<float>() * backoff_factor));
    tracker.fill_(0);
    return self;
  }
  const int64_t successful = tracker.item<int64_t>() + 1;
  if (successful == growth_interval) {
    const auto grown = static_cast<float>(scale.item<float>() * growth_factor);
    if (std::isfinite(grown)) scale.fill_(grown);
    tracker.fill_(0);
  } else {
    tracker.fill_(successful);
  }
  return self;
}

// cuDNN's convolutions, which programs (and autocast's list of ops) may
// call directly: a GPU with cuDNN computes the convolution they name,
// without bias; fake CUDA's convolution kernel computes it on the CPU
// (their backward is convolution_backward's, as on a GPU).
// cudnn_convolution(self, weight, padding, stride, dilation, groups, ...);
// cudnn_convolution_transpose(self, weight, padding, output_padding, stride,
// dilation, groups, ...): the same places in 1.13, 2.6 and 2.14.
void cudnn_convolution(const c10::OperatorHandle& op, c10::DispatchKeySet /*keys*/,
                       torch::jit::Stack* stack) {
  static const c10::OperatorHandle convolution =
      c10::Dispatcher::singleton().findSchemaOrThrow("aten::convolution", "");
  const bool transposed = op.schema().name() == "aten::cudnn_convolution_transpose";
  const std::vector<c10::IValue> args = torch::jit::pop(*stack, op.schema().arguments().size());
  std::size_t i = 2;
  const c10::IValue& padding = args[i++];
  const c10::IValue output_padding =
      transposed ? args[i++] : c10::IValue(std::vector<int64_t>(padding.toListRef().size(), 0));
  const c10::IValue& stride = args[i++];
  const c10::IValue& dilation = args[i++];
  const c10::IValue& groups = args[i++];
  torch::jit::push(*stack, args[0], args[1], c10::IValue(), stride, padding, dilation, transposed,
                   output_padding, groups);
  convolution.callBoxed(stack);
}

// rms_norm's fused backward (nn.functional.rms_norm under autocast on CUDA
// takes _fused_rms_norm), whose kernels are CUDA's and MPS's only:
// _fused_rms_norm_backward(grad_out, input, normalized_shape, rstd, weight?,
// output_mask[2]) -> (grad_input, grad_weight), computed as torch's own
// decomposition (torch/_decomp/decompositions.py) computes it, in float32 for
// float16 and bfloat16, on the fake tensors themselves. Registered only where
// the running torch has the op (compat.h).
void fused_rms_norm_backward(const c10::OperatorHandle& op, c10::DispatchKeySet /*keys*/,
                             torch::jit::Stack* stack) {
  const std::vector<c10::IValue> args = torch::jit::pop(*stack, op.schema().arguments().size());
  const at::Tensor& input = args[1].toTensor();
  const std::vector<int64_t> normalized_shape = args[2].toIntVector();
  const at::Tensor weight = args[4].isTensor() ? args[4].toTensor() : at::Tensor();
  const c10::List<bool> mask = args[5].toBoolList();
  const auto n = static_cast<int64_t>(normalized_shape.size());
  same_device({&args[0].toTensor(), &input, &args[3].toTensor(), &weight},
              "_fused_rms_norm_backward");
  const bool reduced = input.scalar_type() == at::kHalf || input.scalar_type() == at::kBFloat16;
  const at::ScalarType compute = reduced ? at::kFloat : input.scalar_type();
  const int64_t axis = input.dim() - n;
  std::vector<int64_t> inner;
  std::vector<int64_t> outer;
  for (int64_t d = 0; d < input.dim(); ++d) (d >= axis ? inner : outer).push_back(d);
  at::Tensor grad_input;
  at::Tensor grad_weight;
  if (input.numel() == 0) {
    if (mask.get(0)) grad_input = at::zeros_like(input);
    if (mask.get(1)) grad_weight = at::zeros(input.sizes().slice(axis), input.options());
  } else {
    const at::Tensor g = args[0].toTensor().to(compute).contiguous();
    const at::Tensor x = input.to(compute).contiguous();
    at::Tensor rstd = args[3].toTensor();
    while (rstd.dim() < x.dim()) rstd = rstd.unsqueeze(-1);
    const at::Tensor g_hat = weight.defined() ? g * weight.to(compute) : g;
    const at::Tensor x_hat = x * rstd;
    int64_t count = 1;
    for (const int64_t d : inner) count *= x.size(d);
    if (mask.get(0)) {
      const at::Tensor sum = (x_hat * g_hat).sum(inner, /*keepdim=*/true);
      grad_input = ((g_hat - (x_hat / count) * sum) * rstd).to(input.scalar_type());
    }
    if (mask.get(1) && weight.defined()) {
      const at::Tensor full = g * x_hat;
      grad_weight = (outer.empty() ? full : full.sum(outer)).to(input.scalar_type());
    }
  }
  torch::jit::push(*stack, grad_input, grad_weight);
}

// Pinned memory: LibTorch sends is_pinned and _pin_memory of a CPU tensor to
// the CUDA key (the device they pin for). Host memory from
// fake_pinned_allocator() is what counts as pinned.
bool is_pinned(const at::Tensor& self, c10::optional<c10::Device> /*device*/) {
  return self.is_cpu() && self.has_storage() && fake_is_pinned(self.storage().data());
}

at::Tensor pin_memory(const at::Tensor& self, c10::optional<c10::Device> device) {
  TORCH_CHECK(!device || device->is_cuda(), "pin_memory: expected a CUDA device, got ", *device);
  TORCH_CHECK(self.is_cpu() && self.layout() == c10::kStrided, "cannot pin '", self.toString(),
              "' only dense CPU tensors can be pinned");
  const auto nbytes = static_cast<int64_t>(
      at::detail::computeStorageNbytes(self.sizes(), self.strides(), self.dtype().itemsize()));
  c10::Storage storage(c10::Storage::use_byte_size_t(), nbytes, fake_pinned_allocator(),
                       /*resizable=*/false);
  at::Tensor pinned = at::empty({0}, self.options()).set_(storage, 0, self.sizes(), self.strides());
  pinned.copy_(self);
  return pinned;
}

// tensor.record_stream(s): a GPU keeps the memory from reuse until the work
// queued on `s` is done; fake CUDA's work is done when an op returns.
void record_stream(at::Tensor& /*self*/, c10::Stream /*stream*/) {}

}  // namespace

void register_fake_cuda_kernels() {
  auto* m = new torch::Library(torch::Library::IMPL, "aten", c10::DispatchKey::CUDA, __FILE__,
                               static_cast<std::uint32_t>(__LINE__));
  m->impl("_thnn_fused_lstm_cell", TORCH_FN(lstm_cell));
  m->impl("_thnn_fused_lstm_cell_backward_impl", TORCH_FN(lstm_cell_backward));
  m->impl("_thnn_fused_gru_cell", TORCH_FN(gru_cell));
  m->impl("_thnn_fused_gru_cell_backward", TORCH_FN(gru_cell_backward));
  m->impl("_amp_foreach_non_finite_check_and_unscale_", TORCH_FN(amp_unscale));
  m->impl("_amp_update_scale_", TORCH_FN(amp_update_scale));
  m->impl("is_pinned", TORCH_FN(is_pinned));
  m->impl("_pin_memory", TORCH_FN(pin_memory));
  m->impl("record_stream", TORCH_FN(record_stream));
  m->impl("cudnn_convolution", torch::CppFunction::makeFromBoxedFunction<&cudnn_convolution>());
  m->impl("cudnn_convolution_transpose",
          torch::CppFunction::makeFromBoxedFunction<&cudnn_convolution>());
  if (c10::Dispatcher::singleton().findSchema({kFusedRmsNormBackward, ""}).has_value()) {
    m->impl("_fused_rms_norm_backward",
            torch::CppFunction::makeFromBoxedFunction<&fused_rms_norm_backward>());
  }
}

}  // namespace devcheck::detail
