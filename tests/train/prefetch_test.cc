// DevicePrefetcher on the CPU and on the fake device: same batches as the
// plain loader, errors with their message, clean early destruction,
// deterministic order.
#include <ATen/ATen.h>
#include <c10/core/DeviceGuard.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/data/dataloader.h>
#include <torch/data/datasets/base.h>
#include <torch/data/samplers/random.h>
#include <torch/data/samplers/sequential.h>
#include <torch/utils.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "devcheck/device.h"
#include "devcheck/fake_device.h"
#include "devcheck/prefetch.h"
#include "support/every_type.h"
#include "support/support.h"

using ::testing::HasSubstr;

namespace devcheck {
namespace {

// Sample i: data filled with i (shape [2, 3]), target i. Counts fetches and
// can fail at one index or sleep per sample.
class Numbers : public torch::data::datasets::Dataset<Numbers> {
 public:
  explicit Numbers(
      size_t n, int64_t fail_at = -1, int sleep_us = 0,
      std::shared_ptr<std::atomic<int>> fetched = std::make_shared<std::atomic<int>>(0))
      : n_(n), fail_at_(fail_at), sleep_us_(sleep_us), fetched_(std::move(fetched)) {}
  torch::data::Example<> get(size_t i) override {
    if (sleep_us_ > 0) std::this_thread::sleep_for(std::chrono::microseconds(sleep_us_));
    ++*fetched_;
    if (static_cast<int64_t>(i) == fail_at_) {
      throw std::runtime_error("sample " + std::to_string(i) + " is broken");
    }
    return {at::full({2, 3}, static_cast<double>(i)), at::scalar_tensor(static_cast<int64_t>(i))};
  }
  c10::optional<size_t> size() const override { return n_; }

 private:
  size_t n_;
  int64_t fail_at_;
  int sleep_us_;
  std::shared_ptr<std::atomic<int>> fetched_;
};

auto random_loader(Numbers data, size_t batch) {
  const size_t n = *data.size();
  return torch::data::make_data_loader(std::move(data), torch::data::samplers::RandomSampler(n),
                                       torch::data::DataLoaderOptions(batch));
}

// What the plain loader gives for `seed`, stacked by hand.
std::vector<torch::data::Example<>> plain_batches(uint64_t seed, size_t n, size_t batch) {
  torch::manual_seed(seed);
  auto loader = random_loader(Numbers(n), batch);
  std::vector<torch::data::Example<>> out;
  for (auto& samples : *loader) {
    std::vector<at::Tensor> data, targets;
    for (auto& s : samples) {
      data.push_back(s.data);
      targets.push_back(s.target);
    }
    out.push_back({at::stack(data), at::stack(targets)});
  }
  return out;
}

std::vector<torch::data::Example<>> prefetched_batches(uint64_t seed, size_t n, size_t batch,
                                                       size_t in_flight,
                                                       c10::Device device = c10::kCPU) {
  torch::manual_seed(seed);
  auto loader = random_loader(Numbers(n), batch);
  DevicePrefetcher prefetcher(*loader, PrefetchOptions(device).in_flight(in_flight));
  std::vector<torch::data::Example<>> out;
  for (auto& b : prefetcher) {
    EXPECT_EQ(b.data.device(), prefetcher.device());
    EXPECT_EQ(b.target.device(), prefetcher.device());
    out.push_back({b.data.cpu(), b.target.cpu()});
  }
  return out;
}

void expect_same(const std::vector<torch::data::Example<>>& a,
                 const std::vector<torch::data::Example<>>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(at::equal(a[i].data, b[i].data)) << "batch " << i;
    EXPECT_TRUE(at::equal(a[i].target, b[i].target)) << "batch " << i;
  }
}

TEST(DevicePrefetcher, CpuOrderAndContentEqualThePlainLoader) {
  const auto plain = plain_batches(7, 103, 8);
  ASSERT_EQ(plain.size(), 13u);  // the last batch is partial
  EXPECT_EQ(plain.back().data.size(0), 7);
  expect_same(prefetched_batches(7, 103, 8, 2), plain);
}

TEST(DevicePrefetcher, SynchronousModeEqualsThePlainLoader) {
  expect_same(prefetched_batches(11, 50, 4, 0), plain_batches(11, 50, 4));
}

TEST(DevicePrefetcher, FixedSeedGivesTheSameOrderEveryRun) {
  const auto a = prefetched_batches(3, 64, 8, 3);
  const auto b = prefetched_batches(3, 64, 8, 3);
  expect_same(a, b);
  const auto c = prefetched_batches(4, 64, 8, 3);
  EXPECT_FALSE(at::equal(a[0].target, c[0].target));
}

TEST(DevicePrefetcher, CollatesIntoOneStackedBatch) {
  auto loader = torch::data::make_data_loader(
      Numbers(10), torch::data::samplers::SequentialSampler(10), torch::data::DataLoaderOptions(4));
  DevicePrefetcher prefetcher(*loader, PrefetchOptions(c10::kCPU));
  auto it = prefetcher.begin();
  EXPECT_EQ(it->data.sizes(), (std::vector<int64_t>{4, 2, 3}));
  EXPECT_TRUE(it->data.is_contiguous());
  EXPECT_EQ(it->target.sizes(), (std::vector<int64_t>{4}));
  EXPECT_EQ(it->target[3].item<int64_t>(), 3);
}

TEST(DevicePrefetcher, EachBeginIsANewEpoch) {
  auto loader = random_loader(Numbers(20), 5);
  DevicePrefetcher prefetcher(*loader, PrefetchOptions(c10::kCPU));
  for (int epoch = 0; epoch < 3; ++epoch) {
    int64_t seen = 0;
    for (auto& b : prefetcher) seen += b.target.size(0);
    EXPECT_EQ(seen, 20) << "epoch " << epoch;
  }
}

TEST(DevicePrefetcher, SourceExceptionReachesConsumerWithItsMessage) {
  for (size_t in_flight : {size_t{0}, size_t{2}}) {
    auto loader = torch::data::make_data_loader(Numbers(40, /*fail_at=*/37),
                                                torch::data::samplers::SequentialSampler(40),
                                                torch::data::DataLoaderOptions(4));
    DevicePrefetcher prefetcher(*loader, PrefetchOptions(c10::kCPU).in_flight(in_flight));
    int batches = 0;
    try {
      for (auto& b : prefetcher) {
        (void)b;
        ++batches;
      }
      FAIL() << "expected the dataset's exception";
    } catch (const std::runtime_error& e) {
      EXPECT_THAT(e.what(), HasSubstr("sample 37 is broken"));
    }
    EXPECT_EQ(batches, 9) << "in_flight " << in_flight;  // 0..35 arrive, then the error
    // The prefetcher is usable again afterwards: a new epoch starts cleanly.
    auto it = prefetcher.begin();
    EXPECT_EQ(it->target[0].item<int64_t>(), 0);
  }
}

TEST(DevicePrefetcher, DestroyedMidEpochStopsTheWorker) {
  auto fetched = std::make_shared<std::atomic<int>>(0);
  auto loader = torch::data::make_data_loader(Numbers(10000, -1, /*sleep_us=*/50, fetched),
                                              torch::data::samplers::SequentialSampler(10000),
                                              torch::data::DataLoaderOptions(10));
  const auto started = std::chrono::steady_clock::now();
  {
    DevicePrefetcher prefetcher(*loader, PrefetchOptions(c10::kCPU).in_flight(2));
    int taken = 0;
    for (auto& b : prefetcher) {
      (void)b;
      if (++taken == 3) break;
    }
  }  // destroyed with the worker blocked on a full queue or mid-batch
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // 3 consumed + 2 queued + 1 being fetched, of 1000 batches.
  EXPECT_LE(fetched->load(), 6 * 10);
  EXPECT_LT(seconds, 5.0);
}

TEST(DevicePrefetcher, DestroyedRightAfterBeginIsClean) {
  auto loader = random_loader(Numbers(1000), 10);
  for (int i = 0; i < 20; ++i) {
    DevicePrefetcher prefetcher(*loader, PrefetchOptions(c10::kCPU).in_flight(1));
    prefetcher.start();
  }
  SUCCEED();
}

TEST(DevicePrefetcher, WrapsARangeOfCollatedBatchesAsIs) {
  std::vector<torch::data::Example<>> batches;
  for (int i = 0; i < 4; ++i) batches.push_back({at::full({8, 2}, i), at::arange(8)});
  DevicePrefetcher prefetcher(batches, PrefetchOptions(c10::kCPU));
  int i = 0;
  for (auto& b : prefetcher) {
    // A CPU pass-through: the very same tensors, no copy.
    EXPECT_EQ(b.data.data_ptr(), batches[i].data.data_ptr());
    ++i;
  }
  EXPECT_EQ(i, 4);
}

TEST(DevicePrefetcher, OwnsASourceGivenByUniquePtr) {
  DevicePrefetcher prefetcher(random_loader(Numbers(30), 10), PrefetchOptions(c10::kCPU));
  int n = 0;
  for (auto& b : prefetcher) n += static_cast<int>(b.target.size(0));
  EXPECT_EQ(n, 30);
}

TEST(DevicePrefetcher, FakeDeviceOrderAndContentEqualThePlainLoader) {
  const auto plain = plain_batches(5, 103, 8);
  // on a side stream behind events, and synchronously
  expect_same(prefetched_batches(5, 103, 8, 3, fake_device(0)), plain);
  expect_same(prefetched_batches(5, 103, 8, 0, fake_device(1)), plain);
}

TEST(DevicePrefetcher, FakeDeviceCopiesOnASideStreamOfTheTargetDevice) {
  const detail::Stager stager(PrefetchOptions(fake_device(1)));
  EXPECT_EQ(stager.device(), fake_device(1));
  EXPECT_TRUE(stager.asynchronous());
  ASSERT_TRUE(stager.side_stream().has_value());
  EXPECT_EQ(stager.side_stream()->device(), fake_device(1));
  EXPECT_FALSE(stager.pins());  // pinned memory is for CUDA only
  const detail::Stager on_cpu(PrefetchOptions(c10::kCPU));
  EXPECT_FALSE(on_cpu.asynchronous());
}

TEST(DevicePrefetcher, StagesEveryContainerTypeToTheFakeDevice) {
  // The batches go through the walk to_device uses: each type arrives on the
  // device, on a side stream (copies) and synchronously, values unchanged.
  const std::vector<testing::EveryType> batches{testing::every_type(), testing::every_type()};
  for (const size_t in_flight : {size_t{2}, size_t{0}}) {
    DevicePrefetcher prefetcher(batches, PrefetchOptions(fake_device(1)).in_flight(in_flight));
    int n = 0;
    for (auto& batch : prefetcher) {
      std::vector<c10::Device> devices;
      EXPECT_EQ(testing::values(batch, &devices), testing::every_type_values());
      ASSERT_EQ(devices.size(), testing::every_type_values().size());
      for (const auto& d : devices) EXPECT_EQ(d, fake_device(1)) << "in_flight " << in_flight;
      ++n;
    }
    EXPECT_EQ(n, 2);
  }
  std::vector<c10::Device> devices;
  (void)testing::values(batches[0], &devices);  // the source is untouched
  for (const auto& d : devices) EXPECT_EQ(d, c10::Device(c10::kCPU));
}

TEST(DevicePrefetcher, AnIndexlessDeviceIsTheCurrentOneWhenMade) {
  std::vector<torch::data::Example<>> batches{{at::ones({2, 3}), at::zeros({2})}};
  const c10::DeviceGuard current(fake_device(1));
  DevicePrefetcher prefetcher(batches, PrefetchOptions(c10::Device(fake_device().type())));
  EXPECT_EQ(prefetcher.device(), fake_device(1));
  for (auto& b : prefetcher) {
    EXPECT_EQ(b.data.device(), fake_device(1));
    EXPECT_TRUE(at::equal(b.data.cpu(), batches[0].data));
  }
}

TEST(DevicePrefetcher, BatchesOnTheDeviceMeetAModelThereAndFailAModelElsewhere) {
  std::vector<std::vector<torch::data::Example<>>> batches(2);
  for (auto& b : batches) b.push_back({at::ones({3}), at::scalar_tensor(1)});
  DevicePrefetcher prefetcher(batches, PrefetchOptions(fake_device()));
  const at::Tensor on_device = at::full({3, 2}, 2.0, at::TensorOptions().device(fake_device()));
  const at::Tensor on_cpu = at::full({3, 2}, 2.0);
  int n = 0;
  for (auto& b : prefetcher) {
    EXPECT_EQ(b.data.device(), fake_device());
    EXPECT_EQ(b.data.sizes(), (std::vector<int64_t>{1, 3}));  // collated
    EXPECT_TRUE(at::equal(at::mm(b.data, on_device).cpu(), at::full({1, 2}, 6.0)));
    try {
      at::mm(b.data, on_cpu);
      ADD_FAILURE() << "a CPU weight met a batch on " << fake_device().str();
    } catch (const c10::Error& e) {
      EXPECT_THAT(e.what_without_backtrace(),
                  HasSubstr("found at least two devices, " + fake_device().str() + " and cpu!"));
    }
    ++n;
  }
  EXPECT_EQ(n, 2);
}

TEST(DevicePrefetcher, PinnedSideStreamCopyMatchesCpu_CUDA) {
  DEVCHECK_REQUIRE_CUDA();
  const auto plain = plain_batches(5, 200, 16);
  torch::manual_seed(5);
  auto loader = random_loader(Numbers(200), 16);
  DevicePrefetcher prefetcher(*loader, PrefetchOptions(c10::Device("cuda")).in_flight(3));
  size_t i = 0;
  for (auto& b : prefetcher) {
    ASSERT_TRUE(b.data.is_cuda());
    // Work on the consumer stream that reads the batch, then compare on the host.
    const at::Tensor doubled = b.data * 2;
    EXPECT_TRUE(at::equal(doubled.cpu(), plain[i].data * 2)) << "batch " << i;
    EXPECT_TRUE(at::equal(b.target.cpu(), plain[i].target));
    ++i;
  }
  EXPECT_EQ(i, plain.size());
}

}  // namespace
}  // namespace devcheck
