#pragma once
/// Mixed precision for LibTorch: an autocast scope and a GradScaler with
/// PyTorch's semantics (torch.autocast and torch.cuda.amp.GradScaler), which
/// LibTorch's C++ frontend lacks (PyTorch issue #44710).

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>
#include <torch/arg.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "devcheck/export.h"

namespace torch::optim {
class Optimizer;
}  // namespace torch::optim

namespace devcheck {

/// RAII: turns autocast on (or off) for one device type on this thread, with
/// `dtype` as the lower-precision type, and restores the previous state (on,
/// off, dtype) when destroyed; like Python's `with torch.autocast(...)`, the
/// autocast cache is cleared when the outermost scope exits. Nestable; scopes
/// end in reverse order on the thread that made them. Not copyable or movable.
///
/// Supported: CPU with bfloat16; CUDA with float16 or bfloat16. Anything else
/// throws InvalidArgumentError naming the device type and dtype, except a
/// disabled scope for another device type, which does nothing (so that
/// `AutocastScope scope(device.type(), use_amp)` works on any device).
class DEVCHECK_API AutocastScope {
 public:
  AutocastScope(c10::DeviceType device_type, c10::ScalarType dtype, bool enabled = true);
  /// The device's usual dtype: bfloat16 on the CPU, float16 on CUDA.
  explicit AutocastScope(c10::DeviceType device_type, bool enabled = true);
  ~AutocastScope();

  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;
  AutocastScope(AutocastScope&&) = delete;
  AutocastScope& operator=(AutocastScope&&) = delete;

 private:
  c10::DeviceType device_type_;
  bool active_ = true;  // false: a disabled scope on a device without autocast
  bool previous_enabled_ = false;
  c10::ScalarType previous_dtype_ = c10::kFloat;
};

/// Whether autocast is on for `device_type` on this thread (CPU or CUDA).
DEVCHECK_API bool autocast_enabled(c10::DeviceType device_type);
/// The lower-precision dtype autocast uses for `device_type` on this thread.
DEVCHECK_API c10::ScalarType autocast_dtype(c10::DeviceType device_type);
/// bfloat16 for the CPU, float16 for CUDA: what AutocastScope(type) picks.
DEVCHECK_API c10::ScalarType default_autocast_dtype(c10::DeviceType device_type);

/// GradScaler's options; defaults are PyTorch's.
struct DEVCHECK_API GradScalerOptions {
  /// The first scale factor. Default 2^16.
  TORCH_ARG(double, init_scale) = 65536.0;
  /// Scale multiplier after `growth_interval` steps without inf/NaN. Default 2.0.
  TORCH_ARG(double, growth_factor) = 2.0;
  /// Scale multiplier after a step with inf/NaN gradients. Default 0.5.
  TORCH_ARG(double, backoff_factor) = 0.5;
  /// Consecutive clean steps before the scale grows. Default 2000.
  TORCH_ARG(int64_t, growth_interval) = 2000;
  /// When false every call is a pass-through (scale() returns its input,
  /// step() just steps). Default true.
  TORCH_ARG(bool, enabled) = true;
};

/// What GradScaler::state_dict() returns: the same fields, under the same
/// names, as Python's GradScaler.state_dict().
struct DEVCHECK_API GradScalerState {
  double scale = 65536.0;
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int64_t growth_interval = 2000;
  int64_t growth_tracker = 0;  ///< Python's "_growth_tracker".

  bool operator==(const GradScalerState& o) const {
    return scale == o.scale && growth_factor == o.growth_factor &&
           backoff_factor == o.backoff_factor && growth_interval == o.growth_interval &&
           growth_tracker == o.growth_tracker;
  }
};

/// Dynamic loss scaling, with the semantics of torch.cuda.amp.GradScaler:
///
///   scaler.scale(loss).backward();
///   scaler.step(optimizer);   // unscales, skips the step on inf/NaN gradients
///   scaler.update();          // backs off on inf/NaN, grows after 2000 clean steps
///
/// The scale and the growth tracker live on the device of the first tensor
/// passed to scale(), and all the checks stay there: on CUDA they use
/// PyTorch's fused kernels (_amp_foreach_non_finite_check_and_unscale_,
/// _amp_update_scale_); elsewhere (LibTorch 1.13 has no CPU kernels) an
/// equivalent sequence of tensor ops. step() synchronizes once per step, as
/// Python's does, to decide whether to call optimizer.step().
///
/// Errors (c10::Error via TORCH_CHECK, with Python's wording): unscale_()
/// twice before update(), step() twice before update(), unscale_() of
/// float16 gradients, unscale_()/step()/update() before any scale().
/// Not thread-safe.
class DEVCHECK_API GradScaler {
 public:
  explicit GradScaler(GradScalerOptions options = {});

  /// `outputs` multiplied by the scale factor (the input itself when disabled).
  at::Tensor scale(const at::Tensor& outputs);
  /// Divides the gradients of `optimizer`'s parameters by the scale, in place,
  /// and records whether any is inf or NaN. At most once per step.
  void unscale_(torch::optim::Optimizer& optimizer);
  /// unscale_() if not done yet, then optimizer.step() unless a gradient was
  /// inf or NaN. Returns whether the optimizer stepped.
  bool step(torch::optim::Optimizer& optimizer);
  /// Updates the scale from this step's inf/NaN checks (every optimizer
  /// stepped since the last update) and resets them.
  void update();
  /// Sets the scale to `new_scale` and resets the checks, without growth/backoff.
  void update(double new_scale);

  /// The current scale (init_scale before the first scale(); 1.0 when disabled).
  double get_scale() const;
  /// Consecutive clean steps since the scale last changed.
  int64_t growth_tracker() const;
  bool is_enabled() const noexcept { return options_.enabled(); }
  const GradScalerOptions& options() const noexcept { return options_; }

  /// The scaler's state; empty-equivalent (default values) when disabled.
  GradScalerState state_dict() const;
  /// Restores a state from state_dict(). Throws InvalidArgumentError for a
  /// non-positive scale, growth_interval or factor.
  void load_state_dict(const GradScalerState& state);

 private:
  enum class Stage { kReady, kUnscaled, kStepped };
  struct PerOptimizer {
    Stage stage = Stage::kReady;
    std::vector<at::Tensor> found_inf;  // one per device, as Python's found_inf_per_device
  };

  void lazy_init(c10::Device device);
  PerOptimizer& state_of(const torch::optim::Optimizer& optimizer);

  GradScalerOptions options_;
  at::Tensor scale_;           // [1] float32, on the device of the scaled outputs
  at::Tensor growth_tracker_;  // [1] int32, same device
  double init_scale_;          // until scale_ exists (or after load_state_dict)
  int64_t init_growth_tracker_ = 0;
  std::unordered_map<const torch::optim::Optimizer*, PerOptimizer> per_optimizer_;
};

}  // namespace devcheck
