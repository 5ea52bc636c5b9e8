#include "devcheck/scope.h"

#include <c10/core/impl/DeviceGuardImplInterface.h>

#include "devcheck/device.h"

namespace devcheck {
namespace {

thread_local const DeviceScope* innermost = nullptr;

// Only devices with an index and a registered guard (CUDA, and any other
// backend that registers one) have a "current device" to switch.
bool wants_guard(c10::Device device) {
  return device.has_index() && device.type() != c10::kCPU && device.type() != c10::kMeta &&
         c10::impl::hasDeviceGuardImpl(device.type());
}

// Engaged from the start rather than reset later: GCC 14 reads the later
// reset's disengaged branch as a use of uninitialized memory.
c10::OptionalDeviceGuard guard_for(c10::Device device) {
  if (wants_guard(device)) return c10::OptionalDeviceGuard(device);
  return c10::OptionalDeviceGuard();
}

}  // namespace

DeviceScope::DeviceScope(c10::Device device)
    : device_(device), previous_(innermost), guard_(guard_for(device)) {
  innermost = this;
}

DeviceScope::DeviceScope(const std::string& device)
    : DeviceScope(select_device(DeviceSpec::parse(device)).device) {}

DeviceScope::~DeviceScope() { innermost = previous_; }

c10::Device default_device() noexcept {
  return innermost != nullptr ? innermost->device() : c10::Device(c10::kCPU);
}

bool in_device_scope() noexcept { return innermost != nullptr; }

c10::TensorOptions options() noexcept { return c10::TensorOptions().device(default_device()); }

}  // namespace devcheck
