#include "devcheck/scope.h"

#include <c10/core/impl/VirtualGuardImpl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <thread>

#include "devcheck/device.h"
#include "devcheck/error.h"
#include "devcheck/fake_device.h"
#include "support/support.h"

namespace devcheck {
namespace {

const c10::Device kCpu(c10::kCPU);

// The second device is the fake accelerator: it has a current device per
// thread, as CUDA does, so the scope's device guard is exercised.
c10::Device fake(int index = 0) { return fake_device(index); }

c10::Device current_fake() { return c10::impl::VirtualGuardImpl(fake().type()).getDevice(); }

TEST(DeviceScope, OutsideAnyScopeTheDefaultIsCpu) {
  EXPECT_FALSE(in_device_scope());
  EXPECT_EQ(default_device(), kCpu);
  EXPECT_EQ(torch::zeros({2}, options()).device(), kCpu);
}

TEST(DeviceScope, TensorsMadeWithOptionsLandOnTheScopedDevice) {
  DeviceScope scope(fake(1));
  EXPECT_TRUE(in_device_scope());
  EXPECT_EQ(default_device(), fake(1));
  torch::Tensor x = torch::randn({3, 3}, options());
  EXPECT_EQ(x.device(), fake(1));
  torch::Tensor counted = torch::arange(4, options().dtype(torch::kInt64));
  EXPECT_EQ(counted.scalar_type(), torch::kInt64);
  EXPECT_EQ(counted.sum().item<int64_t>(), 6);
}

TEST(DeviceScope, SetsTheCurrentDeviceOfItsTypeAndRestoresIt) {
  EXPECT_EQ(current_fake(), fake(0));
  {
    DeviceScope scope(fake(1));
    EXPECT_EQ(current_fake(), fake(1));
    // a factory given only the device type follows the current device
    EXPECT_EQ(torch::zeros({1}, torch::TensorOptions().device(fake().type())).device(), fake(1));
  }
  EXPECT_EQ(current_fake(), fake(0));
}

TEST(DeviceScope, AnIndexlessDeviceLeavesTheCurrentDeviceAlone) {
  const c10::DeviceGuard current(fake(1));
  DeviceScope scope(c10::Device(fake().type()));
  EXPECT_EQ(current_fake(), fake(1));
  EXPECT_EQ(default_device(), c10::Device(fake().type()));
  EXPECT_EQ(torch::zeros({1}, options()).device(), fake(1));  // the current one
}

TEST(DeviceScope, NestsAndRestoresTheOuterDevice) {
  DeviceScope outer(fake(1));
  {
    DeviceScope inner(kCpu);
    EXPECT_EQ(default_device(), kCpu);
    EXPECT_EQ(current_fake(), fake(1));  // a CPU scope does not touch the fake device's
    {
      DeviceScope innermost("fake:0");
      EXPECT_EQ(default_device(), fake(0));
      EXPECT_EQ(current_fake(), fake(0));
    }
    EXPECT_EQ(default_device(), kCpu);
    EXPECT_EQ(current_fake(), fake(1));
  }
  EXPECT_EQ(default_device(), fake(1));
}

// meta is the point here: a device without a guard (no current device) still scopes factories.
TEST(DeviceScope, MetaScopesFactoriesWithoutAGuard) {
  DeviceScope scope(c10::Device(c10::kMeta));
  EXPECT_TRUE(torch::ones({2}, options()).is_meta());
}

TEST(DeviceScope, IsThreadLocal) {
  DeviceScope scope(fake(1));
  c10::Device seen(c10::kMeta);
  c10::Device seen_current(c10::kMeta);
  bool seen_in_scope = true;
  std::thread other([&] {
    seen = default_device();
    seen_in_scope = in_device_scope();
    seen_current = current_fake();
  });
  other.join();
  EXPECT_EQ(seen, kCpu);
  EXPECT_FALSE(seen_in_scope);
  EXPECT_EQ(seen_current, fake(0));  // the current device is per thread too
  EXPECT_EQ(default_device(), fake(1));
}

TEST(DeviceScope, TextGoesThroughDeviceSelection) {
  DeviceScope scope("auto");
  EXPECT_EQ(default_device(), select_device("auto").device);
}

TEST(DeviceScope, BadTextThrowsAndLeavesNoScope) {
  EXPECT_THROW(DeviceScope("tpu"), InvalidArgumentError);
  EXPECT_FALSE(in_device_scope());
}

TEST(DeviceScope, SetsTheCurrentCudaDevice_CUDA) {
  DEVCHECK_REQUIRE_CUDA();
  const int last = cuda_device_count() - 1;
  const c10::Device device(c10::kCUDA, static_cast<c10::DeviceIndex>(last));
  DeviceScope scope(device);
  EXPECT_EQ(torch::zeros({1}, options()).device(), device);
  EXPECT_EQ(torch::zeros({1}, torch::kCUDA).device(), device);  // current device follows
}

}  // namespace
}  // namespace devcheck
