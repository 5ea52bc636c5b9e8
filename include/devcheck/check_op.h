#pragma once
/// devcheck::testing::check_op: an operator checker for C++ op authors that
/// tries every device. Part of the fake device's library
/// (devcheck::fake_device), which it needs for its second device type.
///
/// torch.library.opcheck tests schemas, fake kernels, autograd and
/// torch.compile, but never a nonzero device index or mixed devices; this
/// does. For each sample (the op's arguments, tensors on the CPU) it runs the
/// op on the CPU, on `meta`, on every fake device and on every CUDA device,
/// and checks:
///   - outputs land on the inputs' device, with the shapes and dtypes the
///     Meta kernel gives (and the Meta kernel exists);
///   - results equal the CPU's within the tolerances;
///   - every mixed-device call (cpu with fake:0, fake:0 with fake:1, cpu with
///     meta, and cuda:0 with cpu, cuda:0 with cuda:1 where there are GPUs;
///     one tensor argument moved at a time) raises an error that names both
///     devices and a tensor argument of the op (the one moved, or one it
///     clashes with), not an internal assert, and does not return;
///   - autograd is registered: floating outputs of floating inputs that
///     require grad have a grad_fn, and the gradients (for fixed, uneven
///     output gradients) land on the inputs' device and equal the CPU's.
///
///     auto report = devcheck::testing::check_op("devcheck::rms_norm",
///         {{torch::randn({4, 8}), torch::randn({8}), 1e-6}});
///     EXPECT_TRUE(report.ok()) << report.to_string();

#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>

#include <string>
#include <vector>

#include "devcheck/export.h"

namespace devcheck::testing {

/// One call's arguments, in the schema's order, every tensor on the CPU
/// (check_op moves them, keeping their strides). Defaults may be left off.
using OpSample = std::vector<c10::IValue>;

/// How check_op compares and what it tries.
struct DEVCHECK_API CheckOpOptions {
  /// Relative tolerance against the CPU's results for float32/float64
  /// (and their gradients). Default 1e-5.
  double rtol = 1e-5;
  /// Absolute tolerance for float32/float64. Default 1e-6.
  double atol = 1e-6;
  /// Tolerances for float16/bfloat16 results. Default 1.6e-2 and 1e-2.
  double low_precision_rtol = 1.6e-2;
  double low_precision_atol = 1e-2;
  /// Whether to check autograd (registered, gradients on the right device and
  /// equal to the CPU's). Default true; ops without floating inputs skip it.
  bool check_autograd = true;
};

/// What check_op found. `failures` is empty when every check passed.
struct DEVCHECK_API CheckOpReport {
  std::string op;                     ///< The operator checked ("ns::name[.overload]").
  std::vector<std::string> devices;   ///< The devices it ran on, as LibTorch prints them.
  int checks_passed = 0;              ///< How many individual checks passed.
  std::vector<std::string> failures;  ///< One sentence per failed check: sample, device, what.

  bool ok() const noexcept { return failures.empty(); }
  /// "check_op devcheck::rms_norm on cpu, meta, ...: 40 checks passed, 1 failed:\n  - ..."
  std::string to_string() const;
};

/// Runs the checks above on `op` ("ns::name" or "ns::name.overload") for each
/// sample. Registers the fake backend (fake_device()). Throws
/// InvalidArgumentError when the op is not registered or a sample has a
/// tensor that is not on the CPU; every problem of the op itself is a
/// failure in the report. Not thread-safe with other code that changes the
/// current device.
DEVCHECK_API CheckOpReport check_op(const std::string& op, const std::vector<OpSample>& samples,
                                    const CheckOpOptions& options = {});

}  // namespace devcheck::testing
