// How tensors reach Gloo: CPU tensors as they are, fake-device tensors as CPU
// tensors over the same host memory, anything else through a CPU copy.
#include "distributed/gloo_tensor.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "devcheck/fake_device.h"

namespace devcheck::detail {
namespace {

TEST(GlooTensor, ACpuTensorIsHandedOverItself) {
  const at::Tensor t = at::arange(6, at::kFloat);
  const at::Tensor staged = communicable(t, "gloo");
  EXPECT_TRUE(staged.is_same(t));
  finish_staging(t, staged);
  EXPECT_TRUE(at::equal(t, at::arange(6, at::kFloat)));
}

TEST(GlooTensor, AContiguousFakeTensorIsACpuAliasOfItsBytes) {
  const at::Tensor t = at::arange(6, at::kFloat).to(fake_device(1));
  const at::Tensor staged = communicable(t, "gloo");
  EXPECT_TRUE(staged.device().is_cpu());
  EXPECT_EQ(staged.data_ptr(), t.data_ptr());
  staged.mul_(2);  // what an all-reduce writes lands in the fake tensor
  EXPECT_TRUE(at::equal(t.cpu(), at::arange(6, at::kFloat) * 2));
}

TEST(GlooTensor, ANonContiguousFakeTensorGoesThroughACopyAndBack) {
  const at::Tensor base = at::arange(6, at::kFloat).reshape({2, 3}).to(fake_device(1));
  const at::Tensor t = base.t();
  ASSERT_FALSE(t.is_contiguous());
  const at::Tensor staged = communicable(t, "gloo");
  EXPECT_TRUE(staged.device().is_cpu());
  EXPECT_NE(staged.data_ptr(), t.data_ptr());
  staged.add_(1);
  finish_staging(t, staged);
  EXPECT_TRUE(at::equal(t.cpu(), at::arange(6, at::kFloat).reshape({2, 3}).t() + 1));
}

}  // namespace
}  // namespace devcheck::detail
