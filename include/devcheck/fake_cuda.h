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
  /// The number of fake CUDA devices the machine has: 1 to 8. Default 2. The
  /// process sees them as cuda:0 .. cuda:N-1, or those CUDA_VISIBLE_DEVICES
  /// shows of them (fake_cuda()).
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
/// count returns the same devices) and returns the devices it sees, cuda:0
/// .. cuda:N-1: all N of the machine, or those CUDA_VISIBLE_DEVICES shows of
/// them, read as the CUDA runtime reads it ("" or "-1": none; "1": one, the
/// machine's second; docs/testing-without-a-gpu.md), once, at the first call
/// that asks (this one, or a CUDA call after
/// start_fake_cuda_from_environment()). With none seen,
/// torch::cuda::is_available() is false and a cuda tensor fails with "No CUDA
/// GPUs are available". Call it before the program's first CUDA call and
/// before the first backward (LibTorch's autograd engine sizes its device
/// threads then). Throws InvalidArgumentError for a count outside 1..8 or one
/// that differs from an earlier call's; DeviceUnavailableError when a real
/// CUDA device is visible and options.force() is false. Thread-safe.
DEVCHECK_API std::vector<c10::Device> fake_cuda(const FakeCudaOptions& options);

/// fake_cuda(FakeCudaOptions().count(count)).
DEVCHECK_API std::vector<c10::Device> fake_cuda(int count = 2);

/// How many fake CUDA devices this process sees (CUDA_VISIBLE_DEVICES,
/// decided at the first call that asks); 0 when fake CUDA is off or shows
/// none. Thread-safe.
DEVCHECK_API int fake_cuda_count() noexcept;

/// The names of the real CUDA devices this machine's driver shows (what fake
/// CUDA would hide): asked of the driver itself (libcuda, loaded at run
/// time), never of LibTorch, whose view fake CUDA changes. Empty without a
/// driver or a device. Thread-safe.
DEVCHECK_API std::vector<std::string> real_cuda_devices();

/// What a program asks of fake CUDA before it is turned on: how many devices,
/// and whether they may hide real ones. `devcheck run --fake-cuda[=N]
/// [--fake-cuda-force]` asks on the command line and hands the request to
/// the programs it runs in DEVCHECK_FAKE_CUDA=N and DEVCHECK_FAKE_CUDA_FORCE=1.
struct DEVCHECK_API FakeCudaRequest {
  /// The number of fake CUDA devices asked for, 1 to 8; 0 for none. Default 0.
  int count = 0;
  /// Whether fake CUDA may hide the real CUDA devices of the machine.
  /// Default false: refuse_fake_cuda_over_real_gpus() refuses.
  bool force = false;
};

/// The request of a command line, completed from the environment: `given`'s
/// count when it is above 0, else DEVCHECK_FAKE_CUDA's (N: 1..8; unset, empty
/// or "0": none; read only then); force when `given` forces or
/// DEVCHECK_FAKE_CUDA_FORCE is set to anything but "" or "0". The preload
/// library's start (devcheck run), the doctor and train commands and `devcheck
/// run` itself read it here, and nowhere else. Throws InvalidArgumentError
/// naming DEVCHECK_FAKE_CUDA and its value when the value is anything else.
/// Reads the environment each call. Thread-safe.
DEVCHECK_API FakeCudaRequest fake_cuda_request_from_environment(const FakeCudaRequest& given = {});

/// The count DEVCHECK_FAKE_CUDA asks for: fake_cuda_request_from_environment().count.
/// Throws as it does. Thread-safe.
DEVCHECK_API int fake_cuda_count_from_environment();

/// The one refusal to hide a real GPU: throws DeviceUnavailableError when
/// `request` asks for fake CUDA without force and this machine's driver shows
/// a real CUDA device (real_cuda_devices()), which fake CUDA would hide from
/// the program; does nothing otherwise. The message names the devices and
/// the fix where the request came from: `command` "run" (devcheck run's
/// --fake-cuda and --fake-cuda-force), or empty for the environment alone
/// (DEVCHECK_FAKE_CUDA and DEVCHECK_FAKE_CUDA_FORCE). Thread-safe.
DEVCHECK_API void refuse_fake_cuda_over_real_gpus(const FakeCudaRequest& request,
                                                  const std::string& command = {});

/// Turns fake CUDA on as the environment asks (fake_cuda_request_from_environment(),
/// then refuse_fake_cuda_over_real_gpus() worded for the environment, then
/// fake_cuda()) and returns the machine's count; 0, doing nothing, when the
/// environment asks for none. The devices the process sees are decided at its
/// first CUDA call, from the CUDA_VISIBLE_DEVICES it has set by then. For
/// programs that take DEVCHECK_FAKE_CUDA as devcheck's doctor and train
/// commands do; call it before the first CUDA call. Throws as those three do.
/// Thread-safe.
DEVCHECK_API int start_fake_cuda_from_environment();

}  // namespace devcheck
