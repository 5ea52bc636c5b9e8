#include "sanitizer/symbolize.h"

#include <ATen/ATen.h>
#include <ATen/record_function.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

#include "sanitizer/stack.h"

using ::testing::HasSubstr;

namespace devcheck::sanitizer {
namespace {

SiteId g_site = kNoSite;

std::unique_ptr<at::ObserverContext> capture_in_op(const at::RecordFunction& /*fn*/) {
  g_site = capture_site();
  return nullptr;
}

// The site is captured where the engine captures it: inside an op, below
// LibTorch's frames, which are skipped, as are the sanitizer's own (this test
// program holds them itself; a user's program has them in libdevcheck).
TEST(Symbolize, ASiteNamesTheUsersFileAndLine) {
  const at::Tensor x = at::ones({2});
  const auto handle = at::addThreadLocalCallback(
      at::RecordFunctionCallback(&capture_in_op).scopes({at::RecordScope::FUNCTION}));
  const int line = __LINE__ + 1;
  const at::Tensor y = at::neg(x);
  at::removeCallback(handle);
  ASSERT_NE(g_site, kNoSite);
  const SiteText text = describe_site(g_site);
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
