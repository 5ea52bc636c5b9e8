#include "detail/names.h"

#include <fmt/format.h>

namespace devcheck::detail {

std::string dtype_name(c10::ScalarType type) {
  switch (type) {
    case c10::ScalarType::Float:
      return "float32";
    case c10::ScalarType::Double:
      return "float64";
    case c10::ScalarType::Half:
      return "float16";
    case c10::ScalarType::BFloat16:
      return "bfloat16";
    case c10::ScalarType::ComplexHalf:
      return "complex32";
    case c10::ScalarType::ComplexFloat:
      return "complex64";
    case c10::ScalarType::ComplexDouble:
      return "complex128";
    case c10::ScalarType::Bool:
      return "bool";
    case c10::ScalarType::Byte:
      return "uint8";
    case c10::ScalarType::Char:
      return "int8";
    case c10::ScalarType::Short:
      return "int16";
    case c10::ScalarType::Int:
      return "int32";
    case c10::ScalarType::Long:
      return "int64";
    case c10::ScalarType::QInt8:
      return "qint8";
    case c10::ScalarType::QUInt8:
      return "quint8";
    case c10::ScalarType::QInt32:
      return "qint32";
    case c10::ScalarType::QUInt4x2:
      return "quint4x2";
    case c10::ScalarType::QUInt2x4:
      return "quint2x4";
    default:
      return c10::toString(type);
  }
}

std::string shape_str(c10::IntArrayRef shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
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
