// How much stack is left (src/lint/stack.cc).
#include <gtest/gtest.h>
#include <pthread.h>

#include <cstddef>

#include "lint/stack.h"

namespace devcheck::lint::detail {
namespace {

// Recurses with a frame of about 16 KiB until the guard says stop; returns
// the levels it went down.
int levels_until_short(int level) {
  volatile char pad[16 << 10];
  pad[0] = 1;
  if (stack_nearly_exhausted()) return level;
  const int deeper = levels_until_short(level + 1);
  pad[1] = pad[0];  // the frame stays live across the call (no tail call)
  return deeper;
}

struct Descent {
  std::size_t stack = 0;
  int levels = 0;
};

void* run_on_thread(void* arg) {
  auto* run = static_cast<Descent*>(arg);
  // The stack the thread has: glibc may hand it a cached one larger than
  // asked for.
  pthread_attr_t attr;
  void* low = nullptr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstack(&attr, &low, &run->stack);
    pthread_attr_destroy(&attr);
  }
  run->levels = levels_until_short(0);
  return nullptr;
}

// On a thread of at least `stack` bytes: its stack, and the levels the
// recursion went down.
Descent levels_on_a_stack_of(std::size_t stack) {
  Descent run{0, -1};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, stack);
  pthread_t thread;
  EXPECT_EQ(pthread_create(&thread, &attr, run_on_thread, &run), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  return run;
}

TEST(LintStack, ShallowFramesHaveRoom) { EXPECT_FALSE(stack_nearly_exhausted()); }

// The guard stops a recursion before it overflows the thread's own stack,
// whatever its size, and lets it use most of it (the margin is kept free).
TEST(LintStack, StopsARecursionShortOfEachThreadsStack) {
  for (const std::size_t asked : {std::size_t{2} << 20, std::size_t{16} << 20}) {
    const Descent run = levels_on_a_stack_of(asked);
    ASSERT_GE(run.stack, asked);
    const std::size_t used = static_cast<std::size_t>(run.levels) * (16 << 10);
    EXPECT_LT(used, run.stack - kStackMargin) << run.stack;
    EXPECT_GT(used, run.stack - kStackMargin - (256 << 10)) << run.stack;
  }
}

// A thread of a small stack (256 KiB; musl's default is 128 KiB) keeps a
// quarter of it free, not the whole margin: its shallow frames have room,
// and the flow runs there.
TEST(LintStack, ASmallStackKeepsAQuarterFree) {
  const Descent run = levels_on_a_stack_of(std::size_t{256} << 10);
  ASSERT_GE(run.stack, std::size_t{256} << 10);
  EXPECT_GT(run.levels, 0);
  EXPECT_LT(static_cast<std::size_t>(run.levels) * (16 << 10), run.stack);
}

}  // namespace
}  // namespace devcheck::lint::detail
