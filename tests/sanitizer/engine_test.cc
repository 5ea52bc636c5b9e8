#include "sanitizer/engine.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <thread>

#include "devcheck/error.h"
#include "devcheck/fake_device.h"

namespace devcheck::sanitizer {
namespace {

// A CPU matrix times a vector on the fake device: a mismatch LibTorch raises.
void mismatched_matmul(const at::Tensor& on_device) {
  EXPECT_THROW(at::matmul(at::ones({1, on_device.size(0)}), on_device), c10::Error);
}

// Calls `f` `times` times from one call site. A site is the whole call stack,
// and the compiler may unroll a loop with a small constant count into several
// call sites; it cannot unroll one whose count it does not know.
void from_one_site(int times, const std::function<void()>& f) {
  volatile int n = times;
  for (int i = 0; i < n; ++i) f();
}

TEST(Engine, StartTwiceThrowsAndStopIsIdempotent) {
  Engine& e = Engine::get();
  e.start(SanitizerOptions());
  EXPECT_TRUE(e.active());
  EXPECT_THROW(e.start(SanitizerOptions()), InvalidArgumentError);
  e.stop();
  e.stop();
  EXPECT_FALSE(e.active());
}

TEST(Engine, EachSessionHasANewGenerationAndStartsEmpty) {
  Engine& e = Engine::get();
  e.start(SanitizerOptions());
  const auto g = e.generation();
  mismatched_matmul(at::ones({2}, at::TensorOptions().device(fake_device())));
  EXPECT_EQ(e.mismatches().size(), 1U);
  e.stop();
  EXPECT_EQ(e.mismatches().size(), 1U);  // kept for the report after stop
  e.start(SanitizerOptions());
  EXPECT_GT(e.generation(), g);
  EXPECT_TRUE(e.mismatches().empty());
  EXPECT_EQ(last_mismatch_on_this_thread(), -1);
  e.stop();
}

TEST(Engine, CountsRepeatsOfOneMismatchAtOneSite) {
  Engine& e = Engine::get();
  e.start(SanitizerOptions());
  const at::Tensor w = at::ones({2}, at::TensorOptions().device(fake_device()));
  from_one_site(4, [&] { mismatched_matmul(w); });
  e.stop();
  ASSERT_EQ(e.mismatches().size(), 1U);
  EXPECT_EQ(e.mismatches()[0].count, 4U);
  EXPECT_EQ(e.mismatches()[0].expected, fake_device());
  EXPECT_EQ(e.mismatch_total(), 4U);
}

TEST(Engine, StartTakesASnapshotOfItsSettingsThatLaterSessionsLeaveAlone) {
  Engine& e = Engine::get();
  SanitizerOptions options = SanitizerOptions().mode(SanitizerMode::kWarn).small_copy_count(0);
  e.start(options);
  const SanitizerOptions& first = e.settings();
  options.mode(SanitizerMode::kFail).provenance(false);  // the caller's copy, not the engine's
  EXPECT_EQ(first.mode(), SanitizerMode::kWarn);
  EXPECT_TRUE(first.provenance());
  EXPECT_EQ(first.small_copy_count(), 1U);  // at least one copy makes a site
  e.stop();
  e.start(SanitizerOptions().mode(SanitizerMode::kFail).trace(true));
  EXPECT_EQ(e.settings().mode(), SanitizerMode::kFail);
  EXPECT_TRUE(e.settings().trace());
  EXPECT_EQ(first.mode(), SanitizerMode::kWarn);  // the first snapshot is still there, unchanged
  EXPECT_FALSE(first.trace());
  e.stop();
}

// RecordFunction may run a callback it already picked after removeCallback
// returns; the engine outlives every session, so ops racing with start/stop
// are safe (run under ThreadSanitizer too).
TEST(Engine, OpsOnOtherThreadsMayRaceWithStartAndStop) {
  std::atomic<bool> done{false};
  std::vector<std::thread> workers;
  const c10::Device device = fake_device(1);
  for (int t = 0; t < 2; ++t) {
    workers.emplace_back([&] {
      const at::Tensor w = at::ones({3}, at::TensorOptions().device(device));
      while (!done.load()) {
        at::Tensor x = at::ones({1, 3});
        try {
          at::matmul(x, w);
        } catch (const c10::Error&) {
        }
        x.to(device).cpu();
      }
    });
  }
  for (int i = 0; i < 50; ++i) {
    Engine::get().start(SanitizerOptions().trace(true));
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    Engine::get().stop();
  }
  done.store(true);
  for (auto& w : workers) w.join();
  SUCCEED();
}

}  // namespace
}  // namespace devcheck::sanitizer
