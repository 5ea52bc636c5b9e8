#pragma once
// The profiler's CUDA stubs as fake CUDA answers them (profiler.cc): the
// argument types of record(), which differ by version (detail/compat.h):
// int and std::shared_ptr<CUevent_st> in 1.13, c10::DeviceIndex and
// std::shared_ptr<void> in 2.x.

#include <cstdint>

#include "detail/compat.h"

// The stubs' header differs by version (detail/compat.h).
#include DEVCHECK_PROFILER_STUBS_HEADER

namespace devcheck::detail {

template <typename Method>
struct ProfilerRecordArguments;
template <typename Class, typename DeviceT, typename EventT>
struct ProfilerRecordArguments<void (Class::*)(DeviceT*, EventT*, int64_t*) const> {
  using Device = DeviceT;
  using Event = EventT;
};
using ProfilerRecord =
    ProfilerRecordArguments<decltype(&torch::profiler::impl::ProfilerStubs::record)>;

}  // namespace devcheck::detail
