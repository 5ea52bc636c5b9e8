// The callback's rules, seen through the engine's records.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "sanitizer/engine.h"

namespace devcheck::sanitizer {
namespace {

const c10::Device kMeta("meta");

class Callback : public ::testing::Test {
 protected:
  void SetUp() override { Engine::get().start(SanitizerOptions().trace(true)); }
  void TearDown() override { Engine::get().stop(); }
};

TEST_F(Callback, ZeroDimCpuTensorsMayMeetAnyDevice) {
  const at::Tensor x = at::ones({3}, at::TensorOptions().device(kMeta));
  at::add(x, at::scalar_tensor(2.0));
  at::mul(at::scalar_tensor(2.0), x);
  EXPECT_TRUE(Engine::get().mismatches().empty());
}

TEST_F(Callback, ButNotZeroDimTensorsOnOtherDevices) {
  const at::Tensor x = at::ones({3});
  try {
    at::add(x, at::scalar_tensor(2.0, at::TensorOptions().device(kMeta)));
  } catch (const c10::Error&) {
  }
  EXPECT_EQ(Engine::get().mismatches().size(), 1U);
}

TEST_F(Callback, OpsThatCrossDevicesAreNotMismatchesButAreCounted) {
  const at::Tensor cpu = at::ones({4});
  at::Tensor meta = at::empty({4}, at::TensorOptions().device(kMeta));
  meta.copy_(cpu);
  at::Tensor moved = cpu.to(kMeta);
  EXPECT_TRUE(Engine::get().mismatches().empty());
  std::uint64_t copies = 0;
  std::uint64_t bytes = 0;
  for (const auto& [key, entry] : Engine::get().ledger.transfers()) {
    copies += entry.count;
    bytes += entry.bytes;
  }
  EXPECT_EQ(copies, 2U);  // to() counted at its boundary, not the copy_ inside it again
  EXPECT_EQ(bytes, 32U);
  std::uint64_t dropped = 0;
  EXPECT_EQ(Engine::get().ledger.events(&dropped).size(), 2U);
}

TEST_F(Callback, TransfersAreNamedByTheOpTheProgramCalled) {
  const at::Tensor cpu = at::ones({2, 3});
  const at::Tensor moved = cpu.to(kMeta);
  const at::Tensor cast = cpu.to(at::kDouble);  // same device: no transfer
  const at::Tensor back_and_forth = at::_to_copy(cpu, at::TensorOptions().device(kMeta));
  std::map<std::string, std::uint64_t> bytes;
  for (const auto& [key, entry] : Engine::get().ledger.transfers()) {
    EXPECT_EQ(key.src, c10::Device("cpu"));
    EXPECT_EQ(key.dst, kMeta);
    bytes[key.op] += entry.bytes;
  }
  EXPECT_EQ(bytes,
            (std::map<std::string, std::uint64_t>{{"aten::to", 24}, {"aten::_to_copy", 24}}));
}

TEST_F(Callback, OpsInsideAnOpAreNotWatched) {
  const at::Tensor w = at::ones({3, 2}, at::TensorOptions().device(kMeta));
  const auto before = Engine::get().ledger.transfers().size();
  at::Tensor x = at::ones({2, 3}).to(kMeta);  // to -> _to_copy -> empty + copy_ inside
  EXPECT_EQ(Engine::get().ledger.transfers().size(), before + 1);
  at::matmul(x, w);  // matmul -> mm inside: both on meta, and mm never seen
  EXPECT_TRUE(Engine::get().mismatches().empty());
}

TEST_F(Callback, CopiesAnOpMakesOnItsOwnAreCountedUnderItsName) {
  const at::Tensor x = at::ones({4}, at::TensorOptions().device(kMeta));
  const at::Tensor cpu_indices = at::arange(2);  // index() moves them to meta itself
  at::Tensor picked = at::index(x, {cpu_indices});
  EXPECT_TRUE(Engine::get().mismatches().empty());
  const auto transfers = Engine::get().ledger.transfers();
  ASSERT_EQ(transfers.size(), 1U);
  EXPECT_STREQ(transfers[0].first.op, "aten::index");
  EXPECT_EQ(transfers[0].first.src, c10::Device("cpu"));
  EXPECT_EQ(transfers[0].first.dst, kMeta);
  EXPECT_EQ(transfers[0].second.count, 1U);
  EXPECT_EQ(transfers[0].second.bytes, 16U);  // two int64 indices
}

TEST_F(Callback, SyncsAnOpMakesOnItsOwnAreCountedUnderItsName) {
  const at::Tensor x = at::ones({4}, at::TensorOptions().device(kMeta));
  const at::Tensor start = at::zeros({}, at::TensorOptions().device(kMeta).dtype(at::kLong));
  try {
    at::narrow(x, 0, start, 2);  // reads start on the host: start.item() inside
  } catch (const c10::Error&) {
    // meta cannot be read; the attempt is still a sync
  }
  const auto syncs = Engine::get().ledger.syncs();
  ASSERT_EQ(syncs.size(), 1U);
  EXPECT_STREQ(syncs[0].first.op, "aten::narrow");
  EXPECT_EQ(syncs[0].first.device, kMeta);
  EXPECT_EQ(syncs[0].second, 1U);
}

TEST_F(Callback, SameDeviceToKeepsTheOriginalOrigin) {
  const at::Tensor x = at::ones({4});
  const at::Tensor same = x.to(c10::Device("cpu"));
  const auto origin = Engine::get().provenance.find(same.storage().unsafeGetStorageImpl());
  ASSERT_TRUE(origin.has_value());
  EXPECT_STREQ(origin->op, "aten::ones");
}

TEST_F(Callback, TransfersGiveTheirResultAnOrigin) {
  const at::Tensor moved = at::ones({4}).to(kMeta);
  const auto origin = Engine::get().provenance.find(moved.storage().unsafeGetStorageImpl());
  ASSERT_TRUE(origin.has_value());
  EXPECT_STREQ(origin->op, "aten::to");
}

TEST_F(Callback, InnerFactoriesOfAnOpAreNotOrigins) {
  const at::Tensor x = at::ones({4});
  // ones() calls empty() inside; only the outer op names the tensor.
  EXPECT_STREQ(Engine::get().provenance.find(x.storage().unsafeGetStorageImpl())->op, "aten::ones");
}

TEST_F(Callback, OnlyTheOutermostMismatchedOpIsReported) {
  const at::Tensor w = at::ones({3, 2}, at::TensorOptions().device(kMeta));
  at::matmul(at::ones({2, 3}), w);  // matmul -> mm inside
  try {
    at::linear(at::ones({2, 2}), w.t());  // linear -> matmul -> mm
  } catch (const c10::Error&) {
  }
  const auto records = Engine::get().mismatches();
  ASSERT_EQ(records.size(), 2U);
  EXPECT_EQ(records[0].op, "aten::matmul");
  EXPECT_EQ(records[1].op, "aten::linear");
}

TEST_F(Callback, AfterAMismatchTheNextOpsAreCheckedAgain) {
  const at::Tensor w = at::ones({3}, at::TensorOptions().device(kMeta));
  at::matmul(at::ones({1, 3}), w);
  try {
    at::dot(at::ones({3}), w);
  } catch (const c10::Error&) {
  }
  EXPECT_EQ(Engine::get().mismatches().size(), 2U);
}

}  // namespace
}  // namespace devcheck::sanitizer
