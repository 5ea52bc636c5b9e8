#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

TEST(LintDC108, FindsNonBlockingCopiesOfBatchesWithoutPinnedMemory) {
  const std::string bad =
      "import torch\n"
      "for x, y in loader:\n"
      "    x = x.to(device, non_blocking=True)\n"
      "    y = y.cuda(non_blocking=True)\n"
      "for batch in loader:\n"
      "    inputs = batch['x'].to(device, non_blocking=True)\n";
  EXPECT_EQ(found(bad, "DC108"), (Lines{"3 DC108", "4 DC108", "6 DC108"}));
  EXPECT_NE(lint_source(bad, "t.py").at(0).message.find("pin_memory=True"), std::string::npos);
  EXPECT_EQ(found(bad + "loader = DataLoader(ds, pin_memory=True)\n", "DC108"), Lines{});
}

TEST(LintDC108, SaysNothingForCopiesThatNeedNoPinning) {
  // Device to device (a GradScaler's scale), to the CPU, or blocking.
  EXPECT_EQ(found("def f(self, outputs):\n"
                  "    return outputs * self._scale.to(device=outputs.device, non_blocking=True)\n"
                  "for x in xs:\n"
                  "    x = x.to('cpu', non_blocking=True)\n"
                  "    x = x.to(device, non_blocking=False)\n"
                  "    z = w.to(device, non_blocking=True)\n"
                  "for x in tensors:\n"
                  "    x = x.to(device, non_blocking=True)\n",
                  "DC108"),
            Lines{});
}

// The flow knows the loader (pin_memory=True or not) and fresh tensors.
TEST(LintDC108, FindsUnpinnedLoadersAndFreshTensors) {
  const std::string source =
      "import torch\n"
      "from torch.utils.data import DataLoader\n"
      "plain = DataLoader(data, batch_size=8, pin_memory=False)\n"
      "pinned = DataLoader(data, batch_size=8, pin_memory=True)\n"
      "for x, y in plain:\n"
      "    x = x.to('cuda', non_blocking=True)\n"
      "for x, y in pinned:\n"
      "    x = x.to('cuda', non_blocking=True)\n"
      "noise = torch.randn(8).cuda(non_blocking=True)\n"
      "staged = torch.randn(8).pin_memory().cuda(non_blocking=True)\n"
      "back = noise.to('cpu', non_blocking=True)\n";
  EXPECT_EQ(found(source, "DC108"), (Lines{"6 DC108", "9 DC108"}));
  EXPECT_NE(only("import torch\nt = torch.zeros(2).cuda(non_blocking=True)\n", "DC108")
                .message.find("pageable host memory"),
            std::string::npos);
}

// A loader handed in as a parameter pins or not as its callers choose
// (maybe in another file): nothing is said of its batches. A loader the
// file makes without pin_memory=True beside it, or hands to the parameter,
// is still found.
TEST(LintDC108, SaysNothingOfBatchesOfALoaderHandedIn) {
  const std::string evaluate =
      "import torch\n"
      "def evaluate(model, loader, device):\n"
      "    for batch, t in loader:\n"
      "        for k, v in batch.items():\n"
      "            batch[k] = batch[k].to(device, non_blocking=True)\n"
      "        t = t.to(device, non_blocking=True)\n";
  EXPECT_EQ(found(evaluate, "DC108"), Lines{});
  const std::string train =
      "from tqdm import tqdm\n"
      "def train_one_epoch(model, optimizer, data_loader: 'DataLoader', device):\n"
      "    for i, (images, targets) in enumerate(tqdm(data_loader)):\n"
      "        images = images.cuda(non_blocking=True)\n"
      "        loss = model(images, targets)\n";
  EXPECT_EQ(found(train, "DC108"), Lines{});
  const std::string near_miss =
      "import torch\n"
      "from torch.utils.data import DataLoader\n"
      "def evaluate(model, loader, device):\n"
      "    for x, t in loader:\n"
      "        x = x.to(device, non_blocking=True)\n"
      "def main(model, data, device):\n"
      "    loader = DataLoader(data, batch_size=8)\n"
      "    for x, t in loader:\n"
      "        x = x.to(device, non_blocking=True)\n";
  EXPECT_EQ(found(near_miss, "DC108"), (Lines{"9 DC108"}));
  EXPECT_EQ(only(near_miss, "DC108").message,
            "non_blocking=True of a batch of a DataLoader that does not pin memory is a "
            "synchronous copy: the host waits anyway; use DataLoader(pin_memory=True) or "
            "tensor.pin_memory()");
  // The file hands the parameter an unpinned loader of its own: known.
  const std::string handed_unpinned =
      "import torch\n"
      "from torch.utils.data import DataLoader\n"
      "def evaluate(model, loader, device):\n"
      "    for x, t in loader:\n"
      "        x = x.to(device, non_blocking=True)\n"
      "def main(model, data, device):\n"
      "    evaluate(model, DataLoader(data, batch_size=8), device)\n";
  EXPECT_EQ(found(handed_unpinned, "DC108"), (Lines{"5 DC108"}));
}

}  // namespace
}  // namespace devcheck::lint
