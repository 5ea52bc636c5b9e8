#include "devcheck/device.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <c10/core/impl/DeviceGuardImplInterface.h>

#include <cstdlib>

#include "devcheck/error.h"
#include "devcheck/fake_device.h"
#include "support/support.h"

using ::testing::HasSubstr;

namespace devcheck {
namespace {

// Sets an environment variable for one test and restores it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value == nullptr) {
      unsetenv(name);
    } else {
      setenv(name, value, 1);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(DeviceSpec, ParsesEveryAcceptedForm) {
  EXPECT_EQ(DeviceSpec::parse("auto").kind(), DeviceSpec::Kind::kAuto);
  EXPECT_EQ(DeviceSpec::parse("gpu").kind(), DeviceSpec::Kind::kGpu);
  EXPECT_EQ(DeviceSpec::parse("cpu").kind(), DeviceSpec::Kind::kCpu);
  EXPECT_EQ(DeviceSpec::parse("meta").kind(), DeviceSpec::Kind::kMeta);
  EXPECT_EQ(DeviceSpec::parse("cuda").kind(), DeviceSpec::Kind::kCuda);
  EXPECT_FALSE(DeviceSpec::parse("cuda").index().has_value());
  const DeviceSpec one = DeviceSpec::parse("cuda:1");
  EXPECT_EQ(one.kind(), DeviceSpec::Kind::kCuda);
  EXPECT_EQ(one.index(), 1);
  EXPECT_EQ(one.str(), "cuda:1");
  EXPECT_EQ(DeviceSpec::parse("fake").kind(), DeviceSpec::Kind::kFake);
  EXPECT_FALSE(DeviceSpec::parse("fake").index().has_value());
  EXPECT_EQ(DeviceSpec::parse("fake:1").index(), 1);
  EXPECT_EQ(DeviceSpec::parse("privateuseone:1"), DeviceSpec::parse("fake:1"));
  EXPECT_EQ(DeviceSpec::parse("PrivateUseOne").str(), "fake");
}

TEST(DeviceSpec, IgnoresCaseAndSurroundingSpaces) {
  EXPECT_EQ(DeviceSpec::parse("  CUDA:2 ").str(), "cuda:2");
  EXPECT_EQ(DeviceSpec::parse("Cpu").str(), "cpu");
}

TEST(DeviceSpec, CanonicalTextParsesBackToTheSameSpec) {
  for (const char* text :
       {"auto", "gpu", "cpu", "meta", "cuda", "cuda:0", "cuda:7", "fake", "fake:0", "fake:3"}) {
    const DeviceSpec spec = DeviceSpec::parse(text);
    EXPECT_EQ(DeviceSpec::parse(spec.str()), spec) << text;
  }
}

TEST(DeviceSpec, RejectsUnknownFormsListingTheAcceptedOnes) {
  for (const char* bad : {"", "tpu", "cuda:", "cuda:-1", "cuda:x", "cuda:1:2", "cpu:0", "mps",
                          "fake:", "fake:-1", "fake:x", "privateuseone:"}) {
    try {
      DeviceSpec::parse(bad);
      FAIL() << "accepted '" << bad << "'";
    } catch (const InvalidArgumentError& e) {
      EXPECT_THAT(e.message(), HasSubstr(std::string("'") + bad + "'"));
      EXPECT_THAT(e.message(), HasSubstr("auto, gpu, cpu, cuda, cuda:N"));
      EXPECT_THAT(e.message(), HasSubstr("fake, fake:N"));
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    }
  }
}

TEST(DeviceSpec, RejectsNegativeCudaIndex) {
  EXPECT_THROW(DeviceSpec::parse("cuda:-1"), InvalidArgumentError);
}

TEST(DeviceSpec, RejectsOutOfRangeCudaIndex) {
  try {
    DeviceSpec::parse("cuda:999");
    FAIL();
  } catch (const InvalidArgumentError& e) {
    EXPECT_THAT(e.message(), HasSubstr("out of range"));
    EXPECT_THAT(e.message(), HasSubstr("'cuda:999'"));
  }
}

TEST(DeviceSpec, EnvironmentOverridesProgramDefault) {
  ScopedEnv env("DEVCHECK_DEVICE", "meta");
  EXPECT_EQ(DeviceSpec::from_env("cpu").kind(), DeviceSpec::Kind::kMeta);
}

TEST(DeviceSpec, EmptyEnvironmentKeepsProgramDefault) {
  ScopedEnv env("DEVCHECK_DEVICE", "");
  EXPECT_EQ(DeviceSpec::from_env("cpu").kind(), DeviceSpec::Kind::kCpu);
  ScopedEnv unset("DEVCHECK_DEVICE", nullptr);
  EXPECT_EQ(DeviceSpec::from_env().kind(), DeviceSpec::Kind::kAuto);
}

TEST(DeviceSpec, MalformedEnvironmentIsNamedInTheError) {
  ScopedEnv env("DEVCHECK_DEVICE", "cuda:one");
  try {
    DeviceSpec::from_env("cpu");
    FAIL();
  } catch (const InvalidArgumentError& e) {
    EXPECT_THAT(e.message(), HasSubstr("DEVCHECK_DEVICE='cuda:one'"));
  }
}

TEST(SelectDevice, CpuAndMetaAreAlwaysAvailable) {
  EXPECT_EQ(select_device("cpu").device, c10::Device(c10::kCPU));
  EXPECT_EQ(select_device("meta").device, c10::Device(c10::kMeta));
}

TEST(SelectDevice, AutoFallsBackToCpuWithAReasonWithoutCuda) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "this machine has CUDA";
  const Selection s = select_device("auto");
  EXPECT_EQ(s.device, c10::Device(c10::kCPU));
  EXPECT_THAT(s.reason, HasSubstr("no CUDA device"));
  EXPECT_EQ(s.reason.rfind("cpu: ", 0), 0u) << "a reason starts with the device: " << s.reason;
  EXPECT_EQ(select_device("gpu").device, c10::Device(c10::kCPU));
}

TEST(SelectDevice, ReasonSaysWhyThereIsNoCuda) {
  if (c10::impl::hasDeviceGuardImpl(c10::kCUDA)) GTEST_SKIP() << "this LibTorch has CUDA";
  EXPECT_THAT(select_device("gpu").reason, HasSubstr("this LibTorch was built without CUDA"));
}

TEST(SelectDevice, MissingCudaDeviceSaysHowManyThereAre) {
  const int count = cuda_device_count();
  const std::string spec = "cuda:" + std::to_string(count);
  try {
    select_device(spec);
    FAIL() << spec << " was accepted";
  } catch (const DeviceUnavailableError& e) {
    EXPECT_THAT(e.message(), HasSubstr("'" + spec + "'"));
    EXPECT_THAT(e.message(), HasSubstr(std::to_string(count) + " CUDA device"));
    EXPECT_EQ(e.code(), ErrorCode::kDeviceUnavailable);
  }
}

TEST(SelectDevice, PlainCudaWithoutGpuThrows) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "this machine has CUDA";
  EXPECT_THROW(select_device("cuda"), DeviceUnavailableError);
}

TEST(SelectDevice, AutoPicksACudaDevice_CUDA) {
  DEVCHECK_REQUIRE_CUDA();
  const Selection s = select_device("auto");
  EXPECT_TRUE(s.device.is_cuda());
  EXPECT_LT(s.device.index(), cuda_device_count());
  EXPECT_THAT(s.reason, HasSubstr("cuda:"));
}

TEST(SelectDevice, ExistingCudaIndexIsSelected_CUDA) {
  DEVCHECK_REQUIRE_CUDA();
  EXPECT_EQ(select_device("cuda:0").device, c10::Device(c10::kCUDA, 0));
}

TEST(ListDevices, CpuComesFirstWithMemory) {
  const auto devices = list_devices();
  ASSERT_FALSE(devices.empty());
  EXPECT_EQ(devices[0].device, c10::Device(c10::kCPU));
  EXPECT_FALSE(devices[0].name.empty());
  ASSERT_TRUE(devices[0].total_bytes.has_value());
  EXPECT_GT(*devices[0].total_bytes, 0u);
  // Fake devices are listed once another test in this binary has registered them.
  const int fakes = fake_device_registered() ? fake_device_count() : 0;
  EXPECT_EQ(static_cast<int>(devices.size()), 1 + cuda_device_count() + fakes);
}

TEST(ListDevices, CudaDevicesHaveNamesAndMemory_CUDA) {
  DEVCHECK_REQUIRE_CUDA();
  for (const auto& d : list_devices()) {
    if (!d.device.is_cuda()) continue;
    EXPECT_FALSE(d.name.empty());
    EXPECT_TRUE(d.total_bytes.has_value());
    EXPECT_TRUE(d.free_bytes.has_value());
  }
}

TEST(DeviceSpec, DevicesTheParserKnowsButDevcheckDoesNotRunOnAreRefused) {
  try {
    DeviceSpec::parse("XPU:0");
    FAIL() << "accepted xpu:0";
  } catch (const InvalidArgumentError& e) {
    EXPECT_THAT(e.message(), HasSubstr("invalid device 'XPU:0': devcheck does not run on xpu:0"));
    EXPECT_THAT(e.message(), HasSubstr("expected one of auto, gpu, cpu, cuda"));
  }
}

TEST(DeviceAvailable, CpuMetaAlwaysCudaAsLibTorchSeesItFakeWhenLinked) {
  EXPECT_TRUE(device_available(c10::Device("cpu")));
  EXPECT_TRUE(device_available(c10::Device("meta")));
  EXPECT_EQ(device_available(c10::Device("cuda:0")), cuda_device_count() > 0);
  EXPECT_FALSE(device_available(c10::Device(c10::kCUDA, 120)));
  // This test program links devcheck::fake_device.
  EXPECT_TRUE(device_available(c10::Device(c10::kPrivateUse1, 0)));
  EXPECT_FALSE(device_available(c10::Device(c10::kPrivateUse1, 120)));
  EXPECT_FALSE(device_available(c10::Device("xla")));
}

TEST(FormatBytes, UsesBinaryUnits) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(1023), "1023 B");
  EXPECT_EQ(format_bytes(1024), "1.0 KiB");
  EXPECT_EQ(format_bytes(3ull << 30), "3.0 GiB");
}

}  // namespace
}  // namespace devcheck
