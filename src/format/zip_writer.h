#pragma once
// The zip writer of devcheck's outputs: records laid out the way
// PyTorchStreamWriter does (stored, data aligned to 64 bytes), and records
// or whole runs of them copied from another archive byte for byte, CRC
// included, without decoding. Not thread-safe; one object per thread.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "devcheck/export.h"
#include "format/zip_format.h"
#include "format/zip_reader.h"

namespace devcheck::detail {

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

}  // namespace devcheck::detail
