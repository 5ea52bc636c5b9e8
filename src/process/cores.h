#pragma once
// The cores this process may run on: its affinity mask, as taskset and
// cgroups' cpusets set it (the online CPU count if the mask cannot be read).
// Header-only and LibTorch-free: the launcher, the command-line front and
// the LibTorch parts (DDP's threads) use it.

#include <sched.h>
#include <unistd.h>

#include <algorithm>

namespace devcheck::detail {

inline int usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN)));
}

}  // namespace devcheck::detail
