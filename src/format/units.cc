#include "devcheck/format/units.h"

#include <fmt/format.h>

#include <array>

namespace devcheck::format {

std::string format_bytes(std::uint64_t bytes) {
  constexpr std::array<const char*, 5> kUnits = {"B", "KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < kUnits.size()) {
    value /= 1024.0;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, kUnits[unit]);
}

std::string shape_text(const std::int64_t* sizes, std::size_t count) {
  std::string out = "[";
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(sizes[i]);
  }
  return out + "]";
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  return shape_text(shape.data(), shape.size());
}

const std::vector<DtypeInfo>& dtype_table() {
  // Never destroyed: threads still running at exit (a sanitizer's report) may read it.
  static const auto* const table = new std::vector<DtypeInfo>{
      {"float32", 4, "Float", "FloatStorage", {"float", ""}},
      {"float64", 8, "Double", "DoubleStorage", {"double", ""}},
      {"float16", 2, "Half", "HalfStorage", {"half", ""}},
      {"bfloat16", 2, "BFloat16", "BFloat16Storage", {"", ""}},
      {"complex32", 4, "ComplexHalf", "", {"chalf", ""}},
      {"complex64", 8, "ComplexFloat", "ComplexFloatStorage", {"cfloat", ""}},
      {"complex128", 16, "ComplexDouble", "ComplexDoubleStorage", {"cdouble", ""}},
      {"uint8", 1, "Byte", "ByteStorage", {"", ""}},
      {"int8", 1, "Char", "CharStorage", {"", ""}},
      {"int16", 2, "Short", "ShortStorage", {"short", ""}},
      {"int32", 4, "Int", "IntStorage", {"int", ""}},
      {"int64", 8, "Long", "LongStorage", {"long", ""}},
      {"bool", 1, "Bool", "BoolStorage", {"", ""}},
      {"uint16", 2, "UInt16", "", {"", ""}},
      {"uint32", 4, "UInt32", "", {"", ""}},
      {"uint64", 8, "UInt64", "", {"", ""}},
      {"float8_e5m2", 1, "Float8_e5m2", "", {"", ""}},
      {"float8_e4m3fn", 1, "Float8_e4m3fn", "", {"", ""}},
      {"float8_e5m2fnuz", 1, "Float8_e5m2fnuz", "", {"", ""}},
      {"float8_e4m3fnuz", 1, "Float8_e4m3fnuz", "", {"", ""}},
      {"qint8", 1, "QInt8", "QInt8Storage", {"", ""}},
      {"quint8", 1, "QUInt8", "QUInt8Storage", {"", ""}},
      {"qint32", 4, "QInt32", "QInt32Storage", {"", ""}},
      {"quint4x2", 1, "QUInt4x2", "QUInt4x2Storage", {"", ""}},
      {"quint2x4", 1, "QUInt2x4", "QUInt2x4Storage", {"", ""}},
  };
  return *table;
}

const DtypeInfo* find_dtype(std::string_view name) {
  if (name.empty()) return nullptr;
  for (const DtypeInfo& d : dtype_table()) {
    if (name == d.name || name == d.aliases[0] || name == d.aliases[1]) return &d;
  }
  return nullptr;
}

const DtypeInfo* find_dtype_by_storage_type(std::string_view storage_type) {
  if (storage_type == "UntypedStorage") return find_dtype("uint8");
  if (storage_type.empty()) return nullptr;
  for (const DtypeInfo& d : dtype_table()) {
    if (storage_type == d.storage_type) return &d;
  }
  return nullptr;
}

}  // namespace devcheck::format
