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

// A save under `if A:` of a model wrapped under `if B:`, where the function
// refuses A and B together before either (`if A and B: raise ...`):
// torchvision's train_quantization.py saves after post-training
// quantization, which refuses distributed mode, so the model there is never
// DDP. Without the refusal, or with one of other conditions, it is found.
TEST(LintDC117, SaysNothingWhereTheProgramRefusesTheSaveAndTheWrapperTogether) {
  const std::string source =
      "import torch\n"
      "def main(args):\n"
      "    if args.post_training_quantize and args.distributed:\n"
      "        raise RuntimeError('not in distributed mode')\n"
      "    model = build(args).to(device)\n"
      "    if args.distributed:\n"
      "        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.gpu])\n"
      "    if args.post_training_quantize:\n"
      "        if args.output_dir:\n"
      "            torch.save(model.state_dict(), 'quantized.pth')\n"
      "        return\n";
  EXPECT_EQ(found(source, "DC117"), Lines{});
  const std::string script =
      "import torch\n"
      "import torch.nn as nn\n"
      "if multi_gpu and export:\n"
      "    raise SystemExit('export runs on one GPU')\n"
      "net = Net().cuda()\n"
      "if multi_gpu:\n"
      "    net = nn.DataParallel(net)\n"
      "if export:\n"
      "    torch.save({'net': net.state_dict()}, 'export.pt')\n";
  EXPECT_EQ(found(script, "DC117"), Lines{});
  const std::string near_misses =
      "import torch\n"
      "import torch.nn as nn\n"
      "def main(args):\n"
      "    if args.quantize and args.amp:\n"
      "        raise RuntimeError('no amp')\n"
      "    if args.distributed:\n"
      "        model = nn.parallel.DistributedDataParallel(model)\n"
      "    if args.quantize:\n"
      "        torch.save(model.state_dict(), 'q.pth')\n"
      "def other(args):\n"
      "    if args.quantize or args.distributed:\n"
      "        raise RuntimeError('no')\n"
      "    if args.distributed:\n"
      "        model = nn.DataParallel(model)\n"
      "    if args.quantize:\n"
      "        torch.save(model.state_dict(), 'q.pth')\n";
  EXPECT_EQ(found(near_misses, "DC117"), (Lines{"9 DC117", "16 DC117"}));
  EXPECT_EQ(only(near_misses.substr(0, near_misses.find("def other")), "DC117").message,
            "model is a DataParallel/DistributedDataParallel wrapper: its state_dict keys start "
            "with 'module.' and do not load into the bare model; save model.module.state_dict()");
}

}  // namespace
}  // namespace devcheck::lint
