// used_as_tensor (src/lint/flow/usage.cc): what the uses of a name say of it.
#include <gtest/gtest.h>

#include "flow_testing.h"

namespace devcheck::lint::detail {
namespace {
using testing::Flowed;

TEST(LintUsage, TellsTensorsFromModulesByTheirUses) {
  const Flowed f(
      "import torch\n"
      "def f(a, b, c, d, e, g, h, m):\n"
      "    a[0]\n"
      "    b.shape\n"
      "    c * 2\n"
      "    torch.cat([d, d])\n"
      "    e.parameters()\n"
      "    g(1)\n"
      "    h['key']\n"
      "    m[0]\n"
      "    m.train()\n");
  const TSNode body = f.source.root();
  EXPECT_TRUE(used_as_tensor(f.source, body, "a"));
  EXPECT_TRUE(used_as_tensor(f.source, body, "b"));
  EXPECT_TRUE(used_as_tensor(f.source, body, "c"));
  EXPECT_TRUE(used_as_tensor(f.source, body, "d"));
  EXPECT_FALSE(used_as_tensor(f.source, body, "e"));
  EXPECT_FALSE(used_as_tensor(f.source, body, "g"));
  EXPECT_FALSE(used_as_tensor(f.source, body, "h"));
  EXPECT_FALSE(used_as_tensor(f.source, body, "m"));
  EXPECT_TRUE(used_as_tensor(f.source, body, "h", /*passed_to_module=*/true));
  EXPECT_FALSE(used_as_tensor(f.source, body, "e", /*passed_to_module=*/true));
}

}  // namespace
}  // namespace devcheck::lint::detail
