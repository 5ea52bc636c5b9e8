#include "format/zip_writer.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "devcheck/format/error.h"
#include "format/file.h"
#include "format/internal_assert.h"

namespace devcheck::detail {
namespace {

using zip::kCentralSig;
using zip::kEnd64LocatorSig;
using zip::kEnd64Sig;
using zip::kEndSig;
using zip::kLocalSig;
using zip::kMax32;
using zip::put16;
using zip::put32;
using zip::put64;

constexpr std::uint64_t kAlignment = 64;  // PyTorchStreamWriter's kFieldAlignment
constexpr std::uint64_t kPage = 4096;
// A copied record at least this large is placed at its source's page offset.
constexpr std::uint64_t kPageAlignedCopy = std::uint64_t{64} << 10;
constexpr std::uint16_t kDosDate1980 = (1 << 5) | 1;

}  // namespace

ZipWriter::ZipWriter(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}

void ZipWriter::put(const void* data, std::uint64_t size) {
  write_all(fd_, data, size, path_);
  offset_ += size;
}

void ZipWriter::write_local_header(const ZipRecord& r,
                                   std::optional<std::uint64_t> page_offset_of) {
  DEVCHECK_INTERNAL_ASSERT(!finished_ && pending_ == 0, "ZipWriter: record started out of order");
  const bool zip64 = force_zip64_ || r.size >= kMax32 || r.compressed_size >= kMax32;
  std::string h;
  put32(h, kLocalSig);
  put16(h, zip64 ? 45 : 20);
  put16(h, 0);
  put16(h, r.method);
  put16(h, 0);
  put16(h, kDosDate1980);
  put32(h, r.crc32);
  put32(h, zip64 ? kMax32 : r.compressed_size);
  put32(h, zip64 ? kMax32 : r.size);
  put16(h, r.name.size());
  std::string extra;
  if (zip64) {
    put16(extra, 0x0001);
    put16(extra, 16);
    put64(extra, r.size);
    put64(extra, r.compressed_size);
  }
  // "FB" padding so that the data starts on a 64-byte boundary, as PyTorch writes it,
  // or at the page offset it has in the file it is copied from.
  const std::uint64_t start = offset_ + 30 + r.name.size() + extra.size() + 4;
  const std::uint64_t padding = page_offset_of
                                    ? (*page_offset_of % kPage + kPage - start % kPage) % kPage
                                    : (kAlignment - start % kAlignment) % kAlignment;
  extra += "FB";
  put16(extra, padding);
  extra.append(padding, 'Z');
  put16(h, extra.size());
  h += r.name;
  h += extra;
  put(h.data(), h.size());
}

void ZipWriter::add(const std::string& name, const void* data, std::uint64_t size) {
  begin_record(name, size, crc32_of(data, size));
  write_data(data, size);
}

void ZipWriter::begin_record(const std::string& name, std::uint64_t size, std::uint32_t crc) {
  ZipRecord r;
  r.name = name;
  r.crc32 = crc;
  r.size = r.compressed_size = size;
  r.local_header_offset = offset_;
  write_local_header(r);
  entries_.push_back(std::move(r));
  pending_ = size;
}

void ZipWriter::write_data(const void* data, std::uint64_t size) {
  DEVCHECK_INTERNAL_ASSERT(size <= pending_, "ZipWriter: more data than the record declared");
  put(data, size);
  pending_ -= size;
}

void ZipWriter::copy_data(int src_fd, std::uint64_t offset, std::uint64_t size) {
  DEVCHECK_INTERNAL_ASSERT(size <= pending_, "ZipWriter: more data than the record declared");
  copy_bytes(src_fd, offset, size);
  pending_ -= size;
}

void ZipWriter::copy_bytes(int src_fd, std::uint64_t offset, std::uint64_t size) {
  auto in_off = static_cast<loff_t>(offset);
  std::uint64_t left = size;
  bool kernel_copy = true;
  while (left > 0 && kernel_copy) {
    const ssize_t n =
        ::copy_file_range(src_fd, &in_off, fd_, nullptr,
                          static_cast<std::size_t>(std::min<std::uint64_t>(left, 1u << 30)), 0);
    if (n > 0) {
      left -= static_cast<std::uint64_t>(n);
      offset_ += static_cast<std::uint64_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EXDEV && errno != ENOSYS && errno != EOPNOTSUPP && errno != EINVAL) {
      throw format::IoError(
          fmt::format("[devcheck] cannot write '{}': {}. Fix: check free disk space", path_,
                      std::strerror(errno)));
    }
    if (n == 0) {  // the source ended early
      throw format::IoError(
          fmt::format("[devcheck] cannot write '{}': its source ended early", path_));
    }
    kernel_copy = false;  // fall back to read + write below
  }
  std::string buffer;
  while (left > 0) {
    const std::uint64_t chunk = std::min<std::uint64_t>(left, 8u << 20);
    buffer.resize(chunk);
    read_exact(src_fd, static_cast<std::uint64_t>(in_off), buffer.data(), chunk, path_);
    put(buffer.data(), chunk);
    in_off += static_cast<loff_t>(chunk);
    left -= chunk;
  }
}

void ZipWriter::add_span(const ZipReader& reader, const std::vector<const ZipRecord*>& records,
                         std::uint64_t end) {
  DEVCHECK_INTERNAL_ASSERT(!finished_ && pending_ == 0 && !records.empty(),
                           "ZipWriter: span added out of order");
  const std::uint64_t begin = records.front()->local_header_offset;
  DEVCHECK_INTERNAL_ASSERT(begin <= end, "ZipWriter: span ends before it begins");
  const std::uint64_t out_begin = offset_;
  copy_bytes(reader.fd(), begin, end - begin);
  for (const ZipRecord* r : records) {
    ZipRecord e = *r;  // flags too: a data descriptor after the data came along
    e.local_header_offset = r->local_header_offset - begin + out_begin;
    entries_.push_back(std::move(e));
  }
}

void ZipWriter::add_ending_at(const std::string& name, std::string_view bytes,
                              std::uint64_t end_page_offset) {
  ZipRecord r;
  r.name = name;
  r.crc32 = crc32_of(bytes.data(), bytes.size());
  r.size = r.compressed_size = bytes.size();
  r.local_header_offset = offset_;
  write_local_header(r, (end_page_offset % kPage + kPage - bytes.size() % kPage) % kPage);
  entries_.push_back(std::move(r));
  pending_ = bytes.size();
  write_data(bytes.data(), bytes.size());
}

void ZipWriter::add_copy(const std::string& name, const ZipReader& reader,
                         const ZipRecord& record) {
  const std::uint64_t start = reader.data_offset(record);
  ZipRecord r = record;
  r.name = name;
  r.flags = 0;
  r.local_header_offset = offset_;
  // A large record keeps its source's offset within a page: the kernel then
  // copies whole pages, which is faster than a copy shifted within a page
  // (docs/checkpoint.md). Its source start is a multiple of 64 when PyTorch wrote it, so
  // the output keeps PyTorch's 64-byte alignment; otherwise it gets just that.
  std::optional<std::uint64_t> page_offset_of;
  if (r.compressed_size >= kPageAlignedCopy && start % kAlignment == 0) page_offset_of = start;
  write_local_header(r, page_offset_of);
  entries_.push_back(r);
  pending_ = r.compressed_size;
  copy_data(reader.fd(), start, r.compressed_size);
}

void ZipWriter::set_last_crc(std::uint32_t crc) {
  DEVCHECK_INTERNAL_ASSERT(!entries_.empty() && pending_ == 0, "ZipWriter: no finished record");
  entries_.back().crc32 = crc;
  std::string bytes;
  put32(bytes, crc);
  const auto at = static_cast<off_t>(entries_.back().local_header_offset + 14);
  if (::pwrite(fd_, bytes.data(), 4, at) != 4) {
    throw format::IoError(
        fmt::format("[devcheck] cannot write '{}': {}", path_, std::strerror(errno)));
  }
}

void ZipWriter::finish() {
  DEVCHECK_INTERNAL_ASSERT(!finished_ && pending_ == 0, "ZipWriter: finish() with a record open");
  finished_ = true;
  const std::uint64_t cd_offset = offset_;
  std::string cd;
  for (const auto& r : entries_) {
    std::string extra;
    const bool big_size = force_zip64_ || r.size >= kMax32;
    const bool big_csize = force_zip64_ || r.compressed_size >= kMax32;
    const bool big_offset = force_zip64_ || r.local_header_offset >= kMax32;
    if (big_size || big_csize || big_offset) {
      std::string z;
      if (big_size) put64(z, r.size);
      if (big_csize) put64(z, r.compressed_size);
      if (big_offset) put64(z, r.local_header_offset);
      put16(extra, 0x0001);
      put16(extra, z.size());
      extra += z;
    }
    put32(cd, kCentralSig);
    put16(cd, extra.empty() ? 20 : 45);
    put16(cd, extra.empty() ? 20 : 45);
    put16(cd, r.flags);  // 0 but for records copied with their own header (add_span)
    put16(cd, r.method);
    put16(cd, 0);
    put16(cd, kDosDate1980);
    put32(cd, r.crc32);
    put32(cd, big_csize ? kMax32 : r.compressed_size);
    put32(cd, big_size ? kMax32 : r.size);
    put16(cd, r.name.size());
    put16(cd, extra.size());
    put16(cd, 0);  // comment
    put16(cd, 0);  // disk
    put16(cd, 0);  // internal attributes
    put32(cd, 0);  // external attributes
    put32(cd, big_offset ? kMax32 : r.local_header_offset);
    cd += r.name;
    cd += extra;
  }
  const std::uint64_t cd_size = cd.size();
  const std::uint64_t count = entries_.size();
  const bool zip64 = force_zip64_ || count >= 0xFFFF || cd_size >= kMax32 || cd_offset >= kMax32;
  if (zip64) {
    const std::uint64_t end64_pos = cd_offset + cd_size;
    put32(cd, kEnd64Sig);
    put64(cd, 44);
    put16(cd, 45);
    put16(cd, 45);
    put32(cd, 0);
    put32(cd, 0);
    put64(cd, count);
    put64(cd, count);
    put64(cd, cd_size);
    put64(cd, cd_offset);
    put32(cd, kEnd64LocatorSig);
    put32(cd, 0);
    put64(cd, end64_pos);
    put32(cd, 1);
  }
  put32(cd, kEndSig);
  put16(cd, 0);
  put16(cd, 0);
  put16(cd, zip64 ? 0xFFFF : count);
  put16(cd, zip64 ? 0xFFFF : count);
  put32(cd, zip64 ? kMax32 : cd_size);
  put32(cd, zip64 ? kMax32 : cd_offset);
  put16(cd, 0);
  put(cd.data(), cd.size());
}

}  // namespace devcheck::detail
