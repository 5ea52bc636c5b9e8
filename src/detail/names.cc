#include "detail/names.h"

#include "devcheck/format/units.h"

namespace devcheck::detail {
namespace {

// The table entry whose LibTorch name is `type`'s ("Float" for float32).
const format::DtypeInfo* dtype_of(c10::ScalarType type) {
  const std::string_view c10_name = c10::toString(type);
  for (const format::DtypeInfo& d : format::dtype_table()) {
    if (c10_name == d.c10_name) return &d;
  }
  return nullptr;
}

}  // namespace

std::string dtype_name(c10::ScalarType type) {
  const format::DtypeInfo* d = dtype_of(type);
  return d != nullptr ? d->name : c10::toString(type);
}

std::optional<c10::ScalarType> scalar_type_of(std::string_view name) {
  const format::DtypeInfo* wanted = format::find_dtype(name);
  if (wanted == nullptr) return std::nullopt;
  for (int i = 0; i < static_cast<int>(c10::ScalarType::NumOptions); ++i) {
    const auto type = static_cast<c10::ScalarType>(i);
    if (dtype_of(type) == wanted) return type;
  }
  return std::nullopt;
}

std::string shape_str(c10::IntArrayRef shape) {
  return format::shape_text(shape.data(), shape.size());
}

std::string clean_module_name(std::string_view name) {
  constexpr std::string_view kSuffix = "Impl";
  // Keep the last component of a qualified name ("(anonymous namespace)::Net"),
  // unless the "::" is inside template arguments.
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i + 1 < name.size(); ++i) {
    if (name[i] == '<') ++depth;
    if (name[i] == '>') --depth;
    if (depth == 0 && name[i] == ':' && name[i + 1] == ':') start = i + 2;
  }
  name.remove_prefix(start);
  if (name.size() > kSuffix.size() && name.substr(name.size() - kSuffix.size()) == kSuffix) {
    name.remove_suffix(kSuffix.size());
  }
  return std::string(name);
}

}  // namespace devcheck::detail
