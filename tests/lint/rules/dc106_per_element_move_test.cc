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

// A batch's part the code tests as a list or tuple (DeepSpeed's pipeline
// engine: `elif isinstance(batch[1], (tuple, list)): for x in batch[1]:`)
// holds whole tensors, each moved on its own as it must be; in the other
// branch, or a loop over the batch tensor itself, each is one sample.
TEST(LintDC106, SaysNothingOfTheElementsOfABatchsPartTestedAsAList) {
  const std::string labels =
      "import torch\n"
      "from torch.utils.data import DataLoader\n"
      "\n"
      "\n"
      "def train(dataset, device):\n"
      "    loader = DataLoader(dataset, batch_size=8)\n"
      "    for batch in loader:\n"
      "        labels = batch[1]\n"
      "        if torch.is_tensor(batch[1]):\n"
      "            labels = batch[1].to(device)\n"
      "        elif isinstance(batch[1], (tuple, list)):\n"
      "            labels = []\n"
      "            for x in batch[1]:\n"
      "                labels.append(x.to(device))\n"
      "        for y in batch[0]:\n"
      "            y.to(device)\n";
  EXPECT_EQ(found(labels, "DC106"), (Lines{"16 DC106"}));
  EXPECT_NE(only(labels, "DC106").message.find("y is one sample of a batch from a DataLoader"),
            std::string::npos);
  const std::string inputs =
      "import torch\n"
      "from torch.utils.data import DataLoader\n"
      "\n"
      "\n"
      "def evaluate(model, data):\n"
      "    for inputs, targets in DataLoader(data, batch_size=4):\n"
      "        if isinstance(inputs, tuple):\n"
      "            for part in inputs:\n"
      "                model(part.cuda())\n"
      "        else:\n"
      "            for sample in inputs:\n"
      "                model(sample.cuda())\n";
  EXPECT_EQ(found(inputs, "DC106"), (Lines{"12 DC106"}));
  EXPECT_NE(only(inputs, "DC106").message.find("sample is one sample of a batch"),
            std::string::npos);
}

}  // namespace
}  // namespace devcheck::lint
