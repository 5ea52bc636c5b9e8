#include "detail/names.h"

#include <gtest/gtest.h>

#include <string>

namespace devcheck::detail {
namespace {

TEST(DtypeName, UsesPyTorchsPythonNames) {
  EXPECT_EQ(dtype_name(c10::ScalarType::Float), "float32");
  EXPECT_EQ(dtype_name(c10::ScalarType::BFloat16), "bfloat16");
  EXPECT_EQ(dtype_name(c10::ScalarType::Half), "float16");
  EXPECT_EQ(dtype_name(c10::ScalarType::ComplexFloat), "complex64");
  EXPECT_EQ(dtype_name(c10::ScalarType::Bool), "bool");
  EXPECT_EQ(dtype_name(c10::ScalarType::Byte), "uint8");
  EXPECT_EQ(dtype_name(c10::ScalarType::Long), "int64");
}

TEST(ScalarTypeOf, ReadsNamesAndAliasesFromTheOneDtypeTable) {
  EXPECT_EQ(scalar_type_of("float32"), c10::ScalarType::Float);
  EXPECT_EQ(scalar_type_of("half"), c10::ScalarType::Half);
  EXPECT_EQ(scalar_type_of("complex32"), c10::ScalarType::ComplexHalf);
  EXPECT_EQ(scalar_type_of("qint8"), c10::ScalarType::QInt8);
  EXPECT_EQ(scalar_type_of("float128"), std::nullopt);
}

TEST(ScalarTypeOf, RoundTripsEveryScalarTypeTheTableNames) {
  int named = 0;
  for (int i = 0; i < static_cast<int>(c10::ScalarType::NumOptions); ++i) {
    const auto type = static_cast<c10::ScalarType>(i);
    const std::string name = dtype_name(type);
    if (name == c10::toString(type)) continue;  // not in the table: LibTorch's own name
    EXPECT_EQ(scalar_type_of(name), type) << name;
    ++named;
  }
  EXPECT_GE(named, 17);
}

TEST(ShapeStr, ListsDimensions) {
  EXPECT_EQ(shape_str({}), "[]");
  EXPECT_EQ(shape_str({32, 784}), "[32, 784]");
}

TEST(CleanModuleName, DropsLibTorchDecoration) {
  EXPECT_EQ(clean_module_name("torch::nn::LinearImpl"), "Linear");
  EXPECT_EQ(clean_module_name("Net"), "Net");
  EXPECT_EQ(clean_module_name("Impl"), "Impl");
  EXPECT_EQ(clean_module_name("app::(anonymous namespace)::Net"), "Net");
  EXPECT_EQ(clean_module_name("Wrapper<a::B>"), "Wrapper<a::B>");
}

TEST(DeviceMatches, IndexlessExpectedMatchesAnyIndex) {
  EXPECT_TRUE(device_matches(c10::Device("cuda"), c10::Device("cuda:1")));
  EXPECT_FALSE(device_matches(c10::Device("cuda:0"), c10::Device("cuda:1")));
  EXPECT_FALSE(device_matches(c10::Device("cpu"), c10::Device("meta")));
}

}  // namespace
}  // namespace devcheck::detail
