// The fake backends' runtime: memory statistics, pinned host memory, the
// per-device generators and the device-index errors of each kind.

#include "testing/fake_backend.h"

#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>

#include "detail/compat.h"
#include "devcheck/fake_cuda.h"
#include "devcheck/fake_device.h"

namespace devcheck::detail {
namespace {

using ::testing::HasSubstr;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const c10::Error& e) {
    return e.what_without_backtrace();
  }
  return "(no error)";
}

TEST(FakeBackend, MemoryStatisticsCountEveryBlockAndByteOnItsDevice) {
  fake_cuda(2);
  fake_reset_peak_memory(FakeKind::kCuda, 1);
  fake_reset_accumulated_memory(FakeKind::kCuda, 1);
  const FakeMemoryStats before = fake_memory_stats(FakeKind::kCuda, 1);
  {
    const at::Tensor a = at::empty({256}, at::TensorOptions().device("cuda:1"));  // 1 KiB
    const at::Tensor b = at::empty({512}, at::TensorOptions().device("cuda:1"));  // 2 KiB
    const FakeMemoryStats held = fake_memory_stats(FakeKind::kCuda, 1);
    EXPECT_EQ(held.allocated_bytes - before.allocated_bytes, 3072);
    EXPECT_EQ(held.blocks - before.blocks, 2);
    EXPECT_EQ(held.allocations, 2);
    EXPECT_EQ(fake_memory_stats(FakeKind::kCuda, 0).allocated_bytes, 0);
  }
  const FakeMemoryStats after = fake_memory_stats(FakeKind::kCuda, 1);
  EXPECT_EQ(after.allocated_bytes, before.allocated_bytes);
  EXPECT_EQ(after.peak_allocated_bytes - before.allocated_bytes, 3072);
  EXPECT_EQ(after.frees, 2);
  EXPECT_EQ(after.allocated_bytes_total, 3072);
  EXPECT_EQ(after.freed_bytes_total, 3072);
  fake_reset_peak_memory(FakeKind::kCuda, 1);
  EXPECT_EQ(fake_memory_stats(FakeKind::kCuda, 1).peak_allocated_bytes, after.allocated_bytes);
  // a result an op made on the CPU is adopted, and counted, on the device
  const at::Tensor x = at::ones({64}, at::TensorOptions().device("cuda:1"));
  const int64_t held = fake_memory_stats(FakeKind::kCuda, 1).allocated_bytes;
  const at::Tensor y = x * 2;
  EXPECT_EQ(fake_memory_stats(FakeKind::kCuda, 1).allocated_bytes, held + 256);
}

TEST(FakeBackend, BlocksAre64ByteAlignedAsTheCpusAre) {
  fake_cuda(2);
  for (const int64_t n : {1, 3, 17, 1000}) {
    const at::Tensor t = at::empty({n}, at::TensorOptions().device("cuda:0").dtype(at::kByte));
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.data_ptr()) % 64, 0U) << n;
  }
}

TEST(FakeBackend, PinnedBlocksAreKnownUntilFreed) {
  const void* address = nullptr;
  {
    const c10::DataPtr block = fake_pinned_allocator()->allocate(100);
    address = block.get();
    EXPECT_TRUE(fake_is_pinned(address));
    EXPECT_EQ(block.device(), c10::Device(c10::kCPU));
  }
  EXPECT_FALSE(fake_is_pinned(address));
  EXPECT_FALSE(fake_is_pinned(nullptr));
  EXPECT_TRUE(fake_is_pinned(fake_pinned_allocator()->allocate(0).get()));
}

TEST(FakeBackend, FakeCudaHasOneGeneratorPerDeviceAndTheAcceleratorTheCpus) {
  fake_cuda(2);
  EXPECT_NE(fake_generator(FakeKind::kCuda, 0).unsafeGetGeneratorImpl(),
            fake_generator(FakeKind::kCuda, 1).unsafeGetGeneratorImpl());
  EXPECT_EQ(fake_generator(FakeKind::kAccelerator, 1).unsafeGetGeneratorImpl(),
            at::detail::getDefaultCPUGenerator().unsafeGetGeneratorImpl());
  EXPECT_THAT(error_of([] { (void)fake_generator(FakeKind::kCuda, 2); }),
              HasSubstr("CUDA error: invalid device ordinal"));
}

TEST(FakeBackend, EachKindNamesAnIndexItDoesNotHaveInItsOwnWords) {
  fake_cuda(2);
  fake_device(0);
  EXPECT_EQ(error_of([] { fake_check_index(FakeKind::kCuda, 2, "set device"); }),
            std::string("CUDA error: invalid device ordinal") + DEVCHECK_CUDA_CHECK_SUFFIX);
  EXPECT_EQ(error_of([] { fake_check_index(FakeKind::kAccelerator, 5, "set device"); }),
            "set device: fake device index 5 is out of range: this process has 2 fake devices "
            "(DEVCHECK_FAKE_DEVICES)");
  EXPECT_EQ(error_of([] { fake_check_index(FakeKind::kCuda, 1, "x"); }), "(no error)");
}

}  // namespace
}  // namespace devcheck::detail
