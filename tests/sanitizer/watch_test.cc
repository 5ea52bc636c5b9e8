// The watch's rules (watch.cc), seen through the engine's records: which
// ops are checked, which copies and syncs are counted, which results get an
// origin.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "devcheck/fake_cuda.h"
#include "sanitizer/engine.h"
#include "sanitizer/watched_session.h"

namespace devcheck::sanitizer {
namespace {

using Watch = WatchedSession;

TEST_F(Watch, ZeroDimCpuTensorsMayMeetAnyDevice) {
  const at::Tensor x = at::ones({3}, on_fake());
  const at::Tensor sum = at::add(x, at::scalar_tensor(2.0));
  const at::Tensor product = at::mul(at::scalar_tensor(2.0), x);
  EXPECT_TRUE(Engine::get().mismatches().empty());
  EXPECT_TRUE(at::equal(sum.cpu(), at::full({3}, 3.0F)));
  EXPECT_EQ(product.device(), fake());
}

TEST_F(Watch, ButNotZeroDimTensorsOnOtherDevices) {
  const at::Tensor x = at::ones({3});
  EXPECT_THROW(at::add(x, at::scalar_tensor(2.0, on_fake())), c10::Error);
  const auto records = Engine::get().mismatches();
  ASSERT_EQ(records.size(), 1U);
  EXPECT_EQ(records[0].op, "aten::add");
  EXPECT_EQ(records[0].expected, fake());  // a tie goes to the accelerator
}

TEST_F(Watch, OpsThatCrossDevicesAreNotMismatchesButAreCounted) {
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

TEST_F(Watch, OpsInsideAnOpAreNotWatched) {
  const at::Tensor w = at::ones({3, 2}, on_fake());
  const auto before = Engine::get().ledger.transfers().size();
  at::Tensor x = at::ones({2, 3}).to(fake());  // to -> _to_copy -> empty + copy_ inside
  EXPECT_EQ(Engine::get().ledger.transfers().size(), before + 1);
  const at::Tensor y = at::matmul(x, w);  // matmul -> mm inside: both on the fake device
  EXPECT_TRUE(Engine::get().mismatches().empty());
  EXPECT_EQ(y.device(), fake());
}

TEST_F(Watch, CopiesAnOpMakesOnItsOwnAreCountedUnderItsName) {
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

// index on a device copies the indices it is given on the CPU to the device
// first (make_info), as CUDA's kernel does: a hidden host-to-device copy,
// counted under the op's name. On the fake accelerator LibTorch's structured
// index makes it; fake CUDA, whose kernels replace CUDA's, makes it itself.
TEST_F(Watch, CopiesOfIndicesAnIndexOpMakesAreCountedUnderItsName) {
  fake_cuda(2);
  for (const c10::Device device : {fake(), c10::Device("cuda:1")}) {
    const at::Tensor x = at::arange(4, at::TensorOptions().device(device).dtype(at::kFloat));
    const at::Tensor cpu_indices = at::arange(2);
    Engine::get().ledger.clear();
    const at::Tensor picked = at::index(x, {cpu_indices});
    EXPECT_TRUE(Engine::get().mismatches().empty());
    const auto transfers = Engine::get().ledger.transfers();
    ASSERT_EQ(transfers.size(), 1U) << device;
    EXPECT_STREQ(transfers[0].first.op, "aten::index");
    EXPECT_EQ(transfers[0].first.src, kCpu);
    EXPECT_EQ(transfers[0].first.dst, device);
    EXPECT_EQ(transfers[0].second.count, 1U) << device;
    EXPECT_EQ(transfers[0].second.bytes, 16U);  // two int64 indices
    EXPECT_EQ(picked.device(), device);
    EXPECT_TRUE(at::equal(picked.cpu(), at::arange(2, at::kFloat)));
    EXPECT_TRUE(cpu_indices.is_cpu());  // the caller's indices stay where they were
  }
}

// meta holds no data: a move to it (meta's own index moves CPU indices to
// meta too) copies nothing, and nothing is counted.
TEST_F(Watch, MovesToMetaCopyNothingAndAreNotCounted) {
  const at::TensorOptions meta = at::TensorOptions().device(c10::kMeta);
  Engine::get().ledger.clear();
  const at::Tensor picked = at::index(at::ones({4}, meta), {at::arange(2)});
  const at::Tensor moved = at::ones({3}).to(c10::kMeta);
  at::Tensor target = at::empty({3}, meta);
  target.copy_(at::ones({3}));
  EXPECT_TRUE(picked.is_meta());
  EXPECT_TRUE(moved.is_meta());
  EXPECT_TRUE(Engine::get().ledger.transfers().empty());
  EXPECT_TRUE(Engine::get().ledger.syncs().empty());
}

TEST_F(Watch, SyncsAnOpMakesOnItsOwnAreCountedUnderItsName) {
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

TEST_F(Watch, SameDeviceToKeepsTheOriginalOrigin) {
  const at::Tensor x = at::ones({4});
  const at::Tensor same = x.to(c10::Device("cpu"));
  const auto origin = Engine::get().provenance.find(same.storage().unsafeGetStorageImpl());
  ASSERT_TRUE(origin.has_value());
  EXPECT_STREQ(origin->op, "aten::ones");
}

TEST_F(Watch, AConversionOnTheSameDeviceKeepsTheOriginOfItsInput) {
  const at::Tensor mask = at::ones({4, 4});
  const at::Tensor as_bool = mask.to(at::kBool);  // .bool(): a new tensor, chosen where mask was
  const auto origin = Engine::get().provenance.find(as_bool.storage().unsafeGetStorageImpl());
  ASSERT_TRUE(origin.has_value());
  EXPECT_STREQ(origin->op, "aten::ones");
}

TEST_F(Watch, ADerivationOfATensorOfKnownOriginIsMadeWhereItRuns) {
  const at::Tensor mask = at::triu(at::ones({4, 4}), 1);
  const at::Tensor scaled = mask * 2;            // a wrapped scalar is not a second input
  const at::Tensor tiled = mask.repeat({2, 1});  // a list of sizes is not a tensor
  const auto mask_origin = Engine::get().provenance.find(mask.storage().unsafeGetStorageImpl());
  const auto scaled_origin = Engine::get().provenance.find(scaled.storage().unsafeGetStorageImpl());
  ASSERT_TRUE(mask_origin.has_value());
  ASSERT_TRUE(scaled_origin.has_value());
  EXPECT_STREQ(mask_origin->op, "aten::triu");
  EXPECT_STREQ(mask_origin->from_op, "aten::ones");
  EXPECT_NE(mask_origin->site, kNoSite);
  EXPECT_NE(mask_origin->from_site, kNoSite);
  EXPECT_STREQ(scaled_origin->op, "aten::mul");
  EXPECT_STREQ(scaled_origin->from_op, "aten::ones");  // where the chain started
  EXPECT_EQ(scaled_origin->from_site, mask_origin->from_site);
  const auto tiled_origin = Engine::get().provenance.find(tiled.storage().unsafeGetStorageImpl());
  ASSERT_TRUE(tiled_origin.has_value());
  EXPECT_STREQ(tiled_origin->op, "aten::repeat");
  // Nor is a list of tensors one tensor.
  const at::Tensor joined = at::cat({mask});
  EXPECT_FALSE(Engine::get().provenance.find(joined.storage().unsafeGetStorageImpl()).has_value());
  // Two tensors decide a result's device together: it has no single origin.
  const at::Tensor sum = at::add(mask, at::zeros({4, 4}));
  EXPECT_FALSE(Engine::get().provenance.find(sum.storage().unsafeGetStorageImpl()).has_value());
  // Nor does a derivation of a tensor not seen being made.
  const at::Tensor unknown =
      at::from_blob(scaled.data_ptr<float>(), {16}, at::TensorOptions().dtype(at::kFloat));
  const at::Tensor negated = at::neg(unknown);
  EXPECT_FALSE(Engine::get().provenance.find(negated.storage().unsafeGetStorageImpl()).has_value());
}

TEST_F(Watch, AStrayDerivedFromAFactorysResultIsReportedWhereItWasDerived) {
  const at::Tensor weights = at::ones({4}, on_fake());
  const at::Tensor stray = at::cumsum(at::ones({4}), 0).to(at::kBool);
  EXPECT_THROW((void)at::masked_fill(weights, stray, 0.0), c10::Error);
  const auto records = Engine::get().mismatches();
  ASSERT_EQ(records.size(), 1U);
  bool named = false;
  for (const auto& arg : records[0].args) {
    if (arg.device == kCpu) {
      ASSERT_TRUE(arg.origin_known);
      EXPECT_STREQ(arg.origin.op, "aten::cumsum");  // .to(kBool) keeps it
      EXPECT_STREQ(arg.origin.from_op, "aten::ones");
      named = true;
    }
  }
  EXPECT_TRUE(named);
}

TEST_F(Watch, IndicesMayBeOnTheHostButTheIndexedTensorMayNot) {
  const at::Tensor on_device = at::arange(5.0, on_fake());
  (void)on_device.index({at::tensor({1, 3}, at::kLong)});
  EXPECT_TRUE(Engine::get().mismatches().empty());
  EXPECT_THROW((void)at::arange(5.0).index({at::tensor({1, 3}, at::kLong).to(fake())}), c10::Error);
  const auto records = Engine::get().mismatches();
  ASSERT_EQ(records.size(), 1U);
  EXPECT_EQ(records[0].op, "aten::index");
  EXPECT_EQ(records[0].expected, fake());
}

TEST_F(Watch, APackedSequencesLengthsOnTheHostAreNotAMismatch) {
  const at::Tensor input = at::randn({5, 2, 3}, on_fake());
  const auto packed =
      at::_pack_padded_sequence(input, at::tensor({5, 3}, at::kLong), /*batch_first=*/false);
  EXPECT_TRUE(Engine::get().mismatches().empty());
  EXPECT_EQ(std::get<1>(packed).device(), kCpu);  // batch_sizes stay on the host, as PyTorch wants
}

TEST_F(Watch, TransfersGiveTheirResultAnOrigin) {
  const at::Tensor moved = at::ones({4}).to(fake());
  const auto origin = Engine::get().provenance.find(moved.storage().unsafeGetStorageImpl());
  ASSERT_TRUE(origin.has_value());
  EXPECT_STREQ(origin->op, "aten::to");
}

TEST_F(Watch, InnerFactoriesOfAnOpAreNotOrigins) {
  const at::Tensor x = at::ones({4});
  // ones() calls empty() inside; only the outer op names the tensor.
  EXPECT_STREQ(Engine::get().provenance.find(x.storage().unsafeGetStorageImpl())->op, "aten::ones");
  const at::Tensor y = at::ones({4}, on_fake());
  EXPECT_STREQ(Engine::get().provenance.find(y.storage().unsafeGetStorageImpl())->op, "aten::ones");
}

TEST_F(Watch, OnlyTheOutermostMismatchedOpIsReported) {
  const at::Tensor w = at::ones({3, 2}, on_fake());
  EXPECT_THROW(at::matmul(at::ones({2, 3}), w), c10::Error);      // matmul -> mm inside
  EXPECT_THROW(at::linear(at::ones({2, 2}), w.t()), c10::Error);  // linear -> matmul -> mm
  const auto records = Engine::get().mismatches();
  ASSERT_EQ(records.size(), 2U);
  EXPECT_EQ(records[0].op, "aten::matmul");
  EXPECT_EQ(records[1].op, "aten::linear");
}

TEST_F(Watch, AfterAMismatchTheNextOpsAreCheckedAgain) {
  const at::Tensor w = at::ones({3}, on_fake());
  EXPECT_THROW(at::matmul(at::ones({1, 3}), w), c10::Error);
  EXPECT_THROW(at::dot(at::ones({3}), w), c10::Error);
  EXPECT_EQ(Engine::get().mismatches().size(), 2U);
}

}  // namespace
}  // namespace devcheck::sanitizer
