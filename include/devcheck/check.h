#pragma once
/// Named device checks: say which tensor is on the wrong device, by name,
/// before an op fails deep in a graph.

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "devcheck/export.h"

namespace torch::nn {
class Module;
template <typename Contained>
class ModuleHolder;
}  // namespace torch::nn

namespace devcheck {

/// A tensor and the name a message calls it by. Holds references: use it only
/// within the full expression of a check call (as the braced lists below do).
struct DEVCHECK_API NamedTensor {
  NamedTensor(std::string_view name, const at::Tensor& tensor) : name(name), tensor(&tensor) {}
  std::string_view name;
  const at::Tensor* tensor;
};

/// Throws DeviceMismatchError unless every defined tensor in `tensors` is on
/// one device. 0-dim CPU tensors are allowed beside any device (as PyTorch
/// allows them); undefined tensors are skipped. The message names `what`,
/// every tensor with its device, dtype and shape, marks those that disagree
/// with the expected device, and names the fix. The expected device is the
/// one most tensors are on; a tie between the CPU and another device goes to
/// the other one, any other tie to the first seen (the sanitizer's findings
/// follow the same rule). Cost: a few nanoseconds per tensor
/// when the check passes. Thread-safe.
///
///   devcheck::check_same_device({{"input", x}, {"weight", w}}, "linear");
DEVCHECK_API void check_same_device(std::initializer_list<NamedTensor> tensors,
                                    std::string_view what = {});
/// As above, for a list built at run time.
DEVCHECK_API void check_same_device(const std::vector<NamedTensor>& tensors,
                                    std::string_view what = {});

/// Throws DeviceMismatchError unless every defined tensor in `tensors` is on
/// `expected` (0-dim CPU tensors allowed). The message names `what`, each
/// stray tensor with its device, dtype and shape, and the fix. Thread-safe.
DEVCHECK_API void check_on(c10::Device expected, std::initializer_list<NamedTensor> tensors,
                           std::string_view what = {});
/// As above, for a list built at run time.
DEVCHECK_API void check_on(c10::Device expected, const std::vector<NamedTensor>& tensors,
                           std::string_view what = {});

/// One parameter or buffer of a module, as audit() reports it.
struct DEVCHECK_API PlacementEntry {
  std::string name;  ///< Qualified name: "encoder.layers.3.norm.running_mean".
  bool is_buffer = false;
  c10::Device device = c10::Device(c10::kCPU);
  std::string dtype;  ///< PyTorch's name: "float32", "bfloat16".
  std::vector<int64_t> shape;
  std::uint64_t nbytes = 0;  ///< Bytes of this tensor's elements.
};

/// Per-device totals in a PlacementReport.
struct DEVCHECK_API DeviceTotals {
  c10::Device device = c10::Device(c10::kCPU);
  std::size_t parameters = 0;  ///< Number of parameter tensors.
  std::size_t buffers = 0;     ///< Number of buffer tensors.
  std::uint64_t bytes = 0;     ///< Bytes of parameters and buffers together.
};

/// Where a module's parameters and buffers are. Value type.
struct DEVCHECK_API PlacementReport {
  std::string module;  ///< The module's name (its class, as LibTorch names it).
  /// The device everything should be on: the one given to audit(), else the
  /// device holding most tensors (ties as in check_same_device()).
  std::optional<c10::Device> expected;
  bool expected_was_given = false;
  std::vector<DeviceTotals> devices;      ///< One row per device, in first-seen order.
  std::vector<PlacementEntry> misplaced;  ///< Every entry not on `expected`.

  /// True when nothing is misplaced.
  bool ok() const noexcept { return misplaced.empty(); }
  /// A short human-readable report: totals per device, then each misplaced entry.
  std::string to_text() const;
  /// The same content as a JSON object: module, expected, devices[], misplaced[].
  std::string to_json() const;
};

/// Counts parameters and buffers per device and lists every one off the
/// `expected` device (or off the majority device when none is given). Never
/// throws for a misplaced entry: that is what the report is for.
DEVCHECK_API PlacementReport audit(const torch::nn::Module& module,
                                   std::optional<c10::Device> expected = std::nullopt);
template <typename M>
PlacementReport audit(const torch::nn::ModuleHolder<M>& module,
                      std::optional<c10::Device> expected = std::nullopt) {
  return audit(*module, expected);
}

/// For the top of `forward`: throws DeviceMismatchError unless every input is
/// on the device of `module` (see module_device()), naming the module, the
/// argument, both devices and the fix. A module without parameters or buffers
/// checks its inputs against each other instead.
DEVCHECK_API void check_inputs(const torch::nn::Module& module,
                               std::initializer_list<NamedTensor> inputs);
template <typename M>
void check_inputs(const torch::nn::ModuleHolder<M>& module,
                  std::initializer_list<NamedTensor> inputs) {
  check_inputs(*module, inputs);
}

namespace detail {
/// Backs DEVCHECK_CHECK_INPUTS: `names` is the macro's argument text ("x, y").
DEVCHECK_API void check_inputs_impl(const torch::nn::Module& module, const char* names,
                                    const at::Tensor* const* inputs, std::size_t count);
inline const torch::nn::Module& as_module(const torch::nn::Module& module) { return module; }
template <typename M>
const torch::nn::Module& as_module(const torch::nn::ModuleHolder<M>& module) {
  return *module;
}
template <typename Mod, typename... Ts>
void check_inputs_named(const Mod& module, const char* names, const Ts&... inputs) {
  const at::Tensor* ptrs[] = {&static_cast<const at::Tensor&>(inputs)...};
  check_inputs_impl(as_module(module), names, ptrs, sizeof...(Ts));
}
}  // namespace detail

}  // namespace devcheck

/// check_inputs() with the argument names taken from the expression text:
///   DEVCHECK_CHECK_INPUTS(*this, x, mask);   // names "x" and "mask"
#define DEVCHECK_CHECK_INPUTS(module, ...) \
  ::devcheck::detail::check_inputs_named((module), #__VA_ARGS__, __VA_ARGS__)
