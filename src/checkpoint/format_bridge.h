#pragma once
// The joint between the torch-free format library (devcheck::format) and the
// LibTorch-side API: its errors become devcheck::Error of the same ErrorCode
// and message, and its devices become c10::Device and back.

#include <c10/core/Device.h>

#include <string>
#include <utility>

#include "devcheck/format/device_name.h"
#include "devcheck/format/error.h"

namespace devcheck::detail {

// Throws the devcheck::Error (FormatError, IoError, ...) of `e`'s code, with its message.
[[noreturn]] void throw_as_devcheck_error(const format::Error& e);

// Runs `f`; a format::Error it throws leaves as the matching devcheck::Error.
template <typename F>
decltype(auto) with_devcheck_errors(F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (const format::Error& e) {
    throw_as_devcheck_error(e);
  }
}

// The c10::Device of `device`.
c10::Device to_c10_device(const format::Device& device);
// Tells the format library how LibTorch in this process spells the
// PrivateUse1 device ("privateuseone" in 1.13, "fake" once registered in 2.x),
// so the locations it writes are the ones this LibTorch reads.
void sync_privateuse1_name();
// The format::Device of `device`. Throws InvalidArgumentError for a device
// type devcheck does not name (xla, hpu, ...).
format::Device to_format_device(c10::Device device);

// Whether a saved location ("cuda:1", "privateuseone:0") names a device this
// process can use (devcheck::device_available), in its canonical spelling.
bool location_available_in_process(const std::string& location);

}  // namespace devcheck::detail
