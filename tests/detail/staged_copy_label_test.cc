// The label of the copies devcheck stages itself (src/detail/staged_copy_label.h).
#include "detail/staged_copy_label.h"

#include <gtest/gtest.h>

#include <thread>

namespace devcheck::detail {
namespace {

TEST(StagedCopyLabel, IsTheInnermostScopesAndNoneOutsideOne) {
  EXPECT_EQ(staging_label(), nullptr);
  {
    const StagingScope outer("devcheck::Outer");
    EXPECT_STREQ(staging_label(), "devcheck::Outer");
    {
      const StagingScope inner("devcheck::Inner");
      EXPECT_STREQ(staging_label(), "devcheck::Inner");
    }
    EXPECT_STREQ(staging_label(), "devcheck::Outer");
  }
  EXPECT_EQ(staging_label(), nullptr);
}

TEST(StagedCopyLabel, IsThisThreadsOnly) {
  const StagingScope here("devcheck::Here");
  const char* there = "not read";
  std::thread([&there] { there = staging_label(); }).join();
  EXPECT_EQ(there, nullptr);
  EXPECT_STREQ(staging_label(), "devcheck::Here");
}

}  // namespace
}  // namespace devcheck::detail
