// The flow's elements (src/lint/flow/elements.cc): what a subscript, a
// binary operator, a loop's turn and an unpacking give of the values they
// take apart, and where those meet.
#include <gtest/gtest.h>

#include "flow_testing.h"
#include "lint/flow/run.h"

namespace devcheck::lint::detail {
namespace {
using testing::Flowed;
using testing::Lines;
using testing::meetings;

// A host tensor indexed by a device tensor fails; a device tensor indexed
// by a host one does not (PyTorch moves the index).
TEST(LintFlowElements, AHostTensorIndexedByADeviceTensorMeetsIt) {
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

TEST(LintFlowElements, AZeroDimDeviceTensorMeetsAHostTensorButAZeroDimHostOneMeetsNothing) {
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

// A 1-D tensor's elements (`for t in torch.linspace(...)`, `steps[0]`) and
// a one-element tensor squeezed (`torch.rand(1)...squeeze()`) are 0-dim:
// they mix with any device. A row of a 2-D tensor, a slice, or a squeeze of
// more than one element keeps dimensions and still meets the device.
TEST(LintFlowElements, ElementsOfAOneDimTensorAndASqueezedOneElementAreZeroDim) {
  const Flowed loop(
      "import torch\n"
      "def slerp(axis):\n"
      "    axis = axis.cuda()\n"
      "    for t in torch.linspace(0.1, 1, 10):\n"
      "        q = axis * t\n"
      "    steps = torch.arange(5)\n"
      "    r = axis * steps[0] + axis * steps[-1]\n"
      "    w = axis * torch.rand(5)[1:]\n"
      "    for row in torch.rand(3, 4):\n"
      "        s = axis * row\n");
  EXPECT_EQ(meetings(loop), (Lines{"8 factory@8 meets device", "10 factory@9 meets device"}));
  const Flowed squeezed(
      "import torch\n"
      "def mask(spec, p):\n"
      "    spec = spec.cuda()\n"
      "    value = torch.rand(1) * p\n"
      "    start = (torch.rand(1) * (spec.size(1) - value)).long().squeeze()\n"
      "    m = torch.arange(0, spec.shape[1], device=spec.device)\n"
      "    m = (m >= start) & (m < start + value.long().squeeze())\n"
      "    a = spec * torch.rand(2, 1).squeeze()\n"
      "    b = spec + torch.rand(1, 4).squeeze()\n"
      "    c = spec * torch.rand(1).repeat(3).squeeze()\n");
  EXPECT_EQ(meetings(squeezed), (Lines{"8 factory@8 meets device", "9 factory@9 meets device",
                                       "10 factory@10 meets device"}));
}

// randint's size is its last argument and full's its first, both a
// sequence (`torch.randint(lo, hi, (1,))`): of one integer, the tensor is
// 1-D and its elements are 0-dim, also inside a tuple given as a keyword
// (`shifts=(s[0],)`, read as numbers). Of two, or a row of a 2-D one, they
// still meet the device (speechbrain's rand_shift, seed 53).
TEST(LintFlowElements, RandintsAndFullsSizeSequenceTellsTheirShape) {
  const Flowed shift(
      "import torch\n"
      "def shift(x):\n"
      "    x = x.cuda()\n"
      "    s = torch.randint(0, 5, (1,))\n"
      "    y = torch.roll(x, shifts=(s[0],), dims=1)\n"
      "    w = torch.randint(8, [1])[0] + 1\n"
      "    z = x * w + x * torch.full((3,), 2.0)[1]\n"
      "    bad = torch.roll(x, shifts=(torch.randint(0, 5, (2, 1))[0],), dims=1)\n"
      "    wide = x * torch.randint(0, 5, (2,))\n"
      "    return y + z\n");
  EXPECT_EQ(meetings(shift), (Lines{"8 factory@8 meets device", "9 factory@9 meets device"}));
  const Flowed warp(
      "import torch\n"
      "import torch.nn as nn\n"
      "import torch.nn.functional as F\n"
      "class Warp(nn.Module):\n"
      "    def forward(self, spec):\n"
      "        c = torch.randint(2, 10, (1,))[0]\n"
      "        left = F.interpolate(spec[:, :, :c], (c, spec.shape[3]))\n"
      "        n = torch.randint(2, 10, size=(1,))\n"
      "        return left + F.interpolate(spec, (n[0], 4)) * torch.full([2], 1.0)\n");
  EXPECT_EQ(meetings(warp), (Lines{"9 factory@9 meets module"}));
}

// A host mask compared with a number (`causal(n) == 0`) is still the
// factory's, and meets the device tensor it masks; two indices of an input
// of forward (`lengths[:, None]`) take apart a tensor on the module's
// device, which a host arange compared with it meets.
TEST(LintFlowElements, MasksKeepTheirFactoryAndInputsSlicedAreTensors) {
  const Flowed f(
      "import torch\n"
      "import torch.nn as nn\n"
      "class Attn(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.q = nn.Linear(4, 4)\n"
      "    def causal(self, n):\n"
      "        return torch.tril(torch.ones(n, n))\n"
      "    def forward(self, x, lengths):\n"
      "        s = self.q(x) @ x.transpose(-1, -2)\n"
      "        s = s.masked_fill(self.causal(x.size(1)) == 0, -1e9)\n"
      "        keep = torch.arange(x.size(1))[None, :] < lengths[:, None]\n"
      "        first = torch.arange(x.size(1)) < lengths[0]\n"
      "        return s * keep\n");
  EXPECT_EQ(meetings(f), (Lines{"11 factory@8 meets module", "12 factory@12 meets module"}));
}

}  // namespace
// `for p in model.parameters()` (or named_parameters(), buffers()) gives
// tensors where the model is, when that is a device; a model of unknown
// place gives tensors of unknown place.
TEST(LintFlowElements, AModelsParametersInALoopAreWhereTheModelIs) {
  const Flowed named(
      "import torch\n"
      "def shrink(model, n):\n"
      "    model = model.to('cuda')\n"
      "    for name, param in model.named_parameters():\n"
      "        param.index_copy_(0, torch.arange(n), param[:n] * 0.5)\n");
  EXPECT_EQ(meetings(named), (Lines{"5 factory@5 meets device"}));
  const Flowed plain(
      "import torch\n"
      "import torch.nn as nn\n"
      "class Net(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.fc = nn.Linear(4, 4)\n"
      "    def penalty(self):\n"
      "        total = 0\n"
      "        for p in self.fc.parameters():\n"
      "            total = total + (p * torch.rand(p.shape)).sum()\n"
      "        return total\n");
  EXPECT_EQ(meetings(plain), (Lines{"10 factory@10 meets module"}));
  const Flowed unknown(
      "import torch\n"
      "def shrink(model, n):\n"
      "    for name, param in model.named_parameters():\n"
      "        param.index_copy_(0, torch.arange(n), param[:n] * 0.5)\n");
  EXPECT_EQ(meetings(unknown), Lines{});
}

// `x[idx] = values` with a tensor index is index_put_, which needs values
// where x is; a plain index or slice copies across devices.
TEST(LintFlowElements, AHostTensorWrittenAtTensorIndicesOfADeviceTensorMeetsIt) {
  const Flowed scatter(
      "import torch\n"
      "def fill(n, idx):\n"
      "    out = torch.zeros(n, device='cuda')\n"
      "    pos = idx.to('cuda')\n"
      "    out[pos] = torch.rand(len(idx))\n"
      "    return out\n");
  EXPECT_EQ(meetings(scatter), (Lines{"5 factory@5 meets device"}));
  const Flowed rows(
      "import torch\n"
      "import torch.nn as nn\n"
      "class Table(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.register_buffer('marks', torch.zeros(n, 4))\n"
      "    def forward(self, rows, cols):\n"
      "        values = torch.ones(rows.shape[0])\n"
      "        self.marks[rows, cols] = values\n"
      "        return self.marks\n");
  EXPECT_EQ(meetings(rows), (Lines{"9 factory@8 meets module"}));
  const Flowed sliced(
      "import torch\n"
      "def fill(n):\n"
      "    out = torch.zeros(n, device='cuda')\n"
      "    out[:3] = torch.rand(3)\n"
      "    out[0] = torch.rand(1)\n"
      "    return out\n");
  EXPECT_EQ(meetings(sliced), Lines{});
}

}  // namespace devcheck::lint::detail
