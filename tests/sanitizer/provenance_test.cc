#include "sanitizer/provenance.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

namespace devcheck::sanitizer {
namespace {

const c10::StorageImpl* key(const at::Tensor& t) { return t.storage().unsafeGetStorageImpl(); }

TEST(ProvenanceMap, RemembersTheOriginOfALiveTensorAndItsViews) {
  ProvenanceMap map;
  at::Tensor t = at::ones({4, 4});
  map.record(t.storage(), Origin{"aten::ones", 7});
  auto found = map.find(key(t[1]));  // a view shares the storage
  ASSERT_TRUE(found.has_value());
  EXPECT_STREQ(found->op, "aten::ones");
  EXPECT_EQ(found->site, 7U);
}

TEST(ProvenanceMap, NeverGivesADeadTensorsOriginToANewOne) {
  ProvenanceMap map;
  const c10::StorageImpl* old_key = nullptr;
  {
    at::Tensor t = at::ones({16});
    old_key = key(t);
    map.record(t.storage(), Origin{"aten::ones", 3});
  }
  // The weak reference keeps the dead StorageImpl's memory: no new storage
  // can be placed at that address while the entry exists.
  for (int i = 0; i < 1000; ++i) {
    at::Tensor fresh = at::empty({16});
    ASSERT_NE(key(fresh), old_key);
    EXPECT_FALSE(map.find(key(fresh)).has_value());
  }
  EXPECT_FALSE(map.find(old_key).has_value());
}

TEST(ProvenanceMap, IsBoundedAndForgetsDeadEntriesFirst) {
  ProvenanceMap map(64);
  at::Tensor keep = at::ones({1});
  map.record(keep.storage(), Origin{"aten::ones", 2});
  for (int i = 0; i < 10000; ++i) {
    at::Tensor t = at::empty({1});
    map.record(t.storage(), Origin{"aten::empty", 3});
  }
  EXPECT_LE(map.size(), 64U);
  EXPECT_TRUE(map.find(key(keep)).has_value());
}

TEST(ProvenanceMap, ForgetsTheOldestWhenTheLiveOnesExceedTheBound) {
  ProvenanceMap map(32);
  std::vector<at::Tensor> live;
  for (int i = 0; i < 100; ++i) {
    live.push_back(at::empty({1}));
    map.record(live.back().storage(), Origin{"aten::empty", static_cast<SiteId>(i + 2)});
  }
  EXPECT_LE(map.size(), 32U);
  EXPECT_FALSE(map.find(key(live.front())).has_value());
  EXPECT_TRUE(map.find(key(live.back())).has_value());
}

TEST(ProvenanceMap, ANewerRecordReplacesTheOrigin) {
  ProvenanceMap map;
  at::Tensor t = at::ones({2});
  map.record(t.storage(), Origin{"aten::empty", 2});
  map.record(t.storage(), Origin{"aten::ones", 3});
  EXPECT_EQ(map.find(key(t))->site, 3U);
  EXPECT_EQ(map.size(), 1U);
  map.clear();
  EXPECT_FALSE(map.find(key(t)).has_value());
}

}  // namespace
}  // namespace devcheck::sanitizer
