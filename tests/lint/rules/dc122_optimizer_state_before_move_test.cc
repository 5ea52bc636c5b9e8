#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

TEST(LintDC122, FindsOptimizerStateLoadedBeforeTheModelMoves) {
  const std::string bad =
      "import torch\n"
      "def resume(model, path):\n"
      "    optimizer = torch.optim.Adam(model.parameters())\n"
      "    checkpoint = torch.load(path, map_location='cpu')\n"
      "    optimizer.load_state_dict(checkpoint['optimizer'])\n"
      "    model.cuda()\n";
  EXPECT_EQ(found(bad, "DC122"), (Lines{"5 DC122"}));
  const Finding f = only(bad, "DC122");
  EXPECT_NE(f.message.find("optimizer.load_state_dict(...) runs before model is moved to its "
                           "device (line 6)"),
            std::string::npos)
      << f.message;
}

TEST(LintDC122, FindsItInAMethodAndUnderABranch) {
  EXPECT_EQ(found("import torch\n"
                  "class Trainer:\n"
                  "    def __init__(self, model, device, path=None):\n"
                  "        self.model = model\n"
                  "        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
                  "        if path is not None:\n"
                  "            self.optimizer.load_state_dict(torch.load(path)['opt'])\n"
                  "        self.model = self.model.to(device)\n",
                  "DC122"),
            (Lines{"7 DC122"}));
}

TEST(LintDC122, SaysNothingWhenTheModelMovesFirstOrTheLoadIsAModels) {
  EXPECT_EQ(found("import torch\n"
                  "def resume(model, path, device):\n"
                  "    model.to(device)\n"
                  "    optimizer = torch.optim.Adam(model.parameters())\n"
                  "    optimizer.load_state_dict(torch.load(path)['optimizer'])\n"
                  "def weights(model, path, device):\n"
                  "    model.load_state_dict(torch.load(path, map_location='cpu'))\n"
                  "    model.to(device)\n"
                  "def scheduler(sched, model, path, device):\n"
                  "    sched.load_state_dict(torch.load(path)['sched'])\n"
                  "    model.to(device)\n"
                  "def half(optimizer, model, path):\n"
                  "    optimizer.load_state_dict(torch.load(path))\n"
                  "    model.to(torch.float16)\n",
                  "DC122"),
            Lines{});
}

// A copy moved to the CPU after the load (torchvision's quantization
// script evaluates a CPU copy of the model) is no move to the device.
TEST(LintDC122, SaysNothingOfAMoveToTheCpuAfterTheLoad) {
  EXPECT_EQ(found("import copy\n"
                  "import torch\n"
                  "def main(model, optimizer, path, device):\n"
                  "    model.to(device)\n"
                  "    optimizer.load_state_dict(torch.load(path)['optimizer'])\n"
                  "    copied = copy.deepcopy(model)\n"
                  "    copied.to(torch.device('cpu'))\n",
                  "DC122"),
            Lines{});
}

TEST(LintDC122, FindsTheModelMovedThroughItsWrapperAfterTheLoad) {
  EXPECT_EQ(found("import torch\n"
                  "from torch.nn import DataParallel\n"
                  "def train(net, path):\n"
                  "    optimizer = torch.optim.Adam(net.parameters())\n"
                  "    optimizer.load_state_dict(torch.load(path, map_location='cpu'))\n"
                  "    net = DataParallel(net).cuda()\n",
                  "DC122"),
            (Lines{"5 DC122"}));
}

TEST(LintDC122, FindsTheModelMovedByAFunctionItIsHandedToAfterTheLoad) {
  const std::string bad =
      "import torch\n"
      "def make_trainer(model, device):\n"
      "    model.to(device)\n"
      "def fit(model, optimizer, device):\n"
      "    make_trainer(model, device=device)\n"
      "def main(model, path):\n"
      "    optimizer = torch.optim.Adam(model.parameters())\n"
      "    optimizer.load_state_dict(torch.load(path, map_location='cpu'))\n"
      "    fit(model, optimizer, 'cuda')\n";
  EXPECT_EQ(found(bad, "DC122"), (Lines{"8 DC122"}));
  EXPECT_NE(only(bad, "DC122")
                .message.find("before model is moved to its device (by the call "
                              "on line 9)"),
            std::string::npos);
}

TEST(LintDC122, IsSilentWhereTheModelWasMovedBeforeTheLoadOrTheCalleeDoesNotMoveIt) {
  // Moved first: the state goes where the parameters already are.
  EXPECT_TRUE(found("import torch\n"
                    "def fit(model, device):\n"
                    "    model.to(device)\n"
                    "def main(model, path):\n"
                    "    model.to('cuda')\n"
                    "    optimizer = torch.optim.Adam(model.parameters())\n"
                    "    optimizer.load_state_dict(torch.load(path, map_location='cpu'))\n"
                    "    fit(model, 'cuda')\n",
                    "DC122")
                  .empty());
  // The callee moves something else (its batches), not the model.
  EXPECT_TRUE(found("import torch\n"
                    "def fit(model, batch, device):\n"
                    "    batch = batch.to(device)\n"
                    "    return model(batch)\n"
                    "def main(model, batch, path):\n"
                    "    optimizer = torch.optim.Adam(model.parameters())\n"
                    "    optimizer.load_state_dict(torch.load(path, map_location='cpu'))\n"
                    "    fit(model, batch, 'cuda')\n",
                    "DC122")
                  .empty());
  // A wrapper that is not moved.
  EXPECT_TRUE(found("import torch\n"
                    "from torch.nn import DataParallel\n"
                    "def train(net, path):\n"
                    "    optimizer = torch.optim.Adam(net.parameters())\n"
                    "    optimizer.load_state_dict(torch.load(path, map_location='cpu'))\n"
                    "    net = DataParallel(net)\n",
                    "DC122")
                  .empty());
}

TEST(LintDC122, FindsAnAdagradMadeBeforeTheModelMoves) {
  const std::string bad =
      "import torch\n"
      "from torch import nn, optim\n"
      "linear = nn.Linear(2, 4)\n"
      "o = optim.Adagrad(linear.parameters())\n"
      "linear.to('cuda')\n";
  EXPECT_EQ(found(bad, "DC122"), (Lines{"4 DC122"}));
  const Finding f = only(bad, "DC122");
  EXPECT_NE(f.message.find("optim.Adagrad(...) makes the optimizer's state now, where linear's "
                           "parameters are (the CPU), and linear is moved to its device after it "
                           "(line 5)"),
            std::string::npos)
      << f.message;
  // Rebound, in a function, and moved by a function of the file it is handed to.
  EXPECT_EQ(found("import torch\n"
                  "def to_device(model, device):\n"
                  "    model.to(device)\n"
                  "    return model\n"
                  "def a(model, device):\n"
                  "    opt = torch.optim.Adagrad(model.parameters(), lr=0.1)\n"
                  "    model = model.to(device)\n"
                  "def b(model, device):\n"
                  "    opt = torch.optim.Adagrad(params=model.parameters())\n"
                  "    model = to_device(model, device)\n",
                  "DC122"),
            (Lines{"6 DC122", "9 DC122"}));
}

TEST(LintDC122, FindsOptimizersOfTheFileThatCopyTheParametersAndMethodsReturningThem) {
  EXPECT_EQ(found("import torch\n"
                  "from torch.optim import Optimizer\n"
                  "class Lookahead(Optimizer):\n"
                  "    def __init__(self, params, lr=1e-3):\n"
                  "        super().__init__(params, dict(lr=lr))\n"
                  "        self.slow = [[p.clone().detach() for p in g['params']]\n"
                  "                     for g in self.param_groups]\n"
                  "class Net(torch.nn.Module):\n"
                  "    def configure_optimizers(self):\n"
                  "        return torch.optim.Adagrad(self.parameters())\n"
                  "def train(model, net):\n"
                  "    opt = Lookahead(model.parameters())\n"
                  "    model.cuda()\n"
                  "    opt2 = net.configure_optimizers()\n"
                  "    net.cuda(0)\n",
                  "DC122"),
            (Lines{"12 DC122", "14 DC122"}));
}

TEST(LintDC122, IsSilentOnLazyOptimizersMovesFirstAndStateLoadedAgainAfterTheMove) {
  EXPECT_TRUE(found("import torch\n"
                    "from torch.optim import Optimizer\n"
                    "class Plain(Optimizer):\n"
                    "    def __init__(self, params, lr=1e-3):\n"
                    "        super().__init__(params, dict(lr=lr))\n"
                    "def adam(model):\n"
                    "    opt = torch.optim.Adam(model.parameters())\n"
                    "    model.cuda()\n"
                    "def plain(model):\n"
                    "    opt = Plain(model.parameters())\n"
                    "    model.cuda()\n"
                    "def first(model):\n"
                    "    model.cuda()\n"
                    "    opt = torch.optim.Adagrad(model.parameters())\n"
                    "def reloaded(model, device):\n"
                    "    opt = torch.optim.Adagrad(model.parameters())\n"
                    "    model.to(device)\n"
                    "    opt.load_state_dict(opt.state_dict())\n"
                    "def to_cpu(model):\n"
                    "    opt = torch.optim.Adagrad(model.parameters())\n"
                    "    model.to('cpu')\n"
                    "def other(model, head):\n"
                    "    opt = torch.optim.Adagrad(model.parameters())\n"
                    "    head.cuda()\n",
                    "DC122")
                  .empty());
}

// Lightning Fabric's setup and Accelerate's prepare move the model they are
// given: an optimizer's state loaded before them stays on the CPU (issue
// 38: Lightning's #19225); not loaded after them, nor another object's setup.
TEST(LintDC122, FindsAStateLoadedBeforeALauncherMovesTheModel) {
  const std::string head =
      "import torch\n"
      "from lightning import Fabric\n"
      "from accelerate import Accelerator\n"
      "def main(ckpt, helper):\n"
      "    model = torch.nn.Linear(2, 2)\n"
      "    optimizer = torch.optim.AdamW(model.parameters())\n";
  EXPECT_EQ(found(head + "    optimizer.load_state_dict(ckpt['optimizer'])\n"
                         "    fabric = Fabric(accelerator='cuda')\n"
                         "    model, optimizer = fabric.setup(model, optimizer)\n",
                  "DC122"),
            (Lines{"7 DC122"}));
  EXPECT_EQ(found(head + "    optimizer.load_state_dict(ckpt['optimizer'])\n"
                         "    accelerator = Accelerator()\n"
                         "    model, optimizer = accelerator.prepare(model, optimizer)\n",
                  "DC122"),
            (Lines{"7 DC122"}));
  EXPECT_EQ(found(head + "    fabric = Fabric(accelerator='cuda')\n"
                         "    model, optimizer = fabric.setup(model, optimizer)\n"
                         "    optimizer.load_state_dict(ckpt['optimizer'])\n",
                  "DC122"),
            Lines{});
  EXPECT_EQ(found(head + "    optimizer.load_state_dict(ckpt['optimizer'])\n"
                         "    model, optimizer = helper.setup(model, optimizer)\n",
                  "DC122"),
            Lines{});
}

}  // namespace
}  // namespace devcheck::lint
