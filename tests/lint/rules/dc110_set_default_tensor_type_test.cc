#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

TEST(LintDC110, FindsSetDefaultTensorTypeAndFixesKnownTypes) {
  const std::string source =
      "import torch\n"
      "torch.set_default_tensor_type(torch.cuda.FloatTensor)\n"
      "torch.set_default_tensor_type('torch.DoubleTensor')\n"
      "torch.set_default_tensor_type(t)\n";
  EXPECT_EQ(found(source, "DC110"), (Lines{"2 DC110", "3 DC110", "4 DC110"}));
  LintOptions options;
  options.select = {"DC110"};
  const std::string fixed = apply_fixes(source, lint_source(source, "t.py", options));
  EXPECT_EQ(fixed,
            "import torch\n"
            "torch.set_default_device(\"cuda\")\n"
            "torch.set_default_dtype(torch.float64)\n"
            "torch.set_default_tensor_type(t)\n");
  // The legacy type inside set_default_tensor_type is DC110's, not DC119's.
  EXPECT_EQ(found(source, "DC119"), Lines{});
}

}  // namespace
}  // namespace devcheck::lint
