#include "stack.h"

#include <pthread.h>

#include <cstdint>

namespace devcheck::lint::detail {
namespace {

// The lowest address this thread's stack may reach (stacks grow down on
// every platform devcheck builds for).
std::uintptr_t stack_floor() {
  pthread_attr_t attr;
  void* low = nullptr;
  std::size_t size = 0;
  bool known = false;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    known = pthread_attr_getstack(&attr, &low, &size) == 0 && low != nullptr && size > 0;
    pthread_attr_destroy(&attr);
  }
  if (known) return reinterpret_cast<std::uintptr_t>(low);
  const auto here = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  return here > kFallbackStack ? here - kFallbackStack : 0;
}

}  // namespace

bool stack_nearly_exhausted() {
  thread_local const std::uintptr_t floor = stack_floor();
  const auto here = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  return here < floor + kStackMargin;
}

}  // namespace devcheck::lint::detail
