#include "stack.h"

#include <pthread.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace devcheck::lint::detail {
namespace {

// The address below which this thread's stack counts as short: its lowest
// address (stacks grow down on every platform devcheck builds for) plus the
// margin, or a quarter of the stack where that is less (a thread of a small
// stack, 512 KiB or musl's 128 KiB, still runs the flow).
std::uintptr_t stack_floor() {
  pthread_attr_t attr;
  void* low = nullptr;
  std::size_t size = 0;
  bool known = false;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    known = pthread_attr_getstack(&attr, &low, &size) == 0 && low != nullptr && size > 0;
    pthread_attr_destroy(&attr);
  }
  std::uintptr_t floor = reinterpret_cast<std::uintptr_t>(low);
  if (!known) {
    const auto here = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
    size = kFallbackStack;
    floor = here > size ? here - size : 0;
  }
  return floor + std::min(kStackMargin, size / 4);
}

}  // namespace

bool stack_nearly_exhausted() {
  thread_local const std::uintptr_t floor = stack_floor();
  return reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0)) < floor;
}

}  // namespace devcheck::lint::detail
