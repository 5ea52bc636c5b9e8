#include "devcheck/error.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "devcheck/device.h"

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

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

TEST(Error, RecordsTheFileLineAndFunctionThatThrewIt) {
  const int line = __LINE__ + 2;
  try {
    throw FormatError("[devcheck] truncated");
  } catch (const Error& e) {
    EXPECT_TRUE(ends_with(e.file(), "tests/core/error_test.cc")) << e.file();
    EXPECT_EQ(e.line(), line);
    EXPECT_STREQ(e.function(), "TestBody");
    EXPECT_THAT(e.what(), HasSubstr("tests/core/error_test.cc:" + std::to_string(line)));
  }
}

TEST(Error, ALibraryErrorNamesTheLibraryFileThatThrewNotErrorCc) {
  try {
    (void)DeviceSpec::parse("tpu:0");
    FAIL() << "no error";
  } catch (const InvalidArgumentError& e) {
    EXPECT_THAT(e.message(), HasSubstr("invalid device 'tpu:0'"));
    EXPECT_TRUE(ends_with(e.file(), "src/core/device.cc")) << e.file();
    EXPECT_STREQ(e.function(), "parse");
    EXPECT_GT(e.line(), 0);
    const std::string where = std::string("src/core/device.cc:") + std::to_string(e.line());
    EXPECT_THAT(e.what(), HasSubstr(where));
    EXPECT_THAT(e.what(), ::testing::Not(HasSubstr("error.cc")));
  }
}

}  // namespace
}  // namespace devcheck
