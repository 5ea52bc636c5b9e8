#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

TEST(LintDC100, NamesWhereTheParserLostItsWayAndWhatIsMissing) {
  EXPECT_EQ(found("import torch\ndef f(:\n    pass\n", "DC100"), (Lines{"2 DC100"}));
  EXPECT_EQ(only("import torch\ndef f(:\n    pass\n", "DC100").message,
            "syntax error: missing ); the code around it is not checked");
  EXPECT_EQ(only("import torch\nx = [1, 2\ny = 3 +\n", "DC100").message,
            "syntax error; the code around it is not checked");
  EXPECT_EQ(found("import torch\nx = torch.zeros(3)\n", "DC100"), Lines{});
}

}  // namespace
}  // namespace devcheck::lint
