#pragma once
// The CUDA runtime version LibTorch was built with, as LibTorch's CUDA hooks
// report it (LibTorch side; the driver's own facts are format/cuda_probe.h's).

#include <string>

namespace devcheck::detail {

// The CUDA version the LibTorch in this process was built with, "12.4"; empty
// when it has no CUDA (libtorch_cuda not loaded). Needs no GPU and no driver.
std::string torch_cuda_version();

}  // namespace devcheck::detail
