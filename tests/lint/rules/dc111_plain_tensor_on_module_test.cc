#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

TEST(LintDC111, FindsPlainTensorsAssignedInModuleInit) {
  const std::string source =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Net(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.mask = torch.ones(4)\n"
      "        self.w = nn.Parameter(torch.ones(4))\n"
      "        self.register_buffer('b', torch.zeros(4))\n"
      "class NotAModule:\n"
      "    def __init__(self):\n"
      "        self.mask = torch.ones(4)\n";
  EXPECT_EQ(found(source, "DC111"), (Lines{"6 DC111"}));
  EXPECT_NE(only(source, "DC111").message.find("self.register_buffer(\"mask\""), std::string::npos);
}

// A factory followed by a method is a tensor (the issue's
// `self.mask = torch.ones(n, n).tril()`), so is a table a helper method
// builds from NumPy; a parameter moved with .to() is a plain tensor again.
TEST(LintDC111, FindsFactoryChainsHelperTablesAndMovedParameters) {
  const std::string source =
      "import numpy as np\n"
      "import torch\n"
      "import torch.nn as nn\n"
      "class Attention(nn.Module):\n"
      "    def __init__(self, n, d):\n"
      "        super().__init__()\n"
      "        self.mask = torch.ones(n, n).tril()\n"
      "        self.pos_table = self._table(n, d)\n"
      "        self.threshold = nn.Parameter(torch.randn(1)).to('cuda')\n"
      "        self.scale = nn.Parameter(torch.ones(1))\n"
      "        self.register_buffer('bias', torch.zeros(d))\n"
      "        self.size = n\n"
      "    def _table(self, n, d):\n"
      "        table = np.array([[p / 10000 ** (2 * i / d) for i in range(d)] for p in range(n)])\n"
      "        return torch.FloatTensor(table).unsqueeze(0)\n";
  EXPECT_EQ(found(source, "DC111"), (Lines{"7 DC111", "8 DC111", "9 DC111"}));
  const std::vector<Finding> all = lint_source(source, "t.py", [] {
    LintOptions o;
    o.select = {"DC111"};
    return o;
  }());
  ASSERT_EQ(all.size(), 3U);
  EXPECT_EQ(all[0].message,
            "self.mask holds a plain tensor, which model.to(device) does not move; use "
            "self.register_buffer(\"mask\", ...) or nn.Parameter(...)");
  EXPECT_NE(all[2].message.find(".to()/.cuda() of a parameter returns a plain tensor"),
            std::string::npos)
      << all[2].message;
}

TEST(LintDC111, FindsPlainListsOfModules) {
  const std::string source =
      "import torch.nn as nn\n"
      "class Net(nn.Module):\n"
      "    def __init__(self, weights):\n"
      "        super().__init__()\n"
      "        self.convs = [nn.Conv1d(8, 1, k) for k in (3, 4, 5)]\n"
      "        self.losses = []\n"
      "        for w in weights:\n"
      "            self.losses.append(nn.CrossEntropyLoss(weight=w))\n"
      "        self.heads = nn.ModuleList([nn.Linear(2, 2)])\n"
      "        self.sizes = [3, 4, 5]\n";
  EXPECT_EQ(found(source, "DC111"), (Lines{"5 DC111", "6 DC111"}));
  EXPECT_NE(only("import torch.nn as nn\n"
                 "class Net(nn.Module):\n"
                 "    def __init__(self):\n"
                 "        super().__init__()\n"
                 "        self.layers = [nn.Linear(2, 2), nn.Linear(2, 2)]\n",
                 "DC111")
                .message.find("plain list of modules"),
            std::string::npos);
}

// torch.ao's _InputEqualizationObserver: a 0-dim placeholder mixes with
// tensors on any device; a 1-dim one is still found.
TEST(LintDC111, SaysNothingForAZeroDimTensor) {
  const std::string source =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Observer(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.scale = torch.tensor(1)\n"
      "        self.zero_point = torch.tensor(0.0)\n"
      "        self.scales = torch.tensor([1.0, 2.0])\n";
  EXPECT_EQ(found(source, "DC111"), (Lines{"8 DC111"}));
}

TEST(LintDC111, FindsHostTensorsSetByAMethodInitCalls) {
  const std::string code =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Kernel(nn.Module):\n"
      "    def __init__(self, size):\n"
      "        super().__init__()\n"
      "        self.size = size\n"
      "        self._init_tables()\n"
      "    def _init_tables(self):\n"
      "        self.idx = torch.arange(self.size)\n"
      "        self.ok = torch.zeros(self.size, device='cuda')\n"
      "        self.register_buffer('grid', torch.arange(self.size))\n"
      "    def refresh(self):\n"
      "        self.cache = torch.zeros(self.size)\n";
  // The device one is placed on purpose; refresh() is not called by __init__.
  EXPECT_EQ(found(code, "DC111"), (Lines{"9 DC111"}));
}

TEST(LintDC111, FindsAHostTensorTheFilePassesToTheConstructor) {
  const std::string code =
      "import numpy as np\n"
      "import torch\n"
      "import torch.nn as nn\n"
      "class GraphConv(nn.Module):\n"
      "    def __init__(self, gso):\n"
      "        super().__init__()\n"
      "        self.gso = gso\n"
      "    def forward(self, x):\n"
      "        return self.gso @ x\n"
      "def build(adj):\n"
      "    return GraphConv(torch.from_numpy(np.asarray(adj)))\n";
  EXPECT_EQ(found(code, "DC111"), (Lines{"7 DC111"}));
  // Registered, or given a tensor on a device, or one the flow does not know.
  EXPECT_EQ(found("import torch\n"
                  "import torch.nn as nn\n"
                  "class GraphConv(nn.Module):\n"
                  "    def __init__(self, gso):\n"
                  "        super().__init__()\n"
                  "        self.register_buffer('gso', gso)\n"
                  "def build(adj):\n"
                  "    return GraphConv(torch.zeros(3, 3))\n",
                  "DC111"),
            Lines{});
  EXPECT_EQ(found("import torch\n"
                  "import torch.nn as nn\n"
                  "class GraphConv(nn.Module):\n"
                  "    def __init__(self, gso):\n"
                  "        super().__init__()\n"
                  "        self.gso = gso\n"
                  "def build(adj):\n"
                  "    return GraphConv(adj)\n",
                  "DC111"),
            Lines{});
}

// A plain tensor the class moves wherever its methods use it
// (`self.logvar.to(self.device)[t]`) goes where it is needed: not found;
// one of them used as it is still is (CompVis/latent-diffusion#282).
TEST(LintDC111, SaysNothingOfAPlainTensorMovedAtEachUse) {
  const std::string source =
      "import torch\n"
      "import torch.nn as nn\n"
      "class DDPM(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.logvar = torch.full((n,), 0.0)\n"
      "        self.table = torch.zeros(n)\n"
      "    def loss(self, x, t):\n"
      "        logvar_t = self.logvar.to(self.device)[t]\n"
      "        return x / torch.exp(logvar_t) + self.table.to(x.device)[t]\n"
      "    def params(self, out):\n"
      "        out.append(self.logvar)\n"
      "    def other(self, t):\n"
      "        return self.table[t]\n";
  EXPECT_EQ(testing::found(source, "DC111"), (testing::Lines{"7 DC111"}));
}

// A plain tensor moved at the end of a chain of shape methods
// (`self.kernel.repeat(c, 1).to(x.device)`), or handed to a function of the
// file that moves that argument where it is used (`torch.as_tensor(std,
// device=data.device)`), is moved at each use; formatting it into a string
// is no use. A method between that computes with another tensor, or a
// function that does not move its argument, is still found.
TEST(LintDC111, SaysNothingOfAPlainTensorMovedDownAChainOrByAFunctionOfTheFile) {
  const std::string chain =
      "import torch\n"
      "import torch.nn as nn\n"
      "class NMS(nn.Module):\n"
      "    def __init__(self, k):\n"
      "        super().__init__()\n"
      "        self.kernel = torch.ones(k, k)\n"
      "        self.other = torch.ones(k, k)\n"
      "    def forward(self, x):\n"
      "        w = self.kernel.repeat(x.shape[1], 1, 1, 1).to(x.device, x.dtype)\n"
      "        v = self.other.mul(x).to(x.device)\n"
      "        return nn.functional.conv2d(x, w) + v\n";
  EXPECT_EQ(testing::found(chain, "DC111"), (testing::Lines{"7 DC111"}));
  const std::string handed =
      "import torch\n"
      "import torch.nn as nn\n"
      "def normalize(data, mean, std):\n"
      "    mean = torch.as_tensor(mean, device=data.device, dtype=data.dtype)\n"
      "    std = std.to(data.device)\n"
      "    return (data - mean) / std\n"
      "def shift(data, offset):\n"
      "    return data + offset\n"
      "class Normalize(nn.Module):\n"
      "    def __init__(self, mean, std):\n"
      "        super().__init__()\n"
      "        self.mean = torch.full((3,), mean)\n"
      "        self.std = torch.full((3,), std)\n"
      "        self.offset = torch.zeros(3)\n"
      "    def forward(self, x):\n"
      "        return shift(normalize(x, self.mean, self.std), self.offset)\n"
      "    def __repr__(self):\n"
      "        return f'(mean={self.mean}, std={self.std})'\n";
  const Finding f = testing::only(handed, "DC111");
  EXPECT_EQ(f.line, 14);
  EXPECT_EQ(f.message,
            "self.offset holds a plain tensor, which model.to(device) does not move; use "
            "self.register_buffer(\"offset\", ...) or nn.Parameter(...)");
}

// Lightning's save_hyperparameters() keeps __init__'s arguments, as they
// are when it runs, in self.hparams: a host tensor made there is a plain
// attribute (gnn-tracking/gnn_tracking#449). Not one made on a device, nor
// an argument left as it came.
TEST(LintDC111, FindsAHostTensorKeptBySaveHyperparameters) {
  const std::string source =
      "import torch\n"
      "class FocalLoss(torch.nn.Module):\n"
      "    def __init__(self, *, alpha=0.25, pos_weight=None, gamma=None, **kwargs):\n"
      "        super().__init__()\n"
      "        if pos_weight is None:\n"
      "            pos_weight = torch.Tensor([1.0])\n"
      "        gamma = torch.ones(1, device='cuda')\n"
      "        self.save_hyperparameters()\n"
      "class Plain(torch.nn.Module):\n"
      "    def __init__(self, weight=None):\n"
      "        super().__init__()\n"
      "        self.save_hyperparameters()\n";
  EXPECT_EQ(testing::found(source, "DC111"), (testing::Lines{"6 DC111"}));
  EXPECT_NE(testing::only(source, "DC111").message.find("self.hparams.pos_weight"),
            std::string::npos);
}

// A class whose own to() sets the plain tensor again moves it with the
// module (SAC's policy moving its noise in its to()); one its to() leaves
// behind is still found.
TEST(LintDC111, SaysNothingOfAPlainTensorTheClassesOwnToMoves) {
  const std::string source =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Policy(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.noise = torch.Tensor(n)\n"
      "        self.scale = torch.ones(n)\n"
      "    def forward(self, x):\n"
      "        return x * self.scale + self.noise.normal_()\n"
      "    def to(self, device):\n"
      "        self.scale = self.scale.to(device)\n"
      "        return super().to(device)\n";
  EXPECT_EQ(testing::found(source, "DC111"), (testing::Lines{"6 DC111"}));
}

// A plain dict of modules filled by key after its assignment
// (`self.embeddings[name] = nn.Sequential(...)`, rogue-net's
// EntityEmbedding); not one handed to nn.ModuleDict.
TEST(LintDC111, FindsAPlainDictOfModulesFilledByKey) {
  const std::string source =
      "from typing import Dict\n"
      "import torch.nn as nn\n"
      "class Embed(nn.Module):\n"
      "    def __init__(self, features, d):\n"
      "        super().__init__()\n"
      "        self.embeddings: Dict[str, nn.Module] = {}\n"
      "        for name, n in features.items():\n"
      "            if n:\n"
      "                self.embeddings[name] = nn.Linear(n, d)\n"
      "            else:\n"
      "                self.embeddings[name] = nn.Identity()\n"
      "class Fixed(nn.Module):\n"
      "    def __init__(self, features, d):\n"
      "        super().__init__()\n"
      "        embeddings = {}\n"
      "        for name, n in features.items():\n"
      "            embeddings[name] = nn.Linear(n, d)\n"
      "        self.embeddings = nn.ModuleDict(embeddings)\n"
      "        self.cache = {}\n"
      "        self.cache['x'] = None\n";
  EXPECT_EQ(testing::found(source, "DC111"), (testing::Lines{"6 DC111"}));
  EXPECT_NE(testing::only(source, "DC111").message.find("plain dict of modules"),
            std::string::npos);
}

// A tensor set on the name of a buffer the class registers replaces the
// buffer (nn.Module's __setattr__ keeps it in _buffers: Lightning's
// tensor-parallel Transformer re-making freqs_cis in init_weights); a
// device (`torch.empty(0).device`, `torch.get_default_device()`) is no
// tensor. A tensor on another name is still found.
TEST(LintDC111, SaysNothingOfABufferSetAgainOrOfADevice) {
  const std::string source =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Transformer(nn.Module):\n"
      "    def __init__(self, dim):\n"
      "        super().__init__()\n"
      "        self.register_buffer('freqs', torch.ones(dim), persistent=True)\n"
      "        self.register_buffer('mask', None)\n"
      "        self.mask = torch.ones(dim, dim).tril()\n"
      "        self.init_weights()\n"
      "    def init_weights(self):\n"
      "        self.freqs = torch.arange(8.0)\n"
      "        self.table = torch.arange(8.0)\n"
      "class Mixin(nn.Module):\n"
      "    def __init__(self, new):\n"
      "        super().__init__()\n"
      "        self._device = torch.get_default_device() if new else torch.empty(0).device\n"
      "        self._kind = torch.empty(0).device.type\n"
      "        self.scale = torch.ones(1, 4) if new else torch.zeros(1, 4)\n"
      "class Cell(nn.Module):\n"
      "    def __init__(self, n, bias=True):\n"
      "        super().__init__()\n"
      "        if bias:\n"
      "            self.bias_ih = torch.randn(n)\n"
      "        else:\n"
      "            self.register_parameter('bias_ih', None)\n";
  EXPECT_EQ(found(source, "DC111"), (Lines{"12 DC111", "18 DC111", "23 DC111"}));
}

// A plain tensor set again, later and on every way, as an nn.Parameter is
// registered then (nn.Module's __setattr__); set so only in a branch, it
// stays plain where the branch does not run.
TEST(LintDC111, SilentWhereTheSameInitRegistersTheTensorLaterOnEveryWay) {
  const std::string later =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Masked(nn.Module):\n"
      "    def __init__(self, mask, n):\n"
      "        super().__init__()\n"
      "        if isinstance(mask, torch.Tensor):\n"
      "            self.mask = mask.float()\n"
      "        else:\n"
      "            self.mask = torch.ones(n, n)\n"
      "        self.mask = nn.Parameter(self.mask, requires_grad=False)\n"
      "class Scaled(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.scale = torch.full((n,), 0.5)\n"
      "        self.scale = nn.Parameter(self.scale)\n";
  EXPECT_EQ(found(later, "DC111"), (Lines{}));
  const std::string in_a_branch =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Scaled(nn.Module):\n"
      "    def __init__(self, n, learn):\n"
      "        super().__init__()\n"
      "        self.scale = torch.full((n,), 0.5)\n"
      "        if learn:\n"
      "            self.scale = nn.Parameter(self.scale)\n";
  EXPECT_EQ(found(in_a_branch, "DC111"), (Lines{"6 DC111"}));
}

// `self.x[t.cpu()].to(device)`: every read indexes the plain tensor on the
// host and moves what it picked; indexed by what may be on a device, it is
// a read as it is.
TEST(LintDC111, SilentWhereEachReadIndexesOnTheHostAndMovesThePick) {
  const std::string host_index =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Diffusion(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.logvar = torch.zeros(n)\n"
      "    def forward(self, x, t):\n"
      "        return x * self.logvar[t.cpu()].to(x.device)\n"
      "class Table(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.weights = torch.linspace(0, 1, n)\n"
      "    def forward(self, x, idx):\n"
      "        w = self.weights[idx.cpu()].cuda()\n"
      "        return x * w\n";
  EXPECT_EQ(found(host_index, "DC111"), (Lines{}));
  const std::string device_index =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Diffusion(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.logvar = torch.zeros(n)\n"
      "    def forward(self, x, t):\n"
      "        return x * self.logvar[t].to(x.device)\n";
  EXPECT_EQ(found(device_index, "DC111"), (Lines{"6 DC111"}));
}

// `if register: self.register_buffer("c", c)` / `else: self.c = c`: the
// plain way is the caller's choice; it is reported where the file makes the
// class (it may choose it), not in a file that never does.
TEST(LintDC111, APlainWayBesideARegisteredOneCountsWhereTheFileMakesTheClass) {
  const std::string cls =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Center(nn.Module):\n"
      "    def __init__(self, n, register=True):\n"
      "        super().__init__()\n"
      "        c = torch.zeros(n)\n"
      "        if register:\n"
      "            self.register_buffer('c', c)\n"
      "        else:\n"
      "            self.c = c\n"
      "class Stats(nn.Module):\n"
      "    def __init__(self, n, persistent):\n"
      "        super().__init__()\n"
      "        if persistent:\n"
      "            self.register_buffer('mean', torch.zeros(n))\n"
      "        else:\n"
      "            self.mean = torch.zeros(n)\n";
  EXPECT_EQ(found(cls, "DC111"), (Lines{}));
  EXPECT_EQ(found(cls + "c = Center(4, register=False)\n", "DC111"), (Lines{"10 DC111"}));
  const std::string none_registered =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Lin(nn.Module):\n"
      "    def __init__(self, n, bias):\n"
      "        super().__init__()\n"
      "        if bias:\n"
      "            self.b = torch.zeros(n)\n"
      "        else:\n"
      "            self.register_parameter('b', None)\n";
  EXPECT_EQ(found(none_registered, "DC111"), (Lines{"7 DC111"}));
}

// A cache: None in __init__, filled in forward where the inputs are under a
// test that does not ask where, read after it: a call after model.to(other)
// meets the first device's tensor. Not a cache refilled when the device
// changes, one registered as a buffer, nor one only its test reads.
TEST(LintDC111, FindsACacheFilledOnTheFirstInputsDevice) {
  const std::string by_length =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Causal(nn.Module):\n"
      "    def __init__(self, d):\n"
      "        super().__init__()\n"
      "        self.proj = nn.Linear(d, d)\n"
      "        self.size = 0\n"
      "        self.mask = None\n"
      "    def forward(self, x):\n"
      "        n = x.shape[1]\n"
      "        if n != self.size:\n"
      "            self.mask = torch.ones(n, n, device=x.device).tril()\n"
      "            self.size = n\n"
      "        return self.proj(x) * self.mask[:n, :n].sum(0)\n";
  EXPECT_EQ(found(by_length, "DC111"), (Lines{"8 DC111"}));
  EXPECT_NE(only(by_length, "DC111").message.find("register_buffer(\"mask\", None"),
            std::string::npos);
  const std::string once =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Rotary(nn.Module):\n"
      "    def __init__(self, dim):\n"
      "        super().__init__()\n"
      "        self.dim = dim\n"
      "        self.table = None\n"
      "    def build(self, x):\n"
      "        t = torch.arange(x.shape[1], device=x.device).float()\n"
      "        return torch.outer(t, t)\n"
      "    def forward(self, x):\n"
      "        if self.table is None:\n"
      "            self.table = self.build(x)\n"
      "        return x * self.table.cos()\n";
  EXPECT_EQ(found(once, "DC111"), (Lines{"7 DC111"}));
  const std::string near_misses =
      "import torch\n"
      "import torch.nn as nn\n"
      "class ByDevice(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.mask = None\n"
      "    def forward(self, x):\n"
      "        if self.mask is None or self.mask.device != x.device:\n"
      "            self.mask = torch.ones(4, device=x.device)\n"
      "        return x * self.mask\n"
      "class Buffer(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.register_buffer('mask', None, persistent=False)\n"
      "    def forward(self, x):\n"
      "        if self.mask is None:\n"
      "            self.mask = torch.ones(4, device=x.device)\n"
      "        return x * self.mask\n"
      "class Unused(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.mask = None\n"
      "    def forward(self, x):\n"
      "        if self.mask is None or self.mask.size(0) != x.shape[0]:\n"
      "            self.mask = torch.ones(x.shape[0], device=x.device)\n"
      "        return x\n";
  EXPECT_EQ(found(near_misses, "DC111"), (Lines{}));
}

// A plain tensor the class packs with a quantized op
// (`torch.ops.quantized.linear_prepack(w, self.bias_ih)`) lives in a module
// whose packed weights exist on the CPU only: it cannot move, nothing is
// left behind. A plain tensor beside it that no quantized op packs, or one
// a float op reads (`F.linear(x, self.weight)`), is still found.
TEST(LintDC111, SilentOnATensorPackedByAQuantizedOp) {
  const std::string cell =
      "import torch\n"
      "class RNNCellBase(torch.nn.Module):\n"
      "    def __init__(self, input_size, hidden_size, bias=True):\n"
      "        super().__init__()\n"
      "        if bias:\n"
      "            self.bias_ih = torch.randn(4 * hidden_size).to(dtype=torch.float)\n"
      "            self.bias_hh = torch.randn(4 * hidden_size).to(dtype=torch.float)\n"
      "        else:\n"
      "            self.register_parameter('bias_ih', None)\n"
      "            self.register_parameter('bias_hh', None)\n"
      "        w_ih = torch.randn(4 * hidden_size, input_size)\n"
      "        w_hh = torch.randn(4 * hidden_size, hidden_size)\n"
      "        self._packed_ih = torch.ops.quantized.linear_prepack(w_ih, self.bias_ih)\n"
      "        self._packed_hh = torch.ops.quantized.linear_prepack(w_hh, self.bias_hh)\n";
  EXPECT_EQ(found(cell, "DC111"), (Lines{}));
  const std::string linear =
      "import torch\n"
      "import torch.nn as nn\n"
      "from torch import ops\n"
      "class DynamicLinear(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.weight = torch.randn(n, n).half()\n"
      "        self.bias = torch.zeros(n)\n"
      "        self._pack()\n"
      "    def _pack(self):\n"
      "        self._packed = ops.quantized.linear_prepack_fp16(self.weight, self.bias)\n"
      "    def forward(self, x):\n"
      "        return ops.quantized.linear_dynamic_fp16(x, self._packed)\n";
  EXPECT_EQ(found(linear, "DC111"), (Lines{}));
  const std::string near_misses =
      "import torch\n"
      "import torch.nn as nn\n"
      "import torch.nn.functional as F\n"
      "class Cell(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.bias = torch.zeros(n)\n"
      "        self.scale = torch.ones(n)\n"
      "        self._packed = torch.ops.quantized.linear_prepack(torch.randn(n, n), self.bias)\n"
      "class FunctionalLinear(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.weight = torch.rand((5, 5))\n"
      "    def forward(self, x):\n"
      "        return F.linear(x, self.weight)\n";
  EXPECT_EQ(found(near_misses, "DC111"), (Lines{"8 DC111", "13 DC111"}));
  EXPECT_EQ(
      only(near_misses.substr(0, near_misses.find("class FunctionalLinear")), "DC111").message,
      "self.scale holds a plain tensor, which model.to(device) does not move; use "
      "self.register_buffer(\"scale\", ...) or nn.Parameter(...)");
}

// A plain object a module keeps: model.to(device) walks submodules,
// parameters and buffers, not the tensors of a plain class's object.
TEST(LintDC111, FindsHostTensorsOfAPlainObjectAModuleKeeps) {
  const std::string stats =
      "import torch\n"
      "import torch.nn as nn\n"
      "class RunningStats:\n"
      "    def __init__(self, n):\n"
      "        self.mean = torch.zeros(n)\n"
      "        self.count = 0\n"
      "    def update(self, x):\n"
      "        self.mean = self.mean + (x.mean(0) - self.mean) / (self.count + 1)\n"
      "class Normalizer(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.stats = RunningStats(n)\n"
      "    def forward(self, x):\n"
      "        self.stats.update(x)\n"
      "        return x - self.stats.mean\n";
  const Finding f = only(stats, "DC111");
  EXPECT_EQ(f.line, 5);
  EXPECT_EQ(f.message,
            "self.mean of RunningStats, a plain class whose object a module keeps (line 12), "
            "holds a plain tensor, which model.to(device) does not move (it moves submodules, "
            "parameters and buffers only); make RunningStats an nn.Module and use "
            "self.register_buffer(\"mean\", ...)");
  // Set by a method __init__ calls, in a class based on `object` only.
  const std::string scaler =
      "import torch\n"
      "from torch import nn\n"
      "class Scaler(object):\n"
      "    def __init__(self, k):\n"
      "        self.k = k\n"
      "        self.reset()\n"
      "    def reset(self):\n"
      "        self.scale = torch.ones(self.k)\n"
      "        self.shift = torch.full((self.k,), 0.5)\n"
      "    def apply(self, x):\n"
      "        return x * self.scale + self.shift\n"
      "class Head(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.fc = nn.Linear(8, 4)\n"
      "        self.scaler = Scaler(4)\n"
      "    def forward(self, x):\n"
      "        return self.scaler.apply(self.fc(x))\n";
  EXPECT_EQ(found(scaler, "DC111"), (Lines{"8 DC111", "9 DC111"}));
}

TEST(LintDC111, SilentOnPlainObjectsNoModuleKeepsOrThatMoveThemselves) {
  // No module keeps it; a class with a base (which may be a module); one
  // with its own to(); one made with device=; a holder that moves it.
  EXPECT_EQ(found("import torch\n"
                  "import torch.nn as nn\n"
                  "from lib import Base\n"
                  "class Stats:\n"
                  "    def __init__(self, n):\n"
                  "        self.mean = torch.zeros(n)\n"
                  "class Derived(Base):\n"
                  "    def __init__(self, n):\n"
                  "        self.mean = torch.zeros(n)\n"
                  "class Movable:\n"
                  "    def __init__(self, n):\n"
                  "        self.mean = torch.zeros(n)\n"
                  "    def to(self, device):\n"
                  "        self.mean = self.mean.to(device)\n"
                  "        return self\n"
                  "class Placed:\n"
                  "    def __init__(self, n, device):\n"
                  "        self.mean = torch.zeros(n, device=device)\n"
                  "class Kept:\n"
                  "    def __init__(self, n):\n"
                  "        self.mean = torch.zeros(n)\n"
                  "class Net(nn.Module):\n"
                  "    def __init__(self, device):\n"
                  "        super().__init__()\n"
                  "        self.a = Derived(4)\n"
                  "        self.b = Movable(4)\n"
                  "        self.c = Placed(4, device)\n"
                  "class Holder(nn.Module):\n"
                  "    def __init__(self):\n"
                  "        super().__init__()\n"
                  "        self.kept = Kept(4)\n"
                  "    def _apply(self, fn):\n"
                  "        self.kept.mean = fn(self.kept.mean)\n"
                  "        return super()._apply(fn)\n"
                  "stats = Stats(4)\n",
                  "DC111"),
            Lines{});
}

const char kPlainTensorMessage[] =
    "self.m holds a plain tensor, which model.to(device) does not move; use "
    "self.register_buffer(\"m\", ...) or nn.Parameter(...)";

// seed 49: a use that wraps the tensor in torch functions and then moves it
// (`torch.clone(torch.as_tensor(self.m)).to(p.device)`), one that wraps it
// with device= and one handed by keyword to a function of the file that moves
// that parameter take it where it is needed. A wrap that is not moved is found.
TEST(LintDC111, SilentOnPlainTensorsWrappedAndMovedOrHandedByKeywordToAMover) {
  const std::string wrapped =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Loss(nn.Module):\n"
      "    def __init__(self, dist):\n"
      "        super().__init__()\n"
      "        self.m = torch.from_numpy(dist)\n"
      "    def forward(self, p):\n"
      "        m = torch.clone(torch.as_tensor(self.m)).to(p.device)\n"
      "        return (m * p).sum()\n";
  EXPECT_EQ(found(wrapped, "DC111"), Lines{});
  const std::string keyword =
      "import torch\n"
      "import torch.nn as nn\n"
      "def median(x, kernel=None):\n"
      "    kernel = kernel.to(x)\n"
      "    return torch.conv2d(x, kernel)\n"
      "class Filter(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.m = torch.ones(1, 1, 3, 3)\n"
      "        self.w = torch.ones(3)\n"
      "    def forward(self, x):\n"
      "        w = torch.as_tensor(self.w, device=x.device)\n"
      "        return median(x, kernel=self.m) * w\n";
  EXPECT_EQ(found(keyword, "DC111"), Lines{});
  const std::string unmoved =
      "import torch\n"
      "import torch.nn as nn\n"
      "def median(x, kernel=None):\n"
      "    return torch.conv2d(x, kernel)\n"
      "class Filter(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.m = torch.ones(1, 1, 3, 3)\n"
      "    def forward(self, x):\n"
      "        return median(x, kernel=torch.clone(self.m)) + torch.as_tensor(self.m)\n";
  EXPECT_EQ(found(unmoved, "DC111"), Lines{"8 DC111"});
  EXPECT_EQ(only(unmoved, "DC111").message, kPlainTensorMessage);
}

// seed 49: a tensor read only while __init__ builds the module (`self.m[i]`
// picking each block, DiNTS's arch code) meets nothing after a move. One that
// another method or a subclass reads is found, and so is one a method sets
// again moved (`self.m = self.m.to(x.device)`: wenet's positional encoding,
// which breaks under FSDP).
TEST(LintDC111, SilentOnPlainTensorsOnlyInitReads) {
  const std::string built =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Net(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.m = torch.ones(n, 3)\n"
      "        self.cells = nn.ModuleList()\n"
      "        for i in range(n):\n"
      "            if self.m[i, 0] == 1:\n"
      "                self.cells.append(nn.Linear(3, 3))\n"
      "    def forward(self, x):\n"
      "        for cell in self.cells:\n"
      "            x = cell(x)\n"
      "        return x\n";
  EXPECT_EQ(found(built, "DC111"), Lines{});
  const std::string helper =
      "import numpy as np\n"
      "import torch\n"
      "import torch.nn as nn\n"
      "class Mlp(nn.Module):\n"
      "    def __init__(self, widths):\n"
      "        super().__init__()\n"
      "        self.widths = torch.from_numpy(np.asarray(widths))\n"
      "        self._build()\n"
      "    def _build(self):\n"
      "        self.layers = nn.ModuleList([nn.Linear(int(w), 2) for w in self.widths])\n"
      "    def forward(self, x):\n"
      "        return [layer(x) for layer in self.layers]\n";
  EXPECT_EQ(found(helper, "DC111"), Lines{});
  const std::string read_later =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Net(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.m = torch.ones(n, 3)\n"
      "        self.k = torch.ones(n, 3)\n"
      "        self.k = self.k + self.m[0]\n"
      "    def forward(self, x):\n"
      "        self.k = self.k.to(x.device)\n"
      "        return x * self.k\n"
      "class Sub(Net):\n"
      "    def forward(self, x):\n"
      "        return x * self.m\n";
  EXPECT_EQ(found(read_later, "DC111"), (Lines{"6 DC111", "7 DC111", "8 DC111"}));
  const std::vector<Finding> all = lint_source(read_later, "t.py", [] {
    LintOptions o;
    o.select = {"DC111"};
    return o;
  }());
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all[0].message, kPlainTensorMessage);
}

// seed 49: a plain list of modules set again as nn.ModuleList(...) on every
// way (torchmetrics' LPIPS) registers them; where only one way wraps it, the
// plain list stays.
TEST(LintDC111, SilentOnAPlainListOfModulesWrappedLater) {
  const std::string wrapped =
      "import torch.nn as nn\n"
      "class Lpips(nn.Module):\n"
      "    def __init__(self, more):\n"
      "        super().__init__()\n"
      "        self.lins = [nn.Conv2d(3, 1, 1), nn.Conv2d(8, 1, 1)]\n"
      "        if more:\n"
      "            self.lins += [nn.Conv2d(16, 1, 1)]\n"
      "        self.lins = nn.ModuleList(self.lins)\n";
  EXPECT_EQ(found(wrapped, "DC111"), Lines{});
  const std::string dict =
      "import torch.nn as nn\n"
      "class Heads(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.heads = {'a': nn.Linear(2, 2)}\n"
      "        self.heads = nn.ModuleDict(self.heads)\n";
  EXPECT_EQ(found(dict, "DC111"), Lines{});
  const std::string one_way =
      "import torch.nn as nn\n"
      "class Lpips(nn.Module):\n"
      "    def __init__(self, wrap):\n"
      "        super().__init__()\n"
      "        self.lins = [nn.Conv2d(3, 1, 1), nn.Conv2d(8, 1, 1)]\n"
      "        if wrap:\n"
      "            self.lins = nn.ModuleList(self.lins)\n";
  EXPECT_EQ(found(one_way, "DC111"), Lines{"5 DC111"});
  EXPECT_EQ(only(one_way, "DC111").message,
            "self.lins holds a plain list of modules, which model.to(device) does not move and "
            "model.parameters() does not list; use nn.ModuleList(...) or nn.ModuleDict(...)");
}

// A placeholder every read of which follows a set of the name on every way
// to it, in its method (composer's GyroDropout: `self.dropout_mask =
// torch.repeat_interleave(...)`, then `x * self.dropout_mask`): the tensor
// __init__ left is never read. One set only under a condition
// (`selected_masks`), one read by its own set (`self.scores = self.scores +
// 1`) or by another method before any set is still found.
TEST(LintDC111, SkipsAPlaceholderReplacedBeforeEveryRead) {
  const std::string gyro =
      "import numpy as np\n"
      "import torch\n"
      "class GyroDropout(torch.nn.Module):\n"
      "    def __init__(self, sigma, tau, p):\n"
      "        super().__init__()\n"
      "        self.sigma, self.tau, self.p = sigma, tau, p\n"
      "        self.dropout_mask = torch.empty(0, 0)\n"
      "        self.selected_masks = torch.empty(0, 0)\n"
      "        self.step = 0\n"
      "    def forward(self, x):\n"
      "        if self.training:\n"
      "            if self.step % 10 == 0:\n"
      "                self.selected_masks = (torch.rand(self.sigma, x.shape[1], device=x.device) "
      "> self.p).float()\n"
      "            self.dropout_mask = torch.repeat_interleave(self.selected_masks, x.shape[0] // "
      "self.tau, dim=0)\n"
      "            self.step += 1\n"
      "            return x * self.dropout_mask\n"
      "        return x\n";
  EXPECT_EQ(found(gyro, "DC111"), (Lines{"8 DC111"}));
  EXPECT_EQ(only(gyro, "DC111").message,
            "self.selected_masks holds a plain tensor, which model.to(device) does not move; "
            "use self.register_buffer(\"selected_masks\", ...) or nn.Parameter(...)");
  const std::string attention =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Attention(nn.Module):\n"
      "    def __init__(self, d):\n"
      "        super().__init__()\n"
      "        self.q = nn.Linear(d, d)\n"
      "        self.weights = torch.zeros(1)\n"
      "        self.scores = torch.zeros(1)\n"
      "    def forward(self, x):\n"
      "        self.weights = torch.softmax(self.q(x) @ x.transpose(-1, -2), -1)\n"
      "        self.scores = self.scores + 1\n"
      "        return self.weights @ x\n"
      "    def entropy(self):\n"
      "        return -(self.scores * self.scores.log()).sum()\n";
  EXPECT_EQ(found(attention, "DC111"), (Lines{"8 DC111"}));
  EXPECT_EQ(found(attention + "    def last(self):\n        return self.weights.sum()\n", "DC111"),
            (Lines{"7 DC111", "8 DC111"}));
}

// seed 52: a plain tensor reshaped in place (`self.k = self.k.repeat(c, 1,
// 1)`, set on its own name again: speechbrain's ContextWindow) and moved at
// its other uses is moved wherever it meets the input. A reshape kept under
// another name and used still counts as unmoved, and so does a move in place
// on another way than the read (and, as seed 49 judged, on the same way).
TEST(LintDC111, SilentOnPlainTensorsReshapedInPlaceAndMovedAtTheirUses) {
  const std::string window =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Window(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.kernel = torch.eye(n, 2 * n + 1)\n"
      "        self.first = True\n"
      "    def forward(self, x):\n"
      "        if self.first:\n"
      "            self.first = False\n"
      "            self.kernel = (self.kernel.repeat(x.shape[1], 1, 1)\n"
      "                           .view(-1, x.shape[-1]).unsqueeze(1))\n"
      "        return nn.functional.conv1d(x, self.kernel.to(x.device))\n";
  EXPECT_EQ(found(window, "DC111"), (Lines{}));
  const std::string table =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Positions(nn.Module):\n"
      "    def __init__(self, n, d):\n"
      "        super().__init__()\n"
      "        self.table = torch.randn(n * d)\n"
      "    def reset(self, d):\n"
      "        self.table = self.table.view(-1, d).contiguous()\n"
      "    def forward(self, x):\n"
      "        return x + self.table.to(x.device)[: x.shape[1]]\n";
  EXPECT_EQ(found(table, "DC111"), (Lines{}));
  const std::string other_way =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Cell(nn.Module):\n"
      "    def __init__(self, h):\n"
      "        super().__init__()\n"
      "        self.mask_te = torch.ones(h, h)\n"
      "    def forward(self, x, move):\n"
      "        if move:\n"
      "            self.mask_te = self.mask_te.to(x.device)\n"
      "        return x * self.mask_te\n";
  EXPECT_EQ(found(other_way, "DC111"), (Lines{"6 DC111"}));
  const std::string kept =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Window(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.kernel = torch.eye(n, n)\n"
      "    def forward(self, x):\n"
      "        k = self.kernel.repeat(x.shape[0], 1, 1)\n"
      "        return x @ k + x @ self.kernel.to(x.device)\n";
  EXPECT_EQ(found(kept, "DC111"), (Lines{"6 DC111"}));
  EXPECT_NE(only(kept, "DC111").message.find("self.register_buffer(\"kernel\", ...)"),
            std::string::npos);
}

// seed 52: a plain tensor set only on the `else` way of `if self.flag:`
// (an nn.Parameter on the other) and read only under `if self.flag:`, with
// the flag set only in __init__ before it (speechbrain's QLinear
// zero_kernel), is never read. Found where another method sets the flag, or
// a read lies outside such a test.
TEST(LintDC111, SilentOnAPlainTensorReadOnlyOnTheOtherWayOfItsTest) {
  const std::string spinor =
      "import torch\n"
      "import torch.nn as nn\n"
      "class QLinear(nn.Module):\n"
      "    def __init__(self, n, spinor=False):\n"
      "        super().__init__()\n"
      "        self.spinor = spinor\n"
      "        self.w = nn.Parameter(torch.randn(n, n))\n"
      "        if self.spinor:\n"
      "            self.zero_kernel = nn.Parameter(torch.zeros(n, n), requires_grad=False)\n"
      "        else:\n"
      "            self.zero_kernel = torch.Tensor(n, n).requires_grad_(False)\n"
      "    def forward(self, x):\n"
      "        if self.spinor:\n"
      "            return x @ (self.w + self.zero_kernel)\n"
      "        return x @ self.w\n";
  EXPECT_EQ(found(spinor, "DC111"), (Lines{}));
  const std::string gate =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Gate(nn.Module):\n"
      "    def __init__(self, d, use_bias):\n"
      "        super().__init__()\n"
      "        self.use_bias = use_bias\n"
      "        self.proj = nn.Linear(d, d, bias=False)\n"
      "        if self.use_bias:\n"
      "            self.b = nn.Parameter(torch.zeros(d))\n"
      "        else:\n"
      "            self.b = torch.zeros(d)\n"
      "    def _shift(self, h):\n"
      "        if self.use_bias:\n"
      "            h = h + self.b\n"
      "        return h\n"
      "    def forward(self, x):\n"
      "        return self._shift(self.proj(x))\n";
  EXPECT_EQ(found(gate, "DC111"), (Lines{}));
  std::string switched = gate;
  switched +=
      "    def enable(self):\n"
      "        self.use_bias = True\n";
  EXPECT_EQ(found(switched, "DC111"), (Lines{"11 DC111"}));
  std::string unguarded = gate;
  unguarded +=
      "    def extra(self, x):\n"
      "        return x + self.b\n";
  EXPECT_EQ(found(unguarded, "DC111"), (Lines{"11 DC111"}));
  EXPECT_EQ(only(unguarded, "DC111").message,
            "self.b holds a plain tensor, which model.to(device) does not move; use "
            "self.register_buffer(\"b\", ...) or nn.Parameter(...)");
}

const char kPlainListMessage[] =
    "self.fcs holds a plain list of modules, which model.to(device) does not move and "
    "model.parameters() does not list; use nn.ModuleList(...) or nn.ModuleDict(...)";

// seed 53: a plain list each module of which is also registered where it is
// appended (`self.add_module(name, fc)`, `setattr(self, name, m)`, or
// `self.add_module(name, self.fcs[-1])`: detectron2's box head,
// stable-baselines3's critic) moves with the module and is listed by
// parameters(). One append without a registration, or an `extend`, is found.
TEST(LintDC111, SilentOnAPlainListOfModulesRegisteredOneByOne) {
  const std::string box_head =
      "import torch.nn as nn\n"
      "class BoxHead(nn.Module):\n"
      "    def __init__(self, dims):\n"
      "        super().__init__()\n"
      "        self.fcs = []\n"
      "        for k, d in enumerate(dims):\n"
      "            fc = nn.Linear(d, d)\n"
      "            self.add_module('fc{}'.format(k + 1), fc)\n"
      "            self.fcs.append(fc)\n"
      "    def forward(self, x):\n"
      "        for fc in self.fcs:\n"
      "            x = fc(x)\n"
      "        return x\n";
  EXPECT_EQ(found(box_head, "DC111"), Lines{});
  const std::string critic =
      "import torch.nn as nn\n"
      "class Critic(nn.Module):\n"
      "    def __init__(self, n, d):\n"
      "        super().__init__()\n"
      "        self.fcs = []\n"
      "        self.heads = []\n"
      "        for i in range(n):\n"
      "            self.fcs.append(nn.Sequential(nn.Linear(d, 1)))\n"
      "            self.add_module(f'q{i}', self.fcs[-1])\n"
      "            head = nn.Linear(d, 1)\n"
      "            setattr(self, f'head{i}', head)\n"
      "            self.heads.append(head)\n"
      "    def forward(self, x):\n"
      "        return [q(x) + h(x) for q, h in zip(self.fcs, self.heads)]\n";
  EXPECT_EQ(found(critic, "DC111"), Lines{});
  const std::string unregistered =
      "import torch.nn as nn\n"
      "class BoxHead(nn.Module):\n"
      "    def __init__(self, dims):\n"
      "        super().__init__()\n"
      "        self.fcs = []\n"
      "        for k, d in enumerate(dims):\n"
      "            fc = nn.Linear(d, d)\n"
      "            self.add_module('fc{}'.format(k + 1), fc)\n"
      "            self.fcs.append(fc)\n"
      "        self.fcs.append(nn.Linear(4, 4))\n";
  EXPECT_EQ(found(unregistered, "DC111"), (Lines{"5 DC111"}));
  EXPECT_EQ(only(unregistered, "DC111").message, kPlainListMessage);
  std::string extended = box_head;
  extended += "    def grow(self):\n        self.fcs.extend([nn.Linear(4, 4)])\n";
  EXPECT_EQ(found(extended, "DC111"), (Lines{"5 DC111"}));
}

// seed 53: a plain tensor handed to a method of its class (a staticmethod on
// the class, `SrpPhat._srp_phat(doas=self.doas)`: speechbrain's SRP-PHAT, or
// a method on `self` by position) that moves that parameter where it uses it
// is moved at each use. A staticmethod that uses it as it is is found.
TEST(LintDC111, SilentOnPlainTensorsHandedToAMethodThatMovesThem) {
  const std::string static_method =
      "import torch\n"
      "import torch.nn as nn\n"
      "class SrpPhat(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.doas = torch.randn(n, 3)\n"
      "    def forward(self, xx):\n"
      "        return SrpPhat._srp(xx, doas=self.doas)\n"
      "    @staticmethod\n"
      "    def _srp(xx, doas):\n"
      "        doas = doas.to(xx.device)\n"
      "        return xx @ doas\n";
  EXPECT_EQ(found(static_method, "DC111"), Lines{});
  const std::string on_self =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Music(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.m = torch.randn(n, 3)\n"
      "    def forward(self, xx):\n"
      "        return self._music(xx, self.m) + Music._scan(self.m, xx)\n"
      "    def _music(self, xx, table):\n"
      "        table = table.to(xx.device)\n"
      "        return xx @ table\n"
      "    @classmethod\n"
      "    def _scan(cls, table, xx):\n"
      "        table = torch.as_tensor(table, device=xx.device)\n"
      "        return xx @ table\n";
  EXPECT_EQ(found(on_self, "DC111"), Lines{});
  const std::string unmoved =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Music(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.m = torch.randn(n, 3)\n"
      "    def forward(self, xx):\n"
      "        return Music._music(xx, self.m)\n"
      "    @staticmethod\n"
      "    def _music(xx, table):\n"
      "        xx = xx.to(table.device)\n"
      "        return xx @ table\n";
  EXPECT_EQ(found(unmoved, "DC111"), (Lines{"6 DC111"}));
  EXPECT_EQ(only(unmoved, "DC111").message, kPlainTensorMessage);
}

// seed 53: a plain tensor no read of which meets a tensor: an output only
// written by another method (`self.att_mat = att.detach()` when asked:
// MONAI's attention blocks), or read only for its metadata (`.dtype`,
// `.shape`), compared with None, as a truth value (`if self.m[0][d]:`), as
// an index into another tensor (`lprobs[:, self.m] = -inf`: fairseq's
// suppressed tokens), filled with a number, reduced to a number
// (`.sum(dim=0).item()`), or in get_extra_state. A read as an operand, of
// `.device` (what is made there is on the host too), or reduced with a
// tensor is found.
TEST(LintDC111, SilentOnPlainTensorsNoReadOfWhichMeetsATensor) {
  const std::string output =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Attention(nn.Module):\n"
      "    def __init__(self, d, save):\n"
      "        super().__init__()\n"
      "        self.qkv = nn.Linear(d, 3 * d)\n"
      "        self.save = save\n"
      "        self.att_mat = torch.Tensor()\n"
      "    def forward(self, x):\n"
      "        q, k, v = self.qkv(x).chunk(3, -1)\n"
      "        att = (q @ k.transpose(-1, -2)).softmax(-1)\n"
      "        if self.save:\n"
      "            self.att_mat = att.detach()\n"
      "        return att @ v\n";
  EXPECT_EQ(found(output, "DC111"), Lines{});
  const std::string reads =
      "import math\n"
      "import torch\n"
      "import torch.nn as nn\n"
      "class Generator(nn.Module):\n"
      "    def __init__(self, suppress, n):\n"
      "        super().__init__()\n"
      "        self.m = None\n"
      "        if suppress:\n"
      "            self.m = torch.Tensor(suppress).long()\n"
      "        self.code = torch.ones(n, n)\n"
      "        self.stats = torch.zeros(n)\n"
      "    def forward(self, lprobs):\n"
      "        if self.m is not None:\n"
      "            lprobs[:, self.m] = -math.inf\n"
      "        for d in range(lprobs.shape[0]):\n"
      "            if self.code[0][d] == 1 and self.stats.shape[0]:\n"
      "                lprobs[d] = lprobs[d] * 2\n"
      "        return lprobs\n"
      "    def reset(self):\n"
      "        self.stats.zero_()\n"
      "        return self.stats.sum(dim=0).item()\n"
      "    def get_extra_state(self):\n"
      "        return {'stats': self.stats.clone(), 'code': self.code}\n"
      "def test_dtype():\n"
      "    g = Generator([1], 2)\n"
      "    g.stats.fill_(-1.0)\n"
      "    assert g.m.dtype == torch.long and not g.code.requires_grad\n";
  EXPECT_EQ(found(reads, "DC111"), Lines{});
  std::string operand = reads;
  operand += "    def score(self, x):\n        return x + self.code[0]\n";
  EXPECT_EQ(found(operand, "DC111"), (Lines{"10 DC111"}));
  EXPECT_EQ(only(operand, "DC111").message,
            "self.code holds a plain tensor, which model.to(device) does not move; use "
            "self.register_buffer(\"code\", ...) or nn.Parameter(...)");
  std::string device = reads;
  device += "    def fresh(self):\n        return torch.zeros(2, device=self.stats.device)\n";
  EXPECT_EQ(found(device, "DC111"), (Lines{"11 DC111"}));
  std::string summed = reads;
  summed += "    def total(self, x):\n        return self.stats.sum(x).item()\n";
  EXPECT_EQ(found(summed, "DC111"), (Lines{"11 DC111"}));
}

// seed 53: a tensor indexed by an index that type_as(self.x) takes to its
// device and type, then taken to the input's with type_as
// (`self.w2c[words.type_as(self.w2c)].type_as(x)`: fairseq's character
// embedder), is moved at once. Not moved after the lookup, it is found.
TEST(LintDC111, SilentOnAPlainTableIndexedWhereItIsAndTypedAsTheInput) {
  const std::string embedder =
      "import torch\n"
      "import torch.nn as nn\n"
      "class CharEmbedder(nn.Module):\n"
      "    def __init__(self, n, k):\n"
      "        super().__init__()\n"
      "        self.w2c = torch.LongTensor(n, k)\n"
      "        self.emb = nn.Embedding(256, 8)\n"
      "    def forward(self, words):\n"
      "        chars = self.w2c[words.type_as(self.w2c)].type_as(words)\n"
      "        return self.emb(chars)\n";
  EXPECT_EQ(found(embedder, "DC111"), Lines{});
  const std::string by_cpu =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Lookup(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.w2c = torch.arange(n)\n"
      "    def forward(self, words):\n"
      "        return self.w2c[words.cpu()].type_as(words) + words\n";
  EXPECT_EQ(found(by_cpu, "DC111"), Lines{});
  const std::string kept =
      "import torch\n"
      "import torch.nn as nn\n"
      "class CharEmbedder(nn.Module):\n"
      "    def __init__(self, n, k):\n"
      "        super().__init__()\n"
      "        self.w2c = torch.LongTensor(n, k)\n"
      "    def forward(self, words):\n"
      "        return self.w2c[words.type_as(self.w2c)] + words\n";
  EXPECT_EQ(found(kept, "DC111"), (Lines{"6 DC111"}));
  EXPECT_NE(only(kept, "DC111").message.find("self.register_buffer(\"w2c\", ...)"),
            std::string::npos);
}

// seed 53: a placeholder set on every way of an `if` that runs on every call
// before any read in its method (`self.attn = softmax(...)` under `if mask
// is not None:` and its `else`: fairseq's ESPnet attention) is no cache:
// each call reads what it made. Read before that `if` (the last call's
// tensor), or set under an outer test, it is still a cache.
TEST(LintDC111, SilentOnAPlaceholderSetOnEveryWayBeforeItsReads) {
  const std::string attention =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Attention(nn.Module):\n"
      "    def __init__(self, d):\n"
      "        super().__init__()\n"
      "        self.attn = None\n"
      "        self.drop = nn.Dropout(0.1)\n"
      "    def forward(self, scores, v, mask=None):\n"
      "        if mask is not None:\n"
      "            scores = scores.masked_fill(mask, float('-inf'))\n"
      "            self.attn = torch.softmax(scores, dim=-1).masked_fill(mask, 0.0)\n"
      "        else:\n"
      "            self.attn = torch.softmax(scores, dim=-1)\n"
      "        return self.drop(self.attn) @ v\n";
  EXPECT_EQ(found(attention, "DC111"), Lines{});
  const std::string pad =
      "import torch\n"
      "import torch.nn as nn\n"
      "class CausalPad(nn.Module):\n"
      "    def __init__(self, offset):\n"
      "        super().__init__()\n"
      "        self.offset = offset\n"
      "        self.conv = nn.Conv1d(4, 4, 1)\n"
      "        self.first = True\n"
      "        self.cache = None\n"
      "    def forward(self, x):\n"
      "        pad = x[:, :1] if self.first else self.cache\n"
      "        x = torch.cat((pad, x), dim=1)\n"
      "        if self.offset == 0:\n"
      "            self.cache = x.clone()\n"
      "        else:\n"
      "            self.cache = x[:, :-self.offset].clone()\n"
      "        return self.conv(x)\n";
  EXPECT_EQ(found(pad, "DC111"), (Lines{"9 DC111"}));
  EXPECT_NE(only(pad, "DC111").message.find("register_buffer(\"cache\", None"), std::string::npos);
  const std::string kept =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Ar(nn.Module):\n"
      "    def __init__(self, d, keep):\n"
      "        super().__init__()\n"
      "        self.net = nn.LSTM(d, d)\n"
      "        self.keep = keep\n"
      "        self.hidden = None\n"
      "    def forward(self, x):\n"
      "        x, h = self.net(x, self.hidden)\n"
      "        if self.keep:\n"
      "            if isinstance(h, tuple):\n"
      "                self.hidden = tuple(t.detach() for t in h)\n"
      "            else:\n"
      "                self.hidden = h.detach()\n"
      "        return x\n";
  EXPECT_EQ(found(kept, "DC111"), (Lines{"8 DC111"}));
}

// seed 53: the flag of a plain tensor read only on the other way of its test
// may be set on `self` by another class of the file that is neither derived
// from it nor a base of it (speechbrain's QConv1d and QConv2d in one file);
// a subclass that sets the flag still counts.
TEST(LintDC111, SilentOnAFlagSetByAnUnrelatedClassOfTheFile) {
  const std::string two =
      "import torch\n"
      "import torch.nn as nn\n"
      "class QConv1d(nn.Module):\n"
      "    def __init__(self, n, spinor=False):\n"
      "        super().__init__()\n"
      "        self.spinor = spinor\n"
      "        self.w = nn.Parameter(torch.randn(n, n))\n"
      "        if self.spinor:\n"
      "            self.zero_kernel = nn.Parameter(torch.zeros(n, n), requires_grad=False)\n"
      "        else:\n"
      "            self.zero_kernel = torch.Tensor(n, n).requires_grad_(False)\n"
      "    def forward(self, x):\n"
      "        if self.spinor:\n"
      "            return x @ (self.w + self.zero_kernel)\n"
      "        return x @ self.w\n"
      "class Other(nn.Module):\n"
      "    def __init__(self, spinor):\n"
      "        super().__init__()\n"
      "        self.spinor = spinor\n";
  EXPECT_EQ(found(two, "DC111"), Lines{});
  std::string derived = two;
  derived +=
      "class Rotating(QConv1d):\n"
      "    def enable(self):\n"
      "        self.spinor = True\n";
  EXPECT_EQ(found(derived, "DC111"), (Lines{"11 DC111"}));
  EXPECT_EQ(only(derived, "DC111").message,
            "self.zero_kernel holds a plain tensor, which model.to(device) does not move; use "
            "self.register_buffer(\"zero_kernel\", ...) or nn.Parameter(...)");
}

// seed 53: a plain tensor read by a method that the file calls only while
// modules are built (`self.kernel = self.conv.get_kernel()` in an __init__:
// diffusers' DPS blur operator) is read only while built. A call of that
// method in forward is found.
TEST(LintDC111, SilentOnPlainTensorsReadByMethodsCalledOnlyWhileBuilt) {
  const std::string blur =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Blur(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.conv = nn.Conv2d(3, 3, n, bias=False, groups=3)\n"
      "        self.k = torch.ones(n, n) / (n * n)\n"
      "        self.conv.weight.data.copy_(self.k)\n"
      "    def get_kernel(self):\n"
      "        return self.k\n"
      "    def forward(self, x):\n"
      "        return self.conv(x)\n"
      "class Operator(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.blur = Blur(n)\n"
      "        self.kernel = self.blur.get_kernel().float()\n"
      "        self.blur.conv.weight.data.copy_(self.kernel)\n"
      "    def forward(self, x):\n"
      "        return self.blur(x)\n";
  EXPECT_EQ(found(blur, "DC111"), Lines{});
  const std::string table =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Codebook(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.codes = torch.randint(1, 8, (n,))\n"
      "    def width(self, i):\n"
      "        return int(self.codes[i])\n"
      "class Net(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.book = Codebook(n)\n"
      "        self.fcs = nn.ModuleList(nn.Linear(2, self.book.width(i)) for i in range(n))\n"
      "    def forward(self, x):\n"
      "        return [fc(x) for fc in self.fcs]\n";
  EXPECT_EQ(found(table, "DC111"), Lines{});
  std::string called = blur;
  called += "    def kernel_of(self, x):\n        return x * self.blur.get_kernel()\n";
  EXPECT_EQ(found(called, "DC111"), (Lines{"7 DC111"}));
  EXPECT_EQ(only(called, "DC111").message,
            "self.k holds a plain tensor, which model.to(device) does not move; use "
            "self.register_buffer(\"k\", ...) or nn.Parameter(...)");
}

// seed 53: a read on the `else` way of `x.to(device) if device is not None
// else self.x`, where every call of the file gives the method (through
// another method's parameter, or to the module's forward through the
// attribute that holds it) a device, never runs (diffusers' Qwen-Image and
// NucleusMoE rotary embeddings); `torch.angle(self.x).to(device)` is moved.
// A call that gives no device, or None, leaves the way open: found.
TEST(LintDC111, SilentOnAReadOnAWayNoCallOfTheFileTakes) {
  const std::string rope =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Rope(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.freqs = torch.polar(torch.ones(n, 8), torch.randn(n, 8))\n"
      "    def _freqs(self, n, device=None):\n"
      "        freqs = self.freqs.to(device) if device is not None else self.freqs\n"
      "        return freqs[:n]\n"
      "    def forward(self, n, device=None):\n"
      "        return self._freqs(n, device)\n"
      "class Transformer(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.pos_embed = Rope(64)\n"
      "        self.proj = nn.Linear(8, 8)\n"
      "    def forward(self, x):\n"
      "        rot = self.pos_embed(x.shape[1], device=x.device)\n"
      "        return self.proj(x) * rot.real\n";
  EXPECT_EQ(found(rope, "DC111"), Lines{});
  const std::string angles =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Rope3d(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.pos = torch.polar(torch.ones(n, 8), torch.randn(n, 8))\n"
      "    def _on(self, device):\n"
      "        if device.type == 'neuron':\n"
      "            return torch.angle(self.pos).to(device)\n"
      "        return self.pos.to(device)\n"
      "    def forward(self, n, device=None):\n"
      "        pos = self._on(device) if device is not None else (self.pos,)\n"
      "        return pos[:n]\n"
      "class Model(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.rope = Rope3d(32)\n"
      "    def forward(self, x):\n"
      "        dev = x.device\n"
      "        return x * self.rope(4, dev).real\n";
  EXPECT_EQ(found(angles, "DC111"), Lines{});
  std::string bare = rope;
  bare += "    def sample(self, x):\n        return x * self.pos_embed(x.shape[1]).real\n";
  EXPECT_EQ(found(bare, "DC111"), (Lines{"6 DC111"}));
  EXPECT_EQ(only(bare, "DC111").message,
            "self.freqs holds a plain tensor, which model.to(device) does not move; use "
            "self.register_buffer(\"freqs\", ...) or nn.Parameter(...)");
  std::string none = angles;
  none += "    def host(self):\n        return self.rope(4, None)\n";
  EXPECT_EQ(found(none, "DC111"), (Lines{"6 DC111"}));
}

// seed 53: a module the file makes only per call, in methods (not in an
// __init__), from tensors made on a device (`Hypotheses(torch.empty(n,
// device=self.device))`: speechbrain's AlivedHypotheses), holds them where
// the inputs are; no model.to() reaches it. Made on the host, or kept by a
// module's __init__, it is found.
TEST(LintDC111, SilentOnAModuleMadePerCallFromTensorsOnADevice) {
  const std::string hypotheses =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Hypotheses(nn.Module):\n"
      "    def __init__(self, seq, scores):\n"
      "        super().__init__()\n"
      "        self.seq = seq\n"
      "        self.scores = scores\n"
      "    def __getitem__(self, i):\n"
      "        return self.seq[i], self.scores[i]\n"
      "class Searcher(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.n = n\n"
      "    def init_hypotheses(self):\n"
      "        return Hypotheses(seq=torch.empty(self.n, 0, device=self.device).long(),\n"
      "                          scores=torch.zeros(self.n, device=self.device))\n"
      "    def forward(self, enc):\n"
      "        self.device = enc.device\n"
      "        h = self.init_hypotheses()\n"
      "        return enc + h.scores.sum()\n";
  EXPECT_EQ(found(hypotheses, "DC111"), Lines{});
  const std::string state =
      "import torch\n"
      "import torch.nn as nn\n"
      "class State(nn.Module):\n"
      "    def __init__(self, h):\n"
      "        super().__init__()\n"
      "        self.h = h\n"
      "def run(model, x):\n"
      "    s = State(torch.zeros(4, device=x.device))\n"
      "    return model(x) + s.h\n";
  EXPECT_EQ(found(state, "DC111"), Lines{});
  std::string host = state;
  host.replace(host.find(", device=x.device"), 17, "");
  EXPECT_EQ(found(host, "DC111"), (Lines{"6 DC111"}));
  EXPECT_EQ(only(host, "DC111").message,
            "self.h holds a plain tensor, which model.to(device) does not move; use "
            "self.register_buffer(\"h\", ...) or nn.Parameter(...)");
  std::string kept = state;
  kept +=
      "class Net(nn.Module):\n"
      "    def __init__(self, device):\n"
      "        super().__init__()\n"
      "        self.state = State(torch.zeros(4, device=device))\n";
  EXPECT_EQ(found(kept, "DC111"), (Lines{"6 DC111"}));
}

// Review of seed 53's DC111 changes: a `.forward(...)` shape probe in an
// __init__ does not make forward a method read only while modules are built
// (no class's forward, nor a dunder method, nor a method referenced other
// than as a call, nor one called on an object not of its class); found.
TEST(LintDC111, FindsPlainTensorsReadByForwardAProbeCallsWhileBuilt) {
  const std::string probe =
      "import torch\n"
      "from torch import nn\n"
      "\n"
      "class Block(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.scale = torch.ones(3)\n"
      "    def forward(self, x):\n"
      "        return x * self.scale\n"
      "\n"
      "class Net(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.block = Block()\n"
      "        self.n = self.block.forward(torch.zeros(3)).numel()\n"
      "    def forward(self, x):\n"
      "        return self.block(x)\n";
  EXPECT_EQ(found(probe, "DC111"), (Lines{"7 DC111"}));
  EXPECT_EQ(only(probe, "DC111").message,
            "self.scale holds a plain tensor, which model.to(device) does not move; use "
            "self.register_buffer(\"scale\", ...) or nn.Parameter(...)");
  std::string other = probe;
  other.replace(other.find("self.block.forward("), 19, "self.block.scaled(");
  const std::string read = "    def forward(self, x):\n        return x * self.scale\n";
  other.replace(other.find(read), read.size(),
                "    def scaled(self, x):\n        return x * self.scale\n"
                "    def forward(self, x):\n        return x\n");
  // `scaled` is called only while built, on the module its __init__ keeps.
  EXPECT_EQ(found(other, "DC111"), Lines{});
  std::string hooked = other;
  hooked += "    def hook(self):\n        return self.block.scaled\n";
  EXPECT_EQ(found(hooked, "DC111"), (Lines{"7 DC111"}));
  std::string foreign = other;
  foreign += "def run(block, x):\n    return block.scaled(x)\n";
  EXPECT_EQ(found(foreign, "DC111"), (Lines{"7 DC111"}));
}

// Review of seed 53's DC111 changes: every call of the method's name in the
// file must give the device (`rope.get_freqs(n)` in a function too), and
// only a value known not to be None gives it (`self.device`,
// `kwargs.get("device")` and `d if c else None` may be None): found.
TEST(LintDC111, FindsReadsOnAWayACallOfAnyReceiverOrAMaybeNoneTakes) {
  const std::string given =
      "import torch\n"
      "from torch import nn\n"
      "\n"
      "class Rope(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.freqs = torch.randn(n, 8)\n"
      "    def get_freqs(self, n, device=None):\n"
      "        freqs = self.freqs.to(device) if device is not None else self.freqs\n"
      "        return freqs[:n]\n"
      "    def forward(self, x):\n"
      "        return x * self.get_freqs(x.shape[0], x.device)\n"
      "\n"
      "def sample(rope, x):\n"
      "    return x * rope.get_freqs(x.shape[0])\n";
  EXPECT_EQ(found(given, "DC111"), (Lines{"7 DC111"}));
  EXPECT_EQ(only(given, "DC111").message,
            "self.freqs holds a plain tensor, which model.to(device) does not move; use "
            "self.register_buffer(\"freqs\", ...) or nn.Parameter(...)");
  std::string all = given;
  all.replace(all.find("rope.get_freqs(x.shape[0])"), 26, "rope.get_freqs(x.shape[0], \"cuda\")");
  EXPECT_EQ(found(all, "DC111"), Lines{});
  const std::string attribute =
      "import torch\n"
      "from torch import nn\n"
      "\n"
      "class Rope(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.freqs = torch.randn(n, 8)\n"
      "        self.device = None\n"
      "    def _freqs(self, n, device=None):\n"
      "        freqs = self.freqs.to(device) if device is not None else self.freqs\n"
      "        return freqs[:n]\n"
      "    def forward(self, x):\n"
      "        return x * self._freqs(x.shape[0], self.device)\n";
  EXPECT_EQ(found(attribute, "DC111"), (Lines{"7 DC111"}));
  EXPECT_EQ(only(attribute, "DC111").message,
            "self.freqs holds a plain tensor, which model.to(device) does not move; use "
            "self.register_buffer(\"freqs\", ...) or nn.Parameter(...)");
  const std::string call = "self._freqs(x.shape[0], self.device)";
  for (const std::string value :
       {"kwargs.get(\"device\")", "x.device if x.is_cuda else None", "self.cfg.device"}) {
    std::string maybe = attribute;
    maybe.replace(maybe.find("def forward(self, x)"), 20, "def forward(self, x, **kwargs)");
    maybe.replace(maybe.find(call), call.size(), "self._freqs(x.shape[0], " + value + ")");
    EXPECT_EQ(found(maybe, "DC111"), (Lines{"7 DC111"})) << value;
  }
  for (const std::string value : {"x.device", "torch.device(\"cuda\")", "\"cuda\""}) {
    std::string sure = attribute;
    sure.replace(sure.find(call), call.size(), "self._freqs(x.shape[0], " + value + ")");
    EXPECT_EQ(found(sure, "DC111"), Lines{}) << value;
  }
}

// Review of seed 53's DC111 changes: a class that sets the flag through a
// class between (`class Rotating(Mid)`, `class Mid(QConv1d)`) is related:
// found.
TEST(LintDC111, FindsPlainTensorsWhoseFlagAGrandchildClassSets) {
  const std::string flag =
      "import torch\n"
      "import torch.nn as nn\n"
      "class QConv1d(nn.Module):\n"
      "    def __init__(self, n, spinor=False):\n"
      "        super().__init__()\n"
      "        self.spinor = spinor\n"
      "        self.w = nn.Parameter(torch.randn(n, n))\n"
      "        if self.spinor:\n"
      "            self.zero_kernel = nn.Parameter(torch.zeros(n, n), requires_grad=False)\n"
      "        else:\n"
      "            self.zero_kernel = torch.Tensor(n, n).requires_grad_(False)\n"
      "    def forward(self, x):\n"
      "        if self.spinor:\n"
      "            return x @ (self.w + self.zero_kernel)\n"
      "        return x @ self.w\n"
      "class Mid(QConv1d):\n"
      "    pass\n"
      "class Rotating(Mid):\n"
      "    def enable(self):\n"
      "        self.spinor = True\n";
  EXPECT_EQ(found(flag, "DC111"), (Lines{"11 DC111"}));
  EXPECT_EQ(only(flag, "DC111").message,
            "self.zero_kernel holds a plain tensor, which model.to(device) does not move; use "
            "self.register_buffer(\"zero_kernel\", ...) or nn.Parameter(...)");
  std::string unrelated = flag;
  unrelated.replace(unrelated.find("class Rotating(Mid)"), 19, "class Rotating(nn.Module)");
  EXPECT_EQ(found(unrelated, "DC111"), Lines{});
}

// Review of seed 53's DC111 changes: add_module of a module other than the
// one appended (`nn.Linear(d, d)` made twice) leaves the list's modules
// unregistered, as does an item set by index: found.
TEST(LintDC111, FindsModuleListsWhoseItemsAnotherModuleWasRegisteredFor) {
  const std::string reg =
      "import torch.nn as nn\n"
      "class BoxHead(nn.Module):\n"
      "    def __init__(self, dims):\n"
      "        super().__init__()\n"
      "        self.fcs = []\n"
      "        for k, d in enumerate(dims):\n"
      "            self.add_module('fc{}'.format(k), nn.Linear(d, d))\n"
      "            self.fcs.append(nn.Linear(d, d))\n"
      "    def forward(self, x):\n"
      "        for fc in self.fcs:\n"
      "            x = fc(x)\n"
      "        return x\n";
  EXPECT_EQ(found(reg, "DC111"), (Lines{"5 DC111"}));
  EXPECT_EQ(only(reg, "DC111").message,
            "self.fcs holds a plain list of modules, which model.to(device) does not move and "
            "model.parameters() does not list; use nn.ModuleList(...) or nn.ModuleDict(...)");
  std::string same = reg;
  const std::string twice =
      "            self.add_module('fc{}'.format(k), nn.Linear(d, d))\n"
      "            self.fcs.append(nn.Linear(d, d))\n";
  same.replace(same.find(twice), twice.size(),
               "            fc = nn.Linear(d, d)\n"
               "            self.add_module('fc{}'.format(k), fc)\n"
               "            self.fcs.append(fc)\n");
  EXPECT_EQ(found(same, "DC111"), Lines{});
  std::string indexed = same;
  indexed += "    def swap(self, i, m):\n        self.fcs[i] = m\n";
  EXPECT_EQ(found(indexed, "DC111"), (Lines{"5 DC111"}));
}

// A plain tensor read in a helper that __init__ calls is read only while
// the module is built; where forward (or another method) calls the same
// helper, the read runs on the built module, wherever model.to(device) took
// its parameters: found.
TEST(LintDC111, FindsPlainTensorsReadByAHelperForwardCallsToo) {
  const std::string scaled =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Net(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.scale = torch.ones(8)\n"
      "        self.w = nn.Parameter(self._scaled(torch.randn(8)))\n"
      "    def _scaled(self, v):\n"
      "        return v * self.scale\n"
      "    def forward(self, x):\n"
      "        return self._scaled(x) + self.w\n";
  const Finding f = testing::only(scaled, "DC111");
  EXPECT_EQ(f.line, 6);
  EXPECT_EQ(f.message,
            "self.scale holds a plain tensor, which model.to(device) does not move; use "
            "self.register_buffer(\"scale\", ...) or nn.Parameter(...)");
  const std::string codes =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Coder(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.codes = torch.arange(n) * 2\n"
      "        self.table = nn.Parameter(self.lookup(torch.zeros(n, dtype=torch.long)))\n"
      "    def lookup(self, i):\n"
      "        return self.codes[i].float()\n"
      "    def predict(self, i):\n"
      "        return self.lookup(i)\n"
      "    def forward(self, x):\n"
      "        return x @ self.table\n";
  EXPECT_EQ(found(codes, "DC111"), (Lines{"6 DC111"}));
  // Near miss: only __init__ calls the helper.
  const std::string built =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Net(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.scale = torch.ones(8)\n"
      "        self.w = nn.Parameter(self._scaled(torch.randn(8)))\n"
      "    def _scaled(self, v):\n"
      "        return v * self.scale\n"
      "    def forward(self, x):\n"
      "        return x + self.w\n";
  EXPECT_EQ(found(built, "DC111"), Lines{});
}

}  // namespace
}  // namespace devcheck::lint
