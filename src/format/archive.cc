#include "format/archive.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include "devcheck/format/error.h"
#include "format/internal_assert.h"

namespace devcheck::impl {
namespace {

constexpr std::uint32_t kLocalSig = 0x04034b50;
constexpr std::uint32_t kCentralSig = 0x02014b50;
constexpr std::uint32_t kEndSig = 0x06054b50;
constexpr std::uint32_t kEnd64Sig = 0x06064b50;
constexpr std::uint32_t kEnd64LocatorSig = 0x07064b50;
constexpr std::uint64_t kMax32 = 0xFFFFFFFFu;
constexpr std::uint64_t kAlignment = 64;  // PyTorchStreamWriter's kFieldAlignment
constexpr std::uint64_t kPage = 4096;
// A copied record at least this large is placed at its source's page offset.
constexpr std::uint64_t kPageAlignedCopy = std::uint64_t{64} << 10;
constexpr std::uint16_t kDosDate1980 = (1 << 5) | 1;

std::uint16_t le16(const unsigned char* p) {
  return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}
std::uint32_t le32(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
         (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}
std::uint64_t le64(const unsigned char* p) {
  return static_cast<std::uint64_t>(le32(p)) | (static_cast<std::uint64_t>(le32(p + 4)) << 32);
}
void put16(std::string& out, std::uint64_t v) {
  out.push_back(static_cast<char>(v & 0xff));
  out.push_back(static_cast<char>((v >> 8) & 0xff));
}
void put32(std::string& out, std::uint64_t v) {
  put16(out, v & 0xffff);
  put16(out, (v >> 16) & 0xffff);
}
void put64(std::string& out, std::uint64_t v) {
  put32(out, v & kMax32);
  put32(out, v >> 32);
}

[[noreturn]] void bad_zip(const std::string& path, const std::string& problem) {
  throw format::FormatError(fmt::format(
      "[devcheck] cannot read '{}': {}; expected a torch.save or TorchScript zip archive. "
      "Fix: check that the file is complete (re-download or re-save it)",
      path, problem));
}

}  // namespace

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
    if (n == 0)
      bad_zip(path, fmt::format("file is truncated (ends before byte {})", offset + size));
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

std::uint32_t crc32_of(const void* data, std::uint64_t size, std::uint32_t crc) {
  const auto* p = static_cast<const Bytef*>(data);
  while (size > 0) {
    const uInt chunk = static_cast<uInt>(std::min<std::uint64_t>(size, 1u << 30));
    crc = static_cast<std::uint32_t>(::crc32(crc, p, chunk));
    p += chunk;
    size -= chunk;
  }
  return crc;
}

bool is_safe_record_name(std::string_view name) {
  if (name.empty() || name.size() > 4096 || name.front() == '/') return false;
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t end = std::min(name.find('/', start), name.size());
    const std::string_view part = name.substr(start, end - start);
    // A trailing slash (directory entry) leaves one empty last part; that is fine.
    if (part.empty() && end != name.size()) return false;
    if (part == "." || part == "..") return false;
    start = end + 1;
  }
  return std::none_of(name.begin(), name.end(), [](char c) {
    return c == '\\' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
}

// ---------------------------------------------------------------------------- reader

ZipReader::ZipReader(int fd, std::uint64_t file_size, std::string path)
    : fd_(fd), file_size_(file_size), path_(std::move(path)) {
  parse_central_directory();
}

bool ZipReader::looks_like_zip(int fd, std::uint64_t file_size) {
  if (file_size < 22) return false;
  unsigned char head[4];
  if (::pread(fd, head, 4, 0) != 4) return false;
  const std::uint32_t sig = le32(head);
  return sig == kLocalSig || sig == kEndSig;
}

void ZipReader::parse_central_directory() {
  if (file_size_ == 0) bad_zip(path_, "file is empty");
  if (file_size_ < 22) bad_zip(path_, fmt::format("file is too small ({} bytes)", file_size_));
  // The end-of-central-directory record sits in the last 22 + 65535 bytes.
  const std::uint64_t tail_size = std::min<std::uint64_t>(file_size_, 22 + 65535);
  std::string tail(tail_size, '\0');
  read_exact(fd_, file_size_ - tail_size, tail.data(), tail_size, path_);
  const auto* t = reinterpret_cast<const unsigned char*>(tail.data());
  std::int64_t eocd = -1;
  for (std::int64_t i = static_cast<std::int64_t>(tail_size) - 22; i >= 0; --i) {
    if (le32(t + i) == kEndSig &&
        static_cast<std::uint64_t>(i) + 22 + le16(t + i + 20) <= tail_size) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) bad_zip(path_, "no zip end-of-central-directory record (not a zip, or truncated)");
  const unsigned char* e = t + eocd;
  const std::uint64_t eocd_pos = file_size_ - tail_size + static_cast<std::uint64_t>(eocd);
  if (le16(e + 4) != 0 || le16(e + 6) != 0)
    bad_zip(path_, "multi-disk zip archives are not supported");
  std::uint64_t count = le16(e + 10);
  std::uint64_t cd_size = le32(e + 12);
  std::uint64_t cd_offset = le32(e + 16);
  std::uint64_t cd_end_limit = eocd_pos;
  if (eocd_pos >= 20) {
    unsigned char loc[20];
    read_exact(fd_, eocd_pos - 20, loc, 20, path_);
    if (le32(loc) == kEnd64LocatorSig) {
      const std::uint64_t end64_pos = le64(loc + 8);
      if (end64_pos > eocd_pos - 20 || eocd_pos - 20 - end64_pos < 56) {
        bad_zip(path_, "zip64 end record points outside the file");
      }
      unsigned char e64[56];
      read_exact(fd_, end64_pos, e64, 56, path_);
      if (le32(e64) != kEnd64Sig) bad_zip(path_, "zip64 end record has a bad signature");
      count = le64(e64 + 32);
      cd_size = le64(e64 + 40);
      cd_offset = le64(e64 + 48);
      cd_end_limit = end64_pos;
    }
  }
  if (cd_offset > cd_end_limit || cd_size > cd_end_limit - cd_offset) {
    bad_zip(path_, "central directory lies outside the file (truncated?)");
  }
  if (count > cd_size / 46) bad_zip(path_, "central directory holds fewer entries than it claims");
  cd_offset_ = cd_offset;
  std::string cd(cd_size, '\0');
  read_exact(fd_, cd_offset, cd.data(), cd_size, path_);
  const auto* c = reinterpret_cast<const unsigned char*>(cd.data());
  std::uint64_t pos = 0;
  records_.reserve(count);
  for (std::uint64_t n = 0; n < count; ++n) {
    if (cd_size - pos < 46 || le32(c + pos) != kCentralSig) {
      bad_zip(path_, fmt::format("central directory entry {} is corrupt", n));
    }
    const unsigned char* h = c + pos;
    ZipRecord r;
    r.flags = le16(h + 8);
    r.method = le16(h + 10);
    r.crc32 = le32(h + 16);
    r.compressed_size = le32(h + 20);
    r.size = le32(h + 24);
    const std::uint64_t name_len = le16(h + 28);
    const std::uint64_t extra_len = le16(h + 30);
    const std::uint64_t comment_len = le16(h + 32);
    r.local_header_offset = le32(h + 42);
    if (cd_size - pos - 46 < name_len + extra_len + comment_len) {
      bad_zip(path_, fmt::format("central directory entry {} runs past its end", n));
    }
    r.name.assign(reinterpret_cast<const char*>(h + 46), name_len);
    // The zip64 extra field holds the 64-bit values of the fields set to 0xFFFFFFFF.
    const unsigned char* x = h + 46 + name_len;
    std::uint64_t xpos = 0;
    while (xpos + 4 <= extra_len) {
      const std::uint16_t id = le16(x + xpos);
      const std::uint16_t len = le16(x + xpos + 2);
      if (xpos + 4 + len > extra_len) break;
      if (id == 0x0001) {
        const unsigned char* z = x + xpos + 4;
        std::uint64_t zpos = 0;
        auto take = [&](std::uint64_t& field) {
          if (field != kMax32) return;
          if (zpos + 8 > len)
            bad_zip(path_, fmt::format("record '{}' has a short zip64 field", r.name));
          field = le64(z + zpos);
          zpos += 8;
        };
        take(r.size);
        take(r.compressed_size);
        take(r.local_header_offset);
      }
      xpos += 4 + len;
    }
    if (!is_safe_record_name(r.name)) {
      throw format::UnsafeContentError(fmt::format(
          "[devcheck] refusing '{}': record name '{}' would escape the archive (absolute path, "
          "'..' or control characters); a checkpoint never contains such names",
          path_, r.name));
    }
    if (r.flags & 1) bad_zip(path_, fmt::format("record '{}' is encrypted", r.name));
    if (r.local_header_offset >= cd_offset || r.compressed_size > cd_offset) {
      bad_zip(path_, fmt::format("record '{}' lies outside the file (truncated?)", r.name));
    }
    if (!index_.emplace(r.name, records_.size()).second) {
      bad_zip(path_, fmt::format("record '{}' appears twice", r.name));
    }
    records_.push_back(std::move(r));
    pos += 46 + name_len + extra_len + comment_len;
  }
  header_offsets_.reserve(records_.size());
  for (const ZipRecord& r : records_) header_offsets_.push_back(r.local_header_offset);
  std::sort(header_offsets_.begin(), header_offsets_.end());
}

std::uint64_t ZipReader::record_end(const ZipRecord& record) const {
  const auto next =
      std::upper_bound(header_offsets_.begin(), header_offsets_.end(), record.local_header_offset);
  return next == header_offsets_.end() ? cd_offset_ : *next;
}

const ZipRecord* ZipReader::find(std::string_view name) const {
  const auto it = index_.find(std::string(name));
  return it == index_.end() ? nullptr : &records_[it->second];
}

std::uint64_t ZipReader::data_offset(const ZipRecord& record) const {
  unsigned char h[30];
  if (record.local_header_offset > cd_offset_ || cd_offset_ - record.local_header_offset < 30) {
    bad_zip(path_, fmt::format("record '{}' has no room for its header", record.name));
  }
  read_exact(fd_, record.local_header_offset, h, 30, path_);
  if (le32(h) != kLocalSig) {
    bad_zip(path_, fmt::format("record '{}' has a corrupt local header", record.name));
  }
  const std::uint64_t start = record.local_header_offset + 30 + le16(h + 26) + le16(h + 28);
  if (start > cd_offset_ || cd_offset_ - start < record.compressed_size) {
    bad_zip(path_, fmt::format("record '{}' ({} bytes) runs past the end of the data (truncated?)",
                               record.name, record.compressed_size));
  }
  return start;
}

bool ZipReader::local_header_matches(const ZipRecord& record) const {
  if (record.local_header_offset > cd_offset_ ||
      cd_offset_ - record.local_header_offset < 30 + record.name.size()) {
    return false;
  }
  std::string h(30 + record.name.size(), '\0');
  read_exact(fd_, record.local_header_offset, h.data(), h.size(), path_);
  const auto* b = reinterpret_cast<const unsigned char*>(h.data());
  if (le32(b) != kLocalSig || le16(b + 6) != record.flags || le16(b + 8) != record.method ||
      le16(b + 26) != record.name.size() || h.compare(30, record.name.size(), record.name) != 0) {
    return false;
  }
  if ((record.flags & 0x8) != 0) return true;  // CRC and sizes are in a data descriptor
  const std::uint32_t csize = le32(b + 18);
  const std::uint32_t size = le32(b + 22);
  return le32(b + 14) == record.crc32 && (csize == kMax32 || csize == record.compressed_size) &&
         (size == kMax32 || size == record.size);
}

std::string ZipReader::read(const ZipRecord& record, std::uint64_t max_size) const {
  if (record.size > max_size) {
    bad_zip(path_, fmt::format("record '{}' is {} bytes, more than the {} allowed", record.name,
                               record.size, max_size));
  }
  std::string out(record.size, '\0');
  read_into(record, out.data(), /*check_crc=*/true);
  return out;
}

void ZipReader::read_into(const ZipRecord& record, void* dst, bool check_crc) const {
  const std::uint64_t start = data_offset(record);
  if (record.method == 0) {
    if (record.compressed_size != record.size) {
      bad_zip(path_, fmt::format("stored record '{}' has two different sizes", record.name));
    }
    read_exact(fd_, start, dst, record.size, path_);
  } else if (record.method == 8) {
    if (record.compressed_size > (std::uint64_t{1} << 32)) {
      bad_zip(path_, fmt::format("compressed record '{}' is too large", record.name));
    }
    std::string packed(record.compressed_size, '\0');
    read_exact(fd_, start, packed.data(), packed.size(), path_);
    z_stream zs{};
    if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) bad_zip(path_, "zlib failed to initialize");
    zs.next_in = reinterpret_cast<Bytef*>(packed.data());
    zs.avail_in = static_cast<uInt>(packed.size());
    auto* out = static_cast<Bytef*>(dst);
    std::uint64_t left = record.size;
    int rc = Z_OK;
    while (rc == Z_OK) {
      const uInt chunk = static_cast<uInt>(std::min<std::uint64_t>(left, 1u << 30));
      zs.next_out = out;
      zs.avail_out = chunk;
      rc = inflate(&zs, Z_FINISH);
      const uInt produced = chunk - zs.avail_out;
      out += produced;
      left -= produced;
      if (rc == Z_BUF_ERROR && left > 0 && produced > 0) rc = Z_OK;
    }
    inflateEnd(&zs);
    if (rc != Z_STREAM_END || left != 0) {
      bad_zip(path_, fmt::format("compressed record '{}' is corrupt", record.name));
    }
  } else {
    bad_zip(path_, fmt::format("record '{}' uses compression method {}, which is not supported",
                               record.name, record.method));
  }
  if (check_crc && crc32_of(dst, record.size) != record.crc32) {
    bad_zip(path_, fmt::format("record '{}' fails its CRC-32 check (corrupt)", record.name));
  }
}

// ---------------------------------------------------------------------------- writer

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

}  // namespace devcheck::impl
