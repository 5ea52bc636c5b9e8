#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

TEST(LintDC103, FindsAnArrayTensorPassedToAModuleOnADevice) {
  const std::string source =
      "import numpy as np\n"
      "import torch\n"
      "import torch.nn as nn\n"
      "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
      "model = nn.Linear(3, 1).to(device)\n"
      "def predict(batch):\n"
      "    x = torch.from_numpy(batch).float()\n"
      "    n = x.shape[0]\n"
      "    for i in range(n):\n"
      "        print(i)\n"
      "    return model(x) / n\n";
  EXPECT_EQ(found(source, "DC103"), (Lines{"7 DC103"}));
  const Finding f = only(source, "DC103");
  EXPECT_NE(f.message.find("torch.from_numpy(...) makes a tensor on the CPU, and line 11 uses it"),
            std::string::npos)
      << f.message;
  EXPECT_NE(f.message.find("torch.from_numpy(...).to(device)"), std::string::npos) << f.message;
}

TEST(LintDC103, FindsOperandsAndArgumentsBesideDeviceTensors) {
  const std::string source =
      "import numpy as np\n"
      "import torch\n"
      "import torch.nn.functional as F\n"
      "def step(model, x, labels, device):\n"
      "    model.to(device)\n"
      "    out = model(x.to(device))\n"
      "    target = torch.as_tensor(np.asarray(labels))\n"
      "    loss = F.cross_entropy(out, target)\n"
      "    bias = out + torch.from_numpy(np.ones(3))\n"
      "    both = torch.cat([out, torch.as_tensor([1.0, 2.0])])\n"
      "    return loss, bias, both\n";
  EXPECT_EQ(found(source, "DC103"), (Lines{"7 DC103", "9 DC103", "10 DC103"}));
  EXPECT_NE(only("import torch\n"
                 "def f(a, device):\n"
                 "    w = torch.ones(3, device='cuda')\n"
                 "    y = torch.from_numpy(a)\n"
                 "    z = y.sum()\n"
                 "    return w * y\n",
                 "DC103")
                .message.find("line 6 uses it"),
            std::string::npos);
}

TEST(LintDC103, SaysNothingWhenTheTensorIsMovedBeforeItMeetsTheDevice) {
  EXPECT_EQ(found("import numpy as np\n"
                  "import torch\n"
                  "import torch.nn as nn\n"
                  "model = nn.Linear(3, 1).cuda()\n"
                  "def a(batch, device):\n"
                  "    return model(torch.from_numpy(batch).to(device))\n"
                  "def b(batch, device):\n"
                  "    x = torch.from_numpy(batch)\n"
                  "    x = x.to(device)\n"
                  "    return model(x)\n"
                  "def c(batch, device):\n"
                  "    x = torch.from_numpy(batch).float()\n"
                  "    return model(x.to(device, non_blocking=True))\n"
                  "def d(batch, device):\n"
                  "    x = torch.as_tensor(batch, device=device)\n"
                  "    return model(x)\n"
                  "def e(batches):\n"
                  "    x = torch.from_numpy(batches[0])\n"
                  "    for x in batches:\n"
                  "        model(x.cuda())\n"
                  "def moved_later(a, device):\n"
                  "    x = torch.zeros(3)\n"
                  "    y = torch.as_tensor([2, 2, 1])\n"
                  "    z = torch.cat([x, y])\n"
                  "    x = x.to(device)\n"
                  "    return z\n"
                  "def f(batch, use_cuda):\n"
                  "    x = torch.from_numpy(batch)\n"
                  "    if use_cuda:\n"
                  "        x, = (x.cuda(),)\n"
                  "    return model(x)\n",
                  "DC103"),
            Lines{});
}

TEST(LintDC103, SaysNothingWhereOnlyCpuTensorsOrUnknownsMeetIt) {
  EXPECT_EQ(found("import numpy as np\n"
                  "import torch\n"
                  "import torch.nn as nn\n"
                  "device = 'cpu'\n"
                  "cpu_model = nn.Linear(3, 1).to(device)\n"
                  "def a(batch):\n"
                  "    x = torch.from_numpy(batch)\n"
                  "    return cpu_model(x) + torch.zeros(1)\n"
                  "def b(batch, t, device):\n"
                  "    y = t.to(device)\n"
                  "    return helper(torch.from_numpy(batch), y)\n"
                  "def c(t, device):\n"
                  "    y = t.to(device)\n"
                  "    return y + torch.as_tensor(t)\n"
                  "def d(a, device):\n"
                  "    x = torch.from_numpy(a)\n"
                  "    def inner(x):\n"
                  "        return x.to(device) + x.cuda()\n"
                  "    return inner\n"
                  "def e(a, device):\n"
                  "    w = torch.ones(2, device=device)\n"
                  "    x = torch.from_numpy(a)\n"
                  "    return w[x.shape[0]]\n",
                  "DC103"),
            Lines{});
}

TEST(LintDC103, FollowsSelfModulesMovedInAnotherMethod) {
  const std::string source =
      "import torch\n"
      "class Agent:\n"
      "    def __init__(self, net, device):\n"
      "        self.net = net\n"
      "        self.net.to(device)\n"
      "    def act(self, obs):\n"
      "        state = torch.from_numpy(obs).float().unsqueeze(0)\n"
      "        return self.net(state)\n";
  EXPECT_EQ(found(source, "DC103"), (Lines{"7 DC103"}));
}

TEST(LintDC103, FindsTorchTensorOfAnArrayTheCallerPasses) {
  EXPECT_EQ(found("import numpy as np\n"
                  "import torch\n"
                  "def run(model, image):\n"
                  "    x = torch.tensor(image).permute(2, 0, 1)\n"
                  "    return model(x.unsqueeze(0))\n"
                  "def main(model, path):\n"
                  "    model.to('cuda')\n"
                  "    return run(model, np.load(path))\n",
                  "DC103"),
            (Lines{"4 DC103"}));
  // What the callers pass is not known to be an array.
  EXPECT_EQ(found("import torch\n"
                  "def run(model, image):\n"
                  "    x = torch.tensor(image).permute(2, 0, 1)\n"
                  "    return model(x.unsqueeze(0))\n"
                  "def main(model, image):\n"
                  "    model.to('cuda')\n"
                  "    return run(model, image)\n",
                  "DC103"),
            Lines{});
}

// A module's `self.load_state_dict(...)` copies what it is given into the
// parameters wherever they are: not a submodule given host tensors. A
// from_numpy tensor given to a layer of the module still reports.
TEST(LintDC103, SaysNothingOfArraysLoadedIntoTheModulesOwnState) {
  const std::string checkpoint =
      "import numpy as np\n"
      "import torch\n"
      "from torch import nn\n"
      "class Embedder(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.embed = nn.Linear(4, 4)\n"
      "    def load(self, arrays):\n"
      "        local = {}\n"
      "        for key in arrays:\n"
      "            v = arrays[key]\n"
      "            if isinstance(v, np.ndarray):\n"
      "                v = torch.from_numpy(v)\n"
      "            local[key] = v\n"
      "        self.load_state_dict(local, strict=False)\n"
      "    def forward(self, x):\n"
      "        return self.embed(x)\n"
      "m = Embedder().cuda()\n";
  EXPECT_TRUE(found(checkpoint, "DC103").empty());
  const std::string head =
      "import numpy as np\n"
      "import torch\n"
      "import torch.nn as nn\n"
      "class Head(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.fc = nn.Linear(4, 2)\n"
      "    def restore(self, path):\n"
      "        weights = np.load(path)\n"
      "        self.load_state_dict({'fc.weight': torch.from_numpy(weights['w'])})\n"
      "    def score(self, arr):\n"
      "        return self.fc(torch.from_numpy(arr))\n"
      "head = Head().to('cuda')\n";
  EXPECT_EQ(found(head, "DC103"), (Lines{"12 DC103"}));
  EXPECT_EQ(only(head, "DC103").message,
            "torch.from_numpy(...) makes a tensor on the CPU, and line 12 uses it unmoved with "
            "tensors on a device: the op raises a device mismatch; move it where it is made: "
            "torch.from_numpy(...).to(device)");
}

}  // namespace
}  // namespace devcheck::lint
