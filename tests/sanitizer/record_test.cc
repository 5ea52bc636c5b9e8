// What the watch records of an op (record.cc): a mismatch's arguments, the
// ledger's transfers and syncs, the label of devcheck's own staging copies.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "detail/staged_copy_label.h"
#include "sanitizer/engine.h"
#include "sanitizer/stack.h"
#include "sanitizer/watched_session.h"

namespace devcheck::sanitizer {
namespace {

using Record = WatchedSession;

TEST_F(Record, FakeZeroAndFakeOneAreAMismatch) {
  const at::Tensor a = at::ones({3}, on_fake(0));
  const at::Tensor b = at::ones({3}, on_fake(1));
  EXPECT_THROW(at::mul(a, b), c10::Error);
  const auto records = Engine::get().mismatches();
  ASSERT_EQ(records.size(), 1U);
  EXPECT_EQ(records[0].op, "aten::mul");
  ASSERT_EQ(records[0].args.size(), 2U);
  EXPECT_EQ(records[0].args[0].device, fake(0));
  EXPECT_EQ(records[0].args[1].device, fake(1));
  EXPECT_TRUE(records[0].args[1].stray);  // a tie between accelerators: the first seen
}

TEST_F(Record, ACopyBackToTheHostIsASync) {
  const at::Tensor x = at::ones({2, 3}, on_fake());
  const at::Tensor back = x.cpu();
  // non_blocking: the host does not wait for it
  const at::Tensor ahead = x.to(at::TensorOptions().device(kCpu), /*non_blocking=*/true);
  const auto syncs = Engine::get().ledger.syncs();
  ASSERT_EQ(syncs.size(), 1U);
  EXPECT_STREQ(syncs[0].first.op, "aten::to");  // cpu() calls to()
  EXPECT_EQ(syncs[0].first.device, fake());
  EXPECT_EQ(syncs[0].second, 1U);
  std::uint64_t synchronizing = 0;
  for (const auto& [key, entry] : Engine::get().ledger.transfers()) {
    EXPECT_EQ(key.src, fake());
    EXPECT_EQ(key.dst, kCpu);
    synchronizing += entry.synchronizing;
  }
  EXPECT_EQ(synchronizing, 1U);
}

TEST_F(Record, TransfersAreNamedByTheOpTheProgramCalled) {
  const at::Tensor cpu = at::ones({2, 3});
  const at::Tensor moved = cpu.to(fake());
  const at::Tensor cast = cpu.to(at::kDouble);          // same device: no transfer
  const at::Tensor cast_there = moved.to(at::kDouble);  // nor on the fake device
  const at::Tensor back_and_forth = at::_to_copy(cpu, on_fake());
  std::map<std::string, std::uint64_t> bytes;
  for (const auto& [key, entry] : Engine::get().ledger.transfers()) {
    EXPECT_EQ(key.src, kCpu);
    EXPECT_EQ(key.dst, fake());
    bytes[key.op] += entry.bytes;
  }
  EXPECT_EQ(bytes,
            (std::map<std::string, std::uint64_t>{{"aten::to", 24}, {"aten::_to_copy", 24}}));
}

// devcheck's own staging copies (the prefetcher's, a process group's) are
// counted under their label, and however many and small, never a flood; the
// same copies of the program's own are one.
TEST_F(Record, CopiesDevcheckStagesAreCountedUnderTheirLabelAndAreNeverSmall) {
  const at::Tensor batch = at::ones({100, 2});
  at::Tensor on_device = at::empty({100, 2}, on_fake());
  for (int64_t i = 0; i < 100; ++i) on_device[i].copy_(batch[i]);
  auto transfers = Engine::get().ledger.transfers();
  ASSERT_EQ(transfers.size(), 1U);
  EXPECT_EQ(transfers[0].second.small, 100U);
  EXPECT_EQ(transfers[0].second.flood, 100U);
  EXPECT_TRUE(sites().get(transfers[0].first.site).python.empty());

  Engine::get().ledger.clear();
  {
    const detail::StagingScope staging("devcheck::Test (batch staging)");
    for (int64_t i = 0; i < 100; ++i) on_device[i].copy_(batch[i]);
  }
  transfers = Engine::get().ledger.transfers();
  ASSERT_EQ(transfers.size(), 1U);
  const auto& [key, entry] = transfers[0];
  EXPECT_STREQ(key.op, "aten::copy_");
  EXPECT_EQ(key.src, kCpu);
  EXPECT_EQ(key.dst, fake());
  const Site site = sites().get(key.site);
  EXPECT_EQ(site.python, "devcheck::Test (batch staging)");
  EXPECT_TRUE(site.pcs.empty());
  EXPECT_EQ(entry.count, 100U);
  EXPECT_EQ(entry.bytes, 800U);
  EXPECT_EQ(entry.small, 0U);
  EXPECT_EQ(entry.flood, 0U);
  EXPECT_FALSE(entry.flagged);
}

}  // namespace
}  // namespace devcheck::sanitizer
