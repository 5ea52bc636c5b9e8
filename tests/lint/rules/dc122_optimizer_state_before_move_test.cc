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

}  // namespace
}  // namespace devcheck::lint
