#pragma once
// The zip layer of torch.save and TorchScript files: a bounds-checked reader
// over a file descriptor, and a writer that lays records out the way
// PyTorchStreamWriter does (stored, data aligned to 64 bytes) and can copy a
// record from another archive byte for byte, CRC included, without decoding.
// Not thread-safe; one object per thread.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "devcheck/export.h"

namespace devcheck::impl {

// An owned file descriptor.
class File {
 public:
  File() = default;
  explicit File(int fd) : fd_(fd) {}
  ~File();
  File(File&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  File& operator=(File&& other) noexcept;
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  // Opens `path` read-only. Throws IoError naming the path.
  static File open_read(const std::string& path);
  int fd() const { return fd_; }
  // Size in bytes (fstat). Throws IoError.
  std::uint64_t size(const std::string& path_for_messages) const;

 private:
  int fd_ = -1;
};

// Reads exactly `size` bytes at `offset`. Throws FormatError ("truncated")
// when the file ends first, IoError when the read fails.
DEVCHECK_API void read_exact(int fd, std::uint64_t offset, void* dst, std::uint64_t size,
                             const std::string& path);
// Writes all of `size` bytes at the current position. Throws IoError.
DEVCHECK_API void write_all(int fd, const void* data, std::uint64_t size, const std::string& path);

// zlib's CRC-32, continued from `crc`.
std::uint32_t crc32_of(const void* data, std::uint64_t size, std::uint32_t crc = 0);

struct ZipRecord {
  std::string name;          // full name inside the zip
  std::uint16_t method = 0;  // 0 stored, 8 deflate
  std::uint16_t flags = 0;
  std::uint32_t crc32 = 0;
  std::uint64_t compressed_size = 0;  // in bytes
  std::uint64_t size = 0;             // uncompressed, in bytes
  std::uint64_t local_header_offset = 0;
};

// Whether `name` stays inside the archive: relative, no "..", "." or empty
// components, no backslash, NUL or control characters.
bool is_safe_record_name(std::string_view name);

// Reads the central directory of a zip file. Every offset and size is checked
// against the file before use. Throws FormatError (not a zip, truncated,
// unsupported feature) or UnsafeContentError (a record name escaping the
// archive), each naming the file.
class DEVCHECK_API ZipReader {
 public:
  // `fd` must stay open while the reader is used; `path` is for messages.
  ZipReader(int fd, std::uint64_t file_size, std::string path);

  // Whether the file starts like a zip (local header or empty-archive EOCD signature).
  static bool looks_like_zip(int fd, std::uint64_t file_size);

  const std::vector<ZipRecord>& records() const { return records_; }
  const ZipRecord* find(std::string_view name) const;
  // Offset of the record's first data byte (reads and checks its local header).
  std::uint64_t data_offset(const ZipRecord& record) const;
  // Whether the record's local header says what its central directory entry
  // says (name, method, flags; CRC and sizes unless a data descriptor holds
  // them), so the header can be copied as it is.
  bool local_header_matches(const ZipRecord& record) const;
  // The record's uncompressed bytes, CRC-checked. Throws FormatError when it
  // is larger than `max_size` bytes.
  std::string read(const ZipRecord& record, std::uint64_t max_size) const;
  // Reads the uncompressed bytes into `dst` (record.size bytes), optionally CRC-checked.
  void read_into(const ZipRecord& record, void* dst, bool check_crc) const;

  int fd() const { return fd_; }
  std::uint64_t file_size() const { return file_size_; }
  const std::string& path() const { return path_; }
  // Offset where the central directory starts: every record's data ends before it.
  std::uint64_t central_directory_offset() const { return cd_offset_; }
  // Where `record` (its local header, data and any data descriptor) must end:
  // the nearest local header offset of any record greater than its own, or
  // the central directory. From the directory alone; reads nothing.
  std::uint64_t record_end(const ZipRecord& record) const;

 private:
  void parse_central_directory();
  int fd_;
  std::uint64_t file_size_;
  std::string path_;
  std::uint64_t cd_offset_ = 0;
  std::vector<ZipRecord> records_;
  std::vector<std::uint64_t> header_offsets_;  // every record's local header offset, sorted
  std::unordered_map<std::string, std::size_t> index_;
};

// Writes a zip the way PyTorchStreamWriter does: records stored, each data
// start aligned to 64 bytes with an "FB" padding extra field, zip64 records
// where sizes or offsets need them. Writes to `fd` from its current position 0.
class DEVCHECK_API ZipWriter {
 public:
  ZipWriter(int fd, std::string path);
  // Adds `size` bytes as a stored record; computes the CRC.
  void add(const std::string& name, const void* data, std::uint64_t size);
  void add(const std::string& name, std::string_view bytes) {
    add(name, bytes.data(), bytes.size());
  }
  // Copies `record` of `reader` unchanged (compressed bytes, CRC, method) under `name`,
  // in the kernel where it can (copy_file_range).
  void add_copy(const std::string& name, const ZipReader& reader, const ZipRecord& record);
  // Copies the bytes of `reader` from records.front()'s local header up to
  // `end` as they are, in one kernel copy, and adds `records` (consecutive in
  // that file, each header checked with local_header_matches(), which the
  // caller has done) at their shifted offsets.
  void add_span(const ZipReader& reader, const std::vector<const ZipRecord*>& records,
                std::uint64_t end);
  // As add(), with the data ending at `end_page_offset` modulo the page size,
  // so that a span copied next lands at the offset within a page it has in
  // its own file (whole-page kernel copies).
  void add_ending_at(const std::string& name, std::string_view bytes,
                     std::uint64_t end_page_offset);
  // Starts a stored record of `size` bytes with a known CRC; the caller then writes
  // exactly `size` bytes through write_data().
  void begin_record(const std::string& name, std::uint64_t size, std::uint32_t crc);
  void write_data(const void* data, std::uint64_t size);
  // Copies `size` bytes at `offset` of `src_fd` into the current record.
  void copy_data(int src_fd, std::uint64_t offset, std::uint64_t size);
  // Sets the CRC of the last record, for data whose CRC is known only once written.
  void set_last_crc(std::uint32_t crc);
  // Bytes written so far.
  std::uint64_t offset() const { return offset_; }
  // Writes the central directory. No record may be added afterwards.
  void finish();
  // Test hook: write zip64 extra fields even for small records.
  void force_zip64(bool on) { force_zip64_ = on; }

 private:
  struct Entry {
    ZipRecord record;
  };
  // `page_offset_of`: when set, the data is placed at that offset modulo
  // kPage instead of only on a 64-byte boundary (see add_copy).
  void write_local_header(const ZipRecord& record,
                          std::optional<std::uint64_t> page_offset_of = std::nullopt);
  void put(const void* data, std::uint64_t size);
  // Copies `size` bytes at `offset` of `src_fd` to the output (kernel copy
  // where it can), without record bookkeeping.
  void copy_bytes(int src_fd, std::uint64_t offset, std::uint64_t size);
  int fd_;
  std::string path_;
  std::uint64_t offset_ = 0;
  std::uint64_t pending_ = 0;  // bytes still owed to the current record
  bool force_zip64_ = false;
  bool finished_ = false;
  std::vector<ZipRecord> entries_;
};

}  // namespace devcheck::impl

// Internals shared between devcheck's libraries live in impl:: (exported where
// marked DEVCHECK_API; docs/architecture.md, "Symbols"); call sites say detail::.
namespace devcheck::detail {
using namespace impl;  // NOLINT(google-build-using-namespace)
}  // namespace devcheck::detail
