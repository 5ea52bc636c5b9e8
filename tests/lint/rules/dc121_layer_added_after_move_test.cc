#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

TEST(LintDC121, FindsALayerReplacedAfterTheMove) {
  const std::string bad =
      "import torch\n"
      "def prepare(model, device):\n"
      "    model.to(device)\n"
      "    model.out_head = torch.nn.Linear(768, 2)\n"
      "    return model\n";
  EXPECT_EQ(found(bad, "DC121"), (Lines{"4 DC121"}));
  EXPECT_NE(only(bad, "DC121")
                .message.find("model.out_head is replaced by a layer made on the CPU after model "
                              "was moved to its device (line 3)"),
            std::string::npos);
}

// torch 1.13 and later: the SyncBatchNorm layers convert_sync_batchnorm
// makes take the old layers' parameters and buffers, on the model's device
// (torchvision's reference scripts convert after the move).
TEST(LintDC121, PassesSyncBatchNormConversionAfterTheMove) {
  const std::string ok =
      "import torch\n"
      "def build(model, rank):\n"
      "    model.to(rank)\n"
      "    model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model)\n"
      "    return model\n";
  EXPECT_EQ(found(ok, "DC121"), Lines{});
}

// The whole class: a method that builds a layer into self, called on a
// model already moved, is found at the layer it makes.
TEST(LintDC121, FindsAMethodOfTheFileBuildingALayerCalledAfterTheMove) {
  const std::string bad =
      "import torch.nn as nn\n"
      "class Net(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.head = nn.Linear(8, 4)\n"
      "    def reset_head(self, n):\n"
      "        self.head = nn.Linear(8, n)\n"
      "def main(device):\n"
      "    model = Net()\n"
      "    model.cuda()\n"
      "    model.reset_head(10)\n";
  EXPECT_EQ(found(bad, "DC121"), (Lines{"7 DC121"}));
  EXPECT_NE(only(bad, "DC121")
                .message.find("Net.reset_head(), called on model (line 11) after "
                              "it was moved to its device (line 10)"),
            std::string::npos);
}

TEST(LintDC121, SaysNothingWhenTheChangeComesFirstOrTheModelMovesAgain) {
  EXPECT_EQ(found("import torch\n"
                  "import torch.nn as nn\n"
                  "def first(model, device):\n"
                  "    model.fc = nn.Linear(512, 10)\n"
                  "    model.to(device)\n"
                  "def again(model, device):\n"
                  "    model.to(device)\n"
                  "    model.fc = nn.Linear(512, 10)\n"
                  "    model.to(device)\n"
                  "def placed(model, device):\n"
                  "    model.to(device)\n"
                  "    model.fc = nn.Linear(512, 10, device=device)\n"
                  "def activation(model, device):\n"
                  "    model.to(device)\n"
                  "    model.act = nn.ReLU()\n"
                  "def dtype(model):\n"
                  "    model.to(torch.float16)\n"
                  "    model.fc = nn.Linear(512, 10)\n",
                  "DC121"),
            Lines{});
}

TEST(LintDC121, FindsALayerMadeUnderANameThenPutInTheMovedModel) {
  const std::string bad =
      "import torch.nn as nn\n"
      "class Head(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.fc = nn.Linear(n, n)\n"
      "def load(model, device, n):\n"
      "    model.to(device=device)\n"
      "    head = Head(n)\n"
      "    head.load_state_dict(model.head.state_dict())\n"
      "    model.head = head\n"
      "    return model\n";
  EXPECT_EQ(found(bad, "DC121"), (Lines{"10 DC121"}));
  EXPECT_NE(only(bad, "DC121")
                .message.find("model.head is replaced by head, a layer made on the "
                              "CPU (line 8), after model was moved"),
            std::string::npos);
}

TEST(LintDC121, IsSilentWhereTheNamedLayerOrTheModelMovesAfter) {
  const std::string head =
      "import torch.nn as nn\n"
      "def load(model, device, n):\n"
      "    model.to(device)\n"
      "    head = nn.Linear(n, n)\n";
  EXPECT_EQ(found(head + "    model.head = head\n    model.to(device)\n", "DC121"), Lines{});
  EXPECT_EQ(found(head + "    head.to(device)\n    model.head = head\n", "DC121"), Lines{});
  // Put in before the move.
  EXPECT_EQ(found("import torch.nn as nn\n"
                  "def load(model, device, n):\n"
                  "    head = nn.Linear(n, n)\n"
                  "    model.head = head\n"
                  "    model.to(device)\n",
                  "DC121"),
            Lines{});
}

}  // namespace
}  // namespace devcheck::lint
