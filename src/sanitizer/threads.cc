// Threads created while a session runs join it from their first op.
//
// libdevcheck defines pthread_create (std::thread and Python threads go
// through it) and forwards to the next definition, libc's; a program that
// links libdevcheck gets it for every thread, and `devcheck run` gets the
// same from its preload library, which calls devcheck_sanitizer_join_thread().
// Outside a session it is a plain call.
#include <dlfcn.h>
#include <pthread.h>

#include <c10/core/impl/LocalDispatchKeySet.h>

#include <cerrno>
#include <new>

#include "sanitizer/engine.h"

namespace devcheck::sanitizer {
namespace {

// Constant-initialized: pthread_create may run before any static initializer.
// Read and written with __atomic builtins: boot() may call no function.
bool g_join_new_threads = false;

using CreateFn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

CreateFn next_create() {
  static const auto fn = reinterpret_cast<CreateFn>(dlsym(RTLD_NEXT, "pthread_create"));
  return fn;
}

struct Boot {
  void* (*start)(void*);
  void* arg;
};

// Frees the Boot when the thread's start routine returns, or when
// pthread_exit unwinds past it.
struct FreeAtExit {
  Boot* boot;
  ~FreeAtExit() { delete boot; }
};

// Runs first in the new thread, possibly before a sanitizer runtime that
// wraps pthread_create ahead of us (TSan, ASan) has set the thread up: so it
// calls nothing instrumented or intercepted before `start` (no library
// helper, no free; only LibTorch's own thread-local setter).
__attribute__((no_sanitize("address", "thread", "undefined"))) void* boot(void* p) {
  auto* b = static_cast<Boot*>(p);
  void* (*const start)(void*) = b->start;
  void* const arg = b->arg;
  const FreeAtExit free_at_exit{b};  // aggregate: no constructor runs here
  if (__atomic_load_n(&g_join_new_threads, __ATOMIC_ACQUIRE)) {
    c10::impl::tls_set_dispatch_key_included(kWatchKey, true);  // join_this_thread(), inline
    c10::impl::tls_set_dispatch_key_included(kObserveKey, true);
  }
  return start(arg);
}

}  // namespace

void join_new_threads(bool on) { __atomic_store_n(&g_join_new_threads, on, __ATOMIC_RELEASE); }

}  // namespace devcheck::sanitizer

extern "C" __attribute__((visibility("default"))) int pthread_create(pthread_t* thread,
                                                                     const pthread_attr_t* attr,
                                                                     void* (*start)(void*),
                                                                     void* arg) {
  using devcheck::sanitizer::Boot;
  const devcheck::sanitizer::CreateFn create = devcheck::sanitizer::next_create();
  if (create == nullptr) return EAGAIN;
  if (!__atomic_load_n(&devcheck::sanitizer::g_join_new_threads, __ATOMIC_ACQUIRE)) {
    return create(thread, attr, start, arg);
  }
  auto* b = new (std::nothrow) Boot{start, arg};
  if (b == nullptr) return create(thread, attr, start, arg);
  const int rc = create(thread, attr, &devcheck::sanitizer::boot, b);
  if (rc != 0) delete b;
  return rc;
}

extern "C" __attribute__((visibility("default"))) void devcheck_sanitizer_join_thread() {
  if (__atomic_load_n(&devcheck::sanitizer::g_join_new_threads, __ATOMIC_ACQUIRE)) {
    devcheck::sanitizer::join_this_thread();
  }
}
