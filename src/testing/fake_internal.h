#pragma once
// Internals shared by the fake device's files (guard and allocator in
// fake_device.cc, kernels in fake_kernels.cc).

#include <c10/core/Allocator.h>
#include <c10/core/Device.h>

namespace devcheck::detail {

// The most fake devices a process can have (DEVCHECK_FAKE_DEVICES is 1..8).
inline constexpr int kMaxFakeDevices = 8;

// The fake backend's allocator: host memory (c10's CPU allocation, 64-byte
// aligned), tagged with the current fake device of the calling thread.
c10::Allocator* fake_allocator();

// The calling thread's current fake device index (the device guard's).
c10::DeviceIndex fake_current_index() noexcept;

// Registers the allocator and every kernel of the fake backend. Called once.
void register_fake_kernels();

}  // namespace devcheck::detail
