#pragma once
// Gloo takes CPU and CUDA tensors only. The fake device keeps its tensors in
// host memory, so a contiguous fake tensor is handed to Gloo as a CPU tensor
// over the same bytes (no copy); anything else is copied to the CPU and back.

#include <ATen/core/Tensor.h>

#include <string>

namespace devcheck::detail {

// `tensor` as the backend takes it: itself for the CPU and CUDA, else a CPU
// tensor aliasing its bytes (contiguous) or a CPU copy.
at::Tensor communicable(const at::Tensor& tensor, const std::string& backend);

// After a collective on `staged` (from communicable(tensor)): copies the
// result back into `tensor` when `staged` was a copy.
void finish_staging(const at::Tensor& tensor, const at::Tensor& staged);

}  // namespace devcheck::detail
