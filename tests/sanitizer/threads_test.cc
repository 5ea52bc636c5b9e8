// Which threads a session watches: new ones from their first op (through the
// preload library's entry point), older ones soon after, none once it ended.
#include <ATen/ATen.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "devcheck/fake_device.h"
#include "sanitizer/engine.h"

extern "C" void devcheck_sanitizer_join_thread();  // threads.cc

namespace devcheck::sanitizer {
namespace {

// A CPU matrix times a vector on the fake device: LibTorch raises, as on CUDA.
void one_mismatch() {
  try {
    at::matmul(at::ones({1, 3}), at::ones({3}, at::TensorOptions().device(fake_device())));
  } catch (const c10::Error&) {
  }
}

bool watched() { return c10::impl::tls_is_dispatch_key_included(kWatchKey); }

// What the preload library's pthread_create runs first in each new thread.
TEST(Threads, AThreadThatCallsTheJoinEntryPointDuringASessionIsWatchedFromItsFirstOp) {
  Engine& e = Engine::get();
  e.start(SanitizerOptions());
  bool was_watched = false;
  std::thread worker([&] {
    devcheck_sanitizer_join_thread();
    was_watched = watched();
    one_mismatch();  // its very first op
  });
  worker.join();
  e.stop();
  EXPECT_TRUE(was_watched);
  ASSERT_EQ(e.mismatches().size(), 1U);
  EXPECT_EQ(e.mismatches()[0].op, "aten::matmul");
}

TEST(Threads, TheJoinEntryPointOutsideASessionWatchesNothing) {
  bool was_watched = true;
  std::thread worker([&] {
    devcheck_sanitizer_join_thread();
    was_watched = watched();
  });
  worker.join();
  EXPECT_FALSE(was_watched);
}

TEST(Threads, AThreadCreatedBeforeTheSessionJoinsWithinAFewDozenOps) {
  std::atomic<int> phase{0};
  bool watched_before = true;
  bool watched_after = false;
  std::thread worker([&] {
    while (phase.load() == 0) std::this_thread::yield();
    watched_before = watched();
    for (int i = 0; i < 400; ++i) one_mismatch();  // ~3 ops each
    watched_after = watched();
    phase.store(2);
  });
  Engine& e = Engine::get();
  e.start(SanitizerOptions());
  phase.store(1);
  worker.join();
  e.stop();
  EXPECT_FALSE(watched_before);
  EXPECT_TRUE(watched_after);
  // One op in 32 (at random) brings it in: missing more than 300 of 400 has
  // a chance of (31/32)^900, about 4e-13. The op it joins in may have its
  // remaining inner ops watched (mm inside matmul): at most one more record.
  const auto records = e.mismatches();
  ASSERT_FALSE(records.empty());
  EXPECT_LE(records.size(), 2U);
  std::uint64_t matmuls = 0;
  for (const auto& r : records) matmuls += r.op == "aten::matmul" ? r.count : 0;
  EXPECT_GE(matmuls + 1, e.mismatch_total());
  EXPECT_GE(e.mismatch_total(), 100U);
  EXPECT_LE(e.mismatch_total(), 401U);
}

TEST(Threads, AfterTheSessionAThreadLeavesAtItsNextOp) {
  Engine& e = Engine::get();
  std::atomic<int> phase{0};
  bool watched_in_session = false;
  bool watched_after_one_op = true;
  e.start(SanitizerOptions());
  std::thread worker([&] {
    devcheck_sanitizer_join_thread();  // as the preload library's pthread_create does
    watched_in_session = watched();
    phase.store(1);
    while (phase.load() != 2) std::this_thread::yield();
    one_mismatch();  // not recorded: the session is over
    watched_after_one_op = watched();
  });
  while (phase.load() != 1) std::this_thread::yield();
  e.stop();
  EXPECT_FALSE(watched());  // the thread that stopped it leaves at once
  phase.store(2);
  worker.join();
  EXPECT_TRUE(watched_in_session);
  EXPECT_FALSE(watched_after_one_op);
  EXPECT_TRUE(e.mismatches().empty());
}

TEST(Threads, OutsideASessionNewThreadsAreNotWatched) {
  bool was_watched = true;
  std::thread worker([&] { was_watched = watched(); });
  worker.join();
  EXPECT_FALSE(was_watched);
}

}  // namespace
}  // namespace devcheck::sanitizer
