#pragma once
/// FusedAdam: LibTorch's Adam with its step done in one pass over each
/// parameter on the CPU.
///
/// torch::optim::Adam updates a parameter with about eight tensor ops, each
/// a pass over the parameter's size (and two temporaries of that size);
/// LibTorch's C++ frontend has no foreach or fused Adam (Python has
/// `fused=True`). On a small model that step is a large part of a training
/// step: 0.7-1 ms of a 9 ms step for the Fashion-MNIST classifier (216k
/// parameters, batch 32, one thread), which is what a data-parallel rank at
/// half the batch pays in full (bench/optim_bench.cc).
///
/// FusedAdam is a torch::optim::Adam: the same options (lr, betas, eps,
/// weight_decay as an L2 term, amsgrad), the same state (AdamParamState under
/// the same keys: step, exp_avg, exp_avg_sq, max_exp_avg_sq), so save/load,
/// GradScaler::step, and code that reads `state()` treat it as Adam. Only
/// step() differs: each float32 parameter in host memory whose gradient and
/// state are dense and contiguous is updated in one vectorized pass (AVX2 and
/// FMA, chosen at run time; split over the intra-op threads); any other
/// parameter (another device or dtype, non-contiguous, or a CPU without
/// AVX2) takes Adam's own sequence of tensor ops. The fused pass computes
/// Adam's formula in float32 in the same order; results agree with
/// torch::optim::Adam to float rounding (within 1e-6 after many steps in the
/// tests), and are the same for any thread count.

#include <ATen/core/Tensor.h>
#include <torch/optim/adam.h>

#include "devcheck/export.h"

namespace devcheck {

class DEVCHECK_API FusedAdam : public torch::optim::Adam {
 public:
  using torch::optim::Adam::Adam;

  /// Adam's step (closure and return value as torch::optim::Adam's).
  /// Throws c10::Error, as Adam does, for a sparse gradient.
  at::Tensor step(LossClosure closure = nullptr) override;

  /// Whether this machine runs the fused pass (x86-64 with AVX2 and FMA).
  static bool fused_on_this_cpu();

  /// How many parameters the last step() updated with the fused pass.
  int64_t last_fused_count() const { return last_fused_; }

 private:
  int64_t last_fused_ = 0;
};

}  // namespace devcheck
