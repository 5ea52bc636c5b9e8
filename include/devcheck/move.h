#pragma once
/// Moving data: put a tensor, or every tensor inside a nested container, on a
/// device in one call; find the device a module lives on.

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>
#include <c10/util/FunctionRef.h>
#include <torch/data/example.h>

#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "devcheck/export.h"

namespace torch::nn {
class Module;
template <typename Contained>
class ModuleHolder;
}  // namespace torch::nn

namespace devcheck {

namespace detail {
template <typename T, typename Enable = void>
struct TensorWalk;
}  // namespace detail

/// `x` with every defined tensor inside it replaced by `f(tensor)`: tensors,
/// std::vector, std::map, std::unordered_map, std::pair, std::tuple,
/// std::optional, c10::List, torch::data::Example and c10::IValue (lists,
/// dicts, tuples), nested in any combination. Undefined tensors and anything
/// that holds no tensor are returned unchanged. `f` must return an
/// at::Tensor. This is the one walk to_device() and DevicePrefetcher use.
template <typename T, typename F>
T map_tensors(const T& x, F&& f) {
  return detail::TensorWalk<T>::map(x, f);
}

/// Calls `f(tensor)` for every defined tensor inside `x` (the types of
/// map_tensors), in order: vectors and lists by index, maps in their order,
/// tuples and pairs by position, an Example's data before its target.
template <typename T, typename F>
void for_each_tensor(const T& x, F&& f) {
  detail::TensorWalk<T>::visit(x, f);
}

/// `t` on `device`; `t` itself when it is already there (no copy), an
/// undefined tensor unchanged. `non_blocking` as in Tensor::to.
DEVCHECK_API at::Tensor to_device(const at::Tensor& t, c10::Device device,
                                  bool non_blocking = false);
/// Every tensor inside `value` (nested lists, dicts, tuples) on `device`;
/// anything else is returned unchanged.
DEVCHECK_API c10::IValue to_device(const c10::IValue& value, c10::Device device,
                                   bool non_blocking = false);
/// Every tensor inside `x` on `device`, for every type map_tensors() walks
/// (a map of vectors of optionals of tensors works); anything that holds no
/// tensor (ints, strings, ...) is returned unchanged. The input is untouched.
template <typename T>
T to_device(const T& x, c10::Device device, bool non_blocking = false) {
  return map_tensors(
      x, [&](const at::Tensor& t) { return devcheck::to_device(t, device, non_blocking); });
}

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
DEVCHECK_API c10::Device module_device(const torch::nn::Module& module);
template <typename M>
c10::Device module_device(const torch::nn::ModuleHolder<M>& module) {
  return module_device(*module);
}

// ---- the walk ----------------------------------------------------------------

namespace detail {

// The IValue walk, type-erased (it recurses through dynamically typed values).
DEVCHECK_API c10::IValue map_ivalue_tensors(const c10::IValue& value,
                                            c10::function_ref<at::Tensor(const at::Tensor&)> f);
DEVCHECK_API void visit_ivalue_tensors(const c10::IValue& value,
                                       c10::function_ref<void(const at::Tensor&)> f);

// One specialization per container; the primary template is "holds no
// tensor". Specializations are found when a walk is instantiated, so nested
// containers see each other in any order.
template <typename T, typename Enable>
struct TensorWalk {
  template <typename F>
  static T map(const T& x, F& /*f*/) {
    return x;
  }
  template <typename F>
  static void visit(const T& /*x*/, F& /*f*/) {}
};

template <>
struct TensorWalk<at::Tensor> {
  template <typename F>
  static at::Tensor map(const at::Tensor& t, F& f) {
    return t.defined() ? at::Tensor(f(t)) : t;
  }
  template <typename F>
  static void visit(const at::Tensor& t, F& f) {
    if (t.defined()) f(t);
  }
};

template <>
struct TensorWalk<c10::IValue> {
  template <typename F>
  static c10::IValue map(const c10::IValue& v, F& f) {
    return map_ivalue_tensors(v, [&](const at::Tensor& t) { return at::Tensor(f(t)); });
  }
  template <typename F>
  static void visit(const c10::IValue& v, F& f) {
    visit_ivalue_tensors(v, [&](const at::Tensor& t) { f(t); });
  }
};

template <typename T, typename A>
struct TensorWalk<std::vector<T, A>> {
  template <typename F>
  static std::vector<T, A> map(const std::vector<T, A>& xs, F& f) {
    std::vector<T, A> out;
    out.reserve(xs.size());
    for (const auto& x : xs) out.push_back(TensorWalk<T>::map(x, f));
    return out;
  }
  template <typename F>
  static void visit(const std::vector<T, A>& xs, F& f) {
    for (const auto& x : xs) TensorWalk<T>::visit(x, f);
  }
};

template <typename T>
struct TensorWalk<c10::List<T>> {
  template <typename F>
  static c10::List<T> map(const c10::List<T>& xs, F& f) {
    c10::List<T> out;
    out.reserve(xs.size());
    // By index: a List's iterator yields proxies, not references to elements.
    for (size_t i = 0; i < xs.size(); ++i) out.push_back(TensorWalk<T>::map(T(xs.get(i)), f));
    return out;
  }
  template <typename F>
  static void visit(const c10::List<T>& xs, F& f) {
    for (size_t i = 0; i < xs.size(); ++i) TensorWalk<T>::visit(T(xs.get(i)), f);
  }
};

// std::map and std::unordered_map: keys are kept, values walked.
template <typename Map>
struct MapWalk {
  template <typename F>
  static Map map(const Map& xs, F& f) {
    Map out;
    for (const auto& [k, v] : xs) {
      out.emplace(k, TensorWalk<typename Map::mapped_type>::map(v, f));
    }
    return out;
  }
  template <typename F>
  static void visit(const Map& xs, F& f) {
    for (const auto& kv : xs) TensorWalk<typename Map::mapped_type>::visit(kv.second, f);
  }
};
template <typename K, typename V, typename C, typename A>
struct TensorWalk<std::map<K, V, C, A>> : MapWalk<std::map<K, V, C, A>> {};
template <typename K, typename V, typename H, typename E, typename A>
struct TensorWalk<std::unordered_map<K, V, H, E, A>> : MapWalk<std::unordered_map<K, V, H, E, A>> {
};

template <typename A, typename B>
struct TensorWalk<std::pair<A, B>> {
  template <typename F>
  static std::pair<A, B> map(const std::pair<A, B>& x, F& f) {
    return {TensorWalk<A>::map(x.first, f), TensorWalk<B>::map(x.second, f)};
  }
  template <typename F>
  static void visit(const std::pair<A, B>& x, F& f) {
    TensorWalk<A>::visit(x.first, f);
    TensorWalk<B>::visit(x.second, f);
  }
};

template <typename... Ts>
struct TensorWalk<std::tuple<Ts...>> {
  template <typename F>
  static std::tuple<Ts...> map(const std::tuple<Ts...>& x, F& f) {
    return std::apply(
        [&](const auto&... xs) { return std::tuple<Ts...>(TensorWalk<Ts>::map(xs, f)...); }, x);
  }
  template <typename F>
  static void visit(const std::tuple<Ts...>& x, F& f) {
    std::apply([&](const auto&... xs) { (TensorWalk<Ts>::visit(xs, f), ...); }, x);
  }
};

template <typename T>
struct TensorWalk<std::optional<T>> {
  template <typename F>
  static std::optional<T> map(const std::optional<T>& x, F& f) {
    if (!x) return std::nullopt;
    return TensorWalk<T>::map(*x, f);
  }
  template <typename F>
  static void visit(const std::optional<T>& x, F& f) {
    if (x) TensorWalk<T>::visit(*x, f);
  }
};

template <typename D, typename T>
struct TensorWalk<torch::data::Example<D, T>> {
  template <typename F>
  static torch::data::Example<D, T> map(const torch::data::Example<D, T>& x, F& f) {
    return {TensorWalk<D>::map(x.data, f), TensorWalk<T>::map(x.target, f)};
  }
  template <typename F>
  static void visit(const torch::data::Example<D, T>& x, F& f) {
    TensorWalk<D>::visit(x.data, f);
    TensorWalk<T>::visit(x.target, f);
  }
};

template <typename D>
struct TensorWalk<torch::data::Example<D, torch::data::example::NoTarget>> {
  using Example = torch::data::Example<D, torch::data::example::NoTarget>;
  template <typename F>
  static Example map(const Example& x, F& f) {
    return Example(TensorWalk<D>::map(x.data, f));
  }
  template <typename F>
  static void visit(const Example& x, F& f) {
    TensorWalk<D>::visit(x.data, f);
  }
};

}  // namespace detail

}  // namespace devcheck
