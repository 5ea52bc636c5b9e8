// The fake backends' generic kernels: random numbers from the device's
// generator, storages set into tensors, ops the CPU has no
// kernel for.

#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "devcheck/fake_cuda.h"

namespace devcheck {
namespace {

using ::testing::HasSubstr;

const c10::Device kCuda0("cuda:0");
const c10::Device kCuda1("cuda:1");

// Forward-mode AD stands an undefined tangent in by a ZeroTensor, which has
// no memory: its zero bit must survive the trip to the CPU kernel and back
// (without it, mm read no data and mul read a null pointer).
TEST(FakeKernels, ZeroTensorsKeepTheirZeroBitThroughTheCpuKernels) {
  fake_cuda(2);
  const at::Tensor zero = at::_efficientzerotensor({2, 1}, at::TensorOptions().device(kCuda0));
  EXPECT_TRUE(zero._is_zerotensor());
  EXPECT_EQ(zero.device(), kCuda0);
  const at::Tensor x = at::rand({3, 2}, kCuda0);
  const at::Tensor product = at::mm(x, zero);
  EXPECT_TRUE(at::equal(product.cpu(), at::zeros({3, 1})));
  const at::Tensor scaled = zero * 2;
  EXPECT_EQ(scaled.device(), kCuda0);
  EXPECT_TRUE(at::equal(scaled.cpu(), at::zeros({2, 1})));
  EXPECT_TRUE(at::equal((zero + at::ones({2, 1}, kCuda0)).cpu(), at::ones({2, 1})));
}

TEST(FakeKernels, RandomOpsDrawFromTheDevicesGenerator) {
  fake_cuda(2);
  at::Tensor t = at::empty({5}, kCuda1);
  const_cast<at::Generator&>(at::globalContext().defaultGenerator(kCuda1)).set_current_seed(4);
  t.uniform_();
  at::Generator cpu = at::detail::createCPUGenerator(4);
  EXPECT_TRUE(at::equal(t.cpu(), at::empty({5}).uniform_(0, 1, cpu)));
}

TEST(FakeKernels, AStorageOnTheDeviceCanBeSetIntoATensorThere) {
  fake_cuda(2);
  const at::Tensor source = at::arange(6.0, kCuda0);
  at::Tensor t = at::empty({0}, kCuda0);
  t.set_(source.storage(), 2, {2, 2}, {1, 2});
  EXPECT_TRUE(at::equal(
      t.cpu(), at::tensor({2.0, 4.0, 3.0, 5.0}, at::kDouble).to(at::kFloat).reshape({2, 2})));
  at::Tensor whole = at::empty({0}, kCuda0);
  whole.set_(source);
  EXPECT_TRUE(whole.is_alias_of(source));
  try {
    at::empty({0}, kCuda1).set_(source.storage(), 0, {1}, {1});
    FAIL() << "a storage on cuda:0 went into a tensor on cuda:1";
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.what_without_backtrace(), HasSubstr("cuda:1"));
  }
}

TEST(FakeKernels, OutTensorsThatGrowGetDeviceMemory) {
  fake_cuda(2);
  at::Tensor out = at::empty({0}, kCuda1);
  at::add_out(out, at::ones({3, 3}, kCuda1), at::ones({3, 3}, kCuda1));
  EXPECT_EQ(out.sizes(), at::IntArrayRef({3, 3}));
  EXPECT_EQ(out.device(), kCuda1);
  EXPECT_EQ(out.storage().device(), kCuda1);
  EXPECT_EQ(out.sum().item<float>(), 18.0F);
}

}  // namespace
}  // namespace devcheck
