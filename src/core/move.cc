#include "devcheck/move.h"

#include <fmt/format.h>
#include <torch/nn/module.h>

#include <map>
#include <string>
#include <vector>

#include "devcheck/error.h"

namespace devcheck {

at::Tensor to_device(const at::Tensor& t, c10::Device device, bool non_blocking) {
  if (!t.defined() || t.device() == device) return t;
  return t.to(device, non_blocking);
}

c10::IValue to_device(const c10::IValue& value, c10::Device device, bool non_blocking) {
  return detail::map_ivalue_tensors(
      value, [&](const at::Tensor& t) { return to_device(t, device, non_blocking); });
}

namespace detail {

c10::IValue map_ivalue_tensors(const c10::IValue& value,
                               c10::function_ref<at::Tensor(const at::Tensor&)> f) {
  if (value.isTensor()) {
    const at::Tensor& t = value.toTensor();
    return t.defined() ? f(t) : t;
  }
  if (value.isTensorList()) {
    c10::List<at::Tensor> out;
    for (const at::Tensor& t : value.toTensorVector()) out.push_back(t.defined() ? f(t) : t);
    return out;
  }
  if (value.isList()) {
    const c10::List<c10::IValue> in = value.toList();
    c10::impl::GenericList out(in.elementType());
    out.reserve(in.size());
    // By index: a List's iterator yields proxies, not references to elements.
    for (size_t i = 0; i < in.size(); ++i) out.push_back(map_ivalue_tensors(in.get(i), f));
    return out;
  }
  if (value.isGenericDict()) {
    const c10::Dict<c10::IValue, c10::IValue> in = value.toGenericDict();
    c10::impl::GenericDict out(in.keyType(), in.valueType());
    out.reserve(in.size());
    for (const auto& entry : in) out.insert(entry.key(), map_ivalue_tensors(entry.value(), f));
    return out;
  }
  if (value.isTuple()) {
    std::vector<c10::IValue> elements;
    for (const c10::IValue& v : value.toTupleRef().elements()) {
      elements.push_back(map_ivalue_tensors(v, f));
    }
    return c10::ivalue::Tuple::create(std::move(elements));
  }
  return value;
}

void visit_ivalue_tensors(const c10::IValue& value, c10::function_ref<void(const at::Tensor&)> f) {
  if (value.isTensor()) {
    if (value.toTensor().defined()) f(value.toTensor());
  } else if (value.isTensorList()) {
    for (const at::Tensor& t : value.toTensorVector()) {
      if (t.defined()) f(t);
    }
  } else if (value.isList()) {
    const c10::List<c10::IValue> in = value.toList();
    for (size_t i = 0; i < in.size(); ++i) visit_ivalue_tensors(in.get(i), f);
  } else if (value.isGenericDict()) {
    for (const auto& entry : value.toGenericDict()) visit_ivalue_tensors(entry.value(), f);
  } else if (value.isTuple()) {
    for (const c10::IValue& v : value.toTupleRef().elements()) visit_ivalue_tensors(v, f);
  }
}

}  // namespace detail

c10::Device module_device(const torch::nn::Module& module) {
  std::map<std::string, std::vector<std::string>> names_by_device;
  std::vector<std::string> order;  // devices in first-seen order
  std::optional<c10::Device> first;
  bool mixed = false;
  auto visit = [&](const std::string& name, const at::Tensor& t) {
    if (!t.defined()) return;
    const std::string key = t.device().str();
    if (!first) first = t.device();
    if (t.device() != *first) mixed = true;
    auto& names = names_by_device[key];
    if (names.empty()) order.push_back(key);
    names.push_back(name);
  };
  for (const auto& item : module.named_parameters(/*recurse=*/true))
    visit(item.key(), item.value());
  for (const auto& item : module.named_buffers(/*recurse=*/true)) visit(item.key(), item.value());
  if (!first) {
    throw InvalidArgumentError(fmt::format(
        "[devcheck] module_device: module '{}' has no parameters or buffers, so it has no device",
        module.name()));
  }
  if (!mixed) return *first;
  std::string message = fmt::format(
      "[devcheck] module_device: module '{}' is spread over {} devices; expected one. Found:",
      module.name(), order.size());
  for (const auto& device : order) {
    const auto& names = names_by_device[device];
    message +=
        fmt::format("\n  {} ({} tensor{}): ", device, names.size(), names.size() == 1 ? "" : "s");
    constexpr size_t kShown = 8;
    for (size_t i = 0; i < names.size() && i < kShown; ++i) {
      message += (i ? ", " : "") + names[i];
    }
    if (names.size() > kShown) message += fmt::format(", ... ({} more)", names.size() - kShown);
  }
  message +=
      "\nfix: move the whole module once (module->to(device)) after building it, and "
      "register new parameters before that move.";
  throw DeviceMismatchError(message);
}

}  // namespace devcheck
