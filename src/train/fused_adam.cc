// FusedAdam::step: torch::optim::Adam's update (LibTorch's adam.cpp, 1.13 to
// 2.6: L2 weight decay into the gradient, bias corrections in double, denom
// = sqrt(v) / sqrt(bc2) + eps) as one pass per parameter where it can.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/GradMode.h>
#include <c10/util/Exception.h>

#include <cmath>
#include <memory>
#include <tuple>
#include <type_traits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "detail/compat.h"
#include "devcheck/optim.h"

namespace devcheck {
namespace {

// Elements per task when the pass is split over intra-op threads: below
// this, one thread's pass is faster than waking another.
constexpr int64_t kGrain = 1 << 15;

struct Coefficients {
  float beta1;
  float beta2;
  float one_minus_beta1;
  float one_minus_beta2;
  float sqrt_bias_correction2;
  float eps;
  float neg_step_size;  // -lr / bias_correction1
  float weight_decay;
};

#if defined(__x86_64__)
// One element: Adam's formula as the vector loop below computes it.
__attribute__((target("avx2,fma"))) inline void adam_element(float* p, const float* g, float* m,
                                                             float* v, float* v_max, int64_t i,
                                                             const Coefficients& c) {
  float grad = g[i];
  const float param = p[i];
  // grad.add(p, weight_decay); exp_avg.mul_(beta1).add_(grad, 1 - beta1):
  // ATen's add with alpha is a fused multiply-add.
  if (c.weight_decay != 0) grad = std::fma(param, c.weight_decay, grad);
  const float avg = std::fma(grad, c.one_minus_beta1, m[i] * c.beta1);
  // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, 1 - beta2)
  const float avg_sq = v[i] * c.beta2 + c.one_minus_beta2 * grad * grad;
  m[i] = avg;
  v[i] = avg_sq;
  float second = avg_sq;
  if (v_max != nullptr) {
    second = v_max[i] < avg_sq ? avg_sq : v_max[i];
    v_max[i] = second;
  }
  const float denom = std::sqrt(second) / c.sqrt_bias_correction2 + c.eps;
  p[i] = param + c.neg_step_size * avg / denom;  // p.addcdiv_(exp_avg, denom, -step_size)
}

__attribute__((target("avx2,fma"))) void adam_pass(float* p, const float* g, float* m, float* v,
                                                   float* v_max, int64_t begin, int64_t end,
                                                   const Coefficients& c) {
  const __m256 beta1 = _mm256_set1_ps(c.beta1);
  const __m256 beta2 = _mm256_set1_ps(c.beta2);
  const __m256 one_minus_beta1 = _mm256_set1_ps(c.one_minus_beta1);
  const __m256 one_minus_beta2 = _mm256_set1_ps(c.one_minus_beta2);
  const __m256 sqrt_bc2 = _mm256_set1_ps(c.sqrt_bias_correction2);
  const __m256 eps = _mm256_set1_ps(c.eps);
  const __m256 neg_step = _mm256_set1_ps(c.neg_step_size);
  const __m256 decay = _mm256_set1_ps(c.weight_decay);
  const bool decays = c.weight_decay != 0;
  int64_t i = begin;
  for (; i + 8 <= end; i += 8) {
    __m256 grad = _mm256_loadu_ps(g + i);
    const __m256 param = _mm256_loadu_ps(p + i);
    if (decays) grad = _mm256_fmadd_ps(param, decay, grad);
    const __m256 avg =
        _mm256_fmadd_ps(grad, one_minus_beta1, _mm256_mul_ps(_mm256_loadu_ps(m + i), beta1));
    const __m256 avg_sq = _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(v + i), beta2),
                                        _mm256_mul_ps(_mm256_mul_ps(one_minus_beta2, grad), grad));
    _mm256_storeu_ps(m + i, avg);
    _mm256_storeu_ps(v + i, avg_sq);
    __m256 second = avg_sq;
    if (v_max != nullptr) {
      // v_max < avg_sq ? avg_sq : v_max, as the scalar element
      const __m256 old = _mm256_loadu_ps(v_max + i);
      second = _mm256_blendv_ps(old, avg_sq, _mm256_cmp_ps(old, avg_sq, _CMP_LT_OQ));
      _mm256_storeu_ps(v_max + i, second);
    }
    const __m256 denom = _mm256_add_ps(_mm256_div_ps(_mm256_sqrt_ps(second), sqrt_bc2), eps);
    _mm256_storeu_ps(p + i,
                     _mm256_add_ps(param, _mm256_div_ps(_mm256_mul_ps(neg_step, avg), denom)));
  }
  for (; i < end; ++i) adam_element(p, g, m, v, v_max, i, c);
}
#endif

// The tensors of one parameter's update, when the fused pass can take them:
// float32 in host memory, dense, contiguous, one size.
bool fusable(const at::Tensor& p, const at::Tensor& grad, const torch::optim::AdamParamState& s,
             bool amsgrad) {
  const auto ok = [&](const at::Tensor& t) {
    return t.defined() && t.device().is_cpu() && t.scalar_type() == at::kFloat &&
           t.layout() == at::kStrided && t.is_contiguous() && !t.is_neg() && t.numel() == p.numel();
  };
  return ok(p) && ok(grad) && ok(s.exp_avg()) && ok(s.exp_avg_sq()) &&
         (!amsgrad || ok(s.max_exp_avg_sq()));
}

// Adam's own tensor ops (adam.cpp), for what the fused pass does not take.
void reference_update(at::Tensor& p, at::Tensor grad, torch::optim::AdamParamState& s,
                      const torch::optim::AdamOptions& o, double bias_correction1,
                      double bias_correction2) {
  const double beta1 = std::get<0>(o.betas());
  const double beta2 = std::get<1>(o.betas());
  if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
  s.exp_avg().mul_(beta1).add_(grad, 1 - beta1);
  s.exp_avg_sq().mul_(beta2).addcmul_(grad, grad.conj(), 1 - beta2);
  at::Tensor denom;
  if (o.amsgrad()) {
    at::max_out(s.max_exp_avg_sq(), s.exp_avg_sq(), s.max_exp_avg_sq());
    denom = (s.max_exp_avg_sq().sqrt() / std::sqrt(bias_correction2)).add_(o.eps());
  } else {
    denom = (s.exp_avg_sq().sqrt() / std::sqrt(bias_correction2)).add_(o.eps());
  }
  p.addcdiv_(s.exp_avg(), denom, -(o.lr() / bias_correction1));
}

void fused_update(at::Tensor& p, const at::Tensor& grad, torch::optim::AdamParamState& s,
                  const torch::optim::AdamOptions& o, double bias_correction1,
                  double bias_correction2) {
#if defined(__x86_64__)
  const double beta1 = std::get<0>(o.betas());
  const double beta2 = std::get<1>(o.betas());
  // Each as ATen turns the double scalar of the op into float32.
  const Coefficients c{static_cast<float>(beta1),
                       static_cast<float>(beta2),
                       static_cast<float>(1 - beta1),
                       static_cast<float>(1 - beta2),
                       static_cast<float>(std::sqrt(bias_correction2)),
                       static_cast<float>(o.eps()),
                       static_cast<float>(-(o.lr() / bias_correction1)),
                       static_cast<float>(o.weight_decay())};
  float* param = p.data_ptr<float>();
  const float* g = grad.data_ptr<float>();
  float* m = s.exp_avg().data_ptr<float>();
  float* v = s.exp_avg_sq().data_ptr<float>();
  float* v_max = o.amsgrad() ? s.max_exp_avg_sq().data_ptr<float>() : nullptr;
  // Threads split whole vectors; the last numel % 8 elements go through the
  // scalar loop whatever the thread count, so every count gives the same bits.
  const int64_t n = p.numel();
  const int64_t vectors = n / 8;
  at::parallel_for(0, vectors, kGrain / 8, [&](int64_t begin, int64_t end) {
    adam_pass(param, g, m, v, v_max, begin * 8, end * 8, c);
  });
  adam_pass(param, g, m, v, v_max, vectors * 8, n, c);
  // Written through pointers: tell autograd, as the in-place ops would.
  p.unsafeGetTensorImpl()->bump_version();
  s.exp_avg().unsafeGetTensorImpl()->bump_version();
  s.exp_avg_sq().unsafeGetTensorImpl()->bump_version();
  if (o.amsgrad()) s.max_exp_avg_sq().unsafeGetTensorImpl()->bump_version();
#else
  reference_update(p, grad, s, o, bias_correction1, bias_correction2);
#endif
}

}  // namespace

bool FusedAdam::fused_on_this_cpu() {
#if defined(__x86_64__)
  static const bool supported = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return supported;
#else
  return false;
#endif
}

at::Tensor FusedAdam::step(LossClosure closure) {
  const c10::NoGradGuard no_grad;
  at::Tensor loss;
  if (closure != nullptr) {
    const c10::AutoGradMode enable_grad(true);
    loss = closure();
  }
  using StateMap = std::decay_t<decltype(state_)>;
  const bool fused = fused_on_this_cpu();
  last_fused_ = 0;
  for (auto& group : param_groups_) {
    const auto& options = static_cast<const torch::optim::AdamOptions&>(group.options());
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      const at::Tensor grad = p.grad();
      TORCH_CHECK(!grad.is_sparse(), "Adam does not support sparse gradients");
      const auto key = detail::optimizer_state_key<StateMap>(p.unsafeGetTensorImpl());
      auto found = state_.find(key);
      if (found == state_.end()) {  // as Adam initializes it
        auto fresh = std::make_unique<torch::optim::AdamParamState>();
        fresh->step(0);
        fresh->exp_avg(at::zeros_like(p, at::MemoryFormat::Preserve));
        fresh->exp_avg_sq(at::zeros_like(p, at::MemoryFormat::Preserve));
        if (options.amsgrad()) fresh->max_exp_avg_sq(at::zeros_like(p, at::MemoryFormat::Preserve));
        found = state_.emplace(key, std::move(fresh)).first;
      }
      auto& s = static_cast<torch::optim::AdamParamState&>(*found->second);
      s.step(s.step() + 1);
      const double bias_correction1 =
          1 - std::pow(std::get<0>(options.betas()), static_cast<double>(s.step()));
      const double bias_correction2 =
          1 - std::pow(std::get<1>(options.betas()), static_cast<double>(s.step()));
      if (fused && fusable(p, grad, s, options.amsgrad())) {
        fused_update(p, grad, s, options, bias_correction1, bias_correction2);
        ++last_fused_;
      } else {
        reference_update(p, grad, s, options, bias_correction1, bias_correction2);
      }
    }
  }
  return loss;
}

}  // namespace devcheck
