#pragma once
/// Device checks for custom operator kernels.
///
/// A kernel registered with TORCH_LIBRARY_IMPL gets neither ATen's generated
/// device check nor its device guard. The first line of such a kernel:
///
///     at::Tensor my_op_cuda(const at::Tensor& x, const at::Tensor& weight) {
///       const auto inputs = DEVCHECK_OP_INPUTS("myns::my_op", x, weight);
///       at::Tensor y = at::empty_like(x);
///       ...launch on inputs.device()...
///       DEVCHECK_OP_OUTPUTS(inputs, y);
///       return y;
///     }
///
/// checks that every input is on one device (type and index), names each
/// argument from its expression when they are not, and makes that device
/// current until `inputs` goes out of scope, so a kernel for `cuda:1` runs
/// on `cuda:1` whatever device the caller had current.

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/DeviceGuard.h>
#include <c10/util/ArrayRef.h>
#include <c10/util/Optional.h>

#include <initializer_list>
#include <string>
#include <string_view>

#include "devcheck/export.h"

namespace devcheck {

namespace detail {

/// One argument of DEVCHECK_OP_INPUTS / DEVCHECK_OP_OUTPUTS: a tensor, an
/// optional tensor (absent or undefined ones are skipped) or a tensor list.
/// It refers to the caller's object, which must outlive the check call.
class DEVCHECK_API OpArg {
 public:
  OpArg(const at::Tensor& tensor) : tensor_(&tensor) {}  // NOLINT(google-explicit-constructor)
  OpArg(const c10::optional<at::Tensor>& tensor)         // NOLINT(google-explicit-constructor)
      : tensor_(tensor.has_value() ? &*tensor : nullptr) {}
  OpArg(at::TensorList list)
      : list_(list), is_list_(true) {}  // NOLINT(google-explicit-constructor)

  /// The tensor; nullptr for an absent optional or a list.
  const at::Tensor* tensor() const noexcept { return tensor_; }
  /// The list's tensors; empty for a single tensor.
  at::TensorList list() const noexcept { return list_; }
  bool is_list() const noexcept { return is_list_; }

 private:
  const at::Tensor* tensor_ = nullptr;
  at::TensorList list_;
  bool is_list_ = false;
};

}  // namespace detail

/// What DEVCHECK_OP_INPUTS returns: the device the inputs agree on, which it
/// keeps current (a device guard) until it is destroyed. Not copyable or
/// movable; bind it to a local variable for the kernel's lifetime. Not
/// thread-safe to share (a device guard belongs to its thread).
class OpInputs;
DEVCHECK_API OpInputs check_op_inputs(std::string_view op, std::string_view names,
                                      std::initializer_list<detail::OpArg> inputs);

class [[nodiscard]] DEVCHECK_API OpInputs {
 public:
  OpInputs(const OpInputs&) = delete;
  OpInputs& operator=(const OpInputs&) = delete;
  OpInputs(OpInputs&&) = delete;
  OpInputs& operator=(OpInputs&&) = delete;
  ~OpInputs() = default;

  /// The operator's name as given to DEVCHECK_OP_INPUTS ("myns::my_op").
  const std::string& op() const noexcept { return op_; }
  /// The inputs' device: that of the first input that is not a 0-dim CPU
  /// tensor; cpu when every input is a 0-dim CPU tensor or there is none.
  c10::Device device() const noexcept { return device_; }

  /// Checks that every defined output is on device(); throws
  /// DeviceMismatchError naming the op, the output (from `names`, the
  /// expressions' text, as DEVCHECK_OP_OUTPUTS passes it), its device and
  /// shape, and the inputs' device. Use DEVCHECK_OP_OUTPUTS.
  void check_outputs(std::string_view names, std::initializer_list<detail::OpArg> outputs) const;

 private:
  friend OpInputs check_op_inputs(std::string_view op, std::string_view names,
                                  std::initializer_list<detail::OpArg> inputs);
  OpInputs(std::string op, c10::Device device);

  std::string op_;
  c10::Device device_;
  c10::OptionalDeviceGuard guard_;
};

/// Checks that `inputs` are on one device (type and index; 0-dim CPU tensors
/// may join any device, as ATen's scalars do) and returns the guard making
/// that device current. `names` is the comma-separated text of the inputs'
/// expressions (what DEVCHECK_OP_INPUTS passes); argument i is named by its
/// i-th entry. Throws DeviceMismatchError naming `op`, the arguments that
/// disagree, and every input with its shape, dtype and device. Thread-safe.
DEVCHECK_API OpInputs check_op_inputs(std::string_view op, std::string_view names,
                                      std::initializer_list<detail::OpArg> inputs);

}  // namespace devcheck

/// `const auto inputs = DEVCHECK_OP_INPUTS("ns::op", a, b, ...);` checks that
/// a, b, ... (tensors, optional tensors, tensor lists) are on one device and
/// makes it current while `inputs` lives. See devcheck::check_op_inputs.
#define DEVCHECK_OP_INPUTS(op, ...) ::devcheck::check_op_inputs((op), #__VA_ARGS__, {__VA_ARGS__})

/// `DEVCHECK_OP_OUTPUTS(inputs, y, z);` checks that a kernel's outputs are on
/// its inputs' device. See devcheck::OpInputs::check_outputs.
#define DEVCHECK_OP_OUTPUTS(inputs, ...) (inputs).check_outputs(#__VA_ARGS__, {__VA_ARGS__})
