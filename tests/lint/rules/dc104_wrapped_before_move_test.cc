#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

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

// With device_ids, DDP refuses a model on the CPU: one made here and never
// moved is found; one moved before (or where it cannot be told) is not.
TEST(LintDC104, FindsDeviceIdsForAModelNeverMoved) {
  const std::string source =
      "import torch\n"
      "import torch.nn as nn\n"
      "def main(gpu):\n"
      "    torch.cuda.set_device(gpu)\n"
      "    model = nn.Linear(4, 4)\n"
      "    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[gpu])\n"
      "def fixed(gpu):\n"
      "    model = nn.Linear(4, 4)\n"
      "    model.cuda(gpu)\n"
      "    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[gpu])\n"
      "def given(model, gpu):\n"
      "    return torch.nn.parallel.DistributedDataParallel(model, device_ids=[gpu])\n";
  EXPECT_EQ(found(source, "DC104"), (Lines{"6 DC104"}));
  EXPECT_NE(only(source, "DC104").message.find("made on the CPU (line 5)"), std::string::npos);
}

}  // namespace
}  // namespace devcheck::lint
