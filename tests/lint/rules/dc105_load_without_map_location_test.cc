#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

TEST(LintDC105, FindsTorchLoadWithoutMapLocation) {
  const std::string source =
      "import torch\n"
      "state = torch.load('model.pt')\n"
      "ok = torch.load('model.pt', map_location='cpu')\n"
      "ok2 = torch.load('model.pt', 'cpu')\n"
      "unknown = torch.load(*args)\n";
  EXPECT_EQ(found(source, "DC105"), (Lines{"2 DC105"}));
  EXPECT_NE(only(source, "DC105").message.find("map_location=\"cpu\""), std::string::npos);
  EXPECT_EQ(only(source, "DC105").column, 9);
}

TEST(LintDC105, FollowsImportAliases) {
  EXPECT_EQ(found("import torch as T\nT.load(p)\n", "DC105"), (Lines{"2 DC105"}));
  EXPECT_EQ(found("from torch import load\nload(p)\n", "DC105"), (Lines{"2 DC105"}));
  // Not torch's load: a name nobody imported from torch says nothing.
  EXPECT_EQ(found("import pickle\npickle.load(f)\njson.load(f)\n", "DC105"), Lines{});
}

}  // namespace
}  // namespace devcheck::lint
