#include "detail/torch_cuda_version.h"

#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include <string>

namespace devcheck::detail {

std::string torch_cuda_version() {
  if (!c10::impl::hasDeviceGuardImpl(c10::kCUDA)) return "";
  // CUDART_VERSION as LibTorch was compiled: 12040 for 12.4.
  const auto version = at::detail::getCUDAHooks().versionCUDART();
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

}  // namespace devcheck::detail
