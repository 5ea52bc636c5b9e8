#pragma once
/// Words and numbers for reports, without LibTorch: bytes for humans, the
/// dtype table (PyTorch's names, element sizes, storage types) and shape text.
/// Every part of devcheck prints these through here. Thread-safe.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "devcheck/export.h"

namespace devcheck::format {

/// "12.3 GiB", "512 B": bytes for humans (binary units, one decimal).
DEVCHECK_API std::string format_bytes(std::uint64_t bytes);

/// "[32, 784]"; "[]" for a 0-dim tensor.
DEVCHECK_API std::string shape_text(const std::vector<std::int64_t>& shape);
/// As above, over any contiguous int64 sequence (LibTorch's IntArrayRef).
DEVCHECK_API std::string shape_text(const std::int64_t* sizes, std::size_t count);

/// One PyTorch dtype.
struct DEVCHECK_API DtypeInfo {
  const char* name;           ///< PyTorch's Python name: "float32", "bfloat16", "qint8".
  std::int64_t element_size;  ///< In bytes.
  const char* c10_name;  ///< LibTorch's ScalarType name ("Float"); empty when LibTorch has none.
  /// The legacy storage class torch.save writes ("FloatStorage"); empty when it writes none.
  const char* storage_type;
  /// torch.<alias> names of the same dtype ("float", "half"); empty strings pad.
  const char* aliases[2];
};

/// Every dtype devcheck knows, in one table.
DEVCHECK_API const std::vector<DtypeInfo>& dtype_table();
/// The dtype called `name` (its name or a torch.<alias>), or null.
DEVCHECK_API const DtypeInfo* find_dtype(std::string_view name);
/// The dtype of a storage class ("FloatStorage"; "UntypedStorage" is uint8), or null.
DEVCHECK_API const DtypeInfo* find_dtype_by_storage_type(std::string_view storage_type);

}  // namespace devcheck::format
