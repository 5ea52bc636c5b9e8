#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

TEST(LintDC119, FindsLegacyConstructorsAndFixesCertainOnes) {
  const std::string source =
      "import torch\n"
      "a = torch.cuda.FloatTensor(2, 3)\n"
      "b = torch.LongTensor([1, 2])\n"
      "c = torch.FloatTensor(x)\n"
      "d = x.type(torch.cuda.HalfTensor)\n"
      "e = x.type('torch.cuda.FloatTensor')\n"
      "f = torch.tensor([1.0])\n";
  EXPECT_EQ(found(source, "DC119"), (Lines{"2 DC119", "3 DC119", "4 DC119", "5 DC119", "6 DC119"}));
  LintOptions options;
  options.select = {"DC119"};
  const std::vector<Finding> findings = lint_source(source, "t.py", options);
  EXPECT_FALSE(findings[2].fix.has_value());  // torch.FloatTensor(x): data or size?
  const std::string fixed = apply_fixes(source, findings);
  EXPECT_NE(fixed.find("a = torch.empty(2, 3, dtype=torch.float32, device=\"cuda\")"),
            std::string::npos)
      << fixed;
  EXPECT_NE(fixed.find("b = torch.tensor([1, 2], dtype=torch.int64)"), std::string::npos) << fixed;
  EXPECT_NE(findings[3].message.find(".to(dtype=torch.float16, device=\"cuda\")"),
            std::string::npos)
      << findings[3].message;
}

}  // namespace
}  // namespace devcheck::lint
