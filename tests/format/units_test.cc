#include "devcheck/format/units.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace devcheck::format {
namespace {

TEST(FormatBytes, BytesBelowOneKibibyteAreExact) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(1023), "1023 B");
}

TEST(FormatBytes, LargerSizesUseBinaryUnitsWithOneDecimal) {
  EXPECT_EQ(format_bytes(1024), "1.0 KiB");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(std::uint64_t{256} << 20), "256.0 MiB");
  EXPECT_EQ(format_bytes(std::uint64_t{3} << 30), "3.0 GiB");
  EXPECT_EQ(format_bytes(std::uint64_t{5} << 40), "5.0 TiB");
  EXPECT_EQ(format_bytes(std::uint64_t{2048} << 40), "2048.0 TiB");
}

TEST(ShapeText, ListsSizesInBrackets) {
  EXPECT_EQ(shape_text(std::vector<std::int64_t>{}), "[]");
  EXPECT_EQ(shape_text(std::vector<std::int64_t>{32, 784}), "[32, 784]");
}

TEST(DtypeTable, FindsDtypesByNameAndTorchAlias) {
  ASSERT_NE(find_dtype("float32"), nullptr);
  EXPECT_EQ(find_dtype("float"), find_dtype("float32"));
  EXPECT_EQ(find_dtype("half")->element_size, 2);
  EXPECT_STREQ(find_dtype("cdouble")->name, "complex128");
  EXPECT_EQ(find_dtype("long")->element_size, 8);
  EXPECT_EQ(find_dtype("float128"), nullptr);
  EXPECT_EQ(find_dtype(""), nullptr);
}

TEST(DtypeTable, FindsDtypesByStorageClass) {
  EXPECT_STREQ(find_dtype_by_storage_type("FloatStorage")->name, "float32");
  EXPECT_STREQ(find_dtype_by_storage_type("BFloat16Storage")->name, "bfloat16");
  EXPECT_STREQ(find_dtype_by_storage_type("UntypedStorage")->name, "uint8");
  EXPECT_EQ(find_dtype_by_storage_type("Storage"), nullptr);
  EXPECT_EQ(find_dtype_by_storage_type(""), nullptr);
}

TEST(DtypeTable, NamesAndStorageClassesAreUnique) {
  std::set<std::string> names, storages;
  for (const DtypeInfo& d : dtype_table()) {
    EXPECT_TRUE(names.insert(d.name).second) << d.name;
    if (*d.storage_type != '\0') {
      EXPECT_TRUE(storages.insert(d.storage_type).second) << d.name;
    }
    EXPECT_GT(d.element_size, 0) << d.name;
  }
}

}  // namespace
}  // namespace devcheck::format
