// The driver-side CUDA probe: torch-free, part of devcheck::format.
#include "format/cuda_probe.h"

#include <dlfcn.h>

#include <array>

namespace devcheck::detail {
namespace {

// Driver API and NVML signatures, declared here so no CUDA header is needed.
using CuResult = int;
using CuDevice = int;
using CuContext = void*;
using NvmlDevice = void*;
struct NvmlMemory {
  unsigned long long total;  // NOLINT(google-runtime-int): NVML's own type
  unsigned long long free;   // NOLINT(google-runtime-int)
  unsigned long long used;   // NOLINT(google-runtime-int)
};

template <typename F>
F symbol(void* lib, const char* name) {
  return lib == nullptr ? nullptr : reinterpret_cast<F>(dlsym(lib, name));
}

// NVML reports free memory without creating a CUDA context on the device.
std::optional<std::uint64_t> nvml_free_bytes(void* nvml, const char* pci_bus_id) {
  auto get_handle =
      symbol<int (*)(const char*, NvmlDevice*)>(nvml, "nvmlDeviceGetHandleByPciBusId_v2");
  auto get_memory = symbol<int (*)(NvmlDevice, NvmlMemory*)>(nvml, "nvmlDeviceGetMemoryInfo");
  if (get_handle == nullptr || get_memory == nullptr) return std::nullopt;
  NvmlDevice handle = nullptr;
  NvmlMemory memory{};
  if (get_handle(pci_bus_id, &handle) != 0 || get_memory(handle, &memory) != 0) return std::nullopt;
  return static_cast<std::uint64_t>(memory.free);
}

// Fallback when NVML is absent: ask the device's primary context (the one the
// CUDA runtime and LibTorch use anyway).
std::optional<std::uint64_t> context_free_bytes(void* cuda, CuDevice device) {
  auto retain = symbol<CuResult (*)(CuContext*, CuDevice)>(cuda, "cuDevicePrimaryCtxRetain");
  auto release = symbol<CuResult (*)(CuDevice)>(cuda, "cuDevicePrimaryCtxRelease_v2");
  auto push = symbol<CuResult (*)(CuContext)>(cuda, "cuCtxPushCurrent_v2");
  auto pop = symbol<CuResult (*)(CuContext*)>(cuda, "cuCtxPopCurrent_v2");
  auto mem_info = symbol<CuResult (*)(size_t*, size_t*)>(cuda, "cuMemGetInfo_v2");
  if (!retain || !release || !push || !pop || !mem_info) return std::nullopt;
  CuContext context = nullptr;
  if (retain(&context, device) != 0) return std::nullopt;
  std::optional<std::uint64_t> result;
  if (push(context) == 0) {
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    if (mem_info(&free_bytes, &total_bytes) == 0) result = free_bytes;
    CuContext popped = nullptr;
    pop(&popped);
  }
  release(device);
  return result;
}

// "CUDA_ERROR_NO_DEVICE, no CUDA-capable device is detected".
std::string driver_error(void* cuda, CuResult result) {
  auto error_name = symbol<CuResult (*)(CuResult, const char**)>(cuda, "cuGetErrorName");
  auto error_text = symbol<CuResult (*)(CuResult, const char**)>(cuda, "cuGetErrorString");
  const char* name = nullptr;
  const char* text = nullptr;
  std::string out = "CUDA driver error " + std::to_string(result);
  if (error_name != nullptr && error_name(result, &name) == 0 && name != nullptr) out = name;
  if (error_text != nullptr && error_text(result, &text) == 0 && text != nullptr) {
    out += std::string(", ") + text;
  }
  return out;
}

}  // namespace

CudaProbe probe_cuda() {
  CudaProbe probe;
  void* cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (cuda == nullptr) {
    probe.driver_note = "no CUDA driver (libcuda.so.1 not found)";
    return probe;
  }
  auto init = symbol<CuResult (*)(unsigned)>(cuda, "cuInit");
  auto count = symbol<CuResult (*)(int*)>(cuda, "cuDeviceGetCount");
  auto get = symbol<CuResult (*)(CuDevice*, int)>(cuda, "cuDeviceGet");
  auto get_name = symbol<CuResult (*)(char*, int, CuDevice)>(cuda, "cuDeviceGetName");
  auto total_mem = symbol<CuResult (*)(size_t*, CuDevice)>(cuda, "cuDeviceTotalMem_v2");
  auto bus_id = symbol<CuResult (*)(char*, int, CuDevice)>(cuda, "cuDeviceGetPCIBusId");
  int n = 0;
  if (!init || !count || !get) {
    probe.driver_note = "libcuda.so.1 lacks the CUDA driver API";
    dlclose(cuda);
    return probe;
  }
  CuResult result = init(0);
  if (result == 0) result = count(&n);
  if (result != 0) {
    probe.driver_note = "the CUDA driver found no usable GPU: " + driver_error(cuda, result);
    dlclose(cuda);
    return probe;
  }
  probe.driver_found = true;
  void* nvml = dlopen("libnvidia-ml.so.1", RTLD_LAZY | RTLD_LOCAL);
  auto nvml_init = symbol<int (*)()>(nvml, "nvmlInit_v2");
  auto nvml_shutdown = symbol<int (*)()>(nvml, "nvmlShutdown");
  const bool nvml_ready = nvml_init != nullptr && nvml_init() == 0;
  for (int i = 0; i < n; ++i) {
    CuDevice device = 0;
    if (get(&device, i) != 0) continue;
    CudaDeviceFacts facts;
    facts.ordinal = i;
    std::array<char, 256> text{};
    if (get_name != nullptr && get_name(text.data(), static_cast<int>(text.size()), device) == 0) {
      facts.name = text.data();
    }
    size_t total = 0;
    if (total_mem != nullptr && total_mem(&total, device) == 0) facts.total_bytes = total;
    std::array<char, 64> pci{};
    if (nvml_ready && bus_id != nullptr &&
        bus_id(pci.data(), static_cast<int>(pci.size()), device) == 0) {
      facts.free_bytes = nvml_free_bytes(nvml, pci.data());
    }
    if (!facts.free_bytes) facts.free_bytes = context_free_bytes(cuda, device);
    probe.devices.push_back(std::move(facts));
  }
  if (nvml_ready && nvml_shutdown != nullptr) nvml_shutdown();
  if (nvml != nullptr) dlclose(nvml);
  // libcuda stays loaded: LibTorch (or a later probe) uses the same handle.
  return probe;
}

}  // namespace devcheck::detail
