#include "sanitizer/symbolize.h"

#include <ATen/ATen.h>
#include <ATen/record_function.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

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

// Distinct functions of this file, each its own address.
template <int N>
[[gnu::noinline]] int marker() {
  return N;
}

template <int... N>
std::vector<void*> marker_pcs(std::integer_sequence<int, N...> /*unused*/) {
  // A return address points after a call; symbolize looks up pc - 1.
  return {reinterpret_cast<void*>(reinterpret_cast<char*>(&marker<N>) + 1)...};
}

// Reports ask one addr2line per module, kept running: more addresses than
// one request carries (64), then more again, each answered in its order.
TEST(Symbolize, EveryAddressOfManyRequestsIsAnsweredInItsOrder) {
  const std::vector<void*> pcs = marker_pcs(std::make_integer_sequence<int, 100>());
  const std::vector<void*> first(pcs.begin(), pcs.begin() + 70);
  const std::vector<void*> second(pcs.begin() + 70, pcs.end());
  for (const auto& batch : {first, second}) {
    const std::vector<Frame> frames = symbolize(batch);
    ASSERT_EQ(frames.size(), batch.size());
  }
  const std::vector<Frame> frames = symbolize(pcs);  // cached now
  ASSERT_EQ(frames.size(), pcs.size());
  for (size_t i = 0; i < frames.size(); ++i) {
    EXPECT_THAT(frames[i].function, HasSubstr("marker<" + std::to_string(i) + ">")) << i;
    EXPECT_THAT(frames[i].file, HasSubstr("symbolize_test.cc")) << i;
    EXPECT_TRUE(frames[i].user) << i;
  }
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
