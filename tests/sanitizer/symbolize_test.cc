#include "sanitizer/symbolize.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using ::testing::HasSubstr;

namespace devcheck::sanitizer {
namespace {

TEST(Symbolize, ASiteNamesTheUsersFileAndLine) {
  const int line = __LINE__ + 1;
  const SiteId id = capture_site();
  const SiteText text = describe_site(id);
  EXPECT_EQ(text.location, "symbolize_test.cc:" + std::to_string(line));
  ASSERT_FALSE(text.stack.empty());
  EXPECT_THAT(text.stack[0], HasSubstr("symbolize_test.cc:" + std::to_string(line)));
}

TEST(Symbolize, LibraryFramesAreNotTheUsers) {
  EXPECT_TRUE(is_library_module("/usr/lib/x86_64-linux-gnu/libtorch_cpu.so.1.13"));
  EXPECT_TRUE(is_library_module("/usr/lib/x86_64-linux-gnu/libc.so.6"));
  EXPECT_TRUE(is_library_module("/build/src/libdevcheck.so.0.1"));
  EXPECT_FALSE(is_library_module("/home/me/train"));
  EXPECT_TRUE(is_library_source("/usr/include/ATen/ops/ones.h"));
  EXPECT_TRUE(is_library_source("/usr/include/c++/12/bits/stl_vector.h"));
  EXPECT_FALSE(is_library_source("/home/me/train.cc"));
}

TEST(Symbolize, UnknownSitesHaveNoLocation) {
  EXPECT_TRUE(describe_site(kNoSite).location.empty());
  EXPECT_TRUE(describe_site(kSiteOverflow).location.empty());
}

}  // namespace
}  // namespace devcheck::sanitizer
