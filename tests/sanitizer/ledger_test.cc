#include "sanitizer/ledger.h"

#include <gtest/gtest.h>

#include "devcheck/fake_device.h"

namespace devcheck::sanitizer {
namespace {

const c10::Device kCpu("cpu");
// The accelerator side of each copy and sync.
c10::Device fake() { return fake_device(0); }

TEST(Ledger, CountsCopiesPerSiteAndDirection) {
  Ledger ledger;
  const TransferKey key{5, "aten::copy_", kCpu, fake(), false};
  for (int i = 0; i < 10; ++i) ledger.add_transfer(key, 100, false, 1, i * 1000, 64, 32, 64);
  ledger.add_transfer(TransferKey{5, "aten::copy_", fake(), kCpu, false}, 4, true, 1, 1, 64, 32,
                      64);
  const auto rows = ledger.transfers();
  ASSERT_EQ(rows.size(), 2U);
  for (const auto& [k, e] : rows) {
    if (k.src == kCpu) {
      EXPECT_EQ(e.count, 10U);
      EXPECT_EQ(e.bytes, 1000U);
      EXPECT_EQ(e.small, 0U);  // 100 B > 64 B
    } else {
      EXPECT_EQ(e.synchronizing, 1U);
    }
  }
}

TEST(Ledger, SmallCopiesBackToBackBecomeAFindingExactlyOnce) {
  Ledger ledger;
  const TransferKey key{7, "aten::copy_", kCpu, fake(), false};
  int flagged = 0;
  for (int i = 0; i < 100; ++i) {
    flagged += ledger.add_transfer(key, 12, false, 1, 5 * i, 1024, 32, 64) ? 1 : 0;
  }
  EXPECT_EQ(flagged, 1);
  EXPECT_TRUE(is_small_copy_finding(ledger.transfers()[0].second, 64));
}

TEST(Ledger, SmallCopiesFarApartOrOnOtherThreadsAreNot) {
  Ledger ledger;
  const TransferKey key{7, "aten::copy_", kCpu, fake(), false};
  for (int i = 0; i < 100; ++i) ledger.add_transfer(key, 12, false, 1, 500 * i, 1024, 32, 64);
  EXPECT_FALSE(is_small_copy_finding(ledger.transfers()[0].second, 64));
  Ledger threads;
  for (int i = 0; i < 100; ++i) threads.add_transfer(key, 12, false, i % 2, i, 1024, 32, 64);
  EXPECT_FALSE(is_small_copy_finding(threads.transfers()[0].second, 64));
}

TEST(Ledger, KeepsAtMostMaxEventsAndCountsTheRest) {
  Ledger ledger;
  for (int i = 0; i < 10; ++i) {
    ledger.add_event(TraceEvent{"aten::copy_", "copy", 1.0 * i, 1.0, 1, 4, kCpu, fake(), 2}, 6);
  }
  std::uint64_t dropped = 0;
  EXPECT_EQ(ledger.events(&dropped).size(), 6U);
  EXPECT_EQ(dropped, 4U);
  ledger.clear();
  EXPECT_TRUE(ledger.events(&dropped).empty());
  EXPECT_EQ(dropped, 0U);
}

TEST(Ledger, CountsSyncsPerSite) {
  Ledger ledger;
  ledger.add_sync(SyncKey{3, "aten::_local_scalar_dense", fake()});
  ledger.add_sync(SyncKey{3, "aten::_local_scalar_dense", fake()});
  ledger.add_sync(SyncKey{4, "aten::_local_scalar_dense", fake()});
  EXPECT_EQ(ledger.syncs().size(), 2U);
}

}  // namespace
}  // namespace devcheck::sanitizer
