#include "devcheck/error.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using ::testing::HasSubstr;

namespace devcheck {
namespace {

TEST(Error, IsACatchableC10ErrorWithTheMessage) {
  try {
    throw DeviceMismatchError("[devcheck] x is on cpu, expected meta");
  } catch (const c10::Error& e) {
    EXPECT_STREQ(e.what_without_backtrace(), "[devcheck] x is on cpu, expected meta");
    EXPECT_THAT(e.what(), HasSubstr("x is on cpu, expected meta"));
  }
}

TEST(Error, CarriesItsCategory) {
  const DeviceUnavailableError unavailable("no cuda:3");
  EXPECT_EQ(unavailable.code(), ErrorCode::kDeviceUnavailable);
  EXPECT_EQ(unavailable.message(), "no cuda:3");
  EXPECT_EQ(InvalidArgumentError("bad").code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(Error(ErrorCode::kFormat, "truncated").code(), ErrorCode::kFormat);
}

}  // namespace
}  // namespace devcheck
