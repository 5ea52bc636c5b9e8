#pragma once
/// devcheck's error categories, shared by the LibTorch-side errors
/// (devcheck/error.h) and the torch-free format library (devcheck/format/error.h).

namespace devcheck {

/// What kind of failure an Error reports; lets callers branch without
/// dynamic_cast (compare leveldb's Status::IsNotFound()).
enum class ErrorCode {
  kInvalidArgument,    ///< A bad device string, flag or option.
  kDeviceMismatch,     ///< Tensors or parameters on the wrong device.
  kDeviceUnavailable,  ///< A device that this machine does not have.
  kFormat,             ///< A file that cannot be read (truncated, corrupt, not a checkpoint).
  kUnsafe,             ///< Content that would run code or break bounds if trusted.
  kIo,                 ///< The file system refused (missing file, no permission, disk full).
};

}  // namespace devcheck
