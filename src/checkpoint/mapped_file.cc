#include "checkpoint/mapped_file.h"

#include <sys/mman.h>
#include <unistd.h>

#include <c10/core/CPUAllocator.h>
#include <c10/core/Device.h>

#include <algorithm>
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
};

void unmap(void* ctx) {
  auto* mapping = static_cast<Mapping*>(ctx);
  ::munmap(mapping->base, mapping->length);
  delete mapping;
}

c10::DataPtr own(void* data, void* base, std::size_t length) {
  return c10::DataPtr(data, new Mapping{base, length}, &unmap, c10::Device(c10::kCPU));
}

std::uint64_t page_size() {
  static const auto size = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

}  // namespace

std::shared_ptr<MappedSpan> MappedSpan::map(int fd, std::uint64_t offset, std::uint64_t size) {
  if (size == 0 || fd < 0) return nullptr;
  const std::uint64_t start = offset / page_size() * page_size();
  const std::uint64_t length = offset - start + size;
  if (length < size || length > SIZE_MAX || start > static_cast<std::uint64_t>(INT64_MAX)) {
    return nullptr;
  }
  void* base = ::mmap(nullptr, static_cast<std::size_t>(length), PROT_READ | PROT_WRITE,
                      MAP_PRIVATE, fd, static_cast<off_t>(start));
  if (base == MAP_FAILED) return nullptr;
#ifdef MADV_HUGEPAGE
  // Advice only: where the file system keeps the file in 2 MiB folios in the
  // page cache (ext4 does on recent kernels), each is mapped with one entry
  // instead of 512, which makes populating and later use cheaper.
  ::madvise(base, static_cast<std::size_t>(length), MADV_HUGEPAGE);
#endif
  // Reading the pages in now makes the load pay for the disk, not the first
  // use, and turns a file that ends early into EFAULT here instead of a SIGBUS
  // later. MAP_POPULATE would not do: on a writable private mapping it copies
  // every page (a write fault each), which is the cost this mapping avoids.
  int rc = 0;
  do {
    rc = ::madvise(base, static_cast<std::size_t>(length), MADV_POPULATE_READ);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    ::munmap(base, static_cast<std::size_t>(length));
    return nullptr;
  }
  return std::shared_ptr<MappedSpan>(new MappedSpan(static_cast<char*>(base), start, length));
}

MappedSpan::MappedSpan(char* base, std::uint64_t file_start, std::uint64_t length)
    : base_(base),
      file_start_(file_start),
      length_(length),
      holders_((length + page_size() - 1) / page_size(), 0),
      mapped_(holders_.size(), true) {}

MappedSpan::~MappedSpan() {
  // Every slice is gone (each holds this object): what is still mapped is
  // held by no one. Only pages still mapped are unmapped: a range unmapped
  // earlier may hold another mapping by now.
  if (!holders_.empty()) unmap_free_pages(0, holders_.size() - 1);
}

struct MappedSpan::Slice {
  std::shared_ptr<MappedSpan> span;
  std::size_t first_page;
  std::size_t last_page;
};

c10::DataPtr MappedSpan::slice(std::uint64_t offset, std::uint64_t size) {
  const c10::Device cpu(c10::kCPU);
  if (size == 0 || offset < file_start_ || offset - file_start_ > length_ ||
      length_ - (offset - file_start_) < size) {
    return c10::DataPtr(nullptr, cpu);
  }
  const std::uint64_t begin = offset - file_start_;
  auto ctx = std::make_unique<Slice>(
      Slice{shared_from_this(), static_cast<std::size_t>(begin / page_size()),
            static_cast<std::size_t>((begin + size - 1) / page_size())});
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (sealed_) return c10::DataPtr(nullptr, cpu);
    for (std::size_t p = ctx->first_page; p <= ctx->last_page; ++p) ++holders_[p];
  }
  return c10::DataPtr(base_ + begin, ctx.release(), &MappedSpan::release, cpu);
}

void MappedSpan::seal() {
  const std::lock_guard<std::mutex> lock(mutex_);
  sealed_ = true;
  if (!holders_.empty()) unmap_free_pages(0, holders_.size() - 1);
}

void MappedSpan::release(void* ctx) {
  std::unique_ptr<Slice> slice(static_cast<Slice*>(ctx));
  MappedSpan& span = *slice->span;
  {
    const std::lock_guard<std::mutex> lock(span.mutex_);
    for (std::size_t p = slice->first_page; p <= slice->last_page; ++p) --span.holders_[p];
    if (span.sealed_) span.unmap_free_pages(slice->first_page, slice->last_page);
  }
  // `slice` goes after the unlock: it may hold the last reference to the
  // span, and with it the mutex just released.
}

const MappedSpan* MappedSpan::span_of(const c10::DataPtr& ptr) {
  if (ptr.get_deleter() != &MappedSpan::release) return nullptr;
  return static_cast<const Slice*>(ptr.get_context())->span.get();
}

void MappedSpan::unmap_free_pages(std::size_t first, std::size_t last) {
  const auto page = static_cast<std::size_t>(page_size());
  std::size_t p = first;
  while (p <= last) {
    if (holders_[p] != 0 || !mapped_[p]) {
      ++p;
      continue;
    }
    std::size_t end = p;
    while (end + 1 <= last && holders_[end + 1] == 0 && mapped_[end + 1]) ++end;
    const std::size_t bytes =
        std::min<std::size_t>((end - p + 1) * page, static_cast<std::size_t>(length_) - p * page);
    ::munmap(base_ + p * page, bytes);
    for (std::size_t q = p; q <= end; ++q) mapped_[q] = false;
    p = end + 1;
  }
}

c10::DataPtr map_file_range(int fd, std::uint64_t offset, std::uint64_t size) {
  const std::shared_ptr<MappedSpan> span = MappedSpan::map(fd, offset, size);
  if (span == nullptr) return c10::DataPtr(nullptr, c10::Device(c10::kCPU));
  c10::DataPtr data = span->slice(offset, size);
  span->seal();
  return data;
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
  return own(data, data, length);
}

bool is_file_mapping(const c10::DataPtr& ptr) { return ptr.get_deleter() == &MappedSpan::release; }

}  // namespace devcheck::detail
