#pragma once
/// The fake accelerator: a second device type that lives in host memory and
/// computes with LibTorch's CPU kernels, so device-generic code runs on it
/// unchanged on a machine without a GPU, and fails where it would fail on one.
///
/// It is PyTorch's open-registration backend (`PrivateUse1`). LibTorch prints
/// its devices as "privateuseone:N" in 1.13 and "fake:N" from 2.1 on, where
/// the backend is renamed; devcheck's DeviceSpec accepts "fake", "fake:N",
/// "privateuseone" and "privateuseone:N" alike.
///
/// What it does as a GPU would: factories, `to`/`copy_` both ways (dtype
/// changes too), views sharing storage, in-place ops through views; an op that
/// mixes a fake tensor with a non-scalar CPU tensor, or `fake:0` with `fake:1`,
/// raises LibTorch's own "Expected all tensors to be on the same device, but
/// found at least two devices, ..." (0-dim CPU tensors and CPU indices are
/// allowed, as CUDA allows them); autograd and optimizers; `module->to()`; a
/// device guard with a current device per thread, and streams and events.
/// Results are bitwise equal to the CPU's. What it cannot show: pinned
/// memory, real asynchrony (every op has finished when it returns, so a
/// missing stream wait goes unnoticed), kernels written for CUDA.
///
/// Registering a backend is process-wide, so this is a separate library
/// (`devcheck::fake_device`): linking it is the opt-in. Loading the library
/// registers only the device guard (LibTorch's autograd engine counts each
/// backend's devices once, at the first backward); the allocator and kernels
/// are registered by the first call to fake_device(), or by
/// select_device("fake"). From Python:
///
///     torch.ops.load_library("libdevcheck_fake_device.so")
///     torch.ops.devcheck.register_fake_device()   # returns the device count
///     x = torch.ones(3, device="privateuseone:0")  # "fake:0" in torch 2.x

#include <c10/core/Device.h>

#include "devcheck/export.h"

namespace devcheck {

/// Registers the fake backend on first use and returns fake device `index`.
/// Throws InvalidArgumentError for an index outside [0, fake_device_count()),
/// or when DEVCHECK_FAKE_DEVICES is malformed. Thread-safe.
DEVCHECK_API c10::Device fake_device(int index = 0);

/// How many fake devices this process has: 2 by default; DEVCHECK_FAKE_DEVICES=N
/// (1..8) sets it, read once, at the first call. Throws InvalidArgumentError
/// naming the variable when it is not an integer in 1..8. Thread-safe.
DEVCHECK_API int fake_device_count();

/// Whether fake_device() has registered the backend in this process. Thread-safe.
DEVCHECK_API bool fake_device_registered() noexcept;

}  // namespace devcheck
