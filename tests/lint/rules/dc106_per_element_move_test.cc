#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

TEST(LintDC106, FindsAStackOfPerElementMoves) {
  const std::string source =
      "import torch\n"
      "a = torch.stack([t.to(device) for t in ts])\n"
      "b = torch.cat([t.cuda() for t in ts])\n"
      "c = torch.stack(ts).to(device)\n"
      "d = torch.stack([f(t).to(device) for t in ts])\n"
      "e = [t.to(device) for t in ts]\n";
  EXPECT_EQ(found(source, "DC106"), (Lines{"2 DC106", "3 DC106"}));
  EXPECT_NE(only("import torch\nx = torch.stack([t.to(d) for t in ts])\n", "DC106")
                .message.find("torch.stack(...).to(...)"),
            std::string::npos);
}

// One .to() per sample of a batch, in a loop over the batch's samples.
TEST(LintDC106, FindsPerSampleMovesInALoopOverABatch) {
  const std::string source =
      "import torch\n"
      "from torch.utils.data import DataLoader\n"
      "loader = DataLoader(data, batch_size=8)\n"
      "for x, y in loader:\n"
      "    for i in range(x.size(0)):\n"
      "        xi = x[i].to('cuda')\n"
      "    for sample in y:\n"
      "        sample = sample.to('cuda')\n"
      "    whole = x.to('cuda')\n"
      "    parts = [t.to('cuda') for t in x]\n";
  EXPECT_EQ(found(source, "DC106"), (Lines{"6 DC106", "8 DC106"}));
  EXPECT_NE(only("from torch.utils.data import DataLoader\n"
                 "for x, y in DataLoader(d):\n"
                 "    for s in x:\n"
                 "        s.cuda()\n",
                 "DC106")
                .message.find("move the batch once"),
            std::string::npos);
}

}  // namespace
}  // namespace devcheck::lint
