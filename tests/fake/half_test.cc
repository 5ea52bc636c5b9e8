// float16 where the CPU lacks the kernel or the path a GPU has (half.h): the
// op runs in float32 and comes back in the dtype it returns, while a dtype
// error a GPU gives too stays that error.

#include "fake/half.h"

#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

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
  const std::string addmm = mm;
#endif
  EXPECT_EQ(error_of([&] { (void)at::mm(a.to(kCuda0), b.to(kCuda0)); }), mm);
  EXPECT_EQ(error_of([&] { (void)at::addmm(a.to(kCuda0), a.to(kCuda0), b.to(kCuda0)); }), addmm);
  EXPECT_NE(mm, "(no error)");
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
}

}  // namespace
}  // namespace devcheck
