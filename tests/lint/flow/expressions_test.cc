// The flow's expressions (src/lint/flow/expressions.cc): where values come from and where
// they meet.
#include <gtest/gtest.h>

#include "flow_testing.h"
#include "lint/flow/run.h"

namespace devcheck::lint::detail {
namespace {
using testing::Flowed;
using testing::Lines;
using testing::meetings;

TEST(LintFlowEval, MeetsInOperatorsComparisonsAndAugmentedAssignments) {
  const Flowed f(
      "import torch\n"
      "def f(x, n):\n"
      "    x = x.cuda()\n"
      "    a = x @ torch.eye(3)\n"
      "    b = torch.arange(3) < x\n"
      "    c = torch.rand(1) < 0.5\n"
      "    d = n < x\n"
      "    x += torch.ones(3)\n");
  EXPECT_EQ(meetings(f), (Lines{"4 factory@4 meets device", "5 factory@5 meets device",
                                "8 factory@8 meets device"}));
}

TEST(LintFlowEval, KeepsPlacesThroughMethodsElementsAndCopies) {
  const Flowed f(
      "import torch\n"
      "def f(x):\n"
      "    x = x.cuda()\n"
      "    t = torch.ones(4, 4).tril().float()[0]\n"
      "    a = x + t\n"
      "    h = x.detach().cpu()\n"
      "    b = x * h\n"
      "    s = torch.ones(3).sum()\n"
      "    c = x * s\n"
      "    i = x[torch.arange(2)]\n"
      "    e = x * torch.tensor(0.5)\n");
  EXPECT_EQ(meetings(f), (Lines{"5 factory@4 meets device", "7 copy@6 meets device"}));
}

TEST(LintFlowEval, KnowsDevicesByTheirNamesStringsAndDtypes) {
  const Flowed f(
      "import torch\n"
      "cpu = 'cpu'\n"
      "def f(x, device, local_rank):\n"
      "    a = x.to(device) + torch.ones(1, 2)\n"
      "    b = x.to(local_rank) + torch.ones(1, 2)\n"
      "    c = x.to('cpu') + torch.ones(1, 2)\n"
      "    d = x.to(torch.float16) + torch.ones(1, 2)\n"
      "    e = x.to(cpu) + torch.ones(1, 2)\n"
      "    g = torch.zeros(2, device=x.device) + x.cuda()\n"
      "    with torch.device('cuda'):\n"
      "        k = torch.zeros(2) + x.cuda()\n");
  EXPECT_EQ(meetings(f), (Lines{"4 factory@4 meets device", "5 factory@5 meets device"}));
}

TEST(LintFlowEval, ComprehensionsBindTheirVariablesOnly) {
  const Flowed f(
      "import torch\n"
      "def f(xs):\n"
      "    t = torch.ones(2)\n"
      "    ys = [t.cuda() for t in xs]\n"
      "    return torch.cat([ys[0], t])\n");
  EXPECT_EQ(meetings(f), (Lines{"5 factory@3 meets device"}));
}

// A host tensor indexed by a device tensor fails; a device tensor indexed
// by a host one does not (PyTorch moves the index).
TEST(LintFlowExpressions, AHostTensorIndexedByADeviceTensorMeetsIt) {
  const Flowed f(
      "import torch\n"
      "def pick(t):\n"
      "    table = torch.linspace(0, 1, 10)\n"
      "    ok = t[torch.arange(2)]\n"
      "    return table[t]\n"
      "def main():\n"
      "    pick(torch.randint(0, 10, (4,), device='cuda'))\n");
  EXPECT_EQ(meetings(f), (Lines{"5 factory@3 meets device"}));
}

TEST(LintFlowExpressions, AZeroDimDeviceTensorMeetsAHostTensorButAZeroDimHostOneMeetsNothing) {
  // A 0-dim CPU tensor mixes with any device; a 0-dim CUDA one does not mix
  // with a CPU tensor that has dimensions (cornucopia#22).
  const Flowed f(
      "import torch\n"
      "def f(x):\n"
      "    x = x.cuda()\n"
      "    lo, hi = x.min(), x.max()\n"
      "    a = torch.rand(8) * (hi - lo)\n"
      "    b = x * torch.ones(3).sum()\n"
      "    c = torch.tensor(0.5) * hi\n"
      "    d = hi - lo\n");
  EXPECT_EQ(meetings(f), (Lines{"5 factory@5 meets device"}));
}

}  // namespace
}  // namespace devcheck::lint::detail
