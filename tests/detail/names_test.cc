#include "detail/names.h"

#include <gtest/gtest.h>

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
