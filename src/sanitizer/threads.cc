// Threads created while a session runs join it from their first op.
//
// libdevcheck defines pthread_create (std::thread and Python threads go
// through it) and forwards to the next definition, libc's; a program that
// links libdevcheck gets it for every thread, and `devcheck run` gets the
// same from its preload library, which calls devcheck_sanitizer_join_thread().
// Outside a session it is a plain call.
#include <dlfcn.h>
#include <pthread.h>

#include <atomic>
#include <cerrno>
#include <new>

#include "sanitizer/engine.h"

namespace devcheck::sanitizer {
namespace {

// Constant-initialized: pthread_create may run before any static initializer.
std::atomic<bool> g_join_new_threads{false};

using CreateFn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

CreateFn next_create() {
  static const auto fn = reinterpret_cast<CreateFn>(dlsym(RTLD_NEXT, "pthread_create"));
  return fn;
}

struct Boot {
  void* (*start)(void*);
  void* arg;
};

void* boot(void* p) {
  const Boot b = *static_cast<Boot*>(p);
  delete static_cast<Boot*>(p);
  if (g_join_new_threads.load(std::memory_order_acquire)) join_this_thread();
  return b.start(b.arg);
}

}  // namespace

void join_new_threads(bool on) { g_join_new_threads.store(on, std::memory_order_release); }

}  // namespace devcheck::sanitizer

extern "C" __attribute__((visibility("default"))) int pthread_create(pthread_t* thread,
                                                                     const pthread_attr_t* attr,
                                                                     void* (*start)(void*),
                                                                     void* arg) {
  using devcheck::sanitizer::Boot;
  const devcheck::sanitizer::CreateFn create = devcheck::sanitizer::next_create();
  if (create == nullptr) return EAGAIN;
  if (!devcheck::sanitizer::g_join_new_threads.load(std::memory_order_acquire)) {
    return create(thread, attr, start, arg);
  }
  auto* b = new (std::nothrow) Boot{start, arg};
  if (b == nullptr) return create(thread, attr, start, arg);
  const int rc = create(thread, attr, &devcheck::sanitizer::boot, b);
  if (rc != 0) delete b;
  return rc;
}

extern "C" __attribute__((visibility("default"))) void devcheck_sanitizer_join_thread() {
  if (devcheck::sanitizer::g_join_new_threads.load(std::memory_order_acquire)) {
    devcheck::sanitizer::join_this_thread();
  }
}
