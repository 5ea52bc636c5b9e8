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

// A branch taken only while torch.fx traces the code (`if
// is_torch_fx_proxy(x):`, `isinstance(x, torch.fx.Proxy)`) sees proxies,
// never tensors on a device: what meets there is no meeting. The other way
// (`else`, `if not ...`) runs on tensors and still meets.
TEST(LintFlowScopes, WhatMeetsOnlyWhileFxTracesMeetsNothing) {
  const Flowed shift(
      "import torch\n"
      "from transformers.utils import is_torch_fx_proxy\n"
      "def shift_right(ids, start):\n"
      "    ids = ids.cuda()\n"
      "    if is_torch_fx_proxy(ids):\n"
      "        out = torch.full(ids.shape[:-1] + (1,), start)\n"
      "        out = torch.cat([out, ids[..., :-1]], dim=-1)\n"
      "    else:\n"
      "        out = torch.cat([torch.zeros(2, 1), ids[..., :-1]], dim=-1)\n"
      "    return out\n");
  EXPECT_EQ(meetings(shift), (Lines{"9 factory@9 meets device"}));
  const Flowed proxy(
      "import torch\n"
      "import torch.fx\n"
      "def pad(x, n):\n"
      "    x = x.to('cuda')\n"
      "    if isinstance(x, torch.fx.Proxy):\n"
      "        return x + torch.zeros(n)\n"
      "    if not isinstance(x, torch.fx.Proxy):\n"
      "        return x + torch.ones(n)\n");
  EXPECT_EQ(meetings(proxy), (Lines{"8 factory@8 meets device"}));
}

// A helper only `__init__` calls (`self._probe(...)`) runs while the module
// is built, before anything moves it: its submodules are where `__init__`
// has them, not on the module's device. One forward calls too runs on the
// device as well, and meets it.
TEST(LintFlowScopes, AHelperOnlyInitCallsRunsWhereInitDoes) {
  const Flowed probe(
      "import torch\n"
      "import torch.nn as nn\n"
      "class Patch(nn.Module):\n"
      "    def __init__(self, size=224, backbone=None):\n"
      "        super().__init__()\n"
      "        self.backbone = backbone or nn.Conv2d(3, 8, 16)\n"
      "        if backbone is not None:\n"
      "            self.dims = self._probe(size)\n"
      "    def _probe(self, size):\n"
      "        return self.backbone(torch.zeros(1, 3, size, size)).shape\n"
      "    def forward(self, x):\n"
      "        return self.backbone(x)\n");
  EXPECT_EQ(meetings(probe), Lines{});
  const Flowed shared(
      "import torch\n"
      "import torch.nn as nn\n"
      "class Net(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.fc = nn.Linear(4, 4)\n"
      "        self.out = self._width()\n"
      "        self.scale = self._scale()\n"
      "    def _width(self):\n"
      "        return self.fc(torch.ones(1, 4)).shape[-1]\n"
      "    def _scale(self):\n"
      "        return self.fc(torch.ones(1, 4))\n"
      "    def forward(self, x):\n"
      "        return self.fc(x) * self._scale()\n");
  EXPECT_EQ(meetings(shared), (Lines{"12 factory@12 meets module"}));
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

// A Trainer's compute_loss(self, model, inputs): the model and the inputs
// are on the Trainer's device (issue 38, transformers' weighted-loss
// example); not a method of that name in another class.
TEST(LintFlowScopes, ATrainersComputeLossGetsTheModelAndInputsOnTheDevice) {
  const std::string body =
      "    def compute_loss(self, model, inputs, return_outputs=False):\n"
      "        logits = model(**inputs).get('logits')\n"
      "        w = torch.tensor([1.0, 2.0, 3.0])\n"
      "        return nn.CrossEntropyLoss(weight=w)(logits, inputs.get('labels'))\n";
  const Flowed f(
      "import torch\n"
      "from torch import nn\n"
      "from transformers import Trainer\n"
      "class WeightedTrainer(Trainer):\n" +
      body);
  EXPECT_EQ(meetings(f), (Lines{"8 factory@7 meets device"}));
  const Flowed near(
      "import torch\n"
      "from torch import nn\n"
      "class Helper:\n" +
      body);
  EXPECT_EQ(meetings(near), Lines{});
}

// A plain class's `self.model` that only fit() moves is as __init__ left it
// in predict() where a call of the file reaches predict() on an object the
// class made without fit() before it (issue 38: dashAI's, PET's wrappers);
// moved where fit() or its own move comes first, or where nothing calls it.
TEST(LintFlowScopes, AModelOnlyAnotherMethodMovesIsUnmovedWhereACallSkipsIt) {
  const std::string cls =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Clf:\n"
      "    def __init__(self):\n"
      "        self.device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
      "        self.model = nn.Linear(3, 2)\n"
      "    def fit(self, x):\n"
      "        self.model.to(self.device)\n"
      "        return self.model(x.to(self.device))\n"
      "    def predict(self, x):\n"
      "        return self.model(x.to(self.device))\n";
  const Flowed f(cls +
                 "def main(x):\n"
                 "    clf = Clf()\n"
                 "    return clf.predict(x)\n");
  EXPECT_EQ(meetings(f), (Lines{"11 unmoved@6 meets device"}));
  ASSERT_EQ(f.flow.skipped_moves().size(), 1U);
  EXPECT_EQ(testing::line(f.flow.skipped_moves()[0].call), 14);
  for (const char* before : {"    clf.fit(x)\n", "    clf.model.to('cuda')\n"}) {
    std::string code = cls;
    code += "def main(x):\n    clf = Clf()\n";
    code += before;
    code += "    return clf.predict(x)\n";
    const Flowed near(code);
    EXPECT_EQ(meetings(near), Lines{}) << before;
  }
  EXPECT_EQ(meetings(Flowed(cls)), Lines{});
}

// A module a plain class keeps, made and moved at once (`self.net =
// Net().to(self.device)`), is one of its modules: a host batch given to it in
// another method meets its device.
TEST(LintFlowScopes, AModuleMadeAndMovedInOneLineIsAModuleTheClassKeeps) {
  const Flowed f(
      "import torch\n"
      "import torch.nn as nn\n"
      "class Seq(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.fc = nn.Linear(4, 8)\n"
      "    def forward(self, x):\n"
      "        return self.fc(x)\n"
      "class Agent:\n"
      "    def __init__(self, device):\n"
      "        self.device = device\n"
      "        self.net = Seq().to(device).eval()\n"
      "    def learn(self, loader):\n"
      "        for x, y in loader:\n"
      "            out = self.net(x)\n"
      "    def learn_moved(self, loader):\n"
      "        for x, y in loader:\n"
      "            out = self.net(x.to(self.device))\n");
  EXPECT_EQ(meetings(f), (Lines{"15 batch@14 meets device"}));
}

// A list a plain class keeps, filled by one method with what its calls pass
// (device losses) and read by another with NumPy: the method that fills it
// runs, so the reader sees what it holds; numbers in it are no tensors.
TEST(LintFlowScopes, AListOneMethodFillsIsWhatAnotherReads) {
  const std::string head =
      "import numpy as np\n"
      "import torch\n"
      "class Meter:\n"
      "    def __init__(self):\n"
      "        self.vals = []\n"
      "    def update(self, v):\n"
      "        self.vals.append(v)\n"
      "    def mean(self):\n"
      "        return np.mean(self.vals)\n"
      "def main(x):\n"
      "    m = Meter()\n"
      "    loss = x.cuda() * 2\n";
  EXPECT_EQ(testing::numpy_reads(Flowed(head + "    m.update(loss)\n")), (Lines{"9 device"}));
  EXPECT_EQ(testing::numpy_reads(Flowed(head + "    m.update(loss.item())\n")), Lines{});
}

// A chain of calls between the file's functions deeper than the stack allows
// (five thousand functions, each calling the next) is followed as far as the
// stack goes (src/lint/stack.h): no overflow; a short chain is followed whole.
TEST(LintFlowScopes, ACallChainDeeperThanTheStackIsFollowedAsFarAsItGoes) {
  std::string code = "import torch\n";
  for (int i = 0; i < 5000; ++i) {
    code += "def f" + std::to_string(i) + "(x):\n    return f" + std::to_string(i + 1) + "(x)\n";
  }
  code += "def f5000(x):\n    return x.cuda()\n";
  for (int i = 0; i < 10; ++i) {
    code += "def h" + std::to_string(i) + "(x):\n    return h" + std::to_string(i + 1) + "(x)\n";
  }
  code += "def h10(x):\n    return x.cuda()\n";
  code += "def main():\n    a = h0(torch.zeros(3))\n    return a + torch.ones(3)\n";
  const Flowed f(code);
  const int main_return = 1 + 2 * 5001 + 2 * 11 + 3;
  const std::string at = std::to_string(main_return);
  EXPECT_EQ(testing::meetings(f), (Lines{at + " factory@" + at + " meets device"}));
}

}  // namespace
}  // namespace devcheck::lint::detail
