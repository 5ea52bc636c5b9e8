// Fake CUDA's kernels for CUDA-only ops: GradScaler's, pinning, the fused
// RNN cells, cuDNN's convolutions, rms_norm's fused backward, with CUDA's
// semantics.

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "devcheck/fake_cuda.h"
#include "fake/error_of.h"

namespace devcheck {
namespace {

using ::testing::HasSubstr;

using testing::error_of;

const c10::Device kCuda0("cuda:0");

TEST(FakeCudaKernels, UnscaleMultipliesEveryGradientAndFlagsANonFiniteOne) {
  fake_cuda(2);
  std::vector<at::Tensor> grads{at::full({3}, 4.0, kCuda0), at::full({2}, 8.0, kCuda0)};
  at::Tensor found = at::zeros({1}, kCuda0);
  const at::Tensor inv = at::full({1}, 0.25, kCuda0);
  at::_amp_foreach_non_finite_check_and_unscale_(grads, found, inv);
  EXPECT_EQ(found.item<float>(), 0.0F);
  EXPECT_TRUE(at::equal(grads[0].cpu(), at::full({3}, 1.0)));
  EXPECT_TRUE(at::equal(grads[1].cpu(), at::full({2}, 2.0)));
  grads[1].fill_(std::numeric_limits<float>::infinity());
  at::_amp_foreach_non_finite_check_and_unscale_(grads, found, inv);
  EXPECT_EQ(found.item<float>(), 1.0F);
}

TEST(FakeCudaKernels, ScaleUpdateBacksOffOnInfAndGrowsAfterTheInterval) {
  fake_cuda(2);
  at::Tensor scale = at::full({1}, 1024.0, kCuda0);
  at::Tensor tracker = at::zeros({1}, at::TensorOptions().device(kCuda0).dtype(at::kInt));
  const at::Tensor inf = at::ones({1}, kCuda0);
  const at::Tensor none = at::zeros({1}, kCuda0);
  at::_amp_update_scale_(scale, tracker, inf, 2.0, 0.5, 2);
  EXPECT_EQ(scale.item<float>(), 512.0F);
  EXPECT_EQ(tracker.item<int>(), 0);
  at::_amp_update_scale_(scale, tracker, none, 2.0, 0.5, 2);
  EXPECT_EQ(scale.item<float>(), 512.0F);
  EXPECT_EQ(tracker.item<int>(), 1);
  at::_amp_update_scale_(scale, tracker, none, 2.0, 0.5, 2);
  EXPECT_EQ(scale.item<float>(), 1024.0F);
  EXPECT_EQ(tracker.item<int>(), 0);
}

TEST(FakeCudaKernels, PinningTakesDenseCpuTensorsAndKeepsTheirValues) {
  fake_cuda(2);
  const at::Tensor t = at::arange(6.0).reshape({2, 3}).t();
  const at::Tensor p = t.pin_memory();
  EXPECT_TRUE(p.is_pinned());
  EXPECT_TRUE(at::equal(p, t));
  EXPECT_EQ(p.strides(), t.strides());
  EXPECT_THAT(error_of([] { (void)at::ones({2}, kCuda0).pin_memory(); }), HasSubstr("cannot pin"));
}

TEST(FakeCudaKernels, FusedLstmAndGruCellsComputeWhatTheCpuCellsDo) {
  fake_cuda(2);
  at::manual_seed(1);
  const at::Tensor x = at::randn({4, 3});
  const at::Tensor h = at::randn({4, 5});
  const at::Tensor c = at::randn({4, 5});
  const at::Tensor w_ih = at::randn({20, 3});
  const at::Tensor w_hh = at::randn({20, 5});
  const at::Tensor b_ih = at::randn({20});
  const at::Tensor b_hh = at::randn({20});
  const auto cpu = at::lstm_cell(x, {h, c}, w_ih, w_hh, b_ih, b_hh);
  const auto gpu = at::lstm_cell(x.to(kCuda0), {h.to(kCuda0), c.to(kCuda0)}, w_ih.to(kCuda0),
                                 w_hh.to(kCuda0), b_ih.to(kCuda0), b_hh.to(kCuda0));
  EXPECT_EQ(std::get<0>(gpu).device(), kCuda0);
  EXPECT_TRUE(at::allclose(std::get<0>(gpu).cpu(), std::get<0>(cpu), 1e-5, 1e-6));
  EXPECT_TRUE(at::allclose(std::get<1>(gpu).cpu(), std::get<1>(cpu), 1e-5, 1e-6));
  const at::Tensor gru_cpu = at::gru_cell(x, h, w_ih.narrow(0, 0, 15), w_hh.narrow(0, 0, 15),
                                          b_ih.narrow(0, 0, 15), b_hh.narrow(0, 0, 15));
  const at::Tensor gru_gpu =
      at::gru_cell(x.to(kCuda0), h.to(kCuda0), w_ih.narrow(0, 0, 15).to(kCuda0),
                   w_hh.narrow(0, 0, 15).to(kCuda0), b_ih.narrow(0, 0, 15).to(kCuda0),
                   b_hh.narrow(0, 0, 15).to(kCuda0));
  EXPECT_TRUE(at::allclose(gru_gpu.cpu(), gru_cpu, 1e-5, 1e-6));
}

// CUDA's fused cells compute float16 in float32 and store float16 (autocast
// sends lstm_cell and gru_cell there in float16).
TEST(FakeCudaKernels, FusedCellsInFloat16ComputeInFloat32AndReturnFloat16) {
  fake_cuda(2);
  at::manual_seed(2);
  auto half = [](const at::Tensor& t) { return t.to(at::kHalf); };
  const at::Tensor x = half(at::randn({4, 3}));
  const at::Tensor h = half(at::randn({4, 5}));
  const at::Tensor c = half(at::randn({4, 5}));
  const at::Tensor w_ih = half(at::randn({20, 3}));
  const at::Tensor w_hh = half(at::randn({20, 5}));
  const auto f = [](const at::Tensor& t) { return t.to(at::kFloat); };
  const auto cpu = at::lstm_cell(f(x), {f(h), f(c)}, f(w_ih), f(w_hh));
  const at::Tensor hx = h.to(kCuda0).requires_grad_();
  const auto gpu =
      at::lstm_cell(x.to(kCuda0), {hx, c.to(kCuda0)}, w_ih.to(kCuda0), w_hh.to(kCuda0));
  EXPECT_EQ(std::get<0>(gpu).scalar_type(), at::kHalf);
  EXPECT_EQ(std::get<1>(gpu).scalar_type(), at::kHalf);
  EXPECT_TRUE(at::allclose(f(std::get<0>(gpu).cpu()), std::get<0>(cpu), 1e-2, 1e-2));
  EXPECT_TRUE(at::allclose(f(std::get<1>(gpu).cpu()), std::get<1>(cpu), 1e-2, 1e-2));
  (std::get<0>(gpu).sum() + std::get<1>(gpu).sum()).backward();
  EXPECT_EQ(hx.grad().scalar_type(), at::kHalf);
  EXPECT_TRUE(at::isfinite(hx.grad().cpu()).all().item<bool>());
  const at::Tensor gru = at::gru_cell(x.to(kCuda0), h.to(kCuda0), w_ih.narrow(0, 0, 15).to(kCuda0),
                                      w_hh.narrow(0, 0, 15).to(kCuda0));
  EXPECT_EQ(gru.scalar_type(), at::kHalf);
  EXPECT_TRUE(at::allclose(
      f(gru.cpu()), at::gru_cell(f(x), f(h), f(w_ih.narrow(0, 0, 15)), f(w_hh.narrow(0, 0, 15))),
      1e-2, 1e-2));
}

// cudnn_convolution and cudnn_convolution_transpose, which autocast's list
// holds, compute the convolution they name (no bias), with its gradient.
TEST(FakeCudaKernels, CudnnConvolutionsComputeTheConvolutionTheyName) {
  fake_cuda(2);
  at::manual_seed(3);
  const at::Tensor x = at::randn({2, 3, 6, 6});
  const at::Tensor w = at::randn({4, 3, 3, 3});
  const at::Tensor xc = x.to(kCuda0).requires_grad_();
  const at::Tensor got =
      at::cudnn_convolution(xc, w.to(kCuda0), {1, 1}, {2, 2}, {1, 1}, 1, false, true, false);
  EXPECT_EQ(got.device(), kCuda0);
  EXPECT_TRUE(at::equal(got.cpu(), at::conv2d(x, w, {}, {2, 2}, {1, 1})));
  got.sum().backward();
  const at::Tensor xr = x.clone().requires_grad_();
  at::conv2d(xr, w, {}, {2, 2}, {1, 1}).sum().backward();
  EXPECT_TRUE(at::allclose(xc.grad().cpu(), xr.grad(), 1e-5, 1e-6));
  const at::Tensor wt = at::randn({3, 2, 3, 3});
  const at::Tensor transposed = at::cudnn_convolution_transpose(
      x.to(kCuda0), wt.to(kCuda0), {1, 1}, {1, 1}, {2, 2}, {1, 1}, 1, false, true, false);
  EXPECT_TRUE(at::equal(transposed.cpu(), at::conv_transpose2d(x, wt, {}, {2, 2}, {1, 1}, {1, 1})));
}

// rms_norm's fused backward (torch 2.14: autocast's rms_norm on CUDA takes
// _fused_rms_norm, whose backward has CUDA and MPS kernels only) gives the
// gradients the composite formula's autograd gives on the CPU, for float32
// and, computed in float32, for float16. Called by name: older torches lack it.
TEST(FakeCudaKernels, FusedRmsNormBackwardGivesTheCompositeGradients) {
  const auto op = c10::Dispatcher::singleton().findSchema({"aten::_fused_rms_norm_backward", ""});
  if (!op) GTEST_SKIP() << "this torch has no aten::_fused_rms_norm_backward";
  fake_cuda(2);
  at::manual_seed(5);
  for (const at::ScalarType dtype : {at::kFloat, at::kHalf}) {
    const at::Tensor x = at::randn({3, 4, 5}).to(dtype).to(at::kFloat);
    const at::Tensor w = at::randn({4, 5}).to(dtype).to(at::kFloat);
    const at::Tensor g = at::randn({3, 4, 5}).to(dtype).to(at::kFloat);
    const double eps = 1e-6;
    const at::Tensor xr = x.clone().requires_grad_();
    const at::Tensor wr = w.clone().requires_grad_();
    const at::Tensor rstd = at::rsqrt(x.pow(2).mean({1, 2}, /*keepdim=*/true) + eps);
    (xr * at::rsqrt(xr.pow(2).mean({1, 2}, true) + eps) * wr).backward(g);
    torch::jit::Stack stack{
        g.to(dtype).to(kCuda0), x.to(dtype).to(kCuda0), c10::IValue(std::vector<int64_t>{4, 5}),
        rstd.to(kCuda0),        w.to(dtype).to(kCuda0), c10::IValue(c10::List<bool>({true, true}))};
    op->callBoxed(&stack);
    ASSERT_EQ(stack.size(), 2U);
    const at::Tensor grad_input = stack[0].toTensor();
    const at::Tensor grad_weight = stack[1].toTensor();
    EXPECT_EQ(grad_input.device(), kCuda0);
    EXPECT_EQ(grad_input.scalar_type(), dtype);
    EXPECT_EQ(grad_weight.scalar_type(), dtype);
    const double tolerance = dtype == at::kHalf ? 1e-2 : 1e-5;
    EXPECT_TRUE(at::allclose(grad_input.cpu().to(at::kFloat), xr.grad(), tolerance, tolerance))
        << grad_input.cpu() << xr.grad();
    EXPECT_TRUE(at::allclose(grad_weight.cpu().to(at::kFloat), wr.grad(), tolerance, tolerance))
        << grad_weight.cpu() << wr.grad();
  }
}

TEST(FakeCudaKernels, AFusedCellNamesMixedDevices) {
  fake_cuda(2);
  const at::Tensor g = at::ones({2, 8}, kCuda0);
  EXPECT_THAT(
      error_of([&] {
        (void)at::_thnn_fused_lstm_cell(g, g, at::ones({2, 2}));
      }),
      HasSubstr("Expected all tensors to be on the same device, but found at least two devices, "
                "cuda:0 and cpu!"));
}

}  // namespace
}  // namespace devcheck
