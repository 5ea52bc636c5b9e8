#include "format/zip_reader.h"

#include <fmt/format.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>

#include "devcheck/format/error.h"
#include "format/file.h"

namespace devcheck::detail {

using zip::kCentralSig;
using zip::kEnd64LocatorSig;
using zip::kEnd64Sig;
using zip::kEndSig;
using zip::kLocalSig;
using zip::kMax32;
using zip::le16;
using zip::le32;
using zip::le64;

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
  if (file_size_ == 0) throw_bad_archive(path_, "file is empty");
  if (file_size_ < 22)
    throw_bad_archive(path_, fmt::format("file is too small ({} bytes)", file_size_));
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
  if (eocd < 0)
    throw_bad_archive(path_, "no zip end-of-central-directory record (not a zip, or truncated)");
  const unsigned char* e = t + eocd;
  const std::uint64_t eocd_pos = file_size_ - tail_size + static_cast<std::uint64_t>(eocd);
  if (le16(e + 4) != 0 || le16(e + 6) != 0)
    throw_bad_archive(path_, "multi-disk zip archives are not supported");
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
        throw_bad_archive(path_, "zip64 end record points outside the file");
      }
      unsigned char e64[56];
      read_exact(fd_, end64_pos, e64, 56, path_);
      if (le32(e64) != kEnd64Sig) throw_bad_archive(path_, "zip64 end record has a bad signature");
      count = le64(e64 + 32);
      cd_size = le64(e64 + 40);
      cd_offset = le64(e64 + 48);
      cd_end_limit = end64_pos;
    }
  }
  if (cd_offset > cd_end_limit || cd_size > cd_end_limit - cd_offset) {
    throw_bad_archive(path_, "central directory lies outside the file (truncated?)");
  }
  if (count > cd_size / 46)
    throw_bad_archive(path_, "central directory holds fewer entries than it claims");
  cd_offset_ = cd_offset;
  std::string cd(cd_size, '\0');
  read_exact(fd_, cd_offset, cd.data(), cd_size, path_);
  const auto* c = reinterpret_cast<const unsigned char*>(cd.data());
  std::uint64_t pos = 0;
  records_.reserve(count);
  for (std::uint64_t n = 0; n < count; ++n) {
    if (cd_size - pos < 46 || le32(c + pos) != kCentralSig) {
      throw_bad_archive(path_, fmt::format("central directory entry {} is corrupt", n));
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
      throw_bad_archive(path_, fmt::format("central directory entry {} runs past its end", n));
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
            throw_bad_archive(path_, fmt::format("record '{}' has a short zip64 field", r.name));
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
    if (r.flags & 1) throw_bad_archive(path_, fmt::format("record '{}' is encrypted", r.name));
    if (r.local_header_offset >= cd_offset || r.compressed_size > cd_offset) {
      throw_bad_archive(path_,
                        fmt::format("record '{}' lies outside the file (truncated?)", r.name));
    }
    if (!index_.emplace(r.name, records_.size()).second) {
      throw_bad_archive(path_, fmt::format("record '{}' appears twice", r.name));
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
    throw_bad_archive(path_, fmt::format("record '{}' has no room for its header", record.name));
  }
  read_exact(fd_, record.local_header_offset, h, 30, path_);
  if (le32(h) != kLocalSig) {
    throw_bad_archive(path_, fmt::format("record '{}' has a corrupt local header", record.name));
  }
  const std::uint64_t start = record.local_header_offset + 30 + le16(h + 26) + le16(h + 28);
  if (start > cd_offset_ || cd_offset_ - start < record.compressed_size) {
    throw_bad_archive(
        path_, fmt::format("record '{}' ({} bytes) runs past the end of the data (truncated?)",
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
    throw_bad_archive(path_, fmt::format("record '{}' is {} bytes, more than the {} allowed",
                                         record.name, record.size, max_size));
  }
  std::string out(record.size, '\0');
  read_into(record, out.data(), /*check_crc=*/true);
  return out;
}

void ZipReader::read_into(const ZipRecord& record, void* dst, bool check_crc) const {
  const std::uint64_t start = data_offset(record);
  if (record.method == 0) {
    if (record.compressed_size != record.size) {
      throw_bad_archive(path_,
                        fmt::format("stored record '{}' has two different sizes", record.name));
    }
    read_exact(fd_, start, dst, record.size, path_);
  } else if (record.method == 8) {
    if (record.compressed_size > (std::uint64_t{1} << 32)) {
      throw_bad_archive(path_, fmt::format("compressed record '{}' is too large", record.name));
    }
    std::string packed(record.compressed_size, '\0');
    read_exact(fd_, start, packed.data(), packed.size(), path_);
    z_stream zs{};
    if (inflateInit2(&zs, -MAX_WBITS) != Z_OK)
      throw_bad_archive(path_, "zlib failed to initialize");
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
      throw_bad_archive(path_, fmt::format("compressed record '{}' is corrupt", record.name));
    }
  } else {
    throw_bad_archive(path_,
                      fmt::format("record '{}' uses compression method {}, which is not supported",
                                  record.name, record.method));
  }
  if (check_crc && crc32_of(dst, record.size) != record.crc32) {
    throw_bad_archive(path_,
                      fmt::format("record '{}' fails its CRC-32 check (corrupt)", record.name));
  }
}

}  // namespace devcheck::detail
