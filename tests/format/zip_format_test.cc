// What the zip reader and writer share: zlib's CRC-32 and little-endian fields.
#include "format/zip_format.h"

#include <gtest/gtest.h>

#include <string>

namespace devcheck::detail {
namespace {

TEST(ZipFormat, Crc32IsZlibsAndContinuesAcrossChunks) {
  const std::string text = "123456789";
  EXPECT_EQ(crc32_of(text.data(), text.size()), 0xCBF43926U);  // the CRC-32 check value
  const std::uint32_t first = crc32_of(text.data(), 4);
  EXPECT_EQ(crc32_of(text.data() + 4, text.size() - 4, first), 0xCBF43926U);
  EXPECT_EQ(crc32_of(nullptr, 0), 0U);
}

TEST(ZipFormat, FieldsAreLittleEndianAndReadBackAsWritten) {
  std::string out;
  zip::put16(out, 0x0102);
  zip::put32(out, zip::kLocalSig);
  zip::put64(out, 0x0807060504030201ULL);
  ASSERT_EQ(out.size(), 14U);
  EXPECT_EQ(out.substr(0, 6), std::string("\x02\x01PK\x03\x04", 6));
  const auto* p = reinterpret_cast<const unsigned char*>(out.data());
  EXPECT_EQ(zip::le16(p), 0x0102);
  EXPECT_EQ(zip::le32(p + 2), zip::kLocalSig);
  EXPECT_EQ(zip::le64(p + 6), 0x0807060504030201ULL);
}

}  // namespace
}  // namespace devcheck::detail
