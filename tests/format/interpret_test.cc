// The allowlist and the dtype tables behind tensor interpretation.
#include <gtest/gtest.h>

#include "format/reader.h"

namespace devcheck::detail {
namespace {

TEST(Allowlist, AcceptsWhatTorchLoadWeightsOnlyAccepts) {
  EXPECT_TRUE(is_allowed_global("collections", "OrderedDict", false));
  EXPECT_TRUE(is_allowed_global("torch._utils", "_rebuild_tensor_v2", false));
  EXPECT_TRUE(is_allowed_global("torch._utils", "_rebuild_tensor_v3", false));
  EXPECT_TRUE(is_allowed_global("torch._utils", "_rebuild_parameter", false));
  EXPECT_TRUE(is_allowed_global("torch", "FloatStorage", false));
  EXPECT_TRUE(is_allowed_global("torch", "BFloat16Storage", false));
  EXPECT_TRUE(is_allowed_global("torch.storage", "UntypedStorage", false));
  EXPECT_TRUE(is_allowed_global("torch", "bfloat16", false));
  EXPECT_TRUE(is_allowed_global("torch", "device", false));
  EXPECT_TRUE(is_allowed_global("torch._tensor", "_rebuild_from_type_v2", false));
}

TEST(Allowlist, RefusesEverythingElse) {
  EXPECT_FALSE(is_allowed_global("posix", "system", false));
  EXPECT_FALSE(is_allowed_global("os", "system", false));
  EXPECT_FALSE(is_allowed_global("builtins", "eval", false));
  EXPECT_FALSE(is_allowed_global("builtins", "exec", false));
  EXPECT_FALSE(is_allowed_global("subprocess", "Popen", false));
  EXPECT_FALSE(is_allowed_global("torch", "load", false));
  EXPECT_FALSE(is_allowed_global("torch", "EvilStorage", false));
  EXPECT_FALSE(is_allowed_global("numpy.core.multiarray", "_reconstruct", false));
  EXPECT_FALSE(is_allowed_global("copyreg._extension_registry", "code_1", false));
}

TEST(Allowlist, TorchScriptClassesOnlyInsideTorchScriptArchives) {
  EXPECT_TRUE(is_allowed_global("__torch__", "M", true));
  EXPECT_TRUE(is_allowed_global("__torch__.torch.nn.modules.linear", "Linear", true));
  EXPECT_TRUE(is_allowed_global("torch.jit._pickle", "build_intlist", true));
  EXPECT_FALSE(is_allowed_global("__torch__", "M", false));
  EXPECT_FALSE(is_allowed_global("torch.jit._pickle", "build_intlist", false));
  EXPECT_FALSE(is_allowed_global("__torch___evil", "M", true));
}

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
