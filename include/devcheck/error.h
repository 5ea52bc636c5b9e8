#pragma once
/// devcheck's exceptions. Every devcheck error derives from devcheck::Error,
/// which derives from c10::Error, so `catch (const c10::Error&)` keeps working.
/// `what()` carries LibTorch's backtrace; `message()` is the message alone.
///
/// Each error records where it was thrown, as TORCH_CHECK does: the file, line
/// and function of the code that constructed it (the trailing constructor
/// arguments default to the caller's; leave them out). `what()` names that
/// place ("Exception raised from resolve at .../src/device.cc:42"), and
/// file(), line() and function() return it.

#include <c10/util/Exception.h>

#include <string>
#include <utility>

#include "devcheck/error_code.h"
#include "devcheck/export.h"

namespace devcheck {

/// Base class of all devcheck errors. Thread-safe to copy and read.
class DEVCHECK_API Error : public c10::Error {
 public:
  /// `message` is the full, user-facing text: expected, found, which object, the fix.
  /// `file`, `line`, `function`: where it is thrown (default: the caller).
  Error(ErrorCode code, std::string message, const char* file = __builtin_FILE(),
        int line = __builtin_LINE(), const char* function = __builtin_FUNCTION());

  /// The category of this error.
  ErrorCode code() const noexcept { return code_; }
  /// The message without LibTorch's backtrace (same as what_without_backtrace()).
  const std::string& message() const noexcept { return message_; }
  /// The source file that threw, as the compiler named it ("/src/devcheck/src/device.cc").
  const char* file() const noexcept { return file_; }
  /// The line in file() that threw.
  int line() const noexcept { return line_; }
  /// The function that threw ("resolve").
  const char* function() const noexcept { return function_; }

 private:
  ErrorCode code_;
  std::string message_;
  const char* file_;
  int line_;
  const char* function_;
};

/// Tensors, parameters or buffers that are not on the device they must be on.
class DEVCHECK_API DeviceMismatchError : public Error {
 public:
  explicit DeviceMismatchError(std::string message, const char* file = __builtin_FILE(),
                               int line = __builtin_LINE(),
                               const char* function = __builtin_FUNCTION())
      : Error(ErrorCode::kDeviceMismatch, std::move(message), file, line, function) {}
};

/// A device that was asked for and does not exist here (e.g. cuda:3 on a 2-GPU machine).
class DEVCHECK_API DeviceUnavailableError : public Error {
 public:
  explicit DeviceUnavailableError(std::string message, const char* file = __builtin_FILE(),
                                  int line = __builtin_LINE(),
                                  const char* function = __builtin_FUNCTION())
      : Error(ErrorCode::kDeviceUnavailable, std::move(message), file, line, function) {}
};

/// An argument that is malformed (device string, option value).
class DEVCHECK_API InvalidArgumentError : public Error {
 public:
  explicit InvalidArgumentError(std::string message, const char* file = __builtin_FILE(),
                                int line = __builtin_LINE(),
                                const char* function = __builtin_FUNCTION())
      : Error(ErrorCode::kInvalidArgument, std::move(message), file, line, function) {}
};

/// A file that cannot be read as what it claims to be: truncated, corrupt,
/// not a checkpoint. The message names the file and the problem.
class DEVCHECK_API FormatError : public Error {
 public:
  explicit FormatError(std::string message, const char* file = __builtin_FILE(),
                       int line = __builtin_LINE(), const char* function = __builtin_FUNCTION())
      : Error(ErrorCode::kFormat, std::move(message), file, line, function) {}
};

/// Content that is refused because trusting it would run code or break
/// bounds (a pickle global outside the allowlist, a view past its storage).
class DEVCHECK_API UnsafeContentError : public Error {
 public:
  explicit UnsafeContentError(std::string message, const char* file = __builtin_FILE(),
                              int line = __builtin_LINE(),
                              const char* function = __builtin_FUNCTION())
      : Error(ErrorCode::kUnsafe, std::move(message), file, line, function) {}
};

/// The file system refused: a missing file, no permission, a full disk, an
/// output that exists already. The message names the path.
class DEVCHECK_API IoError : public Error {
 public:
  explicit IoError(std::string message, const char* file = __builtin_FILE(),
                   int line = __builtin_LINE(), const char* function = __builtin_FUNCTION())
      : Error(ErrorCode::kIo, std::move(message), file, line, function) {}
};

}  // namespace devcheck
