// check_op: runs an operator on every device there is, with mixed devices,
// and through autograd, and says in one sentence per failure what is wrong.

#include "devcheck/check_op.h"

#include <ATen/TensorOperators.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/ops/linspace.h>
#include <c10/core/DeviceType.h>
#include <fmt/format.h>
#include <torch/autograd.h>

#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "devcheck/device.h"
#include "devcheck/error.h"
#include "devcheck/fake_device.h"

namespace devcheck::testing {
namespace {

using Stack = std::vector<c10::IValue>;

struct Output {
  std::string name;  // "output 0", "output 1[2]"
  at::Tensor tensor;
};

std::string describe(const at::Tensor& t) {
  if (!t.defined()) return "an undefined tensor";
  return c10::str(t.sizes(), " ", t.scalar_type(), " on ", t.device());
}

// An error's first line, cut at 240 characters (LibTorch's "could not run"
// errors list every dispatch key).
std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.size() > 240) line = line.substr(0, 240) + "...";
  return line;
}

c10::OperatorHandle find_op(const std::string& op) {
  const size_t dot = op.find('.');
  const std::string name = op.substr(0, dot);
  const std::string overload = dot == std::string::npos ? "" : op.substr(dot + 1);
  const auto handle = c10::Dispatcher::singleton().findSchema({name, overload});
  if (!handle) {
    throw InvalidArgumentError(
        fmt::format("[devcheck] check_op: no operator '{}' is registered; load the library that "
                    "registers it first (names are 'ns::name' or 'ns::name.overload')",
                    op));
  }
  return *handle;
}

// The sample with the schema's defaults for the arguments it leaves off.
Stack complete(const c10::FunctionSchema& schema, const OpSample& sample, size_t index) {
  const auto& args = schema.arguments();
  if (sample.size() > args.size()) {
    throw InvalidArgumentError(
        fmt::format("[devcheck] check_op: sample {} has {} arguments, but {} takes {}", index,
                    sample.size(), schema.operator_name().name, args.size()));
  }
  Stack stack(sample.begin(), sample.end());
  for (size_t i = sample.size(); i < args.size(); ++i) {
    if (!args[i].default_value()) {
      throw InvalidArgumentError(
          fmt::format("[devcheck] check_op: sample {} leaves off argument '{}', which has no "
                      "default",
                      index, args[i].name()));
    }
    stack.push_back(*args[i].default_value());
  }
  for (size_t i = 0; i < stack.size(); ++i) {
    const c10::IValue& v = stack[i];
    if (v.isTensor() && v.toTensor().defined() && !v.toTensor().is_cpu()) {
      throw InvalidArgumentError(
          fmt::format("[devcheck] check_op: sample {} has argument '{}' on {}; samples are CPU "
                      "tensors, which check_op moves to each device",
                      index, args[i].name(), v.toTensor().device().str()));
    }
  }
  return stack;
}

template <typename F>
c10::IValue map_tensors(const c10::IValue& v, F&& f) {
  if (v.isTensor()) return f(v.toTensor());
  if (v.isTensorList()) {
    std::vector<at::Tensor> out;
    for (const at::Tensor& t : v.toTensorVector()) out.push_back(f(t));
    return out;
  }
  return v;
}

// `stack` with every tensor on `device`, except argument `odd` on `odd_device`.
Stack placed(const Stack& stack, c10::Device device, size_t odd = SIZE_MAX,
             c10::Device odd_device = c10::kCPU) {
  Stack out;
  out.reserve(stack.size());
  for (size_t i = 0; i < stack.size(); ++i) {
    const c10::Device d = i == odd ? odd_device : device;
    out.push_back(
        map_tensors(stack[i], [&](const at::Tensor& t) { return t.defined() ? t.to(d) : t; }));
  }
  return out;
}

std::vector<Output> run(const c10::OperatorHandle& op, Stack stack) {
  op.callBoxed(&stack);
  std::vector<Output> outputs;
  for (size_t i = 0; i < stack.size(); ++i) {
    if (stack[i].isTensor()) {
      outputs.push_back({fmt::format("output {}", i), stack[i].toTensor()});
    } else if (stack[i].isTensorList()) {
      const std::vector<at::Tensor> list = stack[i].toTensorVector();
      for (size_t k = 0; k < list.size(); ++k) {
        outputs.push_back({fmt::format("output {}[{}]", i, k), list[k]});
      }
    }
  }
  return outputs;
}

bool low_precision(c10::ScalarType t) { return t == at::kHalf || t == at::kBFloat16; }

// Why `got` is not `want` (the CPU's), or nothing when it is.
std::optional<std::string> differs(const at::Tensor& got, const at::Tensor& want,
                                   const CheckOpOptions& options) {
  if (got.defined() != want.defined()) {
    return fmt::format("is {}, the CPU's is {}", describe(got), describe(want));
  }
  if (!got.defined()) return std::nullopt;
  if (got.sizes() != want.sizes() || got.scalar_type() != want.scalar_type()) {
    return fmt::format("is {}, the CPU's is {}", describe(got), describe(want));
  }
  const at::Tensor g = got.cpu();
  if (!g.is_floating_point() && !g.is_complex()) {
    if (g.equal(want)) return std::nullopt;
    return fmt::format("differs from the CPU's ({} elements differ)",
                       g.ne(want).sum().item<int64_t>());
  }
  const bool low = low_precision(g.scalar_type());
  const double rtol = low ? options.low_precision_rtol : options.rtol;
  const double atol = low ? options.low_precision_atol : options.atol;
  if (g.allclose(want, rtol, atol, /*equal_nan=*/true)) return std::nullopt;
  const double max_diff = (g.to(at::kDouble) - want.to(at::kDouble))
                              .abs()
                              .nan_to_num(0.0, 1e300, 1e300)
                              .max()
                              .item<double>();
  return fmt::format("differs from the CPU's: largest difference {:g} (rtol {:g}, atol {:g})",
                     max_diff, rtol, atol);
}

// Whether `message` names argument `name`: 'name' (devcheck's wording) or
// "argument name" followed by a delimiter (ATen's).
bool names_argument(const std::string& message, const std::string& name) {
  if (message.find("'" + name + "'") != std::string::npos) return true;
  const std::string word = "argument " + name;
  for (size_t at = message.find(word); at != std::string::npos; at = message.find(word, at + 1)) {
    const size_t end = at + word.size();
    if (end == message.size() || std::string(" ,.;:)!").find(message[end]) != std::string::npos) {
      return true;
    }
  }
  return false;
}

class Checker {
 public:
  Checker(const std::string& op, const CheckOpOptions& options)
      : op_(find_op(op)), options_(options) {
    report_.op = op;
  }

  void add_devices() {
    devices_.push_back(c10::Device(c10::kCPU));
    for (int i = 0; i < fake_device_count(); ++i) devices_.push_back(fake_device(i));
    for (int i = 0; i < cuda_device_count(); ++i) {
      devices_.push_back(c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(i)));
    }
    report_.devices.push_back("cpu");
    report_.devices.push_back("meta");
    for (size_t i = 1; i < devices_.size(); ++i) report_.devices.push_back(devices_[i].str());

    const c10::Device cpu(c10::kCPU);
    const c10::Device meta(c10::kMeta);
    mixes_.emplace_back(cpu, fake_device(0));
    if (fake_device_count() > 1) mixes_.emplace_back(fake_device(0), fake_device(1));
    mixes_.emplace_back(cpu, meta);
    if (cuda_device_count() > 0) mixes_.emplace_back(c10::Device(c10::kCUDA, 0), cpu);
    if (cuda_device_count() > 1) {
      mixes_.emplace_back(c10::Device(c10::kCUDA, 0), c10::Device(c10::kCUDA, 1));
    }
  }

  void check_sample(const OpSample& sample, size_t index) {
    const Stack stack = complete(op_.schema(), sample, index);
    const std::string where = fmt::format("sample {}", index);

    std::vector<Output> cpu;
    std::vector<Output> meta;
    if (!call(stack, c10::kCPU, where + " on cpu", &cpu)) return;
    const bool has_meta = call(stack, c10::Device(c10::kMeta), where + " on meta", &meta);
    if (has_meta) {
      expect_placed(meta, c10::Device(c10::kMeta), where);
      expect_like_meta(cpu, meta, where + " on cpu");
    }
    for (size_t d = 1; d < devices_.size(); ++d) {
      std::vector<Output> got;
      const std::string on = fmt::format("{} on {}", where, devices_[d].str());
      if (!call(stack, devices_[d], on, &got)) continue;
      expect_placed(got, devices_[d], where);
      if (has_meta) expect_like_meta(got, meta, on);
      for (size_t i = 0; i < got.size() && i < cpu.size(); ++i) {
        expect(!differs(got[i].tensor, cpu[i].tensor, options_), [&] {
          return fmt::format("{}: {} {}", on, got[i].name,
                             *differs(got[i].tensor, cpu[i].tensor, options_));
        });
      }
    }
    check_mixed(stack, where);
    if (options_.check_autograd) check_autograd(stack, where);
  }

  CheckOpReport finish() { return std::move(report_); }

 private:
  template <typename Message>
  void expect(bool ok, Message&& message) {
    if (ok) {
      ++report_.checks_passed;
    } else {
      report_.failures.push_back(message());
    }
  }

  // Runs the op with `stack` on `device`; a failure is reported, not thrown.
  bool call(const Stack& stack, c10::Device device, const std::string& what,
            std::vector<Output>* outputs) {
    try {
      *outputs = run(op_, placed(stack, device));
      ++report_.checks_passed;
      return true;
    } catch (const std::exception& e) {
      const std::string hint =
          device.is_meta() ? " (no Meta kernel? register one: shapes, dtypes, device)" : "";
      report_.failures.push_back(
          fmt::format("{}: the call failed{}: {}", what, hint, first_line(e.what())));
      return false;
    }
  }

  void expect_placed(const std::vector<Output>& outputs, c10::Device device,
                     const std::string& where) {
    for (const Output& o : outputs) {
      if (!o.tensor.defined()) continue;
      expect(o.tensor.device() == device, [&] {
        return fmt::format(
            "{}: {} is on {}, but the inputs are on {} (a device hard-coded in "
            "the kernel, or no device guard)",
            where, o.name, o.tensor.device().str(), device.str());
      });
    }
  }

  void expect_like_meta(const std::vector<Output>& got, const std::vector<Output>& meta,
                        const std::string& on) {
    expect(got.size() == meta.size(), [&] {
      return fmt::format("{}: {} tensor outputs, the Meta kernel gives {}", on, got.size(),
                         meta.size());
    });
    for (size_t i = 0; i < got.size() && i < meta.size(); ++i) {
      const at::Tensor& g = got[i].tensor;
      const at::Tensor& m = meta[i].tensor;
      const bool same = g.defined() == m.defined() &&
                        (!g.defined() || (g.sizes() == m.sizes() && g.dtype() == m.dtype()));
      expect(same, [&] {
        return fmt::format("{}: {} is {}, the Meta kernel says {}", on, got[i].name, describe(g),
                           describe(m));
      });
    }
  }

  // Each mix of two devices, one tensor argument at a time on the second:
  // the call must raise an error naming that argument and both devices.
  void check_mixed(const Stack& stack, const std::string& where) {
    std::vector<size_t> tensor_args;
    for (size_t i = 0; i < stack.size(); ++i) {
      if (stack[i].isTensor() && stack[i].toTensor().defined() && stack[i].toTensor().dim() > 0) {
        tensor_args.push_back(i);
      }
    }
    if (tensor_args.size() < 2) return;  // nothing to mix
    const auto& args = op_.schema().arguments();
    std::string argument_list;
    for (const size_t k : tensor_args) {
      argument_list += fmt::format("{}'{}'", argument_list.empty() ? "" : ", ", args[k].name());
    }
    for (const auto& mix : mixes_) {
      // Named, not bound: lambdas below capture them (C++17 cannot capture
      // structured bindings; clang refuses).
      const c10::Device a = mix.first;
      const c10::Device b = mix.second;
      for (const size_t j : tensor_args) {
        const std::string& name = args[j].name();
        const std::string call =
            fmt::format("{}: '{}' on {} and the other inputs on {}", where, name, b.str(), a.str());
        try {
          const std::vector<Output> outputs = run(op_, placed(stack, a, j, b));
          report_.failures.push_back(fmt::format(
              "{}: returned {} instead of raising (a wrong answer: mixed devices must be "
              "refused, e.g. with DEVCHECK_OP_INPUTS)",
              call, outputs.empty() ? "nothing" : describe(outputs.front().tensor)));
        } catch (const c10::Error& e) {
          const std::string message = e.what_without_backtrace();
          if (message.find("INTERNAL ASSERT FAILED") != std::string::npos) {
            report_.failures.push_back(fmt::format(
                "{}: raised an internal assert, not an error naming the argument and devices: {}",
                call, first_line(message)));
            continue;
          }
          // The argument moved or one it clashes with: which one a check
          // blames depends on the order it reads them in.
          bool named_argument = false;
          for (const size_t k : tensor_args) {
            named_argument = named_argument || names_argument(message, args[k].name());
          }
          const bool named = named_argument && message.find(a.str()) != std::string::npos &&
                             message.find(b.str()) != std::string::npos;
          expect(named, [&] {
            return fmt::format(
                "{}: the error does not name an argument of the op ({}) and both "
                "devices ({}, {}): {}",
                call, argument_list, a.str(), b.str(), first_line(message));
          });
        } catch (const std::exception& e) {
          report_.failures.push_back(
              fmt::format("{}: raised a non-LibTorch exception: {}", call, first_line(e.what())));
        }
      }
    }
  }

  // Gradients of the outputs (for fixed, uneven output gradients) with
  // respect to every floating tensor argument, on `device`.
  std::optional<std::vector<at::Tensor>> gradients(const Stack& stack, c10::Device device,
                                                   const std::string& on) {
    Stack moved = placed(stack, device);
    std::vector<at::Tensor> leaves;
    for (c10::IValue& v : moved) {
      if (v.isTensor() && v.toTensor().defined() && v.toTensor().is_floating_point()) {
        at::Tensor leaf = v.toTensor().detach().requires_grad_(true);
        leaves.push_back(leaf);
        v = leaf;
      }
    }
    try {
      std::vector<at::Tensor> outs;
      std::vector<at::Tensor> grad_outs;
      for (const Output& o : run(op_, std::move(moved))) {
        if (!o.tensor.defined() || !o.tensor.is_floating_point()) continue;
        const auto fn = o.tensor.grad_fn();
        const bool registered = o.tensor.requires_grad() && fn &&
                                fn->name().find("NotImplemented") == std::string::npos;
        if (!registered) {
          report_.failures.push_back(fmt::format(
              "{}: {} has no gradient function although its floating inputs require grad: "
              "autograd is not registered for this op (register a kernel for the Autograd key)",
              on, o.name));
          return std::nullopt;
        }
        ++report_.checks_passed;
        outs.push_back(o.tensor);
        grad_outs.push_back(at::linspace(-1.0, 1.0, o.tensor.numel(), at::kDouble)
                                .reshape(o.tensor.sizes())
                                .to(o.tensor.scalar_type())
                                .to(device));
      }
      if (outs.empty()) return std::nullopt;
      return torch::autograd::grad(outs, leaves, grad_outs, /*retain_graph=*/false,
                                   /*create_graph=*/false, /*allow_unused=*/true);
    } catch (const std::exception& e) {
      report_.failures.push_back(
          fmt::format("{}: the backward failed: {}", on, first_line(e.what())));
      return std::nullopt;
    }
  }

  void check_autograd(const Stack& stack, const std::string& where) {
    bool floating = false;
    for (const c10::IValue& v : stack) {
      floating =
          floating || (v.isTensor() && v.toTensor().defined() && v.toTensor().is_floating_point());
    }
    if (!floating) return;
    const auto cpu = gradients(stack, c10::kCPU, where + " on cpu (autograd)");
    if (!cpu) return;
    for (size_t d = 1; d < devices_.size(); ++d) {
      const std::string on = fmt::format("{} on {} (autograd)", where, devices_[d].str());
      const auto got = gradients(stack, devices_[d], on);
      if (!got) continue;
      for (size_t i = 0; i < got->size(); ++i) {
        const at::Tensor& g = (*got)[i];
        if (g.defined()) {
          expect(g.device() == devices_[d], [&] {
            return fmt::format("{}: gradient {} is on {}, but its input is on {}", on, i,
                               g.device().str(), devices_[d].str());
          });
        }
        const auto diff = differs(g, (*cpu)[i], options_);
        expect(!diff, [&] { return fmt::format("{}: gradient {} {}", on, i, *diff); });
      }
    }
  }

  c10::OperatorHandle op_;
  CheckOpOptions options_;
  CheckOpReport report_;
  std::vector<c10::Device> devices_;  // cpu first, then fake and CUDA devices (not meta)
  std::vector<std::pair<c10::Device, c10::Device>> mixes_;
};

}  // namespace

std::string CheckOpReport::to_string() const {
  std::string devices_text;
  for (const std::string& d : devices) devices_text += (devices_text.empty() ? "" : ", ") + d;
  std::string text = fmt::format("check_op {} on {}: {} checks passed, {} failed", op, devices_text,
                                 checks_passed, failures.size());
  for (const std::string& f : failures) text += "\n  - " + f;
  return text;
}

CheckOpReport check_op(const std::string& op, const std::vector<OpSample>& samples,
                       const CheckOpOptions& options) {
  Checker checker(op, options);
  checker.add_devices();
  for (size_t i = 0; i < samples.size(); ++i) checker.check_sample(samples[i], i);
  return checker.finish();
}

}  // namespace devcheck::testing
