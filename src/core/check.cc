#include "devcheck/check.h"

#include <fmt/format.h>
#include <torch/nn/module.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "detail/mismatch.h"
#include "detail/names.h"
#include "devcheck/device.h"
#include "devcheck/error.h"
#include "devcheck/move.h"

namespace devcheck {
namespace {

// PyTorch lets a 0-dim CPU tensor (a wrapped scalar) meet tensors on any device.
bool exempt(const at::Tensor& t) {
  return !t.defined() || detail::wrapped_scalar(t.device(), static_cast<std::size_t>(t.dim()));
}

std::string title(std::string_view what) {
  return what.empty() ? std::string("device check") : std::string(what);
}

detail::DeviceTally tally(const NamedTensor* begin, const NamedTensor* end) {
  detail::DeviceTally counts;
  for (const auto* it = begin; it != end; ++it) {
    if (!exempt(*it->tensor)) counts.add(it->tensor->device());
  }
  return counts;
}

[[noreturn]] void throw_mismatch(const NamedTensor* begin, const NamedTensor* end,
                                 c10::Device expected, bool expected_was_given,
                                 const detail::DeviceTally& counts, std::string_view what) {
  std::vector<detail::MismatchRow> rows;
  rows.reserve(static_cast<std::size_t>(end - begin));
  for (const auto* it = begin; it != end; ++it) {
    const at::Tensor& t = *it->tensor;
    detail::MismatchRow row;
    row.name = std::string(it->name);
    row.defined = t.defined();
    if (t.defined()) {
      row.device = t.device();
      row.dtype = t.scalar_type();
      row.shape = t.sizes().vec();
    }
    rows.push_back(std::move(row));
  }
  const detail::MismatchText text = detail::describe_mismatch(rows, expected);
  const std::string message =
      expected_was_given
          ? fmt::format("[devcheck] device mismatch in {}: expected every tensor on {}, found {}",
                        title(what), expected.str(), counts.found_text())
          : fmt::format(
                "[devcheck] device mismatch in {}: expected all tensors on one device, found {}",
                title(what), counts.found_text());
  throw DeviceMismatchError(message + text.table + "\nfix: " + text.fix);
}

void same_device(const NamedTensor* begin, const NamedTensor* end, std::string_view what) {
  const at::Tensor* first = nullptr;
  bool mixed = false;
  for (const auto* it = begin; it != end; ++it) {
    if (exempt(*it->tensor)) continue;
    if (first == nullptr) {
      first = it->tensor;
    } else if (it->tensor->device() != first->device()) {
      mixed = true;
      break;
    }
  }
  if (!mixed) return;
  const detail::DeviceTally counts = tally(begin, end);
  throw_mismatch(begin, end, *counts.expected(), /*expected_was_given=*/false, counts, what);
}

void on_device(c10::Device expected, const NamedTensor* begin, const NamedTensor* end,
               std::string_view what) {
  for (const auto* it = begin; it != end; ++it) {
    if (!exempt(*it->tensor) && !detail::device_matches(expected, it->tensor->device())) {
      throw_mismatch(begin, end, expected, /*expected_was_given=*/true, tally(begin, end), what);
    }
  }
}

void add_entry(PlacementReport& report, std::vector<PlacementEntry>& all, const std::string& name,
               const at::Tensor& t, bool is_buffer) {
  if (!t.defined()) return;
  PlacementEntry entry;
  entry.name = name;
  entry.is_buffer = is_buffer;
  entry.device = t.device();
  entry.dtype = detail::dtype_name(t.scalar_type());
  entry.shape = t.sizes().vec();
  entry.nbytes = static_cast<std::uint64_t>(t.numel()) * t.element_size();
  auto totals = std::find_if(report.devices.begin(), report.devices.end(),
                             [&](const DeviceTotals& d) { return d.device == t.device(); });
  if (totals == report.devices.end()) {
    report.devices.push_back(DeviceTotals{t.device()});
    totals = report.devices.end() - 1;
  }
  (is_buffer ? totals->buffers : totals->parameters) += 1;
  totals->bytes += entry.nbytes;
  all.push_back(std::move(entry));
}

std::vector<std::string> split_names(const char* names, std::size_t count) {
  std::vector<std::string> out;
  std::string current;
  int depth = 0;
  for (const char* p = names; *p != '\0'; ++p) {
    const char c = *p;
    if (c == '(' || c == '[' || c == '{' || c == '<') ++depth;
    if (c == ')' || c == ']' || c == '}' || c == '>') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(current);
      current.clear();
    } else if (c != ' ' || !current.empty()) {
      current.push_back(c);
    }
  }
  out.push_back(current);
  for (auto& name : out) {
    while (!name.empty() && name.back() == ' ') name.pop_back();
  }
  while (out.size() < count) out.push_back("input " + std::to_string(out.size()));
  return out;
}

// The device of a module's parameters and buffers, without building their
// qualified names (cheap enough for the top of every forward): empty for a
// module without any; `mixed` is set when they disagree.
std::optional<c10::Device> own_device(const torch::nn::Module& module, bool& mixed) {
  std::optional<c10::Device> device;
  mixed = false;
  auto visit = [&](const at::Tensor& t) {
    if (!t.defined()) return;
    if (!device) {
      device = t.device();
    } else if (t.device() != *device) {
      mixed = true;
    }
  };
  for (const auto& p : module.parameters(/*recurse=*/true)) visit(p);
  for (const auto& b : module.buffers(/*recurse=*/true)) visit(b);
  return device;
}

// `name_of(i)` is called only on the error path.
template <typename NameOf>
void check_module_inputs(const torch::nn::Module& module, const at::Tensor* const* inputs,
                         std::size_t count, NameOf name_of) {
  bool mixed = false;
  const std::optional<c10::Device> first = own_device(module, mixed);
  bool ok = !mixed;
  if (first) {
    for (std::size_t i = 0; i < count && ok; ++i) {
      ok = exempt(*inputs[i]) || inputs[i]->device() == *first;
    }
  } else {
    const at::Tensor* seen = nullptr;
    for (std::size_t i = 0; i < count && ok; ++i) {
      if (exempt(*inputs[i])) continue;
      if (seen == nullptr) seen = inputs[i];
      ok = inputs[i]->device() == seen->device();
    }
  }
  if (ok) return;
  const std::string name = detail::clean_module_name(module.name());
  const std::string what = name + ".forward";
  std::vector<std::string> names;
  for (std::size_t i = 0; i < count; ++i) names.push_back(name_of(i));
  std::vector<NamedTensor> named;
  for (std::size_t i = 0; i < count; ++i) named.emplace_back(names[i], *inputs[i]);
  // A parameter-free module (ReLU, Flatten) has no device of its own.
  if (!first) {
    same_device(named.data(), named.data() + named.size(), what + " inputs");
    return;
  }
  const c10::Device device = module_device(module);  // throws if the module itself is mixed
  for (const auto& input : named) {
    const at::Tensor& t = *input.tensor;
    if (exempt(t) || t.device() == device) continue;
    throw DeviceMismatchError(fmt::format(
        "[devcheck] device mismatch in {}: input '{}' is on {} ({} {}) but module '{}' lives on "
        "{}\nfix: move '{}' to {} before calling the module (devcheck::to_device({}, "
        "devcheck::module_device(model))), or create it there",
        what, input.name, t.device().str(), detail::dtype_name(t.scalar_type()),
        detail::shape_str(t.sizes()), name, device.str(), input.name, device.str(), input.name));
  }
}

}  // namespace

void check_same_device(std::initializer_list<NamedTensor> tensors, std::string_view what) {
  same_device(tensors.begin(), tensors.end(), what);
}

void check_same_device(const std::vector<NamedTensor>& tensors, std::string_view what) {
  same_device(tensors.data(), tensors.data() + tensors.size(), what);
}

void check_on(c10::Device expected, std::initializer_list<NamedTensor> tensors,
              std::string_view what) {
  on_device(expected, tensors.begin(), tensors.end(), what);
}

void check_on(c10::Device expected, const std::vector<NamedTensor>& tensors,
              std::string_view what) {
  on_device(expected, tensors.data(), tensors.data() + tensors.size(), what);
}

PlacementReport audit(const torch::nn::Module& module, std::optional<c10::Device> expected) {
  PlacementReport report;
  report.module = detail::clean_module_name(module.name());
  report.expected_was_given = expected.has_value();
  std::vector<PlacementEntry> all;
  for (const auto& item : module.named_parameters(true)) {
    add_entry(report, all, item.key(), item.value(), false);
  }
  for (const auto& item : module.named_buffers(true)) {
    add_entry(report, all, item.key(), item.value(), true);
  }
  if (!expected) {
    detail::DeviceTally counts;
    for (const auto& d : report.devices) counts.add(d.device, d.parameters + d.buffers);
    expected = counts.expected();
  }
  report.expected = expected;
  if (expected) {
    for (auto& entry : all) {
      if (!detail::device_matches(*expected, entry.device))
        report.misplaced.push_back(std::move(entry));
    }
  }
  return report;
}

std::string PlacementReport::to_text() const {
  std::string out = fmt::format("module {}: ", module);
  if (devices.empty()) return out + "no parameters or buffers\n";
  out += fmt::format("expected device {} ({})\n", expected ? expected->str() : "?",
                     expected_was_given ? "given" : "majority");
  for (const auto& d : devices) {
    out += fmt::format("  {:<8} {} parameter{}, {} buffer{}, {}\n", d.device.str(), d.parameters,
                       d.parameters == 1 ? "" : "s", d.buffers, d.buffers == 1 ? "" : "s",
                       format_bytes(d.bytes));
  }
  if (misplaced.empty()) return out + "  all on " + expected->str() + "\n";
  out += fmt::format("  {} misplaced:\n", misplaced.size());
  for (const auto& e : misplaced) {
    out +=
        fmt::format("    {} ({}) on {}, {} {}, {}\n", e.name, e.is_buffer ? "buffer" : "parameter",
                    e.device.str(), e.dtype, detail::shape_str(e.shape), format_bytes(e.nbytes));
  }
  return out;
}

std::string PlacementReport::to_json() const {
  nlohmann::json j;
  j["module"] = module;
  j["expected"] = expected ? nlohmann::json(expected->str()) : nlohmann::json(nullptr);
  j["expected_was_given"] = expected_was_given;
  j["ok"] = ok();
  j["devices"] = nlohmann::json::array();
  for (const auto& d : devices) {
    j["devices"].push_back({{"device", d.device.str()},
                            {"parameters", d.parameters},
                            {"buffers", d.buffers},
                            {"bytes", d.bytes}});
  }
  j["misplaced"] = nlohmann::json::array();
  for (const auto& e : misplaced) {
    j["misplaced"].push_back({{"name", e.name},
                              {"kind", e.is_buffer ? "buffer" : "parameter"},
                              {"device", e.device.str()},
                              {"dtype", e.dtype},
                              {"shape", e.shape},
                              {"nbytes", e.nbytes}});
  }
  return j.dump(2);
}

void check_inputs(const torch::nn::Module& module, std::initializer_list<NamedTensor> inputs) {
  std::vector<const at::Tensor*> tensors;
  tensors.reserve(inputs.size());
  for (const auto& input : inputs) tensors.push_back(input.tensor);
  const NamedTensor* named = inputs.begin();
  check_module_inputs(module, tensors.data(), tensors.size(),
                      [&](std::size_t i) { return std::string(named[i].name); });
}

namespace detail {

void check_inputs_impl(const torch::nn::Module& module, const char* names,
                       const at::Tensor* const* inputs, std::size_t count) {
  std::vector<std::string> split;
  check_module_inputs(module, inputs, count, [&](std::size_t i) {
    if (split.empty()) split = split_names(names, count);
    return split[i];
  });
}

}  // namespace detail

}  // namespace devcheck
