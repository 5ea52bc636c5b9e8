#pragma once
// The zip format as torch.save and TorchScript files use it: what the reader
// (zip_reader.h) and the writer (zip_writer.h) share. A record's directory
// facts, the signatures and limits of the records they read and write,
// little-endian fields, and the CRC-32 both check. Pure functions; thread-safe.

#include <cstdint>
#include <string>

#include "devcheck/export.h"

namespace devcheck::detail {

struct ZipRecord {
  std::string name;          // full name inside the zip
  std::uint16_t method = 0;  // 0 stored, 8 deflate
  std::uint16_t flags = 0;
  std::uint32_t crc32 = 0;
  std::uint64_t compressed_size = 0;  // in bytes
  std::uint64_t size = 0;             // uncompressed, in bytes
  std::uint64_t local_header_offset = 0;
};

// zlib's CRC-32, continued from `crc`.
std::uint32_t crc32_of(const void* data, std::uint64_t size, std::uint32_t crc = 0);

namespace zip {

constexpr std::uint32_t kLocalSig = 0x04034b50;
constexpr std::uint32_t kCentralSig = 0x02014b50;
constexpr std::uint32_t kEndSig = 0x06054b50;
constexpr std::uint32_t kEnd64Sig = 0x06064b50;
constexpr std::uint32_t kEnd64LocatorSig = 0x07064b50;
// A 32-bit field holding this says "see the zip64 extra field".
constexpr std::uint64_t kMax32 = 0xFFFFFFFFu;

inline std::uint16_t le16(const unsigned char* p) {
  return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}
inline std::uint32_t le32(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
         (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}
inline std::uint64_t le64(const unsigned char* p) {
  return static_cast<std::uint64_t>(le32(p)) | (static_cast<std::uint64_t>(le32(p + 4)) << 32);
}
inline void put16(std::string& out, std::uint64_t v) {
  out.push_back(static_cast<char>(v & 0xff));
  out.push_back(static_cast<char>((v >> 8) & 0xff));
}
inline void put32(std::string& out, std::uint64_t v) {
  put16(out, v & 0xffff);
  put16(out, (v >> 16) & 0xffff);
}
inline void put64(std::string& out, std::uint64_t v) {
  put32(out, v & kMax32);
  put32(out, v >> 32);
}

}  // namespace zip
}  // namespace devcheck::detail
