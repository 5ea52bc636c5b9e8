// DeviceMap: torch.load's map_location semantics, and the map as `devcheck
// remap` takes it (--to DEVICE, --map FROM=TO), with the messages a bad one gets.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "devcheck/format/checkpoint.h"
#include "devcheck/format/device_name.h"
#include "devcheck/format/error.h"

using ::testing::HasSubstr;

namespace devcheck::format {
namespace {

// The message parse() throws for these options, or "" when it throws none.
std::string parse_error(const std::string& to_device, const std::vector<std::string>& rules) {
  try {
    DeviceMap::parse(to_device, rules);
  } catch (const InvalidArgumentError& e) {
    return e.message();
  }
  return "";
}

TEST(DeviceMap, KeepToAndExactRulesAsTorchLoadMapsThem) {
  EXPECT_TRUE(DeviceMap::keep().is_keep());
  EXPECT_EQ(DeviceMap::keep().apply("cuda:1"), "cuda:1");
  EXPECT_EQ(DeviceMap::keep().str(), "keep");
  DeviceMap m = DeviceMap::to({DeviceType::kMeta, -1});
  m.map("cuda:1", {DeviceType::kCpu, -1});
  EXPECT_FALSE(m.is_keep());
  EXPECT_EQ(m.apply("cuda:1"), "cpu");  // an exact rule wins over to()
  EXPECT_EQ(m.apply("cuda:0"), "meta");
  EXPECT_EQ(m.str(), "cuda:1->cpu, to meta");
}

TEST(DeviceMapParse, ToSendsEveryStorageToOneDevice) {
  const DeviceMap m = DeviceMap::parse(" CUDA:0 ", {});
  EXPECT_EQ(m.apply("cuda:1"), "cuda:0");
  EXPECT_EQ(m.apply("cpu"), "cuda:0");
  EXPECT_EQ(m.str(), "to cuda:0");
}

TEST(DeviceMapParse, NothingGivenKeepsEveryLocation) {
  EXPECT_TRUE(DeviceMap::parse("", {}).is_keep());
}

TEST(DeviceMapParse, RulesRemapOneSavedLocationEachInTheirOrder) {
  const DeviceMap m = DeviceMap::parse("", {"cuda:1=cuda:0", "cuda:2=Fake:1", "cpu=meta"});
  const std::string fake1 = Device{DeviceType::kFake, 1}.str();
  EXPECT_EQ(m.apply("cuda:1"), "cuda:0");
  EXPECT_EQ(m.apply("cuda:2"), fake1);
  EXPECT_EQ(m.apply("cpu"), "meta");
  EXPECT_EQ(m.apply("cuda:3"), "cuda:3");  // unmatched: unchanged
  EXPECT_EQ(m.str(), "cuda:1->cuda:0, cuda:2->" + fake1 + ", cpu->meta");
  // The saved side is the file's text, kept as it is; only targets are devices.
  EXPECT_EQ(DeviceMap::parse("", {"weird=cpu"}).apply("weird"), "cpu");
}

TEST(DeviceMapParse, AutoIsThisMachinesChoice) {
  const std::string chosen = auto_device().str();
  EXPECT_EQ(DeviceMap::parse("auto", {}).apply("cuda:1"), chosen);
  EXPECT_EQ(DeviceMap::parse("gpu", {}).apply("cuda:1"), chosen);
  EXPECT_EQ(DeviceMap::parse("", {"cuda:1=auto"}).apply("cuda:1"), chosen);
}

TEST(DeviceMapParse, RuleWithoutFromOrToIsRefusedNamingIt) {
  for (const std::string rule : {"cuda:1", "=cpu", "cuda:1=", "="}) {
    EXPECT_EQ(parse_error("", {rule}),
              "[devcheck] remap --map: '" + rule + "' is not FROM=TO (e.g. --map cuda:1=cuda:0)")
        << rule;
  }
  // The first bad rule is named, after the good ones before it.
  EXPECT_THAT(parse_error("", {"cuda:1=cpu", "cuda:2"}), HasSubstr("'cuda:2' is not FROM=TO"));
}

TEST(DeviceMapParse, BadDeviceIsRefusedNamingTheOptionAndTheText) {
  EXPECT_EQ(parse_error("tpu:0", {}),
            std::string("[devcheck] remap --to: invalid device 'tpu:0': expected one of ") +
                kDeviceForms);
  EXPECT_EQ(parse_error("", {"cuda:1=tpu:0"}),
            std::string("[devcheck] remap --map: invalid device 'tpu:0': expected one of ") +
                kDeviceForms);
  EXPECT_EQ(parse_error("cuda:999", {}),
            "[devcheck] remap --to: invalid device 'cuda:999': CUDA index 999 is out of range "
            "(0..127)");
  EXPECT_EQ(
      parse_error("gpu7", {}),
      std::string("[devcheck] remap --to: invalid device 'gpu7': expected one of ") + kDeviceForms);
}

}  // namespace
}  // namespace devcheck::format
