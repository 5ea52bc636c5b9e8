#pragma once
/// Fake CUDA: a program written for CUDA runs unmodified on a machine without
/// a GPU, with `cuda:0` .. `cuda:N-1` tensors that live in host memory, compute
/// with LibTorch's CPU kernels (results equal the CPU's bit for bit) and fail
/// as a GPU fails: "Expected all tensors to be on the same device, but found
/// at least two devices, cuda:0 and cpu!" with the wording the CUDA build of
/// this LibTorch version uses for that op, "CUDA error: invalid device
/// ordinal" for a device it does not have.
///
/// To the program the devices are CUDA: `torch::cuda::is_available()` is
/// true, `torch::cuda::device_count()` is N, `x.to(torch::kCUDA)`,
/// `module->to(torch::Device("cuda:1"))` and CUDA guards, streams and events
/// work. Random numbers on `cuda:N` come from one CPU generator per device
/// (as CUDA has one per GPU). What it cannot show (docs/testing-without-a-gpu.md):
/// timing and real asynchrony, kernels written for CUDA only (an op without a
/// CPU kernel fails naming the op), out-of-memory and the details of CUDA's
/// caching allocator (the fake one caches freed blocks per device, without
/// splitting them), NCCL. Once on, the process's CPU allocator serves the
/// memory a CPU kernel allocates while it runs a fake op from that cache and
/// hands every other CPU allocation to the allocator it replaced.
///
/// It is the fake accelerator's implementation (devcheck/fake_device.h) with
/// the CUDA device type and dispatch key, in the same library
/// (`devcheck::fake_device`). Turning it on is process-wide and for good: it
/// takes over LibTorch's CUDA device guard, allocator, hooks and, in a CUDA
/// build of LibTorch, every CUDA kernel. From Python: `devcheck.fake_cuda(n)`;
/// for any program: `devcheck run --fake-cuda -- python3 train.py`.

#include <c10/core/Device.h>

#include <string>
#include <vector>

#include "devcheck/export.h"

namespace devcheck {

/// How fake_cuda() turns fake CUDA on.
struct DEVCHECK_API FakeCudaOptions {
  /// The number of fake CUDA devices, cuda:0 .. cuda:N-1: 1 to 8. Default 2.
  FakeCudaOptions& count(int n) {
    count_ = n;
    return *this;
  }
  /// Whether to turn fake CUDA on when the machine has a real CUDA device,
  /// which fake CUDA would hide from the program. Default false: fake_cuda()
  /// refuses.
  FakeCudaOptions& force(bool on) {
    force_ = on;
    return *this;
  }
  int count() const { return count_; }
  bool force() const { return force_; }

 private:
  int count_ = 2;
  bool force_ = false;
};

/// Turns fake CUDA on in this process (once; a second call with the same
/// count returns the same devices) and returns its devices, cuda:0 ..
/// cuda:N-1. Call it before the program's first CUDA call and before the
/// first backward (LibTorch's autograd engine sizes its device threads then).
/// Throws InvalidArgumentError for a count outside 1..8 or one that differs
/// from an earlier call's; DeviceUnavailableError when a real CUDA device is
/// visible and options.force() is false. Thread-safe.
DEVCHECK_API std::vector<c10::Device> fake_cuda(const FakeCudaOptions& options);

/// fake_cuda(FakeCudaOptions().count(count)).
DEVCHECK_API std::vector<c10::Device> fake_cuda(int count = 2);

/// How many fake CUDA devices this process has; 0 when fake CUDA is off.
/// Thread-safe.
DEVCHECK_API int fake_cuda_count() noexcept;

/// The names of the real CUDA devices this machine's driver shows (what fake
/// CUDA would hide): asked of the driver itself (libcuda, loaded at run
/// time), never of LibTorch, whose view fake CUDA changes. Empty without a
/// driver or a device. Thread-safe.
DEVCHECK_API std::vector<std::string> real_cuda_devices();

/// The count DEVCHECK_FAKE_CUDA asks for: N (1..8), or 0 when it is unset,
/// empty or "0". Throws InvalidArgumentError naming the variable when it is
/// anything else. Reads the environment each call. Thread-safe.
DEVCHECK_API int fake_cuda_count_from_environment();

}  // namespace devcheck
