// The callback's rules, seen through the engine's records.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "devcheck/fake_device.h"
#include "sanitizer/engine.h"

namespace devcheck::sanitizer {
namespace {

const c10::Device kCpu("cpu");

// The second device is the fake accelerator: it computes, and fails on mixed
// devices as CUDA does.
c10::Device fake(int index = 0) { return fake_device(index); }
at::TensorOptions on_fake(int index = 0) { return at::TensorOptions().device(fake(index)); }

class Callback : public ::testing::Test {
 protected:
  void SetUp() override { Engine::get().start(SanitizerOptions().trace(true)); }
  void TearDown() override { Engine::get().stop(); }
};

TEST_F(Callback, ZeroDimCpuTensorsMayMeetAnyDevice) {
  const at::Tensor x = at::ones({3}, on_fake());
  const at::Tensor sum = at::add(x, at::scalar_tensor(2.0));
  const at::Tensor product = at::mul(at::scalar_tensor(2.0), x);
  EXPECT_TRUE(Engine::get().mismatches().empty());
  EXPECT_TRUE(at::equal(sum.cpu(), at::full({3}, 3.0F)));
  EXPECT_EQ(product.device(), fake());
}

TEST_F(Callback, ButNotZeroDimTensorsOnOtherDevices) {
  const at::Tensor x = at::ones({3});
  EXPECT_THROW(at::add(x, at::scalar_tensor(2.0, on_fake())), c10::Error);
  const auto records = Engine::get().mismatches();
  ASSERT_EQ(records.size(), 1U);
  EXPECT_EQ(records[0].op, "aten::add");
  EXPECT_EQ(records[0].expected, fake());  // a tie goes to the accelerator
}

TEST_F(Callback, FakeZeroAndFakeOneAreAMismatch) {
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

TEST_F(Callback, OpsThatCrossDevicesAreNotMismatchesButAreCounted) {
  const at::Tensor cpu = at::arange(4, at::kFloat);
  at::Tensor on_device = at::empty({4}, on_fake());
  on_device.copy_(cpu);
  at::Tensor moved = cpu.to(fake(1));
  EXPECT_TRUE(Engine::get().mismatches().empty());
  EXPECT_TRUE(at::equal(on_device.cpu(), cpu));
  EXPECT_TRUE(at::equal(moved.cpu(), cpu));
  std::uint64_t copies = 0;
  std::uint64_t bytes = 0;
  for (const auto& [key, entry] : Engine::get().ledger.transfers()) {
    if (key.src != kCpu) continue;  // the .cpu() reads above are counted too
    copies += entry.count;
    bytes += entry.bytes;
  }
  EXPECT_EQ(copies, 2U);  // to() counted at its boundary, not the copy_ inside it again
  EXPECT_EQ(bytes, 32U);
  std::uint64_t dropped = 0;
  EXPECT_EQ(Engine::get().ledger.events(&dropped).size(), 4U);
}

TEST_F(Callback, ACopyBackToTheHostIsASync) {
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

TEST_F(Callback, TransfersAreNamedByTheOpTheProgramCalled) {
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

TEST_F(Callback, OpsInsideAnOpAreNotWatched) {
  const at::Tensor w = at::ones({3, 2}, on_fake());
  const auto before = Engine::get().ledger.transfers().size();
  at::Tensor x = at::ones({2, 3}).to(fake());  // to -> _to_copy -> empty + copy_ inside
  EXPECT_EQ(Engine::get().ledger.transfers().size(), before + 1);
  const at::Tensor y = at::matmul(x, w);  // matmul -> mm inside: both on the fake device
  EXPECT_TRUE(Engine::get().mismatches().empty());
  EXPECT_EQ(y.device(), fake());
}

TEST_F(Callback, CopiesAnOpMakesOnItsOwnAreCountedUnderItsName) {
  // ctc_loss reads its lengths on the host (two hidden device-to-host copies,
  // each a sync) and sends a small tensor of its own back to the device.
  const int64_t steps = 5;
  const at::Tensor log_probs = at::randn({steps, 2, 4}).log_softmax(2).to(fake());
  const at::Tensor targets = at::randint(1, 4, {2, 3}).to(fake());
  const at::Tensor input_lengths = at::full({2}, steps, at::kLong).to(fake());
  const at::Tensor target_lengths = at::full({2}, 3, at::kLong).to(fake());
  Engine::get().ledger.clear();
  const at::Tensor loss = at::ctc_loss(log_probs, targets, input_lengths, target_lengths);
  EXPECT_EQ(loss.device(), fake());
  EXPECT_TRUE(Engine::get().mismatches().empty());
  std::uint64_t to_host = 0;
  std::uint64_t to_host_bytes = 0;
  std::uint64_t synchronizing = 0;
  std::uint64_t to_device = 0;
  for (const auto& [key, entry] : Engine::get().ledger.transfers()) {
    EXPECT_STREQ(key.op, "aten::ctc_loss");
    if (key.dst == kCpu) {
      EXPECT_EQ(key.src, fake());
      to_host += entry.count;
      to_host_bytes += entry.bytes;
      synchronizing += entry.synchronizing;
    } else {
      EXPECT_EQ(key.dst, fake());
      to_device += entry.count;
    }
  }
  EXPECT_EQ(to_host, 2U);
  EXPECT_EQ(to_host_bytes, 32U);  // two int64 lengths each
  EXPECT_EQ(synchronizing, 2U);
  EXPECT_GE(to_device, 1U);
}

// meta is the point here: its index kernel moves CPU indices to the device
// itself, as CUDA's does; the fake device's CPU kernel reads them in place.
TEST_F(Callback, CopiesOfIndicesAnIndexOpMakesAreCountedUnderItsName) {
  const at::Tensor x = at::ones({4}, at::TensorOptions().device(c10::kMeta));
  const at::Tensor cpu_indices = at::arange(2);
  at::Tensor picked = at::index(x, {cpu_indices});
  EXPECT_TRUE(Engine::get().mismatches().empty());
  const auto transfers = Engine::get().ledger.transfers();
  ASSERT_EQ(transfers.size(), 1U);
  EXPECT_STREQ(transfers[0].first.op, "aten::index");
  EXPECT_EQ(transfers[0].first.src, kCpu);
  EXPECT_EQ(transfers[0].first.dst, c10::Device(c10::kMeta));
  EXPECT_EQ(transfers[0].second.count, 1U);
  EXPECT_EQ(transfers[0].second.bytes, 16U);  // two int64 indices
}

TEST_F(Callback, SyncsAnOpMakesOnItsOwnAreCountedUnderItsName) {
  const at::Tensor x = at::arange(4, on_fake().dtype(at::kFloat));
  const at::Tensor start = at::ones({}, on_fake().dtype(at::kLong));
  Engine::get().ledger.clear();
  const at::Tensor middle = at::narrow(x, 0, start, 2);  // reads start on the host
  const auto syncs = Engine::get().ledger.syncs();
  EXPECT_TRUE(at::equal(middle.cpu(), at::arange(1, 3, at::kFloat)));
  ASSERT_EQ(syncs.size(), 1U);
  EXPECT_STREQ(syncs[0].first.op, "aten::narrow");
  EXPECT_EQ(syncs[0].first.device, fake());
  EXPECT_EQ(syncs[0].second, 1U);
}

TEST_F(Callback, SameDeviceToKeepsTheOriginalOrigin) {
  const at::Tensor x = at::ones({4});
  const at::Tensor same = x.to(c10::Device("cpu"));
  const auto origin = Engine::get().provenance.find(same.storage().unsafeGetStorageImpl());
  ASSERT_TRUE(origin.has_value());
  EXPECT_STREQ(origin->op, "aten::ones");
}

TEST_F(Callback, AConversionOnTheSameDeviceKeepsTheOriginOfItsInput) {
  const at::Tensor mask = at::ones({4, 4});
  const at::Tensor as_bool = mask.to(at::kBool);  // .bool(): a new tensor, chosen where mask was
  const auto origin = Engine::get().provenance.find(as_bool.storage().unsafeGetStorageImpl());
  ASSERT_TRUE(origin.has_value());
  EXPECT_STREQ(origin->op, "aten::ones");
}

TEST_F(Callback, IndicesMayBeOnTheHostButTheIndexedTensorMayNot) {
  const at::Tensor on_device = at::arange(5.0, on_fake());
  (void)on_device.index({at::tensor({1, 3}, at::kLong)});
  EXPECT_TRUE(Engine::get().mismatches().empty());
  EXPECT_THROW((void)at::arange(5.0).index({at::tensor({1, 3}, at::kLong).to(fake())}), c10::Error);
  const auto records = Engine::get().mismatches();
  ASSERT_EQ(records.size(), 1U);
  EXPECT_EQ(records[0].op, "aten::index");
  EXPECT_EQ(records[0].expected, fake());
}

TEST_F(Callback, APackedSequencesLengthsOnTheHostAreNotAMismatch) {
  const at::Tensor input = at::randn({5, 2, 3}, on_fake());
  const auto packed =
      at::_pack_padded_sequence(input, at::tensor({5, 3}, at::kLong), /*batch_first=*/false);
  EXPECT_TRUE(Engine::get().mismatches().empty());
  EXPECT_EQ(std::get<1>(packed).device(), kCpu);  // batch_sizes stay on the host, as PyTorch wants
}

TEST_F(Callback, TransfersGiveTheirResultAnOrigin) {
  const at::Tensor moved = at::ones({4}).to(fake());
  const auto origin = Engine::get().provenance.find(moved.storage().unsafeGetStorageImpl());
  ASSERT_TRUE(origin.has_value());
  EXPECT_STREQ(origin->op, "aten::to");
}

TEST_F(Callback, InnerFactoriesOfAnOpAreNotOrigins) {
  const at::Tensor x = at::ones({4});
  // ones() calls empty() inside; only the outer op names the tensor.
  EXPECT_STREQ(Engine::get().provenance.find(x.storage().unsafeGetStorageImpl())->op, "aten::ones");
  const at::Tensor y = at::ones({4}, on_fake());
  EXPECT_STREQ(Engine::get().provenance.find(y.storage().unsafeGetStorageImpl())->op, "aten::ones");
}

TEST_F(Callback, OnlyTheOutermostMismatchedOpIsReported) {
  const at::Tensor w = at::ones({3, 2}, on_fake());
  EXPECT_THROW(at::matmul(at::ones({2, 3}), w), c10::Error);      // matmul -> mm inside
  EXPECT_THROW(at::linear(at::ones({2, 2}), w.t()), c10::Error);  // linear -> matmul -> mm
  const auto records = Engine::get().mismatches();
  ASSERT_EQ(records.size(), 2U);
  EXPECT_EQ(records[0].op, "aten::matmul");
  EXPECT_EQ(records[1].op, "aten::linear");
}

TEST_F(Callback, AfterAMismatchTheNextOpsAreCheckedAgain) {
  const at::Tensor w = at::ones({3}, on_fake());
  EXPECT_THROW(at::matmul(at::ones({1, 3}), w), c10::Error);
  EXPECT_THROW(at::dot(at::ones({3}), w), c10::Error);
  EXPECT_EQ(Engine::get().mismatches().size(), 2U);
}

}  // namespace
}  // namespace devcheck::sanitizer
