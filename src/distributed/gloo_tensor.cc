#include "distributed/gloo_tensor.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include "detail/staged_copy_label.h"

namespace devcheck::detail {

at::Tensor communicable(const at::Tensor& tensor, const std::string& backend) {
  const c10::DeviceType type = tensor.device().type();
  if (type == c10::kCPU || (type == c10::kCUDA && backend == "nccl")) return tensor;
  if (type == c10::kPrivateUse1 && tensor.is_contiguous()) {
    // The fake device's memory is host memory: alias it. The deleter keeps
    // the fake tensor's storage alive as long as the alias.
    return at::from_blob(
        tensor.data_ptr(), tensor.sizes(), tensor.strides(), [keep = tensor](void*) {},
        tensor.options().device(c10::kCPU));
  }
  const StagingScope staging("devcheck::ProcessGroup");
  const c10::NoGradGuard no_grad;
  return tensor.to(c10::kCPU).contiguous();
}

void finish_staging(const at::Tensor& tensor, const at::Tensor& staged) {
  if (staged.data_ptr() == tensor.data_ptr()) return;
  const StagingScope staging("devcheck::ProcessGroup");
  const c10::NoGradGuard no_grad;
  tensor.copy_(staged);
}

}  // namespace devcheck::detail
