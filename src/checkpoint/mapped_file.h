#pragma once
// Host memory for loaded storages, each block its own mapping: a file's own
// bytes (a private, copy-on-write mapping of a range, read in before it is
// returned), used for large uncompressed records so that a load costs no fresh
// memory and no copy; and fresh memory on huge pages for the bytes that must
// be copied.

#include <c10/core/Allocator.h>

#include <cstddef>
#include <cstdint>

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

/// `nbytes` of fresh, writable host memory. From 2 MiB on, its own mapping,
/// aligned to 2 MiB and advised MADV_HUGEPAGE (a huge page takes one page fault
/// where 4 KiB pages take 512); where the kernel gives no huge pages it is
/// ordinary memory, and where mmap fails it comes from LibTorch's CPU
/// allocator. Throws what that allocator throws. Thread-safe.
c10::DataPtr allocate_host(std::size_t nbytes);

/// Whether `ptr` was made by map_file_range (its memory is a file's pages).
bool is_file_mapping(const c10::DataPtr& ptr);

}  // namespace devcheck::detail
