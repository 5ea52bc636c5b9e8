#pragma once
// One batch holding every container type devcheck's tensor walk knows
// (map_tensors in devcheck/move.h), each with a tensor inside: for the tests
// of to_device and of DevicePrefetcher's staging.

#include <ATen/ATen.h>
#include <ATen/core/Dict.h>
#include <ATen/core/List.h>
#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>
#include <torch/data/example.h>

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "devcheck/move.h"

namespace devcheck::testing {

using EveryType = std::tuple<at::Tensor, std::vector<at::Tensor>, std::map<std::string, at::Tensor>,
                             std::unordered_map<int, at::Tensor>, std::pair<at::Tensor, int>,
                             std::optional<at::Tensor>, c10::List<at::Tensor>,
                             torch::data::Example<>, torch::data::TensorExample, c10::IValue>;

// Tensors of shape [1] holding 0, 1, ..., 7, 7.5, 8, 9 in walk order, on the CPU.
inline EveryType every_type() {
  auto one = [](double v) { return at::full({1}, v); };
  c10::impl::GenericDict dict(c10::StringType::get(), c10::AnyType::get());
  dict.insert("w", one(9.0));
  return EveryType{one(0.0),
                   {one(1.0)},
                   {{"a", one(2.0)}},
                   {{7, one(3.0)}},
                   {one(4.0), 5},
                   one(5.0),
                   c10::List<at::Tensor>({one(6.0)}),
                   torch::data::Example<>(one(7.0), one(7.5)),
                   torch::data::TensorExample(one(8.0)),
                   c10::IValue(dict)};
}

// The values every_type() holds, in walk order.
inline std::vector<float> every_type_values() { return {0, 1, 2, 3, 4, 5, 6, 7, 7.5, 8, 9}; }

// The tensors of `x` in walk order, read back to the CPU; their devices into `devices`.
inline std::vector<float> values(const EveryType& x, std::vector<c10::Device>* devices = nullptr) {
  std::vector<float> out;
  for_each_tensor(x, [&](const at::Tensor& t) {
    out.push_back(t.cpu().item<float>());
    if (devices != nullptr) devices->push_back(t.device());
  });
  return out;
}

}  // namespace devcheck::testing
