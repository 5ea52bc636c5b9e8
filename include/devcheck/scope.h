#pragma once
/// A scoped, thread-local default device: inside a DeviceScope, tensors made
/// with devcheck::options() are created on the scope's device. There is no
/// process-global default device (PyTorch refused one in C++, and so do we).

#include <c10/core/Device.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/TensorOptions.h>

#include <string>

#include "devcheck/export.h"

namespace devcheck {

/// RAII: makes `device` the default device of this thread until destroyed,
/// and makes it the current device (a device guard) for devices that have an
/// index, such as cuda:1. Nestable; scopes must be destroyed in reverse order
/// of creation on the thread that created them (as with any guard). Not
/// copyable or movable. Other threads are unaffected.
class DEVCHECK_API DeviceScope {
 public:
  /// Enters a scope on `device`.
  explicit DeviceScope(c10::Device device);
  /// Enters a scope on a device given as text ("cuda:1", "auto", "meta"); the
  /// text goes through select_device(), so "auto" picks the best device here.
  /// Throws InvalidArgumentError or DeviceUnavailableError.
  explicit DeviceScope(const std::string& device);
  ~DeviceScope();

  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;
  DeviceScope(DeviceScope&&) = delete;
  DeviceScope& operator=(DeviceScope&&) = delete;

  /// The device of this scope.
  c10::Device device() const noexcept { return device_; }

 private:
  c10::Device device_;
  const DeviceScope* previous_;
  c10::OptionalDeviceGuard guard_;
};

/// The device of this thread's innermost DeviceScope, or cpu outside any scope
/// (LibTorch's own default). Cheap (a thread-local read).
DEVCHECK_API c10::Device default_device() noexcept;

/// Whether this thread is inside a DeviceScope.
DEVCHECK_API bool in_device_scope() noexcept;

/// TensorOptions on default_device(): `torch::randn({3, 3}, devcheck::options())`
/// lands on the scope's device. Chain dtype etc. as usual.
DEVCHECK_API c10::TensorOptions options() noexcept;

}  // namespace devcheck
