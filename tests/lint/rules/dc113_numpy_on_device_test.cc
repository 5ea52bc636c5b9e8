#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

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

// A module's output is where the module is (moved anywhere in the file); a
// copy to "cpu" is on the host.
TEST(LintDC113, FindsAModulesOutputAndNotACopyToTheCpu) {
  const std::string source =
      "import torch\n"
      "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
      "model = Net()\n"
      "model.to(device)\n"
      "def predict(x):\n"
      "    out = model(x.to(device))\n"
      "    return out.softmax(-1).detach().numpy()\n"
      "def host(x):\n"
      "    return x.to('cpu').numpy(), model(x).cpu().numpy()\n"
      "def collected(loader):\n"
      "    outs = []\n"
      "    for x, y in loader:\n"
      "        outs.append(model(x.to(device)))\n"
      "    return np.concatenate(outs)\n";
  EXPECT_EQ(found("import numpy as np\n" + source, "DC113"), (Lines{"8 DC113", "15 DC113"}));
}

TEST(LintDC113, FindsNumpyInAMethodOfAModuleTheClassKeepsOnADevice) {
  EXPECT_EQ(found("import torch.nn as nn\n"
                  "class Head(nn.Module):\n"
                  "    def __init__(self):\n"
                  "        super().__init__()\n"
                  "        self.fc = nn.Linear(4, 2)\n"
                  "    def forward(self, x):\n"
                  "        return self.fc(x)\n"
                  "    def decode(self, out):\n"
                  "        return out.data.numpy()\n"
                  "class Pipeline:\n"
                  "    def __init__(self, device):\n"
                  "        self.head = Head()\n"
                  "        self.head.to(device)\n"
                  "    def predict(self, x):\n"
                  "        return self.head.decode(self.head(x))\n",
                  "DC113"),
            (Lines{"9 DC113"}));
}

// NumPy given what is on a module's device, in a file that moves its
// modules to a device (issue 38, the DHCN case: np.sum of the layers'
// embeddings); silent where the file never moves a module.
TEST(LintDC113, FindsNumpyOfTheModulesDeviceValuesInAFileThatMovesModules) {
  const std::string module =
      "import numpy as np\n"
      "import torch\n"
      "import torch.nn as nn\n"
      "class HyperConv(nn.Module):\n"
      "    def forward(self, adjacency, embedding):\n"
      "        final = [embedding]\n"
      "        final.append(torch.sparse.mm(adjacency, embedding))\n"
      "        return np.sum(final, 0)\n";
  EXPECT_EQ(
      found(module + "def train(adjacency, device):\n"
                     "    model = HyperConv().to(device)\n"
                     "    return model(adjacency.to(device), torch.rand(3, 3, device=device))\n",
            "DC113"),
      (Lines{"8 DC113"}));
  EXPECT_NE(only(module + "def train(adjacency, device):\n"
                          "    return HyperConv().cuda()(adjacency.cuda(), adjacency.cuda())\n",
                 "DC113")
                .message.find("on the module's device raises a TypeError once the module is on a "
                              "device (this file moves its modules to one)"),
            std::string::npos);
  EXPECT_EQ(found(module, "DC113"), Lines{});
}

// A moved model's state_dict() holds tensors on the device, here and in a
// helper it is handed to (issue 38, the fastllm exporter); not a model left
// on the CPU.
TEST(LintDC113, FindsNumpyOfAMovedModelsStateDict) {
  const std::string source =
      "import torch\n"
      "def tofile(model):\n"
      "    state = model.state_dict()\n"
      "    for key in state:\n"
      "        cur = state[key].numpy()\n"
      "def main(model, other):\n"
      "    model = model.cuda().eval()\n"
      "    tofile(model)\n"
      "    a = model.state_dict()['w'].numpy()\n"
      "    b = other.state_dict()['w'].numpy()\n"
      "    c = model.state_dict()['w'].cpu().numpy()\n";
  EXPECT_EQ(found(source, "DC113"), (Lines{"5 DC113", "9 DC113"}));
}

}  // namespace
}  // namespace devcheck::lint
