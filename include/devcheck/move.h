#pragma once
/// Moving data: put a tensor, or every tensor inside a nested container, on a
/// device in one call; find the device a module lives on.

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>
#include <torch/data/example.h>

#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace torch::nn {
class Module;
template <typename Contained>
class ModuleHolder;
}  // namespace torch::nn

namespace devcheck {

// Declarations first, so that each container overload sees every other one
// (a map of vectors of optionals of tensors works).

/// `t` on `device`; `t` itself when it is already there (no copy), an
/// undefined tensor unchanged. `non_blocking` as in Tensor::to.
at::Tensor to_device(const at::Tensor& t, c10::Device device, bool non_blocking = false);
/// Every tensor inside `value` (nested lists, dicts, tuples, optionals) on
/// `device`; anything else is returned unchanged.
c10::IValue to_device(const c10::IValue& value, c10::Device device, bool non_blocking = false);
template <typename T>
std::vector<T> to_device(const std::vector<T>& xs, c10::Device device, bool non_blocking = false);
template <typename K, typename V, typename C, typename A>
std::map<K, V, C, A> to_device(const std::map<K, V, C, A>& xs, c10::Device device,
                               bool non_blocking = false);
template <typename K, typename V, typename H, typename E, typename A>
std::unordered_map<K, V, H, E, A> to_device(const std::unordered_map<K, V, H, E, A>& xs,
                                            c10::Device device, bool non_blocking = false);
template <typename A, typename B>
std::pair<A, B> to_device(const std::pair<A, B>& x, c10::Device device, bool non_blocking = false);
template <typename... Ts>
std::tuple<Ts...> to_device(const std::tuple<Ts...>& x, c10::Device device,
                            bool non_blocking = false);
template <typename T>
std::optional<T> to_device(const std::optional<T>& x, c10::Device device,
                           bool non_blocking = false);
template <typename T>
c10::List<T> to_device(const c10::List<T>& xs, c10::Device device, bool non_blocking = false);
template <typename D, typename T>
torch::data::Example<D, T> to_device(const torch::data::Example<D, T>& x, c10::Device device,
                                     bool non_blocking = false);
template <typename D>
torch::data::Example<D, torch::data::example::NoTarget> to_device(
    const torch::data::Example<D, torch::data::example::NoTarget>& x, c10::Device device,
    bool non_blocking = false);
/// Anything that holds no tensor (ints, strings, ...) is returned unchanged.
template <typename T>
T to_device(const T& x, c10::Device device, bool non_blocking = false);

/// `x` moved to the device of `ref` (device only; dtype is kept). Works for
/// every type to_device accepts.
template <typename T>
T to_like(const T& x, const at::Tensor& ref, bool non_blocking = false) {
  return to_device(x, ref.device(), non_blocking);
}

/// The device `module` lives on: the one device of all its parameters and
/// buffers, recursively (the `module.device` PyTorch never added). Throws
/// DeviceMismatchError listing each device with the qualified names found
/// there when they disagree, and InvalidArgumentError for a module with no
/// parameters or buffers. Thread-safe if the module is not being modified.
c10::Device module_device(const torch::nn::Module& module);
template <typename M>
c10::Device module_device(const torch::nn::ModuleHolder<M>& module) {
  return module_device(*module);
}

// ---- definitions -----------------------------------------------------------

template <typename T>
std::vector<T> to_device(const std::vector<T>& xs, c10::Device device, bool non_blocking) {
  std::vector<T> out;
  out.reserve(xs.size());
  for (const auto& x : xs) out.push_back(to_device(x, device, non_blocking));
  return out;
}

template <typename T>
c10::List<T> to_device(const c10::List<T>& xs, c10::Device device, bool non_blocking) {
  c10::List<T> out;
  out.reserve(xs.size());
  for (size_t i = 0; i < xs.size(); ++i)
    out.push_back(to_device(T(xs.get(i)), device, non_blocking));
  return out;
}

template <typename K, typename V, typename C, typename A>
std::map<K, V, C, A> to_device(const std::map<K, V, C, A>& xs, c10::Device device,
                               bool non_blocking) {
  std::map<K, V, C, A> out;
  for (const auto& [k, v] : xs) out.emplace(k, to_device(v, device, non_blocking));
  return out;
}

template <typename K, typename V, typename H, typename E, typename A>
std::unordered_map<K, V, H, E, A> to_device(const std::unordered_map<K, V, H, E, A>& xs,
                                            c10::Device device, bool non_blocking) {
  std::unordered_map<K, V, H, E, A> out;
  out.reserve(xs.size());
  for (const auto& [k, v] : xs) out.emplace(k, to_device(v, device, non_blocking));
  return out;
}

template <typename A, typename B>
std::pair<A, B> to_device(const std::pair<A, B>& x, c10::Device device, bool non_blocking) {
  return {to_device(x.first, device, non_blocking), to_device(x.second, device, non_blocking)};
}

template <typename... Ts>
std::tuple<Ts...> to_device(const std::tuple<Ts...>& x, c10::Device device, bool non_blocking) {
  return std::apply(
      [&](const auto&... xs) { return std::tuple<Ts...>(to_device(xs, device, non_blocking)...); },
      x);
}

template <typename T>
std::optional<T> to_device(const std::optional<T>& x, c10::Device device, bool non_blocking) {
  if (!x) return std::nullopt;
  return to_device(*x, device, non_blocking);
}

template <typename D, typename T>
torch::data::Example<D, T> to_device(const torch::data::Example<D, T>& x, c10::Device device,
                                     bool non_blocking) {
  return {to_device(x.data, device, non_blocking), to_device(x.target, device, non_blocking)};
}

template <typename D>
torch::data::Example<D, torch::data::example::NoTarget> to_device(
    const torch::data::Example<D, torch::data::example::NoTarget>& x, c10::Device device,
    bool non_blocking) {
  return {to_device(x.data, device, non_blocking)};
}

template <typename T>
T to_device(const T& x, c10::Device /*device*/, bool /*non_blocking*/) {
  return x;
}

}  // namespace devcheck
