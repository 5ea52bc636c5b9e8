#pragma once
// The device-mismatch rule and its table, one implementation for every caller:
// check_same_device / check_on (src/check.cc), audit(), and the sanitizer's
// findings (src/sanitizer/watch.cc, record.cc, report.cc). The same tensors
// give the same expected device, the same strays and the same fix everywhere.

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "devcheck/export.h"

namespace devcheck::detail {

// PyTorch lets a 0-dim CPU tensor (a wrapped scalar) meet tensors on any
// device, so it never counts for or against a device.
inline bool wrapped_scalar(c10::Device device, std::size_t dim) {
  return device.is_cpu() && dim == 0;
}

// Counts tensors per device and picks the one they all should be on.
// Callers leave wrapped scalars and undefined tensors out.
class DEVCHECK_API DeviceTally {
 public:
  void add(c10::Device device, std::size_t tensors = 1);
  // More than one device counted.
  bool mixed() const { return counts_.size() > 1; }
  // The device most tensors are on. A tie between the CPU and another device
  // goes to the other one (a stray is usually a CPU tensor made without a
  // device), any other tie to the first seen. Empty when nothing was counted.
  std::optional<c10::Device> expected() const;
  // "fake:1 (2 tensors) and cpu (1 tensor)": the expected device first, then
  // by count (ties: first seen).
  std::string found_text() const;

 private:
  std::vector<std::pair<c10::Device, std::size_t>> counts_;  // first-seen order
};

// One tensor of a mismatch table.
struct MismatchRow {
  std::string name;
  bool defined = true;  // an undefined tensor is listed as skipped
  c10::Device device = c10::Device(c10::kCPU);
  c10::ScalarType dtype = c10::ScalarType::Undefined;
  std::vector<std::int64_t> shape;
  // Shown after the shape when any row has one (the sanitizer: where it was made).
  std::string note;
};

// Whether a defined tensor on `device` with `dim` dimensions breaks the rule
// against `expected` (an index-less expected device matches every index of
// its type; a wrapped scalar never does).
DEVCHECK_API bool is_stray(c10::Device device, std::size_t dim, c10::Device expected);

// The shared parts of a device-mismatch message.
struct MismatchText {
  std::vector<std::string> strays;  // names of the rows off `expected`, in order
  std::string table;                // one "\n  name  device dtype shape[ note]" line per row
  std::string fix;                  // what to do, without a "fix: " prefix
};

// The table and fix for `rows` against `expected`. `stray_origin`, when not
// empty, says where the strays are made ("train.py:12").
DEVCHECK_API MismatchText describe_mismatch(const std::vector<MismatchRow>& rows,
                                            c10::Device expected,
                                            const std::string& stray_origin = {});

}  // namespace devcheck::detail
