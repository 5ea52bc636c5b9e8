#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

TEST(LintDC118, FindsANonBlockingHostCopyReadBeforeSynchronising) {
  const std::string source =
      "import torch\n"
      "def bad(x):\n"
      "    y = x.to('cpu', non_blocking=True)\n"
      "    return y.numpy()\n"
      "def good(x):\n"
      "    y = x.to('cpu', non_blocking=True)\n"
      "    torch.cuda.synchronize()\n"
      "    return y.numpy()\n"
      "def blocking(x):\n"
      "    y = x.to('cpu')\n"
      "    print(y)\n";
  EXPECT_EQ(found(source, "DC118"), (Lines{"4 DC118"}));
  EXPECT_NE(only(source, "DC118").message.find("torch.cuda.synchronize()"), std::string::npos);
  EXPECT_EQ(found("def f(x, event):\n"
                  "    y = x.to('cpu', non_blocking=True)\n"
                  "    event.synchronize()\n"
                  "    print(y)\n",
                  "DC118"),
            Lines{});
}

}  // namespace
}  // namespace devcheck::lint
