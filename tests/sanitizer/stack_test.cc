#include "sanitizer/stack.h"

#include <gtest/gtest.h>

#include <vector>

namespace devcheck::sanitizer {
namespace {

SiteId site_from_here() { return capture_site(); }

TEST(SiteTable, InternsOneIdPerDistinctStack) {
  std::vector<SiteId> ids;
  volatile int times = 2;  // a real loop: one call site, not an unrolled pair
  for (int i = 0; i < times; ++i) ids.push_back(site_from_here());
  const SiteId first = ids[0];
  const SiteId again = ids[1];
  EXPECT_GE(first, 2U);
  EXPECT_EQ(first, again);
  EXPECT_NE(site_from_here(), first);  // another call site
  EXPECT_FALSE(sites().get(first).pcs.empty());
  EXPECT_TRUE(sites().get(first).python.empty());  // no Python in this process
}

TEST(SiteTable, PythonLocationIsPartOfTheKey) {
  SiteTable table;
  RawStack stack;
  capture_stack(stack);
  const SiteId a = table.intern(stack, "a.py:1");
  const SiteId b = table.intern(stack, "a.py:2");
  EXPECT_NE(a, b);
  EXPECT_EQ(table.intern(stack, "a.py:1"), a);
  EXPECT_EQ(table.get(b).python, "a.py:2");
}

TEST(SiteTable, IsBoundedAndSaysWhenFull) {
  SiteTable table(4);  // two ids are reserved
  RawStack stack;
  capture_stack(stack);
  EXPECT_EQ(table.intern(stack, "1"), 2U);
  EXPECT_EQ(table.intern(stack, "2"), 3U);
  EXPECT_EQ(table.intern(stack, "3"), kSiteOverflow);
  EXPECT_EQ(table.size(), 2U);
  EXPECT_TRUE(table.get(kSiteOverflow).pcs.empty());
  EXPECT_TRUE(table.get(999).pcs.empty());
}

}  // namespace
}  // namespace devcheck::sanitizer
