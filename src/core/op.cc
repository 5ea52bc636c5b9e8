#include "devcheck/op.h"

#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <fmt/format.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "detail/names.h"
#include "devcheck/error.h"

namespace devcheck {
namespace {

// "x, w.view({2, 3}), f(a, b)" -> {"x", "w.view({2, 3})", "f(a, b)"}: commas
// inside brackets or quotes belong to one expression.
std::vector<std::string> split_names(std::string_view text) {
  std::vector<std::string> names;
  int depth = 0;
  char quote = 0;
  std::string current;
  auto finish = [&] {
    const size_t begin = current.find_first_not_of(" \t\n");
    const size_t end = current.find_last_not_of(" \t\n");
    names.push_back(begin == std::string::npos ? "" : current.substr(begin, end - begin + 1));
    current.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote != 0) {
      if (c == '\\' && i + 1 < text.size()) {
        current += c;
        c = text[++i];
      } else if (c == quote) {
        quote = 0;
      }
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    } else if (c == ',' && depth == 0) {
      finish();
      continue;
    }
    current += c;
  }
  if (!current.empty() || !names.empty()) finish();
  return names;
}

// One tensor seen by a check, with the name it is reported under.
struct Seen {
  std::string name;
  const at::Tensor* tensor;
};

std::vector<Seen> flatten(std::string_view names, std::initializer_list<detail::OpArg> args) {
  const std::vector<std::string> split = split_names(names);
  std::vector<Seen> seen;
  size_t i = 0;
  for (const detail::OpArg& arg : args) {
    std::string name = i < split.size() && !split[i].empty() ? split[i] : fmt::format("#{}", i);
    if (arg.is_list()) {
      for (size_t k = 0; k < arg.list().size(); ++k) {
        if (arg.list()[k].defined())
          seen.push_back({fmt::format("{}[{}]", name, k), &arg.list()[k]});
      }
    } else if (arg.tensor() != nullptr && arg.tensor()->defined()) {
      seen.push_back({std::move(name), arg.tensor()});
    }
    ++i;
  }
  return seen;
}

// "'x' ([4, 8] float32 on cpu)"
std::string describe(const Seen& s) {
  return fmt::format("'{}' ({} {} on {})", s.name, detail::shape_str(s.tensor->sizes()),
                     detail::dtype_name(s.tensor->scalar_type()), s.tensor->device().str());
}

bool is_cpu_scalar(const at::Tensor& t) { return t.device().is_cpu() && t.dim() == 0; }

}  // namespace

OpInputs::OpInputs(std::string op, c10::Device device) : op_(std::move(op)), device_(device) {
  // CPU and meta have nothing to make current; a type without a registered
  // guard (CUDA in a CPU-only LibTorch never gets here: it has no tensors).
  if (!device.is_cpu() && !device.is_meta() && c10::impl::hasDeviceGuardImpl(device.type())) {
    guard_.reset_device(device);
  }
}

OpInputs check_op_inputs(std::string_view op, std::string_view names,
                         std::initializer_list<detail::OpArg> inputs) {
  const std::vector<Seen> seen = flatten(names, inputs);
  const Seen* first = nullptr;
  for (const Seen& s : seen) {
    if (!is_cpu_scalar(*s.tensor)) {
      first = &s;
      break;
    }
  }
  if (first == nullptr) return OpInputs(std::string(op), c10::Device(c10::kCPU));
  const c10::Device device = first->tensor->device();
  for (const Seen& s : seen) {
    if (s.tensor->device() == device || is_cpu_scalar(*s.tensor)) continue;
    std::string all;
    for (const Seen& t : seen) all += fmt::format("{}{}", all.empty() ? "" : ", ", describe(t));
    throw DeviceMismatchError(fmt::format(
        "[devcheck] {}: expected every input on one device, but argument '{}' is on {} and "
        "argument '{}' is on {}. Inputs: {}. Move the inputs to one device before the call "
        "(e.g. {}.to({}.device())); only 0-dim CPU tensors may join another device.",
        op, s.name, s.tensor->device().str(), first->name, device.str(), all, s.name, first->name));
  }
  return OpInputs(std::string(op), device);
}

void OpInputs::check_outputs(std::string_view names,
                             std::initializer_list<detail::OpArg> outputs) const {
  for (const Seen& s : flatten(names, outputs)) {
    if (s.tensor->device() == device_) continue;
    throw DeviceMismatchError(fmt::format(
        "[devcheck] {}: output {} is not on the inputs' device {}: the kernel made it on {} (a "
        "device hard-coded in the kernel, or a missing device guard). Allocate outputs with the "
        "inputs' options (at::empty_like(x), x.options()) while DEVCHECK_OP_INPUTS's guard lives.",
        op_, describe(s), device_.str(), s.tensor->device().str()));
  }
}

}  // namespace devcheck
