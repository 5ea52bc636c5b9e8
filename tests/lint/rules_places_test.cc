#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

TEST(LintDC107, FindsCudaInACollateFnRunByForkedWorkers) {
  const std::string source =
      "import torch\n"
      "from torch.utils.data import DataLoader\n"
      "DEVICE = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
      "def collate(batch):\n"
      "    x = torch.stack(batch)\n"
      "    return x.to(DEVICE)\n"
      "loader = DataLoader(ds, num_workers=4, collate_fn=collate)\n"
      "single = DataLoader(ds, collate_fn=collate)\n";
  EXPECT_EQ(found(source, "DC107"), (Lines{"6 DC107"}));
  EXPECT_NE(only(source, "DC107").message.find("the collate_fn 'collate'"), std::string::npos);
}

TEST(LintDC107, SaysNothingWithoutWorkersOrWithSpawn) {
  const std::string collate = "import torch\ndef collate(b):\n    return b.cuda()\n";
  EXPECT_EQ(
      found(collate + "l = torch.utils.data.DataLoader(d, num_workers=0, collate_fn=collate)\n",
            "DC107"),
      Lines{});
  EXPECT_EQ(
      found(collate + "l = torch.utils.data.DataLoader(d, num_workers=2, collate_fn=collate,\n"
                      "    multiprocessing_context='spawn')\n",
            "DC107"),
      Lines{});
  EXPECT_EQ(found(collate + "l = torch.utils.data.DataLoader(d, num_workers=2, "
                            "worker_init_fn=lambda i: torch.zeros(1).cuda())\n",
                  "DC107"),
            (Lines{"4 DC107"}));
}

TEST(LintDC107, FindsCudaInDatasetGetitem) {
  const std::string source =
      "import torch\n"
      "from torch.utils.data import Dataset\n"
      "class Data(Dataset):\n"
      "    def __getitem__(self, i):\n"
      "        return torch.zeros(2, device='cuda')\n"
      "    def to_gpu(self):\n"
      "        return torch.zeros(2, device='cuda')\n";
  EXPECT_EQ(found(source, "DC107"), (Lines{"5 DC107"}));
  EXPECT_NE(only(source, "DC107").message.find("Data.__getitem__"), std::string::npos);
}

TEST(LintDC112, FindsHardCodedCudaBesideADeviceVariable) {
  const std::string source =
      "import torch\n"
      "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
      "model = model.to(device)\n"
      "x = x.cuda()\n"
      "y = y.to('cuda')\n"
      "z = torch.zeros(1, device='cuda:0')\n";
  EXPECT_EQ(found(source, "DC112"), (Lines{"4 DC112", "5 DC112", "6 DC112"}));
  EXPECT_EQ(found("import torch\nx = x.cuda()\n", "DC112"), Lines{});
}

TEST(LintDC112, SaysNothingForChosenIndicesOrOtherFunctionsDevices) {
  EXPECT_EQ(found("import torch\n"
                  "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
                  "x = x.cuda(rank)\n",
                  "DC112"),
            Lines{});
  const std::string two_functions =
      "import torch\n"
      "def setup():\n"
      "    device = torch.device('cuda:0')\n"
      "    return device\n"
      "def other(x):\n"
      "    return x.cuda()\n"
      "def same(x):\n"
      "    dev = torch.device('cuda')\n"
      "    return x.cuda()\n";
  EXPECT_EQ(found(two_functions, "DC112"), (Lines{"9 DC112"}));
}

TEST(LintDC112, SaysNothingBesideADeviceVariableThatIsCudaItself) {
  // skorch's tests: a CUDA-only test names its device "cuda" and says so again.
  EXPECT_EQ(found("import torch\n"
                  "def test_cuda(x):\n"
                  "    device = 'cuda'\n"
                  "    x = x.to('cuda')\n"
                  "    return x.to(device)\n",
                  "DC112"),
            Lines{});
}

TEST(LintDC112, SaysNothingUnderATestOfTheDeviceOrOfCuda) {
  // pytorch/examples' imagenet: the .cuda() calls follow the device's type.
  const std::string source =
      "import torch\n"
      "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
      "if device.type == 'cuda':\n"
      "    model.cuda()\n"
      "elif args.gpu is not None:\n"
      "    model = model.cuda(args.gpu)\n"
      "elif device.type == 'mps':\n"
      "    model = model.to(device)\n"
      "else:\n"
      "    model = torch.nn.DataParallel(model).cuda()\n"
      "y = y.cuda() if use_cuda else y\n"
      "if y.cuda().sum() > 0:\n"
      "    pass\n"
      "z = z.cuda()\n";
  // Line 12: the .cuda() in the test itself is governed by nothing; line 14
  // by no test at all.
  EXPECT_EQ(found(source, "DC112"), (Lines{"12 DC112", "14 DC112"}));
}

TEST(LintDC114, FindsItemOnEveryStepOfATrainingLoop) {
  const std::string source =
      "model.to(device)\n"
      "for step, (x, y) in enumerate(loader):\n"
      "    loss = loss_fn(model(x), y)\n"
      "    loss.backward()\n"
      "    total += loss.item()\n"
      "    if step % 100 == 0:\n"
      "        print(loss.item())\n"
      "for v in values:\n"
      "    print(v.item())\n";
  EXPECT_EQ(found(source, "DC114"), (Lines{"5 DC114"}));
  EXPECT_NE(only(source, "DC114").message.find("accumulate on the device"), std::string::npos);
}

TEST(LintDC114, SaysNothingInAFileThatPutsNothingOnADevice) {
  // pytorch/examples' regression: a CPU-only loop reads .item() to stop.
  const std::string loop =
      "for step, (x, y) in enumerate(loader):\n"
      "    loss = loss_fn(model(x), y)\n"
      "    loss.backward()\n"
      "    total += loss.item()\n";
  EXPECT_EQ(found(loop, "DC114"), Lines{});
  EXPECT_EQ(found("x = x.cuda()\n" + loop, "DC114"), (Lines{"5 DC114"}));
  EXPECT_EQ(found("import torch\nd = torch.device('cuda')\n" + loop, "DC114"), (Lines{"6 DC114"}));
  EXPECT_EQ(found("def f(x):\n    return torch.zeros(1, device='cuda')\n" + loop, "DC114"),
            (Lines{"6 DC114"}));
  // pytorch/examples' FSDP train_utils: moved to the rank's GPU by index.
  EXPECT_EQ(found("b = b.to(local_rank)\n" + loop, "DC114"), (Lines{"5 DC114"}));
  EXPECT_EQ(found("b = b.to(torch.float16)\n" + loop, "DC114"), Lines{});
}

TEST(LintDC118, FindsANonBlockingHostCopyReadBeforeSynchronising) {
  const std::string source =
      "import torch\n"
      "def bad(x):\n"
      "    y = x.to('cpu', non_blocking=True)\n"
      "    return y.numpy()\n"
      "def good(x):\n"
      "    y = x.to('cpu', non_blocking=True)\n"
      "    torch.cuda.synchronize()\n"
      "    return y.numpy()\n"
      "def blocking(x):\n"
      "    y = x.to('cpu')\n"
      "    print(y)\n";
  EXPECT_EQ(found(source, "DC118"), (Lines{"4 DC118"}));
  EXPECT_NE(only(source, "DC118").message.find("torch.cuda.synchronize()"), std::string::npos);
  EXPECT_EQ(found("def f(x, event):\n"
                  "    y = x.to('cpu', non_blocking=True)\n"
                  "    event.synchronize()\n"
                  "    print(y)\n",
                  "DC118"),
            Lines{});
}

}  // namespace
}  // namespace devcheck::lint
