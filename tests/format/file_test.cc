// Checkpoint files at the system-call level: what a missing file, a
// directory, a short file and a full write each come to.
#include "format/file.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "devcheck/format/error.h"
#include "support/support.h"

using ::testing::HasSubstr;

namespace devcheck::detail {
namespace {

using devcheck::testing::read_file;
using devcheck::testing::TempDir;
using devcheck::testing::write_file;

TEST(File, MissingFileIsAnIoErrorNamingThePath) {
  TempDir dir;
  const std::string path = (dir / "missing.pt").string();
  try {
    File::open_read(path);
    FAIL() << "expected format::IoError";
  } catch (const format::IoError& e) {
    EXPECT_THAT(e.message(), HasSubstr("cannot open '" + path + "'"));
    EXPECT_THAT(e.message(), HasSubstr("No such file or directory"));
  }
}

TEST(File, DirectoryIsAnIoErrorSayingSo) {
  TempDir dir;
  try {
    File::open_read(dir.path().string());
    FAIL() << "expected format::IoError";
  } catch (const format::IoError& e) {
    EXPECT_THAT(e.message(), HasSubstr("'" + dir.path().string() + "': it is a directory"));
  }
}

TEST(File, OpensAFileAndKnowsItsSize) {
  TempDir dir;
  const std::string path = (dir / "f.bin").string();
  write_file(path, "0123456789");
  File f = File::open_read(path);
  EXPECT_GE(f.fd(), 0);
  EXPECT_EQ(f.size(path), 10U);
  File moved = std::move(f);
  EXPECT_EQ(f.fd(), -1);  // NOLINT(bugprone-use-after-move): the move leaves it empty
  EXPECT_EQ(moved.size(path), 10U);
}

TEST(ReadExact, ReadsTheRangeAndAShortFileIsTruncated) {
  TempDir dir;
  const std::string path = (dir / "f.bin").string();
  write_file(path, "0123456789");
  File f = File::open_read(path);
  std::string got(4, '\0');
  read_exact(f.fd(), 3, got.data(), got.size(), path);
  EXPECT_EQ(got, "3456");
  std::string past(8, '\0');
  try {
    read_exact(f.fd(), 6, past.data(), past.size(), path);
    FAIL() << "expected format::FormatError";
  } catch (const format::FormatError& e) {
    EXPECT_THAT(e.message(), HasSubstr("cannot read '" + path + "'"));
    EXPECT_THAT(e.message(), HasSubstr("file is truncated (ends before byte 14)"));
  }
}

TEST(WriteAll, WritesEveryByteAndAFailedWriteNamesThePath) {
  TempDir dir;
  const std::string path = (dir / "out.bin").string();
  const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  write_all(fd, "abc", 3, path);
  write_all(fd, "def", 3, path);
  ::close(fd);
  EXPECT_EQ(read_file(path), "abcdef");
  const int read_only = ::open(path.c_str(), O_RDONLY);
  try {
    write_all(read_only, "x", 1, path);
    FAIL() << "expected format::IoError";
  } catch (const format::IoError& e) {
    EXPECT_THAT(e.message(), HasSubstr("cannot write '" + path + "'"));
  }
  ::close(read_only);
}

}  // namespace
}  // namespace devcheck::detail
