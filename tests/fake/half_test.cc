// float16 and bfloat16 where the CPU lacks the kernel or the path a GPU has (half.h): the
// op runs in float32 and comes back in the dtype it returns, while a dtype
// error a GPU gives too stays that error.

#include "fake/half.h"

#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "detail/compat.h"
#include "devcheck/fake_cuda.h"
#include "fake/error_of.h"

namespace devcheck {
namespace {

using ::testing::HasSubstr;

const c10::Device kCuda0("cuda:0");

using testing::error_of;

at::Tensor half_randn(at::IntArrayRef sizes) { return at::randn(sizes).to(at::kHalf); }

TEST(FakeHalf, HalfOpsTheCpuLacksRunInFloatAndComeBackAsHalf) {
  fake_cuda(2);
  const at::Tensor a = half_randn({4, 4});
  const at::Tensor b = half_randn({4, 4});
  const at::Tensor got = at::mm(a.to(kCuda0), b.to(kCuda0));
  EXPECT_EQ(got.scalar_type(), at::kHalf);
  EXPECT_EQ(got.device(), kCuda0);
  EXPECT_TRUE(at::equal(got.cpu(), at::mm(a.to(at::kFloat), b.to(at::kFloat)).to(at::kHalf)));
  at::Tensor out = at::empty({4, 4}, at::TensorOptions().device(kCuda0).dtype(at::kHalf));
  at::relu_(out.copy_(got.neg()));
  EXPECT_TRUE(at::equal(out.cpu(), at::relu(got.cpu().to(at::kFloat).neg()).to(at::kHalf)));
}

// bfloat16 likewise: 1.13's CPU has no BFloat16 mse_loss or prod, a GPU has
// both; they run in float32 and come back as BFloat16 (2.6 and 2.14 have the
// CPU kernels, which round alike to within bfloat16's last bit).
TEST(FakeHalf, BFloat16OpsTheCpuLacksRunInFloatAndComeBackAsBFloat16) {
  fake_cuda(2);
  const at::Tensor a = at::randn({4, 5}).to(at::kBFloat16);
  const at::Tensor b = at::randn({4, 5}).to(at::kBFloat16);
  const at::Tensor mse = at::mse_loss(a.to(kCuda0), b.to(kCuda0));
  const at::Tensor prod = at::prod(a.to(kCuda0), 1);
  const at::Tensor mse_f32 = at::mse_loss(a.to(at::kFloat), b.to(at::kFloat)).to(at::kBFloat16);
  const at::Tensor prod_f32 = at::prod(a.to(at::kFloat), 1).to(at::kBFloat16);
  for (const at::Tensor& got : {mse, prod}) {
    EXPECT_EQ(got.scalar_type(), at::kBFloat16);
    EXPECT_EQ(got.device(), kCuda0);
  }
#if DEVCHECK_TORCH_AT_LEAST(2, 0)
  EXPECT_TRUE(at::allclose(mse.cpu().to(at::kFloat), mse_f32.to(at::kFloat), 1e-2, 1e-3));
  EXPECT_TRUE(at::allclose(prod.cpu().to(at::kFloat), prod_f32.to(at::kFloat), 1e-2, 1e-3));
#else
  EXPECT_THAT(error_of([&] { (void)at::mse_loss(a, b); }),
              HasSubstr("not implemented for 'BFloat16'"));
  EXPECT_TRUE(at::equal(mse.cpu(), mse_f32));
  EXPECT_TRUE(at::equal(prod.cpu(), prod_f32));
#endif
  // Written in place: the caller's BFloat16 tensor holds the result.
  at::Tensor out = at::empty({4}, at::TensorOptions().device(kCuda0).dtype(at::kBFloat16));
  at::prod_out(out, a.to(kCuda0), 1);
  EXPECT_TRUE(at::equal(out.cpu(), prod.cpu()));
}

// 1.13's CPU sends a transposed bfloat16 convolution (and its backward) to
// oneDNN's forward convolution, which fails where a GPU computes it: fake
// CUDA runs it in float32 at once (compat.h); later torches' CPU computes it.
TEST(FakeHalf, TransposedBFloat16ConvolutionComputesAsAGpuDoes) {
  fake_cuda(2);
  const at::Tensor x = at::randn({1, 2, 5, 5}).to(at::kBFloat16);
  const at::Tensor w = at::randn({2, 3, 3, 3}).to(at::kBFloat16);
  const at::Tensor xc = x.to(kCuda0).requires_grad_();
  const at::Tensor wc = w.to(kCuda0).requires_grad_();
  const at::Tensor y = at::conv_transpose2d(xc, wc);
  EXPECT_EQ(y.scalar_type(), at::kBFloat16);
  EXPECT_EQ(y.sizes(), at::IntArrayRef({1, 3, 7, 7}));
  y.to(at::kFloat).sum().backward();
  const at::Tensor xf = x.to(at::kFloat).requires_grad_();
  const at::Tensor wf = w.to(at::kFloat).requires_grad_();
  const at::Tensor yf = at::conv_transpose2d(xf, wf);
  yf.to(at::kBFloat16).to(at::kFloat).sum().backward();
  EXPECT_TRUE(
      at::allclose(y.cpu().to(at::kFloat), yf.to(at::kBFloat16).to(at::kFloat), 1e-2, 1e-2));
  EXPECT_TRUE(at::allclose(xc.grad().cpu().to(at::kFloat), xf.grad(), 1e-2, 1e-2));
  EXPECT_TRUE(at::allclose(wc.grad().cpu().to(at::kFloat), wf.grad(), 1e-2, 1e-2));
#if DEVCHECK_CPU_BF16_TRANSPOSED_CONV_MISROUTED
  EXPECT_THAT(error_of([&] { (void)at::conv_transpose2d(x, w); }), HasSubstr("to have 3 channels"));
  EXPECT_TRUE(at::equal(y.cpu(), yf.to(at::kBFloat16)));
#endif

  const c10::OperatorHandle convolution =
      c10::Dispatcher::singleton().findSchemaOrThrow("aten::convolution", "");
  const std::vector<int64_t> ones{1, 1};
  const std::vector<int64_t> zeros{0, 0};
  torch::jit::Stack stack{x, w, c10::IValue(), ones, zeros, ones, true, zeros, int64_t{1}};
  EXPECT_EQ(detail::cpu_fails_half_path(convolution, stack, 0),
            bool{DEVCHECK_CPU_BF16_TRANSPOSED_CONV_MISROUTED});
  stack[6] = false;
  EXPECT_FALSE(detail::cpu_fails_half_path(convolution, stack, 0));
  stack[6] = true;
  stack[0] = x.to(at::kHalf);
  EXPECT_FALSE(detail::cpu_fails_half_path(convolution, stack, 0));
}

// softmax(x_half, dim, dtype=float32) and autocast's softmax of a float16
// tensor take CUDA's half-to-float path, which the CPU kernel refuses (1.13,
// 2.6, 2.14): computed as float32 softmax of the float16 values. (Within
// float32 rounding, should a torch's CPU learn the path itself.)
TEST(FakeHalf, SoftmaxOfHalfIntoFloat32ComputesWhatTheCpuComputesInFloat32) {
  fake_cuda(2);
  const at::Tensor x = half_randn({3, 7});
  const at::Tensor reference = x.to(at::kFloat);
  const at::Tensor soft = at::softmax(x.to(kCuda0), 1, at::kFloat);
  EXPECT_EQ(soft.scalar_type(), at::kFloat);
  EXPECT_EQ(soft.device(), kCuda0);
  EXPECT_TRUE(at::allclose(soft.cpu(), at::softmax(reference, 1), 1e-6, 1e-7));
  const at::Tensor log_soft = at::log_softmax(x.to(kCuda0), 0, at::kFloat);
  EXPECT_EQ(log_soft.scalar_type(), at::kFloat);
  EXPECT_TRUE(at::allclose(log_soft.cpu(), at::log_softmax(reference, 0), 1e-6, 1e-7));
}

// Their backward gets float32 gradients and outputs and returns the Half
// gradient of the Half input (CUDA's _softmax_backward_data with input_dtype
// Half).
TEST(FakeHalf, SoftmaxBackwardIntoAHalfGradientComputesInFloat32) {
  fake_cuda(2);
  const at::Tensor x = half_randn({3, 7});
  const at::Tensor out = at::softmax(x.to(at::kFloat), 1);
  const at::Tensor grad = at::randn({3, 7});
  const at::Tensor got = at::_softmax_backward_data(grad.to(kCuda0), out.to(kCuda0), 1, at::kHalf);
  EXPECT_EQ(got.scalar_type(), at::kHalf);
  const at::Tensor want = at::_softmax_backward_data(grad, out, 1, at::kFloat);
  EXPECT_TRUE(at::allclose(got.cpu().to(at::kFloat), want, 1e-3, 1e-3));
  const at::Tensor log_out = at::log_softmax(x.to(at::kFloat), 1);
  const at::Tensor log_got =
      at::_log_softmax_backward_data(grad.to(kCuda0), log_out.to(kCuda0), 1, at::kHalf);
  EXPECT_EQ(log_got.scalar_type(), at::kHalf);
  const at::Tensor log_want = at::_log_softmax_backward_data(grad, log_out, 1, at::kFloat);
  EXPECT_TRUE(at::allclose(log_got.cpu().to(at::kFloat), log_want, 1e-3, 1e-3));

  const at::Tensor leaf = x.to(kCuda0).requires_grad_();
  at::softmax(leaf, 1, at::kFloat).mul(grad.to(kCuda0)).sum().backward();
  ASSERT_TRUE(leaf.grad().defined());
  EXPECT_EQ(leaf.grad().scalar_type(), at::kHalf);
  EXPECT_EQ(leaf.grad().device(), kCuda0);
  const at::Tensor ref_leaf = x.to(at::kFloat).requires_grad_();
  at::softmax(ref_leaf, 1).mul(grad).sum().backward();
  EXPECT_TRUE(at::allclose(leaf.grad().cpu().to(at::kFloat), ref_leaf.grad(), 1e-3, 1e-3));
}

// A dtype mix a GPU rejects stays rejected, in the GPU's words, though a
// float32 run would make the dtypes one.
TEST(FakeHalf, AHalfAndFloatMixAGpuRejectsKeepsItsMessage) {
  fake_cuda(2);
  const at::Tensor a = half_randn({2, 2});
  const at::Tensor b = at::randn({2, 2});
#if DEVCHECK_TORCH_AT_LEAST(2, 0)
  // mm's and addmm's Meta functions check first, on a GPU as on the CPU.
  const std::string mm = error_of([&] { (void)at::mm(a, b); });
  const std::string addmm = error_of([&] { (void)at::addmm(a, a, b); });
#else
  // CUDA's addmm (mm runs it too) checks; the CPU fails on Half first.
  const std::string mm =
      "expected mat1 and mat2 to have the same dtype, but got: c10::Half != float";
  const std::string& addmm = mm;
#endif
  EXPECT_EQ(error_of([&] { (void)at::mm(a.to(kCuda0), b.to(kCuda0)); }), mm);
  EXPECT_EQ(error_of([&] { (void)at::addmm(a.to(kCuda0), a.to(kCuda0), b.to(kCuda0)); }), addmm);
  EXPECT_NE(mm, "(no error)");
}

// bmm and baddbmm likewise. From 2.0 on the CPU's kernel (or Meta check)
// refuses the mix as a GPU does; 1.13's CUDA kernel reads both batches as
// the dtype it dispatched on (bmm: batch2's, the result's; baddbmm: self's),
// where the CPU's would fail on Half first or compute.
TEST(FakeHalf, AHalfAndFloatMixOfBatchedMatmulsIsRefusedAsAGpuRefusesIt) {
  fake_cuda(2);
  const at::Tensor h = at::randn({2, 3, 4}).to(at::kHalf);
  const at::Tensor f = at::randn({2, 4, 5});
  const at::Tensor h2 = at::randn({2, 4, 5}).to(at::kHalf);
  const at::Tensor f1 = at::randn({2, 3, 4});
  const at::Tensor self_f = at::randn({2, 3, 5});
  const at::Tensor self_h = self_f.to(at::kHalf);
  auto on_gpu = [](const at::Tensor& t) { return t.to(kCuda0); };
  const std::string bmm_hf = error_of([&] { (void)at::bmm(on_gpu(h), on_gpu(f)); });
  const std::string bmm_fh = error_of([&] { (void)at::bmm(on_gpu(f1), on_gpu(h2)); });
  const std::string baddbmm_fhh =
      error_of([&] { (void)at::baddbmm(on_gpu(self_f), on_gpu(h), on_gpu(h2)); });
  const std::string baddbmm_hhf =
      error_of([&] { (void)at::baddbmm(on_gpu(self_h), on_gpu(h), on_gpu(f)); });
  const std::string matmul_hf = error_of([&] { (void)at::matmul(on_gpu(h), on_gpu(f)); });
#if DEVCHECK_MATMUL_DTYPES_CHECKED_IN_CUDA_KERNEL
  EXPECT_EQ(bmm_hf, "expected scalar type Float but found Half");
  EXPECT_EQ(bmm_fh, "expected scalar type Half but found Float");
  EXPECT_EQ(baddbmm_fhh, "expected scalar type Float but found Half");
  EXPECT_EQ(baddbmm_hhf, "expected scalar type Half but found Float");
  EXPECT_EQ(matmul_hf, bmm_hf);
  // One dtype computes, in it.
  EXPECT_EQ(at::bmm(on_gpu(h), on_gpu(h2)).scalar_type(), at::kHalf);
  EXPECT_EQ(at::baddbmm(on_gpu(self_h), on_gpu(h), on_gpu(h2)).scalar_type(), at::kHalf);
#else
  EXPECT_EQ(bmm_hf, error_of([&] { (void)at::bmm(h, f); }));
  EXPECT_EQ(bmm_fh, error_of([&] { (void)at::bmm(f1, h2); }));
  EXPECT_EQ(baddbmm_fhh, error_of([&] { (void)at::baddbmm(self_f, h, h2); }));
  EXPECT_EQ(baddbmm_hhf, error_of([&] { (void)at::baddbmm(self_h, h, f); }));
  EXPECT_EQ(matmul_hf, error_of([&] { (void)at::matmul(h, f); }));
#endif
  for (const std::string& m : {bmm_hf, bmm_fh, baddbmm_fhh, baddbmm_hhf, matmul_hf}) {
    EXPECT_NE(m, "(no error)");
  }
}

TEST(FakeHalf, HalfIsFoundInTensorsAndDtypeArguments) {
  fake_cuda(2);
  const c10::OperatorHandle backward =
      c10::Dispatcher::singleton().findSchemaOrThrow("aten::_softmax_backward_data", "");
  const at::Tensor f = at::ones({2});
  torch::jit::Stack stack{f, f, int64_t{0}, static_cast<int64_t>(at::kHalf)};
  EXPECT_EQ(detail::half_use(backward, stack, 0), detail::HalfUse::kDtypeOnly);
  stack[3] = static_cast<int64_t>(at::kFloat);
  EXPECT_EQ(detail::half_use(backward, stack, 0), detail::HalfUse::kNone);
  stack[1] = f.to(at::kHalf);
  EXPECT_EQ(detail::half_use(backward, stack, 0), detail::HalfUse::kTensors);
  stack[1] = f;
  stack[3] = static_cast<int64_t>(at::kBFloat16);
  EXPECT_EQ(detail::half_use(backward, stack, 0), detail::HalfUse::kDtypeOnly);
  stack[1] = f.to(at::kBFloat16);
  EXPECT_EQ(detail::half_use(backward, stack, 0), detail::HalfUse::kTensors);
}

TEST(FakeHalf, OnlyTheCpusMissingHalfKernelsAndPathsAreRetried) {
  auto lacks = [](const char* message, detail::HalfUse use) {
    try {
      TORCH_CHECK(false, message);
    } catch (const c10::Error& e) {
      return detail::cpu_lacks_half_path(e, use);
    }
    return false;
  };
  using detail::HalfUse;
  EXPECT_TRUE(lacks("\"addmm_impl_cpu_\" not implemented for 'Half'", HalfUse::kTensors));
  EXPECT_TRUE(
      lacks("softmax with half to float conversion is not supported on CPU", HalfUse::kTensors));
  EXPECT_TRUE(lacks("expected scalar type Float but found Half", HalfUse::kDtypeOnly));
  EXPECT_FALSE(lacks("expected scalar type Float but found Half", HalfUse::kTensors));
  EXPECT_FALSE(lacks("self and mat2 must have the same dtype", HalfUse::kTensors));
  EXPECT_FALSE(lacks("\"addmm_impl_cpu_\" not implemented for 'Half'", HalfUse::kNone));
  EXPECT_TRUE(lacks("\"mse_cpu\" not implemented for 'BFloat16'", HalfUse::kTensors));
  EXPECT_TRUE(lacks("expected scalar type Float but found BFloat16", HalfUse::kDtypeOnly));
  EXPECT_FALSE(lacks("expected scalar type Float but found BFloat16", HalfUse::kTensors));
  EXPECT_FALSE(lacks("Unsupported dtype BFloat16", HalfUse::kTensors));  // fft: cuFFT lacks it too
}

}  // namespace
}  // namespace devcheck
