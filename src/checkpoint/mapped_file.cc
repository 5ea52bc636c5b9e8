#include "checkpoint/mapped_file.h"

#include <sys/mman.h>
#include <unistd.h>

#include <c10/core/CPUAllocator.h>
#include <c10/core/Device.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>

// Linux 5.14's madvise advice; older libc headers lack the name.
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

namespace devcheck::detail {
namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;

struct Mapping {
  void* base;
  std::size_t length;
  bool file;  // a file's pages, not anonymous memory
};

void unmap(void* ctx) {
  auto* mapping = static_cast<Mapping*>(ctx);
  ::munmap(mapping->base, mapping->length);
  delete mapping;
}

c10::DataPtr own(void* data, void* base, std::size_t length, bool file) {
  return c10::DataPtr(data, new Mapping{base, length, file}, &unmap, c10::Device(c10::kCPU));
}

std::uint64_t page_size() {
  static const auto size = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

}  // namespace

c10::DataPtr map_file_range(int fd, std::uint64_t offset, std::uint64_t size) {
  const c10::Device cpu(c10::kCPU);
  if (size == 0) return c10::DataPtr(nullptr, cpu);
  const std::uint64_t start = offset / page_size() * page_size();
  const std::uint64_t length = offset - start + size;
  if (length < size || length > SIZE_MAX || start > static_cast<std::uint64_t>(INT64_MAX)) {
    return c10::DataPtr(nullptr, cpu);
  }
  void* base = ::mmap(nullptr, static_cast<std::size_t>(length), PROT_READ | PROT_WRITE,
                      MAP_PRIVATE, fd, static_cast<off_t>(start));
  if (base == MAP_FAILED) return c10::DataPtr(nullptr, cpu);
    // Reading the pages in now makes the load pay for the disk, not the first
    // use, and turns a file that ends early into EFAULT here instead of a SIGBUS
    // later. MAP_POPULATE would not do: on a writable private mapping it copies
    // every page (a write fault each), which is the cost this mapping avoids.
    // Advice only: where the file system keeps the file in 2 MiB folios in the
    // page cache (ext4 does on recent kernels), each is mapped with one entry
    // instead of 512, which makes populating and later use cheaper.
#ifdef MADV_HUGEPAGE
  ::madvise(base, static_cast<std::size_t>(length), MADV_HUGEPAGE);
#endif
  int rc = 0;
  do {
    rc = ::madvise(base, static_cast<std::size_t>(length), MADV_POPULATE_READ);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    ::munmap(base, static_cast<std::size_t>(length));
    return c10::DataPtr(nullptr, cpu);
  }
  auto* data = static_cast<char*>(base) + (offset - start);
  return own(data, base, static_cast<std::size_t>(length), /*file=*/true);
}

c10::DataPtr allocate_host(std::size_t nbytes) {
  if (nbytes < kHugePage) return c10::GetCPUAllocator()->allocate(nbytes);
  const std::size_t length = (nbytes + kHugePage - 1) / kHugePage * kHugePage;
  void* raw = ::mmap(nullptr, length + kHugePage, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return c10::GetCPUAllocator()->allocate(nbytes);
  // Keep only the aligned span: unmap the head before it and the tail after it.
  auto* base = static_cast<char*>(raw);
  const auto address = reinterpret_cast<std::uintptr_t>(raw);
  const std::size_t head = (kHugePage - address % kHugePage) % kHugePage;
  char* data = base + head;
  if (head > 0) ::munmap(base, head);
  ::munmap(data + length, kHugePage - head);  // head < kHugePage: a tail is always left
#ifdef MADV_HUGEPAGE
  ::madvise(data, length, MADV_HUGEPAGE);  // advice only: no huge pages is not an error
#endif
  return own(data, data, length, /*file=*/false);
}

bool is_file_mapping(const c10::DataPtr& ptr) {
  return ptr.get_deleter() == &unmap && static_cast<const Mapping*>(ptr.get_context())->file;
}

}  // namespace devcheck::detail
