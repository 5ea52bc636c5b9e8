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

// A Dataset that holds a tensor on a device and returns it from __getitem__.
TEST(LintDC107, FindsADatasetsDeviceTensorReadByGetitem) {
  const std::string source =
      "import torch\n"
      "from torch.utils.data import Dataset\n"
      "class Synthetic(Dataset):\n"
      "    def __init__(self, n):\n"
      "        self.tensor = torch.randn(3, 8, 8, device=torch.device('cuda'))\n"
      "        self.host = torch.randn(3, 8, 8)\n"
      "        self.n = n\n"
      "    def __getitem__(self, i):\n"
      "        return self.tensor, self.host, i % self.n\n";
  EXPECT_EQ(found(source, "DC107"), (Lines{"5 DC107"}));
  EXPECT_NE(only(source, "DC107").message.find("self.tensor is a tensor on a device"),
            std::string::npos);
}

// A function handed to a data pipe's .collate() or .map() runs where the
// pipe is read: in worker processes with a multiprocessing reading service
// (meta-pytorch/data#966); not where nothing reads in workers.
TEST(LintDC107, FindsCudaInAFunctionADataPipeRunsInWorkers) {
  const std::string head =
      "from functools import partial\n"
      "import torch\n"
      "from torchdata.dataloader2 import DataLoader2, MultiProcessingReadingService\n"
      "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
      "def collate(batch):\n"
      "    return torch.stack(batch).to(device)\n"
      "def decode(item, scale):\n"
      "    return item * scale\n"
      "pipe = source.map(partial(decode, scale=2)).batch(8).collate(collate)\n";
  EXPECT_EQ(testing::found(head + "loader = DataLoader2(pipe, reading_service="
                                  "MultiProcessingReadingService(num_workers=4))\n",
                           "DC107"),
            (testing::Lines{"6 DC107"}));
  EXPECT_EQ(testing::found(head + "loader = DataLoader2(pipe, reading_service="
                                  "MultiProcessingReadingService(num_workers=0))\n",
                           "DC107"),
            (testing::Lines{}));
}

// A dataset whose tensors are made on `self.device`, kept from an __init__
// parameter defaulting to the host (None, "cpu") that no construction in the
// file passes (of the class, a base or a subclass: composer's
// RandomClassificationDataset and its Replicated subclass): on the host
// unless a caller elsewhere asks. Found where a construction passes a device
// or the default is one.
TEST(LintDC107, SkipsADatasetOnADeviceParameterDefaultingToTheHost) {
  const std::string random =
      "from typing import Optional\n"
      "import torch\n"
      "from torch.utils.data import Dataset\n"
      "class RandomDataset(Dataset):\n"
      "    def __init__(self, size: int = 100, device: Optional[torch.device] = None):\n"
      "        self.size = size\n"
      "        self.device: Optional[torch.device] = device\n"
      "        self.x = None\n"
      "    def __len__(self):\n"
      "        return self.size\n"
      "    def __getitem__(self, index):\n"
      "        if self.x is None:\n"
      "            self.x = torch.randn(self.size, 4, device=self.device)\n"
      "        return self.x[index]\n"
      "class Replicated(RandomDataset):\n"
      "    def __init__(self, size: int = 100, device: Optional[torch.device] = None, seed: int = "
      "4):\n"
      "        super().__init__(size, device)\n"
      "        self.seed = seed\n"
      "    def _generate(self):\n"
      "        self.y = torch.randint(0, 2, size=(self.size,), device=self.device)\n"
      "    def __getitem__(self, index):\n"
      "        self._generate()\n"
      "        return self.y[index]\n";
  EXPECT_EQ(found(random, "DC107"), Lines{});
  // A class of the file without bases beside them.
  EXPECT_EQ(found(random + "class Config:\n    size = 4\n", "DC107"), Lines{});
  EXPECT_EQ(found(random + "data = Replicated(device=\"cuda\")\n", "DC107"),
            (Lines{"13 DC107", "20 DC107"}));
  const std::string points =
      "import torch\n"
      "from torch.utils.data import Dataset, DataLoader\n"
      "class Points(Dataset):\n"
      "    def __init__(self, n, device=\"cpu\"):\n"
      "        self.device = device\n"
      "        self.n = n\n"
      "    def __len__(self):\n"
      "        return self.n\n"
      "    def __getitem__(self, i):\n"
      "        self.points = torch.rand(self.n, 2, device=self.device)\n"
      "        return self.points[i]\n"
      "class Cloud(Dataset):\n"
      "    def __init__(self, n, device=\"cuda\"):\n"
      "        self.device = device\n"
      "        self.n = n\n"
      "    def __len__(self):\n"
      "        return self.n\n"
      "    def __getitem__(self, i):\n"
      "        self.points = torch.rand(self.n, 2, device=self.device)\n"
      "        return self.points[i]\n";
  EXPECT_EQ(found(points, "DC107"), (Lines{"19 DC107"}));
  EXPECT_EQ(only(points, "DC107").message,
            "self.points is a tensor on a device that Cloud.__getitem__ reads, which runs in "
            "forked DataLoader workers: CUDA cannot be re-initialised in a forked subprocess; "
            "keep the dataset's tensors on the CPU and move batches in the training loop");
  EXPECT_EQ(found(points + "loader = DataLoader(Points(4, \"cuda\"), num_workers=2)\n", "DC107"),
            (Lines{"10 DC107", "19 DC107"}));
}

// A comment among __init__'s parameters is no parameter: the position of
// `device` counts only parameters, and `D(3, "cuda")` passes it (review).
TEST(LintDC107, CountsParametersNotCommentsWhereAConstructionPassesTheDevice) {
  const std::string source =
      "import torch\n"
      "class D(torch.utils.data.Dataset):\n"
      "    def __init__(self, n,  # size\n"
      "                 device=None):\n"
      "        self.device = device\n"
      "        self.x = torch.zeros(n, device=self.device)\n"
      "    def __getitem__(self, i):\n"
      "        return self.x[i]\n"
      "    def __len__(self):\n"
      "        return 3\n"
      "ds = D(3, \"cuda\")\n"
      "loader = torch.utils.data.DataLoader(ds, num_workers=2)\n";
  EXPECT_EQ(found(source, "DC107"), (Lines{"6 DC107"}));
}

}  // namespace
}  // namespace devcheck::lint
