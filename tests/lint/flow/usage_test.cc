// used_as_tensor (src/lint/flow/usage.cc): what the uses of a name say of it.
#include <gtest/gtest.h>

#include "flow_testing.h"

namespace devcheck::lint::detail {
namespace {
using testing::Flowed;

TEST(LintUsage, TellsTensorsFromModulesByTheirUses) {
  const Flowed f(
      "import torch\n"
      "def f(a, b, c, d, e, g, h, m):\n"
      "    a[0]\n"
      "    b.shape\n"
      "    c * 2\n"
      "    torch.cat([d, d])\n"
      "    e.parameters()\n"
      "    g(1)\n"
      "    h['key']\n"
      "    m[0]\n"
      "    m.train()\n");
  const TSNode body = f.source.root();
  EXPECT_TRUE(used_as_tensor(f.source, body, "a"));
  EXPECT_TRUE(used_as_tensor(f.source, body, "b"));
  EXPECT_TRUE(used_as_tensor(f.source, body, "c"));
  EXPECT_TRUE(used_as_tensor(f.source, body, "d"));
  EXPECT_FALSE(used_as_tensor(f.source, body, "e"));
  EXPECT_FALSE(used_as_tensor(f.source, body, "g"));
  EXPECT_FALSE(used_as_tensor(f.source, body, "h"));
  EXPECT_FALSE(used_as_tensor(f.source, body, "m"));
  EXPECT_TRUE(used_as_tensor(f.source, body, "h", /*passed_to_module=*/true));
  EXPECT_FALSE(used_as_tensor(f.source, body, "e", /*passed_to_module=*/true));
}

// A module of the file without parameters: nn.Module alone as its base,
// only literals (or parameters defaulting to one) kept, nothing registered.
TEST(LintUsage, TellsModulesWithoutParameters) {
  const Flowed f(
      "import torch.nn as nn\n"
      "class Loss(nn.Module):\n"
      "    def __init__(self, eps=1e-3, reduction='mean'):\n"
      "        super().__init__()\n"
      "        self.eps = eps\n"
      "        self.reduction = reduction\n"
      "        self.scale = -2 * 0.5\n"
      "class Wrapper(nn.Module):\n"
      "    def __init__(self, net):\n"
      "        super().__init__()\n"
      "        self.net = net\n"
      "class Buffered(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.register_buffer('w', None)\n"
      "class Derived(Loss):\n"
      "    pass\n"
      "class Plain:\n"
      "    pass\n"
      "class Weighted(nn.Module):\n"
      "    def __init__(self, weight=None):\n"
      "        super().__init__()\n"
      "        self.weight = weight\n");
  std::vector<bool> free;
  for (const char* name : {"Loss", "Wrapper", "Buffered", "Derived", "Plain", "Weighted"}) {
    free.push_back(parameter_free_module(f.source, f.source.classes().at(name).scope));
  }
  EXPECT_EQ(free, (std::vector<bool>{true, false, false, false, false, false}));
}

// A module whose __init__ moves it (`self.to(self.device)`) is made there;
// under a condition, where it is made is not known.
TEST(LintUsage, TellsModulesTheirInitMoves) {
  const Flowed f(
      "import torch\n"
      "import torch.nn as nn\n"
      "class OnDevice(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.device = resolve_device()\n"
      "        self.to(self.device)\n"
      "class Maybe(nn.Module):\n"
      "    def __init__(self, cuda):\n"
      "        super().__init__()\n"
      "        if cuda:\n"
      "            self.cuda()\n"
      "class OnCpu(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.to('cpu')\n"
      "        self.to(torch.float64)\n");
  std::vector<Place> places;
  for (const char* name : {"OnDevice", "Maybe", "OnCpu"}) {
    places.push_back(init_moves_self(f.source, f.source.classes().at(name).scope));
  }
  EXPECT_EQ(places, (std::vector<Place>{Place::kDevice, Place::kUnknown, Place::kHost}));
}

}  // namespace
}  // namespace devcheck::lint::detail
