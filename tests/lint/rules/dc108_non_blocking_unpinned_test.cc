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

}  // namespace
}  // namespace devcheck::lint
