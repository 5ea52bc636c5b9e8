#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

TEST(LintDC101, FindsFactoryWithoutDeviceInAFunctionOnADevice) {
  const std::string source =
      "import torch\n"
      "def step(x):\n"
      "    mask = x * torch.zeros(x.shape[0])\n"
      "    ok = torch.zeros(3, device=x.device)\n"
      "    moved = torch.ones(3).to(x.device)\n"
      "    scale = torch.tensor(2.0)\n"
      "    return x.to('cuda') * mask\n"
      "def cpu_only():\n"
      "    return torch.zeros(3)\n"
      "top = torch.zeros(3)\n";
  EXPECT_EQ(found(source, "DC101"), (Lines{"3 DC101"}));
  EXPECT_NE(only(source, "DC101").message.find("'step'"), std::string::npos);
  EXPECT_NE(only(source, "DC101").message.find("device="), std::string::npos);
}

// Before a function's first device use it builds on the CPU: a factory
// meeting the function's own tensors there is fine (pytorch/examples'
// load_cora adds torch.eye to a CPU sparse matrix and moves at the return);
// meeting a parameter, or in a loop, it is found.
TEST(LintDC101, BeforeTheFirstDeviceUseOnlyParametersAndLoopsCount) {
  const std::string source =
      "import torch\n"
      "def load(path, device):\n"
      "    adj = torch.sparse_coo_tensor(index, values)\n"
      "    adj = torch.eye(5) + adj\n"
      "    return adj.to(device)\n"
      "def passed_in(x, device):\n"
      "    y = x + torch.zeros(3)\n"
      "    return y.to(device)\n"
      "def method(self, device):\n"
      "    y = (self.w * 2) + torch.zeros(3)\n"
      "    return y.to(device)\n"
      "def looped(items, device):\n"
      "    for t in items:\n"
      "        acc = t + torch.zeros(3)\n"
      "        acc = acc.to(device)\n"
      "def after(path, device):\n"
      "    adj = read(path).to(device)\n"
      "    return torch.eye(5) + adj\n";
  EXPECT_EQ(found(source, "DC101"), (Lines{"7 DC101", "10 DC101", "14 DC101", "18 DC101"}));
}

TEST(LintDC101, FindsFactoriesInAModulesForward) {
  const std::string source =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Net(nn.Module):\n"
      "    def forward(self, x):\n"
      "        return x + torch.arange(x.shape[-1])\n"
      "class Plain:\n"
      "    def forward(self, x):\n"
      "        return x + torch.arange(x.shape[-1])\n";
  EXPECT_EQ(found(source, "DC101"), (Lines{"5 DC101"}));
}

TEST(LintDC101, SaysNothingWhenTheResultIsMovedOrNoDeviceIsNamed) {
  EXPECT_EQ(found("import torch\n"
                  "def rpc_result(x, device):\n"
                  "    y = x.to(device)\n"
                  "    return (torch.zeros(2) - torch.ones(2)).to(0)\n"
                  "def get_batch(data, device):\n"
                  "    ix = torch.randint(len(data), (4,))\n"
                  "    return torch.stack([data[i] for i in ix]).to(device)\n"
                  "def meta(device):\n"
                  "    with torch.device('meta'):\n"
                  "        x = torch.randint(0, 1, (2, 3)) + 1\n"
                  "    return x.to(device)\n"
                  "def sliced(x, device):\n"
                  "    return x.to(device), torch.tensor([1, 2, 3])[::2] + 1\n"
                  "def passed_on(x, device):\n"
                  "    check(torch.empty(3), x.to(device))\n"
                  "def build(size, device_id=None):\n"
                  "    t = torch.empty(size)\n"
                  "    return t.cuda(device_id)\n",
                  "DC101"),
            Lines{});
}

TEST(LintDC101, SaysNothingForDrawsComparedIndexedOrReadByElementInForward) {
  // torchvision's transforms: a random draw compared with a probability, an
  // index tensor (a CPU index indexes a tensor on any device), elements read
  // as numbers (a 0-dim tensor mixes with any device).
  EXPECT_EQ(found("import torch\n"
                  "import torch.nn as nn\n"
                  "class RandomCrop(nn.Module):\n"
                  "    def forward(self, img, magnitudes):\n"
                  "        if torch.rand(1) < self.p:\n"
                  "            return img\n"
                  "        m = magnitudes[torch.randint(3, (1,))]\n"
                  "        r = torch.rand(2)\n"
                  "        left = int((img.shape[-1] - 8) * r[0])\n"
                  "        top = int(r.shape[0] * r[1].item())\n"
                  "        perm = torch.randperm(3)\n"
                  "        img = img[..., perm, :, :]\n"
                  "        return img[..., top:, left:] * m\n",
                  "DC101"),
            Lines{});
  // Assigned and then used whole: found.
  EXPECT_EQ(found("import torch\n"
                  "import torch.nn as nn\n"
                  "class Seq(nn.Module):\n"
                  "    def forward(self, x):\n"
                  "        h = torch.zeros(x.size(0), 51)\n"
                  "        h, c = self.lstm(x, (h, h))\n"
                  "        return h\n",
                  "DC101"),
            (Lines{"5 DC101"}));
}

TEST(LintDC101, SaysNothingWithSplatsOrLikeFactories) {
  EXPECT_EQ(found("import torch\n"
                  "def f(x, **kw):\n"
                  "    a = torch.zeros(3, **kw)\n"
                  "    b = torch.zeros_like(x)\n"
                  "    c = x.new_zeros(3)\n"
                  "    return x.cuda()\n",
                  "DC101"),
            Lines{});
}

TEST(LintDC102, FindsADiscardedTensorMoveAndFixesIt) {
  const std::string source =
      "import torch\n"
      "import torch.nn as nn\n"
      "x = torch.zeros(3)\n"
      "x.cuda()\n"
      "model = nn.Linear(3, 3)\n"
      "model.to('cuda')\n"
      "y = torch.ones(3)\n"
      "y = y.cuda()\n"
      "z.cuda()\n";
  EXPECT_EQ(found(source, "DC102"), (Lines{"4 DC102"}));
  const Finding f = only(source, "DC102");
  EXPECT_NE(f.message.find("write x = x.cuda()"), std::string::npos) << f.message;
  ASSERT_TRUE(f.fix.has_value());
  const std::string fixed = apply_fixes(source, {f});
  EXPECT_NE(fixed.find("\nx = x.cuda()\n"), std::string::npos) << fixed;
  EXPECT_EQ(found(fixed, "DC102"), Lines{});
}

TEST(LintDC102, KnowsModulesOfThisFileAndSelfAttributes) {
  const std::string source =
      "import torch\n"
      "from torch import nn\n"
      "class Net(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.fc = nn.Linear(2, 2)\n"
      "        self.scale = torch.ones(2)\n"
      "    def move(self):\n"
      "        self.fc.cuda()\n"
      "        self.scale.cuda()\n"
      "net = Net()\n"
      "net.to('cuda')\n";
  EXPECT_EQ(found(source, "DC102"), (Lines{"10 DC102"}));
}

TEST(LintDC111, FindsPlainTensorsAssignedInModuleInit) {
  const std::string source =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Net(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.mask = torch.ones(4)\n"
      "        self.w = nn.Parameter(torch.ones(4))\n"
      "        self.register_buffer('b', torch.zeros(4))\n"
      "class NotAModule:\n"
      "    def __init__(self):\n"
      "        self.mask = torch.ones(4)\n";
  EXPECT_EQ(found(source, "DC111"), (Lines{"6 DC111"}));
  EXPECT_NE(only(source, "DC111").message.find("self.register_buffer(\"mask\""), std::string::npos);
}

TEST(LintDC113, FindsNumpyOnADeviceTensor) {
  const std::string source =
      "import torch\n"
      "def f(x, device):\n"
      "    y = x.to(device)\n"
      "    a = y.numpy()\n"
      "    b = y.detach().cpu().numpy()\n"
      "    c = x.cuda().detach().numpy()\n"
      "    d = x.numpy()\n"
      "    e = x.to(torch.float32).numpy()\n";
  EXPECT_EQ(found(source, "DC113"), (Lines{"4 DC113", "6 DC113"}));
  EXPECT_NE(only("def f(x):\n    return x.cuda().numpy()\n", "DC113")
                .message.find(".detach().cpu().numpy()"),
            std::string::npos);
}

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

TEST(LintDC117, FindsSavingAWrappersStateDict) {
  const std::string source =
      "import torch\n"
      "from torch.nn.parallel import DistributedDataParallel as DDP\n"
      "model = Net()\n"
      "ddp = DDP(model)\n"
      "torch.save(ddp.state_dict(), 'a.pt')\n"
      "torch.save({'model': ddp.state_dict()}, 'b.pt')\n"
      "torch.save(ddp.module.state_dict(), 'c.pt')\n"
      "torch.save(model.state_dict(), 'd.pt')\n";
  EXPECT_EQ(found(source, "DC117"), (Lines{"5 DC117", "6 DC117"}));
  EXPECT_NE(
      only("import torch\nm = torch.nn.DataParallel(n)\ntorch.save(m.state_dict(), p)\n", "DC117")
          .message.find("save m.module.state_dict()"),
      std::string::npos);
}

TEST(LintDC106, FindsAStackOfPerElementMoves) {
  const std::string source =
      "import torch\n"
      "a = torch.stack([t.to(device) for t in ts])\n"
      "b = torch.cat([t.cuda() for t in ts])\n"
      "c = torch.stack(ts).to(device)\n"
      "d = torch.stack([f(t).to(device) for t in ts])\n"
      "e = [t.to(device) for t in ts]\n";
  EXPECT_EQ(found(source, "DC106"), (Lines{"2 DC106", "3 DC106"}));
  EXPECT_NE(only("import torch\nx = torch.stack([t.to(d) for t in ts])\n", "DC106")
                .message.find("torch.stack(...).to(...)"),
            std::string::npos);
}

TEST(LintDC104, FindsDdpBuiltBeforeTheModelMoves) {
  const std::string bad =
      "from torch.nn.parallel import DistributedDataParallel as DDP\n"
      "def main(model, device):\n"
      "    ddp = DDP(model)\n"
      "    ddp.to(device)\n";
  EXPECT_EQ(found(bad, "DC104"), (Lines{"3 DC104"}));
  EXPECT_NE(only(bad, "DC104").message.find("moved only after, line 4"), std::string::npos);
  EXPECT_EQ(found("from torch.nn.parallel import DistributedDataParallel as DDP\n"
                  "def main(model, device):\n"
                  "    model.to(device)\n"
                  "    ddp = DDP(model, device_ids=[0])\n"
                  "def cpu(model):\n"
                  "    return DDP(model)\n",
                  "DC104"),
            Lines{});
}

}  // namespace
}  // namespace devcheck::lint
