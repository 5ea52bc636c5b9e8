#pragma once
// How the core reaches the fake device without linking it: libdevcheck_fake_device
// sets these when it is loaded; select_device("fake") and list_devices() use
// them. Unset (nullptr) when the program does not link the fake device.

#include <c10/core/Device.h>

#include "devcheck/export.h"

namespace devcheck::detail {

struct FakeDeviceHooks {
  c10::Device (*device)(int index) = nullptr;  // fake_device()
  int (*count)() = nullptr;                    // fake_device_count()
  bool (*registered)() noexcept = nullptr;     // fake_device_registered()
  int (*cuda_count)() noexcept = nullptr;      // fake_cuda_count(), once fake CUDA is on
};

// Sets the hooks (the fake device library does, once, when loaded).
DEVCHECK_API void set_fake_device_hooks(const FakeDeviceHooks& hooks) noexcept;

// The hooks; every member is nullptr when the fake device is not linked.
DEVCHECK_API FakeDeviceHooks fake_device_hooks() noexcept;

}  // namespace devcheck::detail
