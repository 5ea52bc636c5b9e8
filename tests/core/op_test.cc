// DEVCHECK_OP_INPUTS / DEVCHECK_OP_OUTPUTS: a named device check and a device
// guard for custom-operator kernels.

#include "devcheck/op.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/scalar_tensor.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "devcheck/error.h"
#include "devcheck/fake_device.h"

namespace devcheck {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

at::Tensor ones_on(std::vector<int64_t> shape, c10::Device device) {
  return at::ones(shape, at::TensorOptions().device(device));
}

std::string mismatch_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const DeviceMismatchError& e) {
    return e.message();
  }
  return "(no DeviceMismatchError)";
}

c10::DeviceIndex current_fake_index() {
  return c10::impl::VirtualGuardImpl(c10::DeviceType::PrivateUse1).getDevice().index();
}

TEST(OpInputs, InputsOnOneDeviceGiveThatDevice) {
  const at::Tensor x = ones_on({4, 8}, fake_device(1));
  const at::Tensor w = ones_on({8}, fake_device(1));
  const auto inputs = DEVCHECK_OP_INPUTS("test::op", x, w);
  EXPECT_EQ(inputs.device(), fake_device(1));
  EXPECT_EQ(inputs.op(), "test::op");
}

TEST(OpInputs, CpuAndFakeNameTheOpBothArgumentsBothDevicesAndShapes) {
  const at::Tensor x = ones_on({4, 8}, fake_device(0));
  const at::Tensor weight = ones_on({8}, c10::kCPU);
  const std::string message =
      mismatch_of([&] { const auto inputs = DEVCHECK_OP_INPUTS("test::rms", x, weight); });
  const std::string fake0 = fake_device(0).str();
  EXPECT_THAT(
      message,
      AllOf(HasSubstr("[devcheck] test::rms:"),
            HasSubstr("argument 'weight' is on cpu and argument 'x' is on " + fake0),
            HasSubstr("'x' ([4, 8] float32 on " + fake0 + ")"),
            HasSubstr("'weight' ([8] float32 on cpu)"), HasSubstr("weight.to(x.device())")));
}

TEST(OpInputs, DifferentIndicesOfOneTypeAreAMismatch) {
  const at::Tensor a = ones_on({3}, fake_device(0));
  const at::Tensor b = ones_on({3}, fake_device(1));
  const std::string message =
      mismatch_of([&] { const auto g = DEVCHECK_OP_INPUTS("t::add", a, b); });
  EXPECT_THAT(message, AllOf(HasSubstr("argument 'b' is on " + fake_device(1).str()),
                             HasSubstr("argument 'a' is on " + fake_device(0).str())));
}

TEST(OpInputs, CpuAndMetaAreAMismatch) {
  const at::Tensor a = ones_on({3}, c10::kCPU);
  const at::Tensor b = at::empty({3}, at::TensorOptions().device(c10::kMeta));
  EXPECT_THAT(mismatch_of([&] { const auto g = DEVCHECK_OP_INPUTS("t::op", a, b); }),
              AllOf(HasSubstr("argument 'b' is on meta"), HasSubstr("argument 'a' is on cpu")));
}

TEST(OpInputs, ZeroDimCpuTensorsJoinAnyDevice) {
  const at::Tensor scale = at::scalar_tensor(2.0);
  const at::Tensor x = ones_on({2}, fake_device(1));
  const auto inputs = DEVCHECK_OP_INPUTS("t::scale", scale, x);
  EXPECT_EQ(inputs.device(), fake_device(1));
}

TEST(OpInputs, OnlyZeroDimCpuTensorsGiveCpu) {
  const at::Tensor a = at::scalar_tensor(1.0);
  const auto inputs = DEVCHECK_OP_INPUTS("t::op", a);
  EXPECT_EQ(inputs.device(), c10::Device(c10::kCPU));
}

TEST(OpInputs, ZeroDimFakeTensorIsNotAScalarException) {
  const at::Tensor a = at::scalar_tensor(1.0, at::TensorOptions().device(fake_device(0)));
  const at::Tensor b = ones_on({2}, fake_device(1));
  EXPECT_THAT(mismatch_of([&] { const auto g = DEVCHECK_OP_INPUTS("t::op", a, b); }),
              HasSubstr("argument 'b' is on " + fake_device(1).str()));
}

TEST(OpInputs, AbsentOptionalsAndUndefinedTensorsAreSkipped) {
  const c10::optional<at::Tensor> bias;
  const at::Tensor undefined;
  const at::Tensor x = ones_on({2}, fake_device(1));
  const auto inputs = DEVCHECK_OP_INPUTS("t::op", bias, undefined, x);
  EXPECT_EQ(inputs.device(), fake_device(1));
}

TEST(OpInputs, PresentOptionalIsChecked) {
  const c10::optional<at::Tensor> bias = ones_on({2}, c10::kCPU);
  const at::Tensor x = ones_on({2}, fake_device(0));
  EXPECT_THAT(mismatch_of([&] { const auto g = DEVCHECK_OP_INPUTS("t::op", x, bias); }),
              HasSubstr("argument 'bias' is on cpu"));
}

TEST(OpInputs, TensorListElementsAreNamedByIndex) {
  const std::vector<at::Tensor> xs = {ones_on({2}, fake_device(0)), ones_on({2}, c10::kCPU)};
  EXPECT_THAT(mismatch_of([&] { const auto g = DEVCHECK_OP_INPUTS("t::cat", at::TensorList(xs)); }),
              AllOf(HasSubstr("argument 'at::TensorList(xs)[1]' is on cpu"),
                    HasSubstr("argument 'at::TensorList(xs)[0]' is on")));
}

TEST(OpInputs, ExpressionsWithCommasKeepTheirWholeText) {
  const at::Tensor x = ones_on({2, 3}, fake_device(0));
  const at::Tensor w = ones_on({6}, c10::kCPU);
  EXPECT_THAT(mismatch_of([&] {
                const auto g = DEVCHECK_OP_INPUTS("t::op", x, w.view({2, 3}));
              }),
              HasSubstr("argument 'w.view({2, 3})' is on cpu"));
}

TEST(OpInputs, GuardMakesTheInputsDeviceCurrentWhileItLives) {
  fake_device(0);
  ASSERT_EQ(current_fake_index(), 0);
  const at::Tensor x = ones_on({2}, fake_device(1));
  {
    const auto inputs = DEVCHECK_OP_INPUTS("t::op", x);
    EXPECT_EQ(current_fake_index(), 1);
    // What a kernel that allocates "on the current device" gets.
    EXPECT_EQ(at::empty({2}, at::TensorOptions().device(c10::DeviceType::PrivateUse1)).device(),
              fake_device(1));
  }
  EXPECT_EQ(current_fake_index(), 0);
}

TEST(OpOutputs, OutputOnTheInputsDevicePasses) {
  const at::Tensor x = ones_on({2}, fake_device(1));
  const auto inputs = DEVCHECK_OP_INPUTS("t::op", x);
  const at::Tensor y = at::empty_like(x);
  EXPECT_NO_THROW(DEVCHECK_OP_OUTPUTS(inputs, y));
}

TEST(OpOutputs, OutputOnAnotherDeviceNamesOpOutputAndBothDevices) {
  const at::Tensor x = ones_on({2}, fake_device(1));
  const auto inputs = DEVCHECK_OP_INPUTS("t::op", x);
  const at::Tensor out = ones_on({2}, fake_device(0));
  EXPECT_THAT(
      mismatch_of([&] { DEVCHECK_OP_OUTPUTS(inputs, x, out); }),
      AllOf(
          HasSubstr("[devcheck] t::op: output 'out' ([2] float32 on " + fake_device(0).str() + ")"),
          HasSubstr("not on the inputs' device " + fake_device(1).str()), Not(HasSubstr("'x'"))));
}

}  // namespace
}  // namespace devcheck
