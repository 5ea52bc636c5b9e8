#include "devcheck/amp.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <fmt/format.h>
#include <torch/optim/optimizer.h>

#include <map>
#include <utility>

#include "detail/compat.h"
#include "detail/names.h"
#include "devcheck/error.h"

namespace devcheck {
namespace {

void check_autocast_pair(c10::DeviceType type, c10::ScalarType dtype) {
  const bool ok = (type == c10::kCPU && dtype == c10::kBFloat16) ||
                  (type == c10::kCUDA && (dtype == c10::kHalf || dtype == c10::kBFloat16));
  if (!ok) {
    throw InvalidArgumentError(
        fmt::format("[devcheck] AutocastScope: expected cpu with bfloat16, or cuda with float16 or "
                    "bfloat16; received {} with {}",
                    c10::DeviceTypeName(type, /*lower_case=*/true), detail::dtype_name(dtype)));
  }
}

// The per-device fallback of _amp_foreach_non_finite_check_and_unscale_: the
// same result (found_inf set to 1 when any element is inf/NaN, every gradient
// multiplied by inv_scale) from ordinary tensor ops, on any device.
void unscale_with_tensor_ops(const std::vector<at::Tensor>& grads, at::Tensor& found_inf,
                             const at::Tensor& inv_scale) {
  for (const at::Tensor& g : grads) {
    found_inf.logical_or_(at::logical_not(at::isfinite(g)).any());
    g.mul_(inv_scale);
  }
}

// The fallback of _amp_update_scale_, kept on the scale's device (no sync).
void update_scale_with_tensor_ops(at::Tensor& scale, at::Tensor& growth_tracker,
                                  const at::Tensor& found_inf, double growth_factor,
                                  double backoff_factor, int64_t growth_interval) {
  const at::Tensor inf = found_inf > 0;
  const at::Tensor successful = growth_tracker + 1;
  const at::Tensor grow = at::logical_and(at::logical_not(inf), successful >= growth_interval);
  // As the CUDA kernel: the product is formed in double and stored as float,
  // and a growth that would overflow to inf leaves the scale unchanged.
  at::Tensor grown = (scale.to(at::kDouble) * growth_factor).to(at::kFloat);
  grown = at::where(at::isfinite(grown), grown, scale);
  const at::Tensor backed_off = (scale.to(at::kDouble) * backoff_factor).to(at::kFloat);
  const at::Tensor new_scale = at::where(inf, backed_off, at::where(grow, grown, scale));
  const at::Tensor new_tracker =
      at::where(at::logical_or(inf, grow), at::zeros_like(growth_tracker), successful)
          .to(growth_tracker.scalar_type());
  scale.copy_(new_scale);
  growth_tracker.copy_(new_tracker);
}

}  // namespace

AutocastScope::AutocastScope(c10::DeviceType device_type, c10::ScalarType dtype, bool enabled)
    : device_type_(device_type) {
  if (!enabled && device_type != c10::kCPU && device_type != c10::kCUDA) {
    active_ = false;
    return;
  }
  check_autocast_pair(device_type, dtype);
  previous_enabled_ = detail::autocast_enabled(device_type);
  previous_dtype_ = detail::autocast_dtype(device_type);
  detail::set_autocast_enabled(device_type, enabled);
  detail::set_autocast_dtype(device_type, dtype);
  at::autocast::increment_nesting();
}

AutocastScope::AutocastScope(c10::DeviceType device_type, bool enabled)
    : AutocastScope(device_type, default_autocast_dtype(device_type), enabled) {}

AutocastScope::~AutocastScope() {
  if (!active_) return;
  // As Python's torch.autocast.__exit__: the cache of casts made in this
  // region is dropped when the outermost region ends.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  detail::set_autocast_enabled(device_type_, previous_enabled_);
  detail::set_autocast_dtype(device_type_, previous_dtype_);
}

bool autocast_enabled(c10::DeviceType device_type) { return detail::autocast_enabled(device_type); }

c10::ScalarType autocast_dtype(c10::DeviceType device_type) {
  return detail::autocast_dtype(device_type);
}

c10::ScalarType default_autocast_dtype(c10::DeviceType device_type) {
  return device_type == c10::kCUDA ? c10::kHalf : c10::kBFloat16;
}

GradScaler::GradScaler(GradScalerOptions options)
    : options_(options), init_scale_(options.init_scale()) {
  if (options_.init_scale() <= 0 || options_.growth_factor() <= 1.0 ||
      options_.backoff_factor() <= 0 || options_.backoff_factor() >= 1.0 ||
      options_.growth_interval() <= 0) {
    throw InvalidArgumentError(fmt::format(
        "[devcheck] GradScaler: expected init_scale > 0, growth_factor > 1, 0 < backoff_factor "
        "< 1 and growth_interval > 0; received {}, {}, {}, {}",
        options_.init_scale(), options_.growth_factor(), options_.backoff_factor(),
        options_.growth_interval()));
  }
}

void GradScaler::lazy_init(c10::Device device) {
  scale_ = at::full({1}, init_scale_, at::TensorOptions().dtype(at::kFloat).device(device));
  growth_tracker_ =
      at::full({1}, init_growth_tracker_, at::TensorOptions().dtype(at::kInt).device(device));
}

GradScaler::PerOptimizer& GradScaler::state_of(const torch::optim::Optimizer& optimizer) {
  return per_optimizer_[&optimizer];
}

at::Tensor GradScaler::scale(const at::Tensor& outputs) {
  if (!options_.enabled()) return outputs;
  if (!scale_.defined()) lazy_init(outputs.device());
  return outputs * scale_.to(outputs.device(), /*non_blocking=*/true);
}

void GradScaler::unscale_(torch::optim::Optimizer& optimizer) {
  if (!options_.enabled()) return;
  TORCH_CHECK(scale_.defined(),
              "Attempted unscale_ but _scale is None.  This may indicate your script did not use "
              "scaler.scale(loss or outputs) earlier in the iteration.");
  PerOptimizer& state = state_of(optimizer);
  TORCH_CHECK(state.stage != Stage::kUnscaled,
              "unscale_() has already been called on this optimizer since the last update().");
  TORCH_CHECK(state.stage != Stage::kStepped, "unscale_() is being called after step().");

  const c10::NoGradGuard no_grad;
  const at::Tensor inv_scale = scale_.to(at::kDouble).reciprocal().to(at::kFloat);
  // Gradients grouped by device and dtype, as the fused kernel takes them.
  std::map<std::pair<std::string, int>, std::vector<at::Tensor>> groups;
  for (const auto& group : optimizer.param_groups()) {
    for (const at::Tensor& param : group.params()) {
      const at::Tensor& grad = param.grad();
      if (!grad.defined()) continue;
      TORCH_CHECK(grad.scalar_type() != at::kHalf, "Attempting to unscale FP16 gradients.");
      TORCH_CHECK(!grad.is_sparse(), "GradScaler: sparse gradients are not supported");
      groups[{grad.device().str(), static_cast<int>(grad.scalar_type())}].push_back(grad);
    }
  }
  std::map<std::string, at::Tensor> found_inf_per_device;
  for (auto& [key, grads] : groups) {
    const c10::Device device = grads.front().device();
    at::Tensor& found_inf = found_inf_per_device[key.first];
    if (!found_inf.defined()) {
      found_inf = at::zeros({1}, at::TensorOptions().dtype(at::kFloat).device(device));
    }
    const at::Tensor device_inv_scale = inv_scale.to(device, /*non_blocking=*/true);
    if (device.is_cuda()) {
      at::_amp_foreach_non_finite_check_and_unscale_(grads, found_inf, device_inv_scale);
    } else {
      unscale_with_tensor_ops(grads, found_inf, device_inv_scale);
    }
  }
  state.found_inf.clear();
  if (found_inf_per_device.empty()) {
    // No gradients at all: record a clean check on the scale's device, so that
    // step() and update() proceed as they do in Python (which records the
    // zero-initialised found_inf it would have replicated).
    state.found_inf.push_back(at::zeros({1}, scale_.options()));
  }
  for (auto& [device, found_inf] : found_inf_per_device) state.found_inf.push_back(found_inf);
  state.stage = Stage::kUnscaled;
}

bool GradScaler::step(torch::optim::Optimizer& optimizer) {
  if (!options_.enabled()) {
    optimizer.step();
    return true;
  }
  TORCH_CHECK(scale_.defined(),
              "Attempted step but _scale is None.  This may indicate your script did not use "
              "scaler.scale(loss or outputs) earlier in the iteration.");
  PerOptimizer& state = state_of(optimizer);
  TORCH_CHECK(state.stage != Stage::kStepped,
              "step() has already been called since the last update().");
  if (state.stage == Stage::kReady) unscale_(optimizer);
  TORCH_INTERNAL_ASSERT(!state.found_inf.empty(),
                        "No inf checks were recorded for this optimizer.");
  double found = 0;
  for (const at::Tensor& f : state.found_inf) found += f.item<double>();
  const bool stepped = found == 0;
  if (stepped) optimizer.step();
  state.stage = Stage::kStepped;
  return stepped;
}

void GradScaler::update() {
  if (!options_.enabled()) return;
  TORCH_CHECK(scale_.defined(),
              "Attempted update but _scale is None.  This may indicate your script did not use "
              "scaler.scale(loss or outputs) earlier in the iteration.");
  at::Tensor combined;
  for (const auto& [optimizer, state] : per_optimizer_) {
    for (const at::Tensor& f : state.found_inf) {
      const at::Tensor here = f.to(scale_.device(), /*non_blocking=*/true);
      combined = combined.defined() ? combined + here : here.clone();
    }
  }
  TORCH_CHECK(combined.defined(), "No inf checks were recorded prior to update.");
  const c10::NoGradGuard no_grad;
  if (scale_.is_cuda()) {
    at::_amp_update_scale_(scale_, growth_tracker_, combined, options_.growth_factor(),
                           options_.backoff_factor(), options_.growth_interval());
  } else {
    update_scale_with_tensor_ops(scale_, growth_tracker_, combined, options_.growth_factor(),
                                 options_.backoff_factor(), options_.growth_interval());
  }
  per_optimizer_.clear();
}

void GradScaler::update(double new_scale) {
  if (!options_.enabled()) return;
  TORCH_CHECK(scale_.defined(),
              "Attempted update but _scale is None.  This may indicate your script did not use "
              "scaler.scale(loss or outputs) earlier in the iteration.");
  scale_.fill_(new_scale);
  per_optimizer_.clear();
}

double GradScaler::get_scale() const {
  if (!options_.enabled()) return 1.0;
  return scale_.defined() ? scale_.item<double>() : init_scale_;
}

int64_t GradScaler::growth_tracker() const {
  if (!options_.enabled()) return 0;
  return growth_tracker_.defined() ? growth_tracker_.item<int64_t>() : init_growth_tracker_;
}

GradScalerState GradScaler::state_dict() const {
  GradScalerState state;
  if (!options_.enabled()) return state;
  state.scale = get_scale();
  state.growth_factor = options_.growth_factor();
  state.backoff_factor = options_.backoff_factor();
  state.growth_interval = options_.growth_interval();
  state.growth_tracker = growth_tracker();
  return state;
}

void GradScaler::load_state_dict(const GradScalerState& state) {
  if (!options_.enabled()) return;
  if (!(state.scale > 0) || !(state.growth_factor > 0) || !(state.backoff_factor > 0) ||
      state.growth_interval <= 0 || state.growth_tracker < 0) {
    throw InvalidArgumentError(fmt::format(
        "[devcheck] GradScaler::load_state_dict: expected a positive scale, factors and "
        "growth_interval and a non-negative growth tracker; received scale {}, growth_factor "
        "{}, backoff_factor {}, growth_interval {}, growth_tracker {}",
        state.scale, state.growth_factor, state.backoff_factor, state.growth_interval,
        state.growth_tracker));
  }
  init_scale_ = state.scale;
  init_growth_tracker_ = state.growth_tracker;
  options_.growth_factor(state.growth_factor);
  options_.backoff_factor(state.backoff_factor);
  options_.growth_interval(state.growth_interval);
  if (scale_.defined()) scale_.fill_(state.scale);
  if (growth_tracker_.defined()) growth_tracker_.fill_(state.growth_tracker);
}

}  // namespace devcheck
