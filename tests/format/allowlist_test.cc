// The allowlist: the globals and opcodes a checkpoint's pickle may use.
#include "format/allowlist.h"

#include <gtest/gtest.h>

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

TEST(PickleWeightsOnly, OpcodesAreThoseBothVersionsAccept) {
  for (const char op : {'X', 'q', 'r', 'h', 'j', 'Q',    'R',    'c',    '(',    't', 'u',
                        '}', ')', 'K', 'M', 'J', '\x8a', '\x89', '\x88', '\x80', '.'}) {
    EXPECT_TRUE(weights_only_opcode(static_cast<unsigned char>(op))) << op;
  }
  // POP, DUP, MEMOIZE, FRAME, SHORT_BINUNICODE, STACK_GLOBAL, BINFLOAT (2.6 only), PUT.
  for (const char op : {'0', '2', '\x94', '\x95', '\x8c', '\x93', 'G', 'p'}) {
    EXPECT_FALSE(weights_only_opcode(static_cast<unsigned char>(op))) << op;
  }
}

}  // namespace
}  // namespace devcheck::detail
