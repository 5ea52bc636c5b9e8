#include "format/file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "devcheck/format/error.h"

namespace devcheck::detail {

File::~File() {
  if (fd_ >= 0) ::close(fd_);
}

File& File::operator=(File&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

File File::open_read(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw format::IoError(
        fmt::format("[devcheck] cannot open '{}': {}. Fix: check the path and its "
                    "permissions",
                    path, std::strerror(errno)));
  }
  File file(fd);
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    throw format::IoError(
        fmt::format("[devcheck] cannot read '{}': it is a directory, expected a "
                    "checkpoint file",
                    path));
  }
  return file;
}

std::uint64_t File::size(const std::string& path) const {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    throw format::IoError(
        fmt::format("[devcheck] cannot stat '{}': {}", path, std::strerror(errno)));
  }
  return static_cast<std::uint64_t>(st.st_size);
}

void throw_bad_archive(const std::string& path, const std::string& problem) {
  throw format::FormatError(fmt::format(
      "[devcheck] cannot read '{}': {}; expected a torch.save or TorchScript zip archive. "
      "Fix: check that the file is complete (re-download or re-save it)",
      path, problem));
}

void read_exact(int fd, std::uint64_t offset, void* dst, std::uint64_t size,
                const std::string& path) {
  auto* out = static_cast<char*>(dst);
  while (size > 0) {
    const std::size_t chunk =
        static_cast<std::size_t>(std::min<std::uint64_t>(size, std::uint64_t{1} << 30));
    const ssize_t n = ::pread(fd, out, chunk, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw format::IoError(
          fmt::format("[devcheck] cannot read '{}': {}", path, std::strerror(errno)));
    }
    if (n == 0) {
      throw_bad_archive(path,
                        fmt::format("file is truncated (ends before byte {})", offset + size));
    }
    out += n;
    offset += static_cast<std::uint64_t>(n);
    size -= static_cast<std::uint64_t>(n);
  }
}

void write_all(int fd, const void* data, std::uint64_t size, const std::string& path) {
  const auto* in = static_cast<const char*>(data);
  while (size > 0) {
    const std::size_t chunk =
        static_cast<std::size_t>(std::min<std::uint64_t>(size, std::uint64_t{1} << 30));
    const ssize_t n = ::write(fd, in, chunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw format::IoError(
          fmt::format("[devcheck] cannot write '{}': {}. Fix: check free disk space "
                      "and permissions",
                      path, std::strerror(errno)));
    }
    in += n;
    size -= static_cast<std::uint64_t>(n);
  }
}

}  // namespace devcheck::detail
