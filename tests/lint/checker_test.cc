#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

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

// Expressions nested a hundred thousand deep where the rules read them (an
// `if` test, torch.load's path, a module's forward, a device variable): the
// rules and the flow stop where the stack runs short (src/lint/stack.h)
// rather than overflow it, and what lies outside is still checked. (Before,
// each of these crashed devcheck lint; an `or` chain and a sum are valid
// Python of any length.)
TEST(LintChecker, ChecksFilesNestedDeeperThanTheStack) {
  const int n = 100000;
  auto chain = [n](const std::string& part, const std::string& join) {
    std::string out = part;
    for (int i = 1; i < n; ++i) out += join + part;
    return out;
  };
  const std::string ors = chain("not args.cuda", " or ");
  const std::string ands = chain("x", " and ");
  const std::string sum = chain("x", " + ");
  std::string negated;
  for (int i = 0; i < n; ++i) negated += "not ";
  negated += "x";
  const std::string tail = "state = torch.load('m.pt')\n";
  for (const std::string& code : {
           "import torch\nif " + ors + ":\n    d = 1\nelse:\n    d = torch.device('cuda')\n",
           "import torch\nm = torch.load(" + ands + ")\n",
           "import torch\nm = torch.load(" + sum + ")\n",
           "import torch\nclass M(torch.nn.Module):\n    def __init__(self):\n"
           "        super().__init__()\n        self.t = torch.zeros(1)\n"
           "    def forward(self, x):\n        return x + self.t + (" +
               ands + ")\n",
           "import torch\ndevice = " + negated + "\nx = torch.zeros(1).cuda()\n",
       }) {
    std::vector<Finding> findings;
    EXPECT_NO_THROW(findings = lint_source(code + tail, "t.py"));
    const int last = static_cast<int>(std::count(code.begin(), code.end(), '\n')) + 1;
    EXPECT_TRUE(std::any_of(findings.begin(), findings.end(), [&](const Finding& f) {
      return f.rule == "DC105" && f.line == last;
    })) << code.substr(0, 60);
  }
}

// The one finding of a file the parser gave up on names the limit and says
// nothing in the file was checked.
TEST(LintChecker, AParseGivenUpIsOneFindingThatSaysSo) {
  const Finding f = detail::parse_given_up("big.py");
  EXPECT_EQ(f.path, "big.py");
  EXPECT_EQ(f.rule, "DC100");
  EXPECT_EQ(f.line, 1);
  EXPECT_EQ(f.message,
            "the parser gave up on this file after 10 s (a long invalid construct it recovers "
            "from slowly); nothing in it is checked");
}

}  // namespace
}  // namespace devcheck::lint
