#pragma once
/// Device strings without LibTorch: the one parser and printer of devcheck's
/// device names ("cpu", "CUDA:0", "fake:1", "auto"). DeviceSpec
/// (devcheck/device.h), MapLocation, remap and the CLI all go through it.

#include <string>
#include <string_view>

#include "devcheck/export.h"

namespace devcheck::format {

/// The device types devcheck names. kFake is LibTorch's PrivateUse1 key,
/// which the fake accelerator (devcheck/fake_device.h) registers.
enum class DeviceType { kCpu, kCuda, kMeta, kFake, kMps, kXpu };

/// A device: a type and, optionally, an index. Value type; thread-safe.
struct DEVCHECK_API Device {
  DeviceType type = DeviceType::kCpu;
  int index = -1;  ///< -1: no index ("cuda" means the current CUDA device).

  bool has_index() const noexcept { return index >= 0; }
  /// LibTorch's spelling: "cpu", "cuda:1", "meta", "mps", "xpu:0", and the
  /// PrivateUse1 device as privateuse1_name() ("privateuseone:1").
  std::string str() const;

  bool operator==(const Device& other) const noexcept {
    return type == other.type && index == other.index;
  }
  bool operator!=(const Device& other) const noexcept { return !(*this == other); }
};

/// What a user wrote: a device, or one of the keywords that only the machine
/// can answer ("auto": the best available device; "gpu": any accelerator).
struct DEVCHECK_API DeviceRequest {
  enum class Kind { kDevice, kAuto, kGpu };
  Kind kind = Kind::kAuto;
  Device device;  ///< For kDevice.
};

/// The accepted forms, for messages: "auto, gpu, cpu, cuda, cuda:N (N >= 0), ...".
DEVCHECK_API extern const char* const kDeviceForms;

/// Parses `text`: "auto", "gpu", "cpu", "cuda", "cuda:N", "meta", "fake",
/// "fake:N", "privateuseone[:N]", "mps", "xpu", "xpu:N" (N in 0..127).
/// Surrounding spaces and case are ignored. Throws InvalidArgumentError
/// naming `text` and listing the accepted forms, or the index range.
DEVCHECK_API DeviceRequest parse_device_request(std::string_view text);

/// As parse_device_request(), for a place that needs a device: the keywords
/// "auto" and "gpu" throw InvalidArgumentError too.
DEVCHECK_API Device parse_device(std::string_view text);

/// How this process spells the PrivateUse1 device: "fake" without LibTorch
/// (devcheck's name, which torch 2.x programs using the fake device register
/// too, so `torch.load` there reads what remap writes), else what LibTorch
/// calls it once the LibTorch side has said so ("privateuseone" in 1.13, the
/// registered name in 2.x). Thread-safe.
DEVCHECK_API std::string privateuse1_name();
/// Set by the LibTorch side once it knows LibTorch's spelling. Thread-safe.
DEVCHECK_API void set_privateuse1_name(const std::string& name);

/// Whether this machine has `device`, as far as a process without LibTorch
/// can tell: cpu and meta always; cuda[:N] when the CUDA driver reports that
/// many devices (CUDA_VISIBLE_DEVICES honoured); the fake device, mps and
/// xpu never (the fake device exists only inside a process that registered
/// it). Thread-safe.
DEVCHECK_API bool device_available(const Device& device);

/// CUDA devices the driver reports (0 without a driver). Thread-safe.
DEVCHECK_API int driver_cuda_device_count();

/// What "auto" and "gpu" mean on this machine without LibTorch: the CUDA
/// device with the most free memory, else cpu. `reason`, when given, gets one
/// sentence on why. Thread-safe.
DEVCHECK_API Device auto_device(std::string* reason = nullptr);

}  // namespace devcheck::format
