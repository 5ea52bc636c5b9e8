// map_file_range: a range of a file as private, owned, read-in memory.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <c10/core/CPUAllocator.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>

#include "checkpoint/mapped_file.h"
#include "support/support.h"

namespace devcheck::detail {
namespace {

using devcheck::testing::read_file;
using devcheck::testing::TempDir;
using devcheck::testing::write_file;

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

// Bytes that differ from page to page and within a page.
std::string pattern(std::size_t size, unsigned seed) {
  std::string bytes(size, '\0');
  for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>(i * 7 + i / 4096 + seed);
  return bytes;
}

// A read-only descriptor, closed when the object dies.
class ReadFd {
 public:
  explicit ReadFd(const std::filesystem::path& path)
      : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~ReadFd() { close(); }
  ReadFd(const ReadFd&) = delete;
  ReadFd& operator=(const ReadFd&) = delete;
  int get() const { return fd_; }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

std::string bytes_of(const c10::DataPtr& ptr, std::uint64_t size) {
  return std::string(static_cast<const char*>(ptr.get()), size);
}

TEST(MapFileRange, GivesTheBytesAtAnOffsetInsideAPage) {
  TempDir dir;
  const std::string bytes = pattern(3 * kMiB, 1);
  write_file(dir / "data.bin", bytes);
  ReadFd fd(dir / "data.bin");
  ASSERT_GE(fd.get(), 0);
  const c10::DataPtr ptr = map_file_range(fd.get(), 4096 + 64, kMiB + 3);
  ASSERT_NE(ptr.get(), nullptr);
  EXPECT_TRUE(is_file_mapping(ptr));
  EXPECT_TRUE(ptr.device().is_cpu());
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(ptr.get()) % 4096, 64U);
  EXPECT_EQ(bytes_of(ptr, kMiB + 3), bytes.substr(4096 + 64, kMiB + 3));
}

TEST(MapFileRange, OutlivesTheDescriptorAndTheFilesReplacementAndRemoval) {
  TempDir dir;
  const std::string bytes = pattern(2 * kMiB, 2);
  write_file(dir / "data.bin", bytes);
  ReadFd fd(dir / "data.bin");
  const c10::DataPtr ptr = map_file_range(fd.get(), 0, 2 * kMiB);
  ASSERT_NE(ptr.get(), nullptr);
  fd.close();
  // Replaced the way devcheck and most tools write a file: a new one renamed over it.
  write_file(dir / "new.bin", pattern(2 * kMiB, 3));
  std::filesystem::rename(dir / "new.bin", dir / "data.bin");
  EXPECT_EQ(bytes_of(ptr, 2 * kMiB), bytes);
  std::filesystem::remove(dir / "data.bin");
  EXPECT_EQ(bytes_of(ptr, 2 * kMiB), bytes);
}

TEST(MapFileRange, WritesStayInTheProcessAndNeverReachTheFile) {
  TempDir dir;
  const std::string bytes = pattern(2 * kMiB, 4);
  write_file(dir / "data.bin", bytes);
  ReadFd fd(dir / "data.bin");
  const c10::DataPtr written = map_file_range(fd.get(), 128, kMiB);
  ASSERT_NE(written.get(), nullptr);
  std::memset(written.get(), 'x', kMiB);
  EXPECT_EQ(bytes_of(written, kMiB), std::string(kMiB, 'x'));
  EXPECT_EQ(read_file(dir / "data.bin"), bytes);
  const c10::DataPtr again = map_file_range(fd.get(), 128, kMiB);
  ASSERT_NE(again.get(), nullptr);
  EXPECT_EQ(bytes_of(again, kMiB), bytes.substr(128, kMiB));
}

// Whole 2 MiB spans of the file may be mapped with one entry each: a write
// into one still changes only the written bytes, and only in this process.
TEST(MapFileRange, AWriteIntoAHugeSpanChangesOnlyTheBytesWritten) {
  TempDir dir;
  const std::string bytes = pattern(8 * kMiB, 6);
  write_file(dir / "data.bin", bytes);
  ReadFd fd(dir / "data.bin");
  const c10::DataPtr ptr = map_file_range(fd.get(), 2 * kMiB, 4 * kMiB);
  ASSERT_NE(ptr.get(), nullptr);
  auto* data = static_cast<char*>(ptr.get());
  const std::uint64_t at = kMiB + 12345;
  data[at] = static_cast<char>(~bytes[2 * kMiB + at]);
  std::string expected = bytes.substr(2 * kMiB, 4 * kMiB);
  expected[at] = data[at];
  EXPECT_EQ(bytes_of(ptr, 4 * kMiB), expected);
  EXPECT_EQ(read_file(dir / "data.bin"), bytes);
  const c10::DataPtr again = map_file_range(fd.get(), 2 * kMiB, 4 * kMiB);
  ASSERT_NE(again.get(), nullptr);
  EXPECT_EQ(bytes_of(again, 4 * kMiB), bytes.substr(2 * kMiB, 4 * kMiB));
}

TEST(MapFileRange, ARangePastTheEndOfTheFileIsNotMapped) {
  TempDir dir;
  write_file(dir / "short.bin", pattern(10000, 5));
  ReadFd fd(dir / "short.bin");
  const c10::DataPtr past = map_file_range(fd.get(), 8192, kMiB);
  EXPECT_EQ(past.get(), nullptr);
  EXPECT_FALSE(is_file_mapping(past));
  EXPECT_EQ(map_file_range(fd.get(), 0, 0).get(), nullptr);
  EXPECT_EQ(map_file_range(-1, 0, kMiB).get(), nullptr);
}

TEST(MapFileRange, OrdinaryAllocationsAreNotFileMappings) {
  const c10::DataPtr ptr = c10::GetCPUAllocator()->allocate(kMiB);
  EXPECT_FALSE(is_file_mapping(ptr));
}

TEST(AllocateHost, LargeBlocksAreWritableAndStartOnAHugePage) {
  const c10::DataPtr large = allocate_host(3 * kMiB + 5);
  ASSERT_NE(large.get(), nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(large.get()) % (2 * kMiB), 0U);
  EXPECT_FALSE(is_file_mapping(large));
  std::memset(large.get(), 7, 3 * kMiB + 5);
  EXPECT_EQ(static_cast<const char*>(large.get())[3 * kMiB + 4], 7);
  const c10::DataPtr small = allocate_host(100);
  ASSERT_NE(small.get(), nullptr);
  std::memset(small.get(), 1, 100);
  EXPECT_FALSE(is_file_mapping(small));
}

}  // namespace
}  // namespace devcheck::detail
