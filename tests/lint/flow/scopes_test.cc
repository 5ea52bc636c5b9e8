// The flow's scopes (src/lint/flow/scopes.cc): the order it runs classes and
// methods in, the module's device, moves elsewhere.

#include <gtest/gtest.h>

#include "flow_testing.h"

namespace devcheck::lint::detail {
namespace {
using testing::Flowed;
using testing::Lines;
using testing::meetings;

TEST(LintFlowScopes, RunsInitFirstAndGivesForwardsInputsTheModulesDevice) {
  const Flowed f(
      "import torch\n"
      "import torch.nn as nn\n"
      "class Net(nn.Module):\n"
      "    def forward(self, x, steps: int, scale=2.0):\n"
      "        return x * self.table + torch.arange(steps) * scale\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.table = torch.ones(4)\n"
      "        self.fc = nn.Linear(4, 4)\n"
      "        self.register_buffer('mask', torch.ones(4))\n"
      "    def masked(self, x):\n"
      "        return self.fc(x) * self.mask + torch.zeros(4)\n");
  // __init__ first, forward last.
  EXPECT_EQ(meetings(f), (Lines{"12 factory@12 meets module", "5 attribute@8 meets module"}));
  ASSERT_EQ(f.flow.attributes().size(), 2U);
  EXPECT_EQ(f.flow.attributes()[0].name, "self.table");
  EXPECT_EQ(f.flow.attributes()[0].v.origin, Origin::kAttribute);
  EXPECT_TRUE(f.flow.attributes()[1].v.registered);
}

TEST(LintFlowScopes, InInitEverythingIsOnTheHost) {
  const Flowed f(
      "import torch\n"
      "import torch.nn as nn\n"
      "class Emb(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.embedding = nn.Embedding(n, 4)\n"
      "        w = torch.cumsum(self.embedding.weight.data, dim=0)\n"
      "        w = w / torch.arange(1, n + 1)[:, None]\n");
  EXPECT_EQ(meetings(f), Lines{});
}

TEST(LintFlowScopes, AModuleMovedElsewhereIsOnTheDeviceWhereItIsTheSameObject) {
  const Flowed f(
      "import torch\n"
      "model = Net()\n"
      "def train(net, loader):\n"
      "    for x, y in loader:\n"
      "        net(x) + torch.ones(2)\n"
      "def main():\n"
      "    net = Net()\n"
      "    net.cuda()\n"
      "    train(net, loader)\n"
      "    model.cuda()\n"
      "def evaluate(x):\n"
      "    return model(x) + torch.ones(2)\n"
      "def other(net, x):\n"
      "    return net(x) + torch.ones(2)\n"
      "class Net(torch.nn.Module):\n"
      "    pass\n");
  // train's net is main's, moved there; other's is not known.
  EXPECT_EQ(meetings(f), (Lines{"5 batch@4 meets device", "5 factory@5 meets device",
                                "12 factory@12 meets device"}));
  EXPECT_TRUE(f.flow.moved_anywhere("net"));
  EXPECT_FALSE(f.flow.moved_anywhere("x"));
}

}  // namespace
}  // namespace devcheck::lint::detail
