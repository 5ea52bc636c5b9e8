#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

TEST(LintDC109, FindsDeprecatedCudaAmpAndFixesKeywordCalls) {
  const std::string source =
      "import torch\n"
      "scaler = torch.cuda.amp.GradScaler()\n"
      "with torch.cuda.amp.autocast(dtype=torch.bfloat16):\n"
      "    pass\n"
      "with torch.amp.autocast('cuda'):\n"
      "    pass\n";
  EXPECT_EQ(found(source, "DC109"), (Lines{"2 DC109", "3 DC109"}));
  LintOptions options;
  options.select = {"DC109"};
  const std::string fixed = apply_fixes(source, lint_source(source, "t.py", options));
  EXPECT_NE(fixed.find("scaler = torch.amp.GradScaler(\"cuda\")\n"), std::string::npos) << fixed;
  EXPECT_NE(fixed.find("with torch.amp.autocast(\"cuda\", dtype=torch.bfloat16):"),
            std::string::npos)
      << fixed;
  EXPECT_EQ(found(fixed, "DC109"), Lines{});
}

TEST(LintDC109, DoesNotFixPositionalArgumentsWhoseMeaningDiffers) {
  // torch.cuda.amp.autocast(True) is `enabled`; torch.amp.autocast's second
  // position is `dtype`.
  const Finding f = only("import torch\nwith torch.cuda.amp.autocast(True):\n  pass\n", "DC109");
  EXPECT_EQ(f.line, 2);
  EXPECT_FALSE(f.fix.has_value());
  const Finding imported =
      only("from torch.cuda.amp import autocast\nwith autocast():\n  pass\n", "DC109");
  EXPECT_EQ(imported.line, 2);
  EXPECT_FALSE(imported.fix.has_value());
}

}  // namespace
}  // namespace devcheck::lint
