// map_file_range and MappedSpan: ranges of a file as private, owned, read-in memory.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <c10/core/CPUAllocator.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

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

// Whether every page of [data, data + size) is mapped in this process
// (mincore fails with ENOMEM on a range with unmapped pages).
bool pages_mapped(const void* data, std::size_t size) {
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(data) / page * page;
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + size + page - 1) / page * page;
  std::vector<unsigned char> in((end - begin) / page);
  // NOLINTNEXTLINE(performance-no-int-to-ptr): an address range, not an object
  return ::mincore(reinterpret_cast<void*>(begin), end - begin, in.data()) == 0;
}

TEST(MappedSpan, SlicesShareTheMappingAndEachFreesItsOwnPages) {
  TempDir dir;
  const std::string bytes = pattern(8 * kMiB, 7);
  write_file(dir / "data.bin", bytes);
  ReadFd fd(dir / "data.bin");
  // Three records as torch.save lays them out: headers between, data 64-byte
  // aligned, neighbours sharing the page where one ends and the next begins.
  const std::uint64_t a = 4096 + 64;
  const std::uint64_t b = a + 2 * kMiB + 128;
  const std::uint64_t c = b + kMiB + 192;
  const auto span = MappedSpan::map(fd.get(), 4096, 6 * kMiB);
  ASSERT_NE(span, nullptr);
  c10::DataPtr first = span->slice(a, 2 * kMiB);
  c10::DataPtr second = span->slice(b, kMiB);
  c10::DataPtr third = span->slice(c, kMiB);
  ASSERT_NE(first.get(), nullptr);
  ASSERT_NE(second.get(), nullptr);
  ASSERT_NE(third.get(), nullptr);
  EXPECT_EQ(span->slice(4096 + 6 * kMiB - 10, 11).get(), nullptr);  // past the span
  EXPECT_EQ(span->slice(0, 10).get(), nullptr);                     // before it
  span->seal();
  EXPECT_EQ(span->slice(a, 10).get(), nullptr);  // sealed
  EXPECT_TRUE(is_file_mapping(first));
  EXPECT_EQ(bytes_of(first, 2 * kMiB), bytes.substr(a, 2 * kMiB));
  EXPECT_EQ(bytes_of(second, kMiB), bytes.substr(b, kMiB));
  EXPECT_EQ(bytes_of(third, kMiB), bytes.substr(c, kMiB));
  // Bytes of no slice after the third one are unmapped at seal().
  const char* end_of_third = static_cast<const char*>(third.get()) + kMiB;
  EXPECT_FALSE(pages_mapped(end_of_third + 8192, 4096));
  // Writes stay in their slice and this process.
  static_cast<char*>(second.get())[0] = 'x';
  EXPECT_EQ(bytes_of(first, 2 * kMiB), bytes.substr(a, 2 * kMiB));
  EXPECT_EQ(read_file(dir / "data.bin"), bytes);

  // Freeing the middle slice unmaps its own pages, not the ones it shares.
  const char* middle = static_cast<const char*>(second.get());
  second.clear();
  EXPECT_FALSE(pages_mapped(middle + 8192, kMiB - 16384));
  EXPECT_EQ(bytes_of(first, 2 * kMiB), bytes.substr(a, 2 * kMiB));
  EXPECT_EQ(bytes_of(third, kMiB), bytes.substr(c, kMiB));
  const char* start = static_cast<const char*>(first.get());
  first.clear();
  EXPECT_FALSE(pages_mapped(start, 1));
  EXPECT_FALSE(pages_mapped(start + 2 * kMiB - 1, 1));  // shared with the freed middle one
  EXPECT_EQ(bytes_of(third, kMiB), bytes.substr(c, kMiB));
  const char* last = static_cast<const char*>(third.get());
  third.clear();
  EXPECT_FALSE(pages_mapped(last, 1));
  EXPECT_FALSE(pages_mapped(last + kMiB - 1, 1));
}

TEST(MappedSpan, ASpanWithNoSlicesLeftUnmapsEverythingWhenItGoes) {
  TempDir dir;
  write_file(dir / "data.bin", pattern(4 * kMiB, 8));
  ReadFd fd(dir / "data.bin");
  c10::DataPtr held(nullptr, c10::Device(c10::kCPU));
  const char* base = nullptr;
  {
    const auto span = MappedSpan::map(fd.get(), 0, 4 * kMiB);
    ASSERT_NE(span, nullptr);
    held = span->slice(kMiB, kMiB);
    base = static_cast<const char*>(held.get()) - kMiB;
    // Not sealed: the pages of no slice stay until the span goes.
    EXPECT_TRUE(pages_mapped(base, 4 * kMiB));
  }
  EXPECT_TRUE(pages_mapped(held.get(), kMiB));  // the slice keeps the span
  held.clear();
  EXPECT_FALSE(pages_mapped(base, 4096));
  EXPECT_FALSE(pages_mapped(base + kMiB, kMiB));
  EXPECT_FALSE(pages_mapped(base + 3 * kMiB, kMiB));
  EXPECT_EQ(MappedSpan::map(fd.get(), 2 * kMiB, 4 * kMiB), nullptr);  // past the end of the file
  EXPECT_EQ(MappedSpan::map(fd.get(), 0, 0), nullptr);
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
