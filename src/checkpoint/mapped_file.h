#pragma once
// Host memory for loaded storages: a file's own bytes (a private,
// copy-on-write mapping of a range, read in before it is returned, one
// storage's or a run of consecutive storages' whose pages each storage frees
// as it goes), used for large uncompressed records so that a load costs no
// fresh memory and no copy; and fresh memory on huge pages for the bytes that
// must be copied.

#include <c10/core/Allocator.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace devcheck::detail {

/// Maps `size` bytes at `offset` of the open file `fd` privately and reads
/// them into the page cache and the page tables (MADV_POPULATE_READ), so that
/// using the memory later needs no disk access. The returned CPU DataPtr points
/// at the byte at `offset` (its alignment is offset's within a page) and owns
/// the mapping: it outlives `fd`, the file's removal and its replacement by a
/// rename. The memory is writable; writes stay in this process (the kernel
/// copies a page on its first write) and never reach the file. Changing the
/// file in place (truncating it or writing into it) while the memory lives
/// changes what unwritten pages read, and truncation makes them fault
/// (SIGBUS), as with any file mapping.
///
/// Returns an empty DataPtr (get() == nullptr) when the range cannot be mapped
/// or read that way: size 0, a kernel without MADV_POPULATE_READ (before
/// Linux 5.14), a range past the end of the file, an I/O error. Callers then
/// read a copy, whose errors name the file. Never throws. Thread-safe.
c10::DataPtr map_file_range(int fd, std::uint64_t offset, std::uint64_t size);

/// One mapping, as map_file_range makes, of a range holding several storages'
/// bytes, read in with one call, from which each storage is cut as its own
/// DataPtr (slice). The pages are shared, not copied: a page is unmapped once
/// no slice holds it (pages of no slice once seal() is called), so each
/// storage's memory goes when that storage goes, as with a mapping of its own.
/// Reading many consecutive records this way costs one populate instead of one
/// per record, and lets the kernel map whole 2 MiB folios. Thread-safe.
class MappedSpan : public std::enable_shared_from_this<MappedSpan> {
 public:
  /// Maps and reads in `size` bytes at `offset` of `fd`; nullptr where
  /// map_file_range would return an empty DataPtr. Never throws but bad_alloc.
  static std::shared_ptr<MappedSpan> map(int fd, std::uint64_t offset, std::uint64_t size);
  ~MappedSpan();
  MappedSpan(const MappedSpan&) = delete;
  MappedSpan& operator=(const MappedSpan&) = delete;

  /// The `size` bytes at file offset `offset` as a CPU DataPtr sharing this
  /// mapping; an empty DataPtr when the range is not inside the span, is
  /// empty, or the span is sealed.
  c10::DataPtr slice(std::uint64_t offset, std::uint64_t size);
  /// No more slices: unmaps every page that no slice holds.
  void seal();

  /// The deleter of every slice's DataPtr.
  static void release(void* ctx);
  /// The span a slice was cut from (slices of one span give the same
  /// pointer); nullptr for any other DataPtr.
  static const MappedSpan* span_of(const c10::DataPtr& ptr);

 private:
  MappedSpan(char* base, std::uint64_t file_start, std::uint64_t length);
  struct Slice;
  // Unmaps the runs of pages in [first, last] that no slice holds and are
  // still mapped. Caller holds mutex_.
  void unmap_free_pages(std::size_t first, std::size_t last);

  char* base_;
  std::uint64_t file_start_;  // the file offset of base_, a multiple of the page size
  std::uint64_t length_;
  std::mutex mutex_;
  std::vector<std::uint32_t> holders_;  // per page: slices holding it
  std::vector<bool> mapped_;            // per page: not yet unmapped
  bool sealed_ = false;
};

/// `nbytes` of fresh, writable host memory. From 2 MiB on, its own mapping,
/// aligned to 2 MiB and advised MADV_HUGEPAGE (a huge page takes one page fault
/// where 4 KiB pages take 512); where the kernel gives no huge pages it is
/// ordinary memory, and where mmap fails it comes from LibTorch's CPU
/// allocator. Throws what that allocator throws. Thread-safe.
c10::DataPtr allocate_host(std::size_t nbytes);

/// Whether `ptr` was made by map_file_range or MappedSpan::slice (its memory
/// is a file's pages).
bool is_file_mapping(const c10::DataPtr& ptr);

}  // namespace devcheck::detail
