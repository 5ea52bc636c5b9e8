// The tree-sitter runtime's allocator (alloc.cc): blocks aligned as malloc's,
// contents kept by realloc, calloc zeroed, blocks reused, large blocks and
// threads of their own.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "lint/alloc.h"

namespace {

bool aligned(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

TEST(LintAlloc, BlocksAreAlignedWritableAndReused) {
  std::vector<void*> blocks;
  for (std::size_t size : {1, 15, 16, 17, 100, 1023, 1024, 1025, 5000, 1 << 20}) {
    void* p = devcheck_ts_malloc(size);
    ASSERT_NE(p, nullptr) << size;
    EXPECT_TRUE(aligned(p)) << size;
    std::memset(p, 0xab, size);
    blocks.push_back(p);
  }
  for (void* p : blocks) devcheck_ts_free(p);
  // A freed pooled block of a size class comes back for that class.
  void* a = devcheck_ts_malloc(48);
  devcheck_ts_free(a);
  EXPECT_EQ(devcheck_ts_malloc(40), a);
  devcheck_ts_free(a);
  devcheck_ts_free(nullptr);
}

TEST(LintAlloc, CallocZeroesAndReallocKeepsTheContents) {
  auto* z = static_cast<unsigned char*>(devcheck_ts_calloc(37, 3));
  ASSERT_NE(z, nullptr);
  for (int i = 0; i < 111; ++i) EXPECT_EQ(z[i], 0) << i;
  devcheck_ts_free(z);
  EXPECT_EQ(devcheck_ts_calloc(SIZE_MAX / 2, 4), nullptr);  // overflows

  auto* p = static_cast<unsigned char*>(devcheck_ts_realloc(nullptr, 10));
  for (int i = 0; i < 10; ++i) p[i] = static_cast<unsigned char>(i);
  // Within its size class the block stays; beyond, it moves with its bytes,
  // up to a large block and back down.
  EXPECT_EQ(devcheck_ts_realloc(p, 16), p);
  for (std::size_t size : {100, 3000, 200000, 64}) {
    p = static_cast<unsigned char*>(devcheck_ts_realloc(p, size));
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(aligned(p));
    for (int i = 0; i < 10; ++i) EXPECT_EQ(p[i], i) << size;
  }
  devcheck_ts_free(p);
}

TEST(LintAlloc, ThreadsAllocateAndFreeOnTheirOwn) {
  std::vector<std::thread> threads;
  std::vector<char> ok(4, 0);  // one byte each: no two threads share one
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &ok] {
      std::vector<unsigned char*> mine;
      for (int i = 0; i < 20000; ++i) {
        auto* p = static_cast<unsigned char*>(devcheck_ts_malloc(8 + (i * 7) % 900));
        p[0] = static_cast<unsigned char>(t);
        mine.push_back(p);
        if (i % 3 == 0) {
          devcheck_ts_free(mine.back());
          mine.pop_back();
        }
      }
      bool good = true;
      for (unsigned char* p : mine) {
        good = good && p[0] == t;
        devcheck_ts_free(p);
      }
      ok[t] = good ? 1 : 0;
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(ok[t], 1) << t;
}

}  // namespace
