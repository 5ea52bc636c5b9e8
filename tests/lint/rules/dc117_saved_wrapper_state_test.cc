#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

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

// The wrapper the name holds where the save reads it: wrapped under a
// branch and then moved is still a wrapper; unwrapped before the save, or
// wrapped only after it, is not.
TEST(LintDC117, FollowsTheNameToTheSave) {
  const std::string source =
      "import torch\n"
      "import torch.nn as nn\n"
      "def train(net, n_gpus, path):\n"
      "    if n_gpus > 1:\n"
      "        net = nn.DataParallel(net)\n"
      "    net = net.cuda()\n"
      "    torch.save({'net_state': net.state_dict()}, path)\n"
      "def before(net, path):\n"
      "    torch.save(net.state_dict(), path)\n"
      "    net = nn.DataParallel(net)\n"
      "    return net\n"
      "def unwrapped(net, path):\n"
      "    net = nn.DataParallel(net)\n"
      "    net = net.module\n"
      "    torch.save(net.state_dict(), path)\n";
  EXPECT_EQ(found(source, "DC117"), (Lines{"7 DC117"}));
}

// A wrapper's state saved by a function that loads it back into a wrapper
// (torch's DDP comm-hook pickling test): the keys match. A function that
// loads it into the bare model, or none, is still found.
TEST(LintDC117, SaysNothingWhereTheSameFunctionLoadsItIntoAWrapper) {
  const std::string source =
      "import torch\n"
      "from torch.nn.parallel import DistributedDataParallel\n"
      "def pickling(net, rank, path):\n"
      "    ddp_model = DistributedDataParallel(net, device_ids=[rank])\n"
      "    dummy_ddp_model = DistributedDataParallel(net, device_ids=[rank])\n"
      "    state = {'state_dict': ddp_model.state_dict()}\n"
      "    torch.save(state, path)\n"
      "    checkpoint = torch.load(path, map_location='cpu')\n"
      "    dummy_ddp_model.load_state_dict(checkpoint['state_dict'])\n"
      "def bare(net, rank, path):\n"
      "    ddp_model = DistributedDataParallel(net, device_ids=[rank])\n"
      "    torch.save(ddp_model.state_dict(), path)\n"
      "    net.load_state_dict(torch.load(path, map_location='cpu'))\n";
  EXPECT_EQ(found(source, "DC117"), (Lines{"12 DC117"}));
}

}  // namespace
}  // namespace devcheck::lint
