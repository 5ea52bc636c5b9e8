#pragma once
// Run-time queries of CUDA devices through the driver (libcuda) and NVML,
// loaded with dlopen: no compile-time CUDA dependency, and nothing happens on
// a machine without a driver.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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
CudaProbe probe_cuda();

// The CUDA version the LibTorch in this process was built with, "12.4"; empty
// when it has no CUDA (libtorch_cuda not loaded). Needs no GPU and no driver.
std::string torch_cuda_version();

}  // namespace devcheck::detail
