#pragma once
// The CUDA driver probe: run-time queries of CUDA devices through the driver
// (libcuda) and NVML, loaded with dlopen: no compile-time CUDA dependency, no
// LibTorch (devcheck::format's device availability uses it), and nothing
// happens on a machine without a driver. What the LibTorch in the process was
// built with is detail/torch_cuda_version.h's business.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "devcheck/export.h"

namespace devcheck::detail {

struct CudaDeviceFacts {
  int ordinal = 0;  // as LibTorch numbers it (after CUDA_VISIBLE_DEVICES)
  std::string name;
  std::optional<std::uint64_t> total_bytes;
  std::optional<std::uint64_t> free_bytes;
};

struct CudaProbe {
  bool driver_found = false;  // libcuda.so.1 loaded and cuInit succeeded
  std::string driver_note;    // why not, when !driver_found
  std::vector<CudaDeviceFacts> devices;
};

// Queries the driver now (free memory changes; nothing is cached).
DEVCHECK_API CudaProbe probe_cuda();

}  // namespace devcheck::detail
