// The fake backends' memory: statistics, the block cache, a fake op's CPU
// memory and pinned host memory.

#include "fake/backend.h"

#include <ATen/ATen.h>
#include <c10/core/CPUAllocator.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "detail/compat.h"
#include "devcheck/fake_cuda.h"
#include "devcheck/fake_device.h"

namespace devcheck::detail {
namespace {

// Sizes in elements (or bytes, for raw allocations).
constexpr std::int64_t kKi = 1024;
constexpr std::int64_t kMi = kKi * kKi;

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

// A fake device keeps freed blocks for reuse, as CUDA's caching allocator
// does: reserved stays above allocated until empty_cache().
TEST(FakeBackend, AFreedBlockStaysReservedOnItsDeviceAndIsReusedUntilTheCacheIsEmptied) {
  fake_cuda(2);
  fake_empty_cache(FakeKind::kCuda);
  fake_reset_accumulated_memory(FakeKind::kCuda, 1);
  const auto on1 = at::TensorOptions().device("cuda:1");
  const FakeMemoryStats before = fake_memory_stats(FakeKind::kCuda, 1);
  EXPECT_EQ(before.reserved_bytes, before.allocated_bytes);
  const void* address = nullptr;
  {
    const at::Tensor a = at::empty({256 * kKi}, on1);  // 1 MiB
    address = a.data_ptr();
    const FakeMemoryStats held = fake_memory_stats(FakeKind::kCuda, 1);
    EXPECT_EQ(held.reserved_bytes - before.reserved_bytes, 1 << 20);
    EXPECT_EQ(held.host_allocations, 1);
  }
  FakeMemoryStats freed = fake_memory_stats(FakeKind::kCuda, 1);
  EXPECT_EQ(freed.allocated_bytes, before.allocated_bytes);
  EXPECT_EQ(freed.cached_bytes, 1 << 20);
  EXPECT_EQ(freed.cached_blocks, 1);
  EXPECT_EQ(freed.reserved_bytes, before.allocated_bytes + (1 << 20));
  EXPECT_EQ(freed.segments, freed.blocks + 1);
  EXPECT_GE(freed.peak_reserved_bytes, freed.reserved_bytes);
  EXPECT_EQ(freed.host_frees, 0);

  // another device does not take it; the same device does, even for a size
  // a little smaller
  {
    const at::Tensor other = at::empty({256 * kKi}, at::TensorOptions().device("cuda:0"));
    EXPECT_NE(other.data_ptr(), address);
  }
  {
    const at::Tensor again = at::empty({256 * kKi - 100}, on1);
    EXPECT_EQ(again.data_ptr(), address);
    EXPECT_EQ(fake_memory_stats(FakeKind::kCuda, 1).host_allocations, 1);
    EXPECT_EQ(fake_memory_stats(FakeKind::kCuda, 1).cached_blocks, 0);
  }
  fake_empty_cache(FakeKind::kCuda);
  const FakeMemoryStats emptied = fake_memory_stats(FakeKind::kCuda, 1);
  EXPECT_EQ(emptied.cached_bytes, 0);
  EXPECT_EQ(emptied.reserved_bytes, emptied.allocated_bytes);
  EXPECT_EQ(emptied.host_frees, 1);
  EXPECT_EQ(emptied.host_freed_bytes, 1 << 20);
  EXPECT_EQ(fake_memory_stats(FakeKind::kCuda, 0).cached_bytes, 0);
}

TEST(FakeBackend, SmallBlocksAndBlocksBeyondTheCachesLimitGoBackToTheHost) {
  fake_cuda(2);
  fake_empty_cache(FakeKind::kCuda);
  fake_reset_accumulated_memory(FakeKind::kCuda, 1);
  const auto on1 = at::TensorOptions().device("cuda:1");
  { const at::Tensor small = at::empty({1024}, on1); }  // 4 KiB
  EXPECT_EQ(fake_memory_stats(FakeKind::kCuda, 1).cached_bytes, 0);
  EXPECT_EQ(fake_memory_stats(FakeKind::kCuda, 1).host_frees, 1);
  {
    // three blocks of 200 MiB (never touched, so never resident): the cache
    // keeps two, 400 of its 512 MiB
    std::vector<at::Tensor> big;
    big.reserve(3);
    for (int i = 0; i < 3; ++i) big.push_back(at::empty({50 * kMi}, on1));
  }
  const FakeMemoryStats s = fake_memory_stats(FakeKind::kCuda, 1);
  EXPECT_EQ(s.cached_bytes, std::int64_t{400} << 20);
  EXPECT_EQ(s.cached_blocks, 2);
  EXPECT_EQ(s.host_frees, 2);
  fake_empty_cache(FakeKind::kCuda);
}

// An op's result is the CPU memory its kernel allocated: that comes from the
// op's device's cache too, so a repeated op reuses its last result's block.
TEST(FakeBackend, AnOpsResultTakesItsBlockFromTheCacheOfTheOpsDevice) {
  fake_cuda(2);
  const auto on1 = at::TensorOptions().device("cuda:1");
  const at::Tensor x = at::ones({64 * kKi}, on1);  // 256 KiB
  const void* address = nullptr;
  {
    const at::Tensor y = x * 2;
    address = y.data_ptr();
    EXPECT_EQ(y.device(), c10::Device("cuda:1"));
  }
  EXPECT_GE(fake_memory_stats(FakeKind::kCuda, 1).cached_bytes, 256 * 1024);
  fake_reset_accumulated_memory(FakeKind::kCuda, 1);
  const at::Tensor z = x * 3;
  EXPECT_EQ(z.data_ptr(), address);
  EXPECT_EQ(fake_memory_stats(FakeKind::kCuda, 1).host_allocations, 0);
  EXPECT_EQ(z[0].item<float>(), 3.0F);
  fake_empty_cache(FakeKind::kCuda);
}

// Outside a fake op the CPU allocator is the one it replaced: a CPU tensor
// never lands in a fake device's cache. Raw allocations work in both.
TEST(FakeBackend,
     CpuMemoryOutsideAFakeOpIsTheReplacedAllocatorsAndRawBlocksGoBackWhereTheyCameFrom) {
  fake_cuda(2);
  fake_empty_cache(FakeKind::kCuda);
  { const at::Tensor cpu = at::ones({1 << 20}); }
  EXPECT_EQ(fake_memory_stats(FakeKind::kCuda, 0).cached_bytes, 0);
  c10::Allocator* cpu = c10::GetCPUAllocator();
  void* outside = cpu->raw_allocate(1 << 20);
  void* inside = nullptr;
  {
    const FakeOpScope scope(FakeKind::kCuda, 1);
    inside = cpu->raw_allocate(1 << 20);
    cpu->raw_deallocate(outside);  // freed inside a scope, still the host's
  }
  EXPECT_EQ(fake_memory_stats(FakeKind::kCuda, 1).cached_bytes, 0);
  cpu->raw_deallocate(inside);  // freed outside, back to cuda:1's cache
  EXPECT_EQ(fake_memory_stats(FakeKind::kCuda, 1).cached_bytes, 1 << 20);
  {
    const FakeOpScope scope(FakeKind::kCuda, 0);
    void* other = cpu->raw_allocate(1 << 20);
    EXPECT_NE(other, inside);  // cuda:0's cache is empty
    cpu->raw_deallocate(other);
  }
  EXPECT_EQ(fake_memory_stats(FakeKind::kCuda, 0).cached_bytes, 1 << 20);
  fake_empty_cache(FakeKind::kCuda);
}

// The backward of a fake device runs on that device's autograd thread: once
// warm, a training step takes no block of 16 KiB or more from the host.
TEST(FakeBackend, AWarmTrainingStepTakesNoMemoryFromTheHost) {
  fake_cuda(2);
  const auto on1 = at::TensorOptions().device("cuda:1");
  const at::Tensor w = at::randn({512, 512}, on1).requires_grad_();
  const at::Tensor x = at::randn({64, 512}, on1);
  const auto step = [&] {
    const at::Tensor loss = x.mm(w).relu().mm(w).sum();
    loss.backward();
    {
      const at::NoGradGuard no_grad;
      w.sub_(w.grad() * 0.001);
    }
    w.mutable_grad().reset();
  };
  step();
  step();
  fake_reset_accumulated_memory(FakeKind::kCuda, 1);
  for (int i = 0; i < 3; ++i) step();
  const FakeMemoryStats s = fake_memory_stats(FakeKind::kCuda, 1);
  EXPECT_GT(s.allocations, 0);
  // only the loss's 4-byte gradient seed, each step: blocks below 16 KiB
  // are the host's own to keep
  EXPECT_EQ(s.host_allocations, 3) << s.allocations << " allocations";
  EXPECT_EQ(s.host_allocated_bytes, 3 * 4);
  fake_empty_cache(FakeKind::kCuda);
}

// A fork while another thread works the cache must leave the child able to
// free fake memory (DataLoader workers are forked from training programs).
TEST(FakeBackend, AChildForkedWhileAnotherThreadUsesTheCacheCanFreeFakeMemory) {
  fake_cuda(2);
  std::atomic<bool> stop{false};
  std::thread worker([&] {
    const auto on0 = at::TensorOptions().device("cuda:0");
    while (!stop.load()) {
      const at::Tensor t = at::empty({64 * kKi}, on0);
    }
  });
  at::Tensor held = at::empty({64 * kKi}, at::TensorOptions().device("cuda:0"));
  for (int i = 0; i < 20; ++i) {
    const pid_t pid = fork();
    if (pid == 0) {
      alarm(10);  // a hang ends the child by SIGALRM
      held.reset();
      // (fake CUDA's ops fail in a forked child, as CUDA's do; its memory works)
      const FakeOpScope scope(FakeKind::kCuda, 0);
      c10::Allocator* cpu = c10::GetCPUAllocator();
      cpu->raw_deallocate(cpu->raw_allocate(static_cast<std::size_t>(256 * kKi)));
      _exit(0);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "child " << i << " ended by signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  stop.store(true);
  worker.join();
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

}  // namespace
}  // namespace devcheck::detail
