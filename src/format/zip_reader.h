#pragma once
// The zip reader of torch.save and TorchScript files: the central directory
// read with every offset and size checked against the file, record names
// kept inside the archive, records read (stored or deflated) with their
// CRC-32 checked. Not thread-safe; one object per thread.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "devcheck/export.h"
#include "format/zip_format.h"

namespace devcheck::detail {

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

}  // namespace devcheck::detail
