// Threads created while a session runs join it from their first op.
//
// The preload library (src/sanitizer/preload) wraps pthread_create: each
// thread created after libdevcheck is in calls devcheck_sanitizer_join_thread()
// first. libdevcheck itself interposes nothing; without the preload library
// (a program that links devcheck and makes a Sanitizer), a new thread joins
// through LibTorch's own thread-local state propagation or at a sampled op
// (see engine.h).
#include <c10/core/impl/LocalDispatchKeySet.h>

#include "sanitizer/engine.h"

namespace devcheck::sanitizer {
namespace {

// Constant-initialized: a thread may be created before any static
// initializer ran. Read and written with __atomic builtins: the entry point
// below may call no instrumented function.
bool g_join_new_threads = false;

}  // namespace

void join_new_threads(bool on) { __atomic_store_n(&g_join_new_threads, on, __ATOMIC_RELEASE); }

}  // namespace devcheck::sanitizer

// Runs first in the new thread, possibly before a sanitizer runtime that
// wraps pthread_create ahead of the preload library (TSan, ASan) has set the
// thread up: so it calls nothing instrumented before the thread's start
// routine (only LibTorch's own thread-local setter; join_this_thread(), inline).
extern "C"
    __attribute__((visibility("default"), no_sanitize("address", "thread", "undefined"))) void
    devcheck_sanitizer_join_thread() {
  if (__atomic_load_n(&devcheck::sanitizer::g_join_new_threads, __ATOMIC_ACQUIRE)) {
    c10::impl::tls_set_dispatch_key_included(devcheck::sanitizer::kWatchKey, true);
  }
}
