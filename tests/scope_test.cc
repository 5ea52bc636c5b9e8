#include "devcheck/scope.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <thread>

#include "devcheck/device.h"
#include "devcheck/error.h"
#include "support/support.h"

namespace devcheck {
namespace {

const c10::Device kCpu(c10::kCPU);
const c10::Device kMeta(c10::kMeta);

TEST(DeviceScope, OutsideAnyScopeTheDefaultIsCpu) {
  EXPECT_FALSE(in_device_scope());
  EXPECT_EQ(default_device(), kCpu);
  EXPECT_EQ(torch::zeros({2}, options()).device(), kCpu);
}

TEST(DeviceScope, TensorsMadeWithOptionsLandOnTheScopedDevice) {
  DeviceScope scope(kMeta);
  EXPECT_TRUE(in_device_scope());
  EXPECT_EQ(default_device(), kMeta);
  torch::Tensor x = torch::randn({3, 3}, options());
  EXPECT_EQ(x.device(), kMeta);
  EXPECT_EQ(torch::ones({2}, options().dtype(torch::kInt64)).scalar_type(), torch::kInt64);
}

TEST(DeviceScope, NestsAndRestoresTheOuterDevice) {
  DeviceScope outer(kMeta);
  {
    DeviceScope inner(kCpu);
    EXPECT_EQ(default_device(), kCpu);
    {
      DeviceScope innermost("meta");
      EXPECT_EQ(default_device(), kMeta);
    }
    EXPECT_EQ(default_device(), kCpu);
  }
  EXPECT_EQ(default_device(), kMeta);
}

TEST(DeviceScope, IsThreadLocal) {
  DeviceScope scope(kMeta);
  c10::Device seen(c10::kMeta);
  bool seen_in_scope = true;
  std::thread other([&] {
    seen = default_device();
    seen_in_scope = in_device_scope();
  });
  other.join();
  EXPECT_EQ(seen, kCpu);
  EXPECT_FALSE(seen_in_scope);
  EXPECT_EQ(default_device(), kMeta);
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
