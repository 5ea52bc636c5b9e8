#pragma once
/// Device policy: parse what the user asked for ("auto", "cuda:1", ...) and
/// choose the device that exists on this machine, with the reason.

#include <c10/core/Device.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "devcheck/export.h"
#include "devcheck/format/units.h"

namespace devcheck {

/// A device request as a user writes it. Value type; thread-safe.
///
/// Accepted forms: "auto" (best available: a CUDA GPU, else cpu), "gpu" (any
/// available accelerator, else cpu), "cpu", "cuda" (the current CUDA device),
/// "cuda:N", "meta", and the fake accelerator (devcheck/fake_device.h):
/// "fake", "fake:N", or LibTorch's own name for it, "privateuseone[:N]".
/// "auto" and "gpu" never choose the fake device. Surrounding spaces and case
/// are ignored.
class DEVCHECK_API DeviceSpec {
 public:
  enum class Kind { kAuto, kGpu, kCpu, kCuda, kMeta, kFake };

  /// Parses `text`. Throws InvalidArgumentError naming `text` and listing the accepted forms.
  static DeviceSpec parse(const std::string& text);

  /// The program's spec: $DEVCHECK_DEVICE when set (and non-empty), else `program_default`.
  /// Throws InvalidArgumentError (naming DEVCHECK_DEVICE) when the variable is malformed.
  static DeviceSpec from_env(const std::string& program_default = "auto");

  /// "auto" when default-constructed.
  DeviceSpec() = default;

  Kind kind() const noexcept { return kind_; }
  /// The N of "cuda:N" or "fake:N"; empty for every other form.
  std::optional<int> index() const noexcept { return index_; }
  /// The canonical text of this spec ("cuda:1", "auto").
  std::string str() const;

  /// The device this spec names without asking the machine: cpu, meta,
  /// cuda[:N], fake[:N] (as LibTorch's PrivateUse1 device). Empty for "auto"
  /// and "gpu", which only select_device() can answer. For offline work such
  /// as remapping a checkpoint for another machine. Never throws.
  std::optional<c10::Device> named_device() const;

  bool operator==(const DeviceSpec& other) const noexcept {
    return kind_ == other.kind_ && index_ == other.index_;
  }

 private:
  Kind kind_ = Kind::kAuto;
  std::optional<int> index_;
};

/// The outcome of select_device: where to run and why.
struct DEVCHECK_API Selection {
  c10::Device device = c10::Device(c10::kCPU);
  /// One sentence for logs: "cuda:1: most free memory of 2 GPUs (70.1 GiB free)".
  std::string reason;
};

/// Chooses a device for `spec`. "auto"/"gpu" prefer CUDA and, with several
/// visible GPUs (CUDA_VISIBLE_DEVICES is honoured), the one with the most free
/// memory, queried at run time; without CUDA they fall back to cpu and say why.
/// Throws DeviceUnavailableError for "cuda"/"cuda:N" that this machine lacks,
/// saying how many CUDA devices there are, and for "fake"/"fake:N" when the
/// program does not link devcheck::fake_device or has fewer fake devices;
/// "fake" registers the fake backend (fake_device()). Thread-safe.
DEVCHECK_API Selection select_device(const DeviceSpec& spec);

/// Convenience: select_device(DeviceSpec::parse(spec)).
DEVCHECK_API Selection select_device(const std::string& spec);

/// What is known about one device. Memory fields are empty where unknown.
struct DEVCHECK_API DeviceInfo {
  c10::Device device = c10::Device(c10::kCPU);
  std::string name;                          ///< "NVIDIA H200", or the CPU model.
  std::optional<std::uint64_t> total_bytes;  ///< Total memory, in bytes.
  std::optional<std::uint64_t> free_bytes;   ///< Free memory now, in bytes.
};

/// Every device this process can use: cpu first, then each visible CUDA
/// device, then the fake devices once the fake backend is registered.
/// CUDA facts come from the driver at run time (no compile-time CUDA dependency).
/// Thread-safe.
DEVCHECK_API std::vector<DeviceInfo> list_devices();

/// Whether this process can use `device`: cpu and meta always; cuda[:N] when
/// LibTorch sees that many CUDA devices; the fake device when the program
/// links devcheck::fake_device and has that many (asking registers it).
/// Without LibTorch, format::device_available() answers from the driver alone.
/// Thread-safe.
DEVCHECK_API bool device_available(c10::Device device);

/// Number of CUDA devices LibTorch can use in this process (0 without CUDA).
DEVCHECK_API int cuda_device_count();

/// "12.3 GiB", "512 B": bytes for humans (devcheck/format/units.h).
using format::format_bytes;

}  // namespace devcheck
