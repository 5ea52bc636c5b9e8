// The dtype tables behind tensor interpretation.
#include <gtest/gtest.h>

#include "format/reader.h"

namespace devcheck::detail {
namespace {

TEST(DtypeTables, StorageTypesAndDtypeGlobalsHavePyTorchsNames) {
  std::string dtype;
  std::int64_t size = 0;
  ASSERT_TRUE(storage_type_dtype("HalfStorage", &dtype, &size));
  EXPECT_EQ(dtype, "float16");
  EXPECT_EQ(size, 2);
  ASSERT_TRUE(storage_type_dtype("ComplexDoubleStorage", &dtype, &size));
  EXPECT_EQ(size, 16);
  ASSERT_TRUE(storage_type_dtype("UntypedStorage", &dtype, &size));
  EXPECT_EQ(dtype, "uint8");
  EXPECT_FALSE(storage_type_dtype("NopeStorage", &dtype, &size));
  ASSERT_TRUE(dtype_from_global("half", &dtype, &size));
  EXPECT_EQ(dtype, "float16");
  ASSERT_TRUE(dtype_from_global("float8_e4m3fn", &dtype, &size));
  EXPECT_EQ(size, 1);
  EXPECT_FALSE(dtype_from_global("system", &dtype, &size));
}

}  // namespace
}  // namespace devcheck::detail
