#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

TEST(LintDC116, FindsLayersMadeInForward) {
  const std::string source =
      "import torch.nn as nn\n"
      "import torch.nn.functional as F\n"
      "class Net(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.fc = nn.Linear(2, 2)\n"
      "    def forward(self, x):\n"
      "        x = nn.Linear(2, 2)(x)\n"
      "        x = nn.ReLU()(x)\n"
      "        return F.relu(self.fc(x))\n"
      "def forward(x):\n"
      "    return nn.Linear(2, 2)(x)\n";
  EXPECT_EQ(found(source, "DC116"), (Lines{"8 DC116"}));
  EXPECT_NE(only(source, "DC116").message.find("nn.Linear made inside forward"), std::string::npos);
}

}  // namespace
}  // namespace devcheck::lint
