#pragma once
// Names for messages and reports, shared by every module of devcheck.

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>
#include <c10/util/ArrayRef.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "devcheck/export.h"

namespace devcheck::detail {

// PyTorch's Python name of a dtype: "float32", "bfloat16", "complex64".
DEVCHECK_API std::string dtype_name(c10::ScalarType type);

// The ScalarType PyTorch calls `name` ("float32"), from format::dtype_table().
DEVCHECK_API std::optional<c10::ScalarType> scalar_type_of(std::string_view name);

// "[32, 784]"; "[]" for a 0-dim tensor (format::shape_text).
DEVCHECK_API std::string shape_str(c10::IntArrayRef shape);

// A module's name without LibTorch's decoration: "torch::nn::LinearImpl" -> "Linear".
std::string clean_module_name(std::string_view name);

// Whether `actual` satisfies `expected`; an index-less expected device
// ("cuda") matches every index of its type.
inline bool device_matches(c10::Device expected, c10::Device actual) {
  return expected.has_index() ? expected == actual : expected.type() == actual.type();
}

}  // namespace devcheck::detail
