#pragma once
// The fake device tests assert the messages of LibTorch's errors: the text
// of the c10::Error a call throws (without its backtrace), or "(no error)".

#include <c10/util/Exception.h>

#include <functional>
#include <string>

namespace devcheck::testing {

inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const c10::Error& e) {
    return e.what_without_backtrace();
  }
  return "(no error)";
}

}  // namespace devcheck::testing
