#include "sanitizer/ledger.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <vector>

#include "devcheck/fake_device.h"

namespace devcheck::sanitizer {
namespace {

const c10::Device kCpu("cpu");
// The accelerator side of each copy and sync.
c10::Device fake() { return fake_device(0); }

// A copy of `bytes` at op `op_index` of thread 1, in step `step`, reading `read`.
CopyEvent copy_of(std::uint64_t bytes, std::uint64_t op_index, const c10::Storage* read,
                  std::uint64_t step = 0, std::uint64_t thread = 1) {
  return CopyEvent{bytes, false, thread, op_index, step, read, nullptr, true};
}

const FloodRule kRule{1024, 32, 64};  // small: <= 1 KiB; a burst: <= 32 ops apart; 64 copies

TEST(Ledger, CountsCopiesPerSiteAndDirection) {
  Ledger ledger;
  const TransferKey key{5, "aten::copy_", kCpu, fake(), false};
  const at::Tensor t = at::ones({25});
  for (int i = 0; i < 10; ++i)
    ledger.add_transfer(key, copy_of(100, i * 1000, &t.storage()), kRule);
  ledger.add_transfer(TransferKey{5, "aten::copy_", fake(), kCpu, false},
                      CopyEvent{4, true, 1, 1, 0, nullptr, nullptr, true}, kRule);
  const auto rows = ledger.transfers();
  ASSERT_EQ(rows.size(), 2U);
  for (const auto& [k, e] : rows) {
    if (k.src == kCpu) {
      EXPECT_EQ(e.count, 10U);
      EXPECT_EQ(e.bytes, 1000U);
      EXPECT_EQ(e.small, 10U);
    } else {
      EXPECT_EQ(e.synchronizing, 1U);
    }
  }
}

TEST(Ledger, PiecesOfOneTensorBackToBackInOneStepAreAFloodExactlyOnce) {
  Ledger ledger;
  const TransferKey key{7, "aten::copy_", kCpu, fake(), false};
  const at::Tensor batch = at::ones({100, 3});  // per-sample slices: one storage
  int flagged = 0;
  for (int i = 0; i < 100; ++i) {
    flagged += ledger.add_transfer(key, copy_of(12, 5 * i, &batch.storage()), kRule) ? 1 : 0;
  }
  EXPECT_EQ(flagged, 1);
  const TransferEntry e = ledger.transfers()[0].second;
  EXPECT_EQ(e.flood, 100U);
  EXPECT_TRUE(is_small_copy_finding(e, 64));
}

TEST(Ledger, AWrittenTensorFilledPieceByPieceIsAFlood) {
  Ledger ledger;
  const TransferKey key{8, "aten::copy_", kCpu, fake(), false};
  const at::Tensor dst = at::zeros({100});
  std::vector<at::Tensor> values;
  for (int i = 0; i < 100; ++i) {
    values.push_back(at::scalar_tensor(i));  // each value its own storage
    ledger.add_transfer(key,
                        CopyEvent{4, false, 1, 3 * static_cast<std::uint64_t>(i), 0,
                                  &values.back().storage(), &dst.storage(), true},
                        kRule);
  }
  EXPECT_EQ(ledger.transfers()[0].second.flood, 100U);
}

TEST(Ledger, OneCopyPerTensorIsNeverAFloodHoweverCloseTogether) {
  // A module's parameters moved by one call, a state dict copied in a loop:
  // back to back, small, each tensor once.
  Ledger ledger;
  const TransferKey key{9, "aten::_to_copy", kCpu, fake(), false};
  std::vector<at::Tensor> parameters;
  for (int i = 0; i < 300; ++i) parameters.push_back(at::ones({3}));
  for (int i = 0; i < 300; ++i)
    ledger.add_transfer(key, copy_of(12, i, &parameters[i].storage()), kRule);
  const TransferEntry e = ledger.transfers()[0].second;
  EXPECT_EQ(e.count, 300U);
  EXPECT_EQ(e.small, 300U);
  EXPECT_EQ(e.flood, 0U);
  EXPECT_FALSE(is_small_copy_finding(e, 64));
}

TEST(Ledger, ADeadTensorsAddressReusedByANewOneIsNotAPiece) {
  // A batch per step: each step's batch dies before the next is made, and the
  // allocator may give the next one the same memory.
  Ledger ledger;
  const TransferKey key{10, "aten::_to_copy", kCpu, fake(), false};
  for (int i = 0; i < 200; ++i) {
    const at::Tensor batch = at::ones({3});
    ledger.add_transfer(key, copy_of(12, i, &batch.storage()), kRule);
  }
  EXPECT_EQ(ledger.transfers()[0].second.flood, 0U);
}

TEST(Ledger, TheSameTensorOncePerStepIsNotAFloodButWithinOneStepItIs) {
  const TransferKey key{11, "aten::_to_copy", kCpu, fake(), false};
  const at::Tensor data = at::ones({1000, 3});  // slices of one dataset tensor, a batch per step
  Ledger per_step;
  for (int i = 0; i < 200; ++i)
    per_step.add_transfer(key, copy_of(12, i, &data.storage(), i), kRule);
  EXPECT_EQ(per_step.transfers()[0].second.flood, 0U);
  Ledger one_step;
  for (int i = 0; i < 200; ++i)
    one_step.add_transfer(key, copy_of(12, i, &data.storage(), 7), kRule);
  EXPECT_EQ(one_step.transfers()[0].second.flood, 200U);
}

TEST(Ledger, SmallCopiesFarApartOrOnOtherThreadsAreNotAFlood) {
  const TransferKey key{7, "aten::copy_", kCpu, fake(), false};
  const at::Tensor labels = at::zeros({3});
  Ledger far;
  for (int i = 0; i < 100; ++i)
    far.add_transfer(key, copy_of(12, 500 * i, &labels.storage()), kRule);
  EXPECT_FALSE(is_small_copy_finding(far.transfers()[0].second, 64));
  Ledger threads;
  for (int i = 0; i < 100; ++i) {
    threads.add_transfer(key, copy_of(12, i, &labels.storage(), 0, i % 2), kRule);
  }
  EXPECT_FALSE(is_small_copy_finding(threads.transfers()[0].second, 64));
}

TEST(Ledger, CopiesOfACoalescedTransferCountOnceAndAreNeverSmall) {
  Ledger ledger;
  const TransferKey key{12, "torch.cuda.comm.broadcast_coalesced", fake(), fake(), false};
  const at::Tensor t = at::ones({3});
  FloodRule never_small = kRule;
  never_small.small_bytes = 0;
  ledger.add_transfer(key, CopyEvent{12, false, 1, 0, 0, &t.storage(), nullptr, true}, never_small);
  for (int i = 1; i < 100; ++i) {
    ledger.add_transfer(
        key,
        CopyEvent{12, false, 1, static_cast<std::uint64_t>(i), 0, &t.storage(), nullptr, false},
        never_small);
  }
  const TransferEntry e = ledger.transfers()[0].second;
  EXPECT_EQ(e.count, 1U);
  EXPECT_EQ(e.bytes, 1200U);
  EXPECT_EQ(e.small, 0U);
  EXPECT_EQ(e.flood, 0U);
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
