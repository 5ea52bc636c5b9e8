// The flow's scopes and statements (flow.cc): the order it runs scopes in,
// branches, loops, parameters, attributes, moves in place.
#include <gtest/gtest.h>

#include "flow_testing.h"

namespace devcheck::lint::detail {
namespace {
using testing::Flowed;
using testing::Lines;
using testing::meetings;

TEST(LintFlow, FollowsNamesInOrderThroughMovesAndRebinding) {
  const Flowed f(
      "import torch\n"
      "def step(x, device):\n"
      "    noise = torch.randn(3)\n"
      "    a = x.to(device) + noise\n"
      "    noise = noise.to(device)\n"
      "    b = x.to(device) + noise\n"
      "    return a, b\n");
  EXPECT_EQ(meetings(f), (Lines{"4 factory@3 meets device"}));
}

TEST(LintFlow, JoinsBranchesAndKeepsWhatOneWayKnows) {
  const Flowed f(
      "import torch\n"
      "def moved_on_one_way(x, cuda):\n"
      "    m = torch.ones(3)\n"
      "    if cuda:\n"
      "        m = m.cuda()\n"
      "    return x.cuda() * m\n"
      "def made_on_one_way(x, h=None):\n"
      "    if h is None:\n"
      "        h = torch.zeros(3)\n"
      "    return x.cuda() * h\n"
      "def both_ways(x, cuda):\n"
      "    if cuda:\n"
      "        m = torch.ones(3, device='cuda')\n"
      "    else:\n"
      "        m = torch.ones(3)\n"
      "    return x.cuda() * m\n");
  EXPECT_EQ(meetings(f), (Lines{"10 factory@9 meets device"}));
}

TEST(LintFlow, RunsLoopsOnceAndBindsLoaderBatches) {
  const Flowed f(
      "import torch\n"
      "from torch.utils.data import DataLoader\n"
      "model = torch.nn.Linear(2, 2).cuda()\n"
      "h = torch.zeros(2)\n"
      "for i, (x, y) in enumerate(DataLoader(data)):\n"
      "    out = model(x.cuda())\n"
      "    out = out + h\n"
      "    h = out.detach()\n"
      "    bad = out - y\n");
  EXPECT_EQ(meetings(f), (Lines{"7 factory@4 meets device", "9 batch@5 meets device"}));
}

TEST(LintFlow, RunsInitFirstAndGivesForwardsInputsTheModulesDevice) {
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

TEST(LintFlow, InInitEverythingIsOnTheHost) {
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

TEST(LintFlow, AModuleMovedElsewhereIsOnTheDeviceWhereItIsTheSameObject) {
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

TEST(LintFlow, RecordsMovesAsStatementsOrNot) {
  const Flowed f(
      "import torch\n"
      "def f(x, y, device):\n"
      "    x.to(device)\n"
      "    y = y.cuda(non_blocking=True)\n"
      "    z = y.to(torch.float16)\n");
  const auto& moves = f.flow.moves();
  ASSERT_EQ(moves.size(), 3U);
  EXPECT_TRUE(moves[0].statement);
  EXPECT_EQ(moves[0].target, Place::kDevice);
  EXPECT_FALSE(moves[1].statement);
  EXPECT_TRUE(moves[1].non_blocking);
  EXPECT_EQ(moves[2].target, Place::kDevice);
  EXPECT_TRUE(f.flow.module_input(0, "x") == false);
}

}  // namespace
}  // namespace devcheck::lint::detail
