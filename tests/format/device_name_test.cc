#include "devcheck/format/device_name.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "devcheck/format/error.h"

namespace devcheck::format {
namespace {

using ::testing::HasSubstr;

std::string error_of(const std::string& text) {
  try {
    parse_device_request(text);
  } catch (const InvalidArgumentError& e) {
    return e.message();
  }
  return "";
}

TEST(ParseDevice, ReadsEveryTypeWithAndWithoutAnIndex) {
  EXPECT_EQ(parse_device("cpu"), (Device{DeviceType::kCpu, -1}));
  EXPECT_EQ(parse_device("cuda"), (Device{DeviceType::kCuda, -1}));
  EXPECT_EQ(parse_device("cuda:3"), (Device{DeviceType::kCuda, 3}));
  EXPECT_EQ(parse_device("meta"), (Device{DeviceType::kMeta, -1}));
  EXPECT_EQ(parse_device("fake:1"), (Device{DeviceType::kFake, 1}));
  EXPECT_EQ(parse_device("privateuseone:2"), (Device{DeviceType::kFake, 2}));
  EXPECT_EQ(parse_device("mps"), (Device{DeviceType::kMps, -1}));
  EXPECT_EQ(parse_device("xpu:0"), (Device{DeviceType::kXpu, 0}));
}

TEST(ParseDevice, IgnoresCaseAndSurroundingSpaces) {
  EXPECT_EQ(parse_device("CUDA:0"), (Device{DeviceType::kCuda, 0}));
  EXPECT_EQ(parse_device("  Cpu "), (Device{DeviceType::kCpu, -1}));
}

TEST(ParseDeviceRequest, AutoAndGpuAreKeywords) {
  EXPECT_EQ(parse_device_request("auto").kind, DeviceRequest::Kind::kAuto);
  EXPECT_EQ(parse_device_request("AUTO").kind, DeviceRequest::Kind::kAuto);
  EXPECT_EQ(parse_device_request("gpu").kind, DeviceRequest::Kind::kGpu);
  const DeviceRequest named = parse_device_request("cuda:1");
  EXPECT_EQ(named.kind, DeviceRequest::Kind::kDevice);
  EXPECT_EQ(named.device, (Device{DeviceType::kCuda, 1}));
}

TEST(ParseDevice, RefusesKeywordsWhereADeviceIsNeeded) {
  try {
    parse_device("auto");
    FAIL() << "expected InvalidArgumentError";
  } catch (const InvalidArgumentError& e) {
    EXPECT_THAT(e.message(), HasSubstr("invalid device 'auto': a device is needed here"));
    EXPECT_THAT(e.message(), HasSubstr("expected one of cpu, cuda"));
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
  }
}

TEST(ParseDevice, NamesTheTextAndTheAcceptedFormsForUnknownDevices) {
  EXPECT_EQ(error_of("tpu:0"),
            "[devcheck] invalid device 'tpu:0': expected one of auto, gpu, cpu, cuda, cuda:N "
            "(N >= 0), meta, fake, fake:N (N >= 0), mps, xpu, xpu:N");
  EXPECT_THAT(error_of("cuda:-1"), HasSubstr("invalid device 'cuda:-1': expected one of"));
  EXPECT_THAT(error_of("cuda:1000"), HasSubstr("invalid device 'cuda:1000': expected one of"));
  EXPECT_THAT(error_of(""), HasSubstr("invalid device '': expected one of"));
}

TEST(ParseDevice, RefusesAnIndexPastTheRangeNamingTheType) {
  EXPECT_EQ(error_of("cuda:128"),
            "[devcheck] invalid device 'cuda:128': CUDA index 128 is out of range (0..127)");
  EXPECT_EQ(error_of("fake:200"),
            "[devcheck] invalid device 'fake:200': fake device index 200 is out of range "
            "(0..127)");
}

TEST(DeviceStr, PrintsLibTorchsSpelling) {
  EXPECT_EQ((Device{DeviceType::kCpu, -1}).str(), "cpu");
  EXPECT_EQ((Device{DeviceType::kCuda, 2}).str(), "cuda:2");
  EXPECT_EQ((Device{DeviceType::kXpu, -1}).str(), "xpu");
  EXPECT_EQ(parse_device("fake:1").str(), privateuse1_name() + ":1");
}

TEST(DeviceStr, FollowsThePrivateUse1NameLibTorchGives) {
  const std::string before = privateuse1_name();
  set_privateuse1_name("fake");
  EXPECT_EQ(parse_device("privateuseone:1").str(), "fake:1");
  set_privateuse1_name(before);
  EXPECT_EQ(parse_device("fake").str(), before);
}

TEST(DeviceAvailable, CpuAndMetaAlwaysFakeNeverCudaAsTheDriverSays) {
  EXPECT_TRUE(device_available(parse_device("cpu")));
  EXPECT_TRUE(device_available(parse_device("meta")));
  EXPECT_FALSE(device_available(parse_device("fake:0")));
  EXPECT_FALSE(device_available(parse_device("mps")));
  const int cuda = driver_cuda_device_count();
  EXPECT_EQ(device_available(parse_device("cuda")), cuda > 0);
  EXPECT_EQ(device_available(parse_device("cuda:1")), cuda > 1);
}

TEST(AutoDevice, IsCpuWithoutACudaDeviceAndSaysWhy) {
  std::string reason;
  const Device chosen = auto_device(&reason);
  if (driver_cuda_device_count() == 0) {
    EXPECT_EQ(chosen, (Device{DeviceType::kCpu, -1}));
    EXPECT_THAT(reason, HasSubstr("cpu: no CUDA device ("));
  } else {
    EXPECT_EQ(chosen.type, DeviceType::kCuda);
    EXPECT_THAT(reason, HasSubstr("cuda:" + std::to_string(chosen.index)));
  }
}

}  // namespace
}  // namespace devcheck::format
