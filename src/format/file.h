#pragma once
// Checkpoint files at the system-call level: an owned file descriptor, reads
// of an exact byte range and writes of a whole buffer, each failure a
// devcheck error naming the file. Not thread-safe per object.

#include <cstdint>
#include <string>

#include "devcheck/export.h"

namespace devcheck::detail {

// An owned file descriptor.
class File {
 public:
  File() = default;
  explicit File(int fd) : fd_(fd) {}
  ~File();
  File(File&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  File& operator=(File&& other) noexcept;
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  // Opens `path` read-only. Throws IoError naming the path.
  static File open_read(const std::string& path);
  int fd() const { return fd_; }
  // Size in bytes (fstat). Throws IoError.
  std::uint64_t size(const std::string& path_for_messages) const;

 private:
  int fd_ = -1;
};

// Reads exactly `size` bytes at `offset`. Throws FormatError ("truncated")
// when the file ends first, IoError when the read fails.
DEVCHECK_API void read_exact(int fd, std::uint64_t offset, void* dst, std::uint64_t size,
                             const std::string& path);
// Writes all of `size` bytes at the current position. Throws IoError.
DEVCHECK_API void write_all(int fd, const void* data, std::uint64_t size, const std::string& path);

// Throws the FormatError of a checkpoint archive that is short or corrupt:
// "cannot read '<path>': <problem>; expected a torch.save or TorchScript zip
// archive", with the fix.
[[noreturn]] void throw_bad_archive(const std::string& path, const std::string& problem);

}  // namespace devcheck::detail
