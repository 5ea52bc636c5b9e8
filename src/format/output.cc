#include "format/output.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "devcheck/format/error.h"

namespace devcheck::detail {

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {
  }, sb{};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

AtomicOutput::AtomicOutput(std::string path, bool overwrite)
    : path_(std::move(path)), overwrite_(overwrite) {
  struct stat st {};
  if (!overwrite_ && ::lstat(path_.c_str(), &st) == 0) {
    throw format::IoError(
        fmt::format("[devcheck] refusing to overwrite '{}': it exists. Fix: choose "
                    "another output path, or allow it with RemapOptions::force",
                    path_));
  }
  if (::stat(path_.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    throw format::IoError(fmt::format("[devcheck] cannot write '{}': it is a directory", path_));
  }
  temp_ = path_ + ".devcheck-tmp-XXXXXX";
  std::vector<char> name(temp_.begin(), temp_.end());
  name.push_back('\0');
  fd_ = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd_ < 0) {
    throw format::IoError(
        fmt::format("[devcheck] cannot write '{}': {}. Fix: check that its folder "
                    "exists and is writable",
                    path_, std::strerror(errno)));
  }
  temp_.assign(name.data());
  ::fchmod(fd_, 0644);
}

AtomicOutput::~AtomicOutput() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temp_.c_str());
}

void AtomicOutput::truncate() {
  if (::ftruncate(fd_, 0) != 0 || ::lseek(fd_, 0, SEEK_SET) != 0) {
    throw format::IoError(
        fmt::format("[devcheck] cannot write '{}': {}", path_, std::strerror(errno)));
  }
}

void AtomicOutput::commit() {
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    throw format::IoError(
        fmt::format("[devcheck] cannot write '{}': {}", path_, std::strerror(errno)));
  }
  int rc = 0;
  if (overwrite_) {
    rc = ::rename(temp_.c_str(), path_.c_str());
  } else {
    rc = ::renameat2(AT_FDCWD, temp_.c_str(), AT_FDCWD, path_.c_str(), RENAME_NOREPLACE);
    if (rc != 0 && (errno == EINVAL || errno == ENOSYS)) {
      // File systems without RENAME_NOREPLACE: link() also refuses an existing target.
      rc = ::link(temp_.c_str(), path_.c_str());
      if (rc == 0) ::unlink(temp_.c_str());
    }
  }
  if (rc != 0) {
    const int err = errno;
    throw format::IoError(fmt::format(
        "[devcheck] cannot create '{}': {}{}", path_, std::strerror(err),
        err == EEXIST ? ". Fix: choose another output path, or allow it with RemapOptions::force"
                      : ""));
  }
  committed_ = true;
}

}  // namespace devcheck::detail
