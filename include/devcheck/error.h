#pragma once
/// devcheck's exceptions. Every devcheck error derives from devcheck::Error,
/// which derives from c10::Error, so `catch (const c10::Error&)` keeps working.
/// `what()` carries LibTorch's backtrace; `message()` is the message alone.

#include <c10/util/Exception.h>

#include <string>

#include "devcheck/error_code.h"

namespace devcheck {

/// Base class of all devcheck errors. Thread-safe to copy and read.
class Error : public c10::Error {
 public:
  /// `message` is the full, user-facing text: expected, found, which object, the fix.
  Error(ErrorCode code, std::string message);

  /// The category of this error.
  ErrorCode code() const noexcept { return code_; }
  /// The message without LibTorch's backtrace (same as what_without_backtrace()).
  const std::string& message() const noexcept { return message_; }

 private:
  ErrorCode code_;
  std::string message_;
};

/// Tensors, parameters or buffers that are not on the device they must be on.
class DeviceMismatchError : public Error {
 public:
  explicit DeviceMismatchError(std::string message)
      : Error(ErrorCode::kDeviceMismatch, std::move(message)) {}
};

/// A device that was asked for and does not exist here (e.g. cuda:3 on a 2-GPU machine).
class DeviceUnavailableError : public Error {
 public:
  explicit DeviceUnavailableError(std::string message)
      : Error(ErrorCode::kDeviceUnavailable, std::move(message)) {}
};

/// An argument that is malformed (device string, option value).
class InvalidArgumentError : public Error {
 public:
  explicit InvalidArgumentError(std::string message)
      : Error(ErrorCode::kInvalidArgument, std::move(message)) {}
};

/// A file that cannot be read as what it claims to be: truncated, corrupt,
/// not a checkpoint. The message names the file and the problem.
class FormatError : public Error {
 public:
  explicit FormatError(std::string message) : Error(ErrorCode::kFormat, std::move(message)) {}
};

/// Content that is refused because trusting it would run code or break
/// bounds (a pickle global outside the allowlist, a view past its storage).
class UnsafeContentError : public Error {
 public:
  explicit UnsafeContentError(std::string message)
      : Error(ErrorCode::kUnsafe, std::move(message)) {}
};

/// The file system refused: a missing file, no permission, a full disk, an
/// output that exists already. The message names the path.
class IoError : public Error {
 public:
  explicit IoError(std::string message) : Error(ErrorCode::kIo, std::move(message)) {}
};

}  // namespace devcheck
