#include "sanitizer/engine.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "devcheck/error.h"

namespace devcheck::sanitizer {
namespace {

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
  at::matmul(at::ones({1, 2}), at::ones({2}, at::TensorOptions().device(c10::Device("meta"))));
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
  const at::Tensor w = at::ones({2}, at::TensorOptions().device(c10::Device("meta")));
  for (int i = 0; i < 4; ++i) at::matmul(at::ones({1, 2}), w);
  e.stop();
  ASSERT_EQ(e.mismatches().size(), 1U);
  EXPECT_EQ(e.mismatches()[0].count, 4U);
  EXPECT_EQ(e.mismatch_total(), 4U);
}

// RecordFunction may run a callback it already picked after removeCallback
// returns; the engine outlives every session, so ops racing with start/stop
// are safe (run under ThreadSanitizer too).
TEST(Engine, OpsOnOtherThreadsMayRaceWithStartAndStop) {
  std::atomic<bool> done{false};
  std::vector<std::thread> workers;
  for (int t = 0; t < 2; ++t) {
    workers.emplace_back([&] {
      const at::Tensor w = at::ones({3}, at::TensorOptions().device(c10::Device("meta")));
      while (!done.load()) {
        at::Tensor x = at::ones({1, 3});
        at::matmul(x, w);
        x.to(c10::Device("meta"));
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
