#include "format/zip_format.h"

#include <zlib.h>

#include <algorithm>

namespace devcheck::detail {

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

}  // namespace devcheck::detail
