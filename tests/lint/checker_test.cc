#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint/checker.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;

TEST(LintChecker, ReportsASyntaxErrorAndStillChecksTheRest) {
  const std::string source =
      "import torch\n"
      "def broken(:\n"
      "    pass\n"
      "state = torch.load('m.pt')\n";
  const Lines lines = found(source);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.front(), "2 DC100");
  EXPECT_EQ(lines.back(), "4 DC105");
  const std::vector<Finding> all = lint_source(source, "t.py");
  EXPECT_NE(all.front().message.find("syntax error"), std::string::npos);
}

TEST(LintChecker, HonoursSuppressionComments) {
  const std::string source =
      "import torch\n"
      "a = torch.load(p)  # devcheck: ignore[DC105]\n"
      "b = torch.load(p)  # devcheck: ignore\n"
      "c = torch.load(p)  # devcheck: ignore[DC101, DC102]\n"
      "d = torch.load(p)  # noqa\n";
  EXPECT_EQ(found(source), (Lines{"4 DC105", "5 DC105"}));
}

TEST(LintChecker, SelectsAndIgnoresByIdOrPrefix) {
  EXPECT_TRUE(detail::selected("DC105", {}, {}));
  EXPECT_TRUE(detail::selected("DC105", {"DC10"}, {}));
  EXPECT_FALSE(detail::selected("DC115", {"DC10"}, {}));
  EXPECT_FALSE(detail::selected("DC105", {"DC1"}, {"DC105"}));
  EXPECT_FALSE(detail::selected("DC105", {}, {"ALL"}));
  const std::string source = "import torch\ntorch.load(p)\ntorch.set_default_tensor_type(t)\n";
  LintOptions options;
  options.ignore = {"DC105"};
  const std::vector<Finding> all = lint_source(source, "t.py", options);
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].rule, "DC110");
}

TEST(LintChecker, SurvivesBinaryAndDeeplyNestedInput) {
  const std::string nested = std::string(5000, '(') + "x" + std::string(5000, ')') + "\n";
  EXPECT_NO_THROW(lint_source(nested, "t.py"));
  const std::string binary("\x00\xff\xfe import torch\n\x01", 18);
  EXPECT_NO_THROW(lint_source(binary, "t.py"));
}

}  // namespace
}  // namespace devcheck::lint
