#include "detail/mismatch.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "devcheck/fake_device.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace devcheck::detail {
namespace {

const c10::Device kCpu(c10::kCPU);

MismatchRow row(std::string name, c10::Device device, std::vector<std::int64_t> shape,
                std::string note = {}) {
  return MismatchRow{std::move(name), true, device, c10::kFloat, std::move(shape), std::move(note)};
}

TEST(DeviceTally, ExpectsTheMajorityDevice) {
  DeviceTally t;
  EXPECT_FALSE(t.expected().has_value());
  t.add(fake_device(0));
  t.add(kCpu);
  t.add(kCpu);
  EXPECT_TRUE(t.mixed());
  EXPECT_EQ(t.expected(), kCpu);
  EXPECT_EQ(t.found_text(), "cpu (2 tensors) and " + fake_device(0).str() + " (1 tensor)");
}

TEST(DeviceTally, ATieWithTheCpuGoesToTheOtherDeviceWhicheverCameFirst) {
  DeviceTally cpu_first;
  cpu_first.add(kCpu);
  cpu_first.add(fake_device(1));
  EXPECT_EQ(cpu_first.expected(), fake_device(1));
  // the expected device is listed first
  EXPECT_EQ(cpu_first.found_text(), fake_device(1).str() + " (1 tensor) and cpu (1 tensor)");
  DeviceTally device_first;
  device_first.add(fake_device(1), 2);
  device_first.add(kCpu, 2);
  EXPECT_EQ(device_first.expected(), fake_device(1));
}

TEST(DeviceTally, ATieBetweenTwoDevicesGoesToTheFirstSeen) {
  DeviceTally t;
  t.add(fake_device(1));
  t.add(fake_device(0));
  EXPECT_EQ(t.expected(), fake_device(1));
}

TEST(MismatchRule, ZeroDimCpuTensorsAreNeverStrays) {
  EXPECT_TRUE(wrapped_scalar(kCpu, 0));
  EXPECT_FALSE(wrapped_scalar(kCpu, 1));
  EXPECT_FALSE(wrapped_scalar(fake_device(0), 0));
  EXPECT_FALSE(is_stray(kCpu, 0, fake_device(0)));
  EXPECT_TRUE(is_stray(kCpu, 1, fake_device(0)));
  EXPECT_TRUE(is_stray(fake_device(0), 0, kCpu));  // a 0-dim tensor on a device is not exempt
  // an index-less expected device matches every index of its type
  EXPECT_FALSE(is_stray(fake_device(1), 1, c10::Device(fake_device(0).type())));
}

TEST(DescribeMismatch, MarksTheStraysAndNamesThemInTheFix) {
  const c10::Device fake = fake_device(0);
  const std::size_t width = std::max<std::size_t>(6, fake.str().size());
  const MismatchText text = describe_mismatch(
      {row("input", kCpu, {32, 784}), row("weight", fake, {10, 784}), row("scale", kCpu, {})},
      fake);
  EXPECT_EQ(text.strays, std::vector<std::string>{"input"});
  EXPECT_THAT(text.table,
              HasSubstr(fmt::format("\n  input   {:<{}} float32   [32, 784]   <- not on {}", "cpu",
                                    width, fake.str())));
  EXPECT_THAT(text.table, HasSubstr(fmt::format("\n  scale   {:<{}} float32   []", "cpu", width)));
  EXPECT_THAT(text.table, Not(HasSubstr("[]   <- not on")));
  EXPECT_THAT(text.fix, HasSubstr("move input to " + fake.str() + " once, where it is made: "));
  EXPECT_THAT(text.fix, HasSubstr("devcheck::to_device(x, " + fake.str() + ")"));
}

TEST(DescribeMismatch, ShowsNotesInTheirOwnColumnAndTheStraysOrigin) {
  const c10::Device fake = fake_device(0);
  const std::size_t width = std::max<std::size_t>(6, fake.str().size());
  MismatchRow undefined = row("bias", kCpu, {});
  undefined.defined = false;
  const MismatchText text = describe_mismatch(
      {row("self", fake, {3}, "origin unknown"), row("a", kCpu, {3}, "made by aten::ones"),
       row("b", kCpu, {3}, "made by aten::ones"), undefined},
      fake, "train.py:12");
  EXPECT_THAT(text.table,
              HasSubstr(fmt::format("\n  self  {:<{}} float32   [3]          origin unknown",
                                    fake.str(), width)));
  EXPECT_THAT(text.table, HasSubstr("[3]          made by aten::ones   <- not on " + fake.str()));
  EXPECT_THAT(text.table, HasSubstr("\n  bias  (undefined, skipped)"));
  EXPECT_THAT(text.fix, HasSubstr("move a, b to " + fake.str() +
                                  " once, where they are made (train.py:12): create them there"));
}

}  // namespace
}  // namespace devcheck::detail
