#pragma once
/// The errors of devcheck's torch-free format library (devcheck::format):
/// the same categories and messages as devcheck/error.h, without LibTorch.
/// The LibTorch-side API (devcheck/checkpoint.h) turns each into the
/// devcheck::Error of the same ErrorCode, so its callers see no difference.

#include <stdexcept>
#include <string>

#include "devcheck/error_code.h"
#include "devcheck/export.h"

namespace devcheck::format {

/// Base of the format library's errors. `what()` is the message. Thread-safe to copy and read.
class DEVCHECK_API Error : public std::runtime_error {
 public:
  /// `message` is the full, user-facing text: expected, found, which object, the fix.
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}

  /// The category of this error.
  ErrorCode code() const noexcept { return code_; }
  /// The message (same as what()).
  std::string message() const { return what(); }

 private:
  ErrorCode code_;
};

/// A file that cannot be read as what it claims to be (ErrorCode::kFormat).
class DEVCHECK_API FormatError : public Error {
 public:
  explicit FormatError(const std::string& message) : Error(ErrorCode::kFormat, message) {}
};

/// Content refused because trusting it would run code or break bounds (ErrorCode::kUnsafe).
class DEVCHECK_API UnsafeContentError : public Error {
 public:
  explicit UnsafeContentError(const std::string& message) : Error(ErrorCode::kUnsafe, message) {}
};

/// The file system refused (ErrorCode::kIo). The message names the path.
class DEVCHECK_API IoError : public Error {
 public:
  explicit IoError(const std::string& message) : Error(ErrorCode::kIo, message) {}
};

/// A malformed argument: a device string, an option value (ErrorCode::kInvalidArgument).
class DEVCHECK_API InvalidArgumentError : public Error {
 public:
  explicit InvalidArgumentError(const std::string& message)
      : Error(ErrorCode::kInvalidArgument, message) {}
};

}  // namespace devcheck::format
