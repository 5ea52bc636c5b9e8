// Threads created while a session runs join it from their first op.
//
// The preload library (src/sanitizer/preload) wraps pthread_create: each
// thread created after libdevcheck is in calls devcheck_sanitizer_join_thread()
// first. libdevcheck itself interposes nothing; without the preload library
// (a program that links devcheck and makes a Sanitizer), a new thread joins
// through LibTorch's own thread-local state propagation or at a sampled op
// (see engine.h).
#include <atomic>

#include "sanitizer/engine.h"

namespace devcheck::sanitizer {
namespace {

std::atomic<bool> g_join_new_threads{false};

}  // namespace

void join_new_threads(bool on) { g_join_new_threads.store(on, std::memory_order_release); }

}  // namespace devcheck::sanitizer

extern "C" __attribute__((visibility("default"))) void devcheck_sanitizer_join_thread() {
  if (devcheck::sanitizer::g_join_new_threads.load(std::memory_order_acquire)) {
    devcheck::sanitizer::join_this_thread();
  }
}
