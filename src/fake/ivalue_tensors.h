#pragma once
// The tensors in an op's argument or return value: a Tensor, Tensor? or a
// tensor list (Tensor[], Tensor?[], which are lists of IValues underneath).
// For the fake backends' device check and kernels.

#include <ATen/core/List.h>
#include <ATen/core/ivalue.h>

namespace devcheck::detail {

// Calls f(tensor, in_list) for every tensor in `v`: `v` itself, or each
// tensor element of a list (in_list true); nothing for anything else.
template <typename F>
void for_each_tensor(const c10::IValue& v, F&& f) {
  if (v.isTensor()) {
    f(v.toTensor(), false);
  } else if (v.isList()) {
    for (const c10::IValue& e : v.toListRef()) {
      if (e.isTensor()) f(e.toTensor(), true);
    }
  }
}

// `v` with every tensor in it replaced by f(tensor): a tensor, or a list of
// the same element type; `v` itself when it holds no tensor.
template <typename F>
c10::IValue map_tensors(const c10::IValue& v, F&& f) {
  if (v.isTensor()) return f(v.toTensor());
  if (!v.isList()) return v;
  bool any = false;
  for (const c10::IValue& e : v.toListRef()) any = any || e.isTensor();
  if (!any) return v;
  c10::impl::GenericList out(v.toList().elementType());
  out.reserve(v.toListRef().size());
  for (const c10::IValue& e : v.toListRef()) out.push_back(e.isTensor() ? f(e.toTensor()) : e);
  return out;
}

}  // namespace devcheck::detail
