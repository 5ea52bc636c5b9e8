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

// torch reads "cpu:0" (and torch.device("cpu", 0)) as the one CPU: a move
// there is a move to the host, in a test's setup as in a model's method.
TEST(LintFlowEval, TakesCpuWithAnIndexForTheHost) {
  const Flowed f(
      "import torch\n"
      "HOST = torch.device('cpu:0')\n"
      "def f(x):\n"
      "    a = x.to('cpu:0') + torch.ones(1, 2)\n"
      "    b = x.to(torch.device('cpu', 0)) + torch.ones(1, 2)\n"
      "    c = x.to(HOST) + torch.ones(1, 2)\n"
      "    d = x.to('cuda:0') + torch.ones(1, 2)\n");
  EXPECT_EQ(meetings(f), (Lines{"7 factory@7 meets device"}));
  const Flowed g(
      "import torch\n"
      "import numpy as np\n"
      "class Net(torch.nn.Module):\n"
      "    def __init__(self, device='cpu:0'):\n"
      "        super().__init__()\n"
      "        self.device = device\n"
      "    def forward(self, x):\n"
      "        return x.to(self.device) * torch.ones(3)\n"
      "    def score(self, x):\n"
      "        return x.to('cuda:1') * torch.ones(3)\n"
      "net = Net()\n");
  EXPECT_EQ(meetings(g), (Lines{"10 factory@10 meets device"}));
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

// A configuration's entry named as a device (`cfg["device"]`) is the device
// chosen, as `args.device` is; another entry is not known.
TEST(LintFlowEval, AConfigurationsDeviceEntryIsADevice) {
  const Flowed f(
      "import torch\n"
      "def main(cfg, data):\n"
      "    model = torch.nn.Linear(2, 2).to(cfg['device'])\n"
      "    for x, y in torch.utils.data.DataLoader(data):\n"
      "        out = model(x)\n"
      "    other = torch.nn.Linear(2, 2).to(cfg['dtype'])\n"
      "    return other(x)\n");
  EXPECT_EQ(meetings(f), (Lines{"5 batch@4 meets device"}));
}

// A device tensor's attributes other than its sizes and flags are where it
// is (a model's output: `outputs.logits`); `.shape` is not a tensor.
TEST(LintFlowEval, AModelOutputsFieldsAreWhereItIs) {
  const Flowed f(
      "import torch\n"
      "model = torch.nn.Linear(2, 2).cuda()\n"
      "def run(batch):\n"
      "    outputs = model(batch.cuda())\n"
      "    a = outputs.logits.detach().numpy()\n"
      "    b = outputs.logits.detach().cpu().numpy()\n"
      "    return outputs.shape.numpy()\n");
  EXPECT_EQ(testing::numpy_reads(f), (Lines{"5 device", "6 host", "7 ?"}));
}

// A property of the class (`self.mask` of `@property def mask`) is what it
// returns: a factory's host tensor there meets the module's device; a
// registered buffer returned is where the module is.
TEST(LintFlowEval, APropertyIsWhatItReturns) {
  const Flowed f(
      "import torch\n"
      "import torch.nn as nn\n"
      "class M(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.fc = nn.Linear(4, 4)\n"
      "        self.register_buffer('scale', torch.ones(4))\n"
      "    @property\n"
      "    def mask(self):\n"
      "        return torch.ones(4)\n"
      "    @property\n"
      "    def gain(self):\n"
      "        return self.scale\n"
      "    def forward(self, x):\n"
      "        return self.fc(x) * self.mask + self.gain\n");
  EXPECT_EQ(meetings(f), (Lines{"15 factory@10 meets module"}));
}

// A name assigned "cpu" on one way and a device's string on another is the
// device chosen, as `"cuda" if ... else "cpu"` is: not the string written
// last. A name only ever "cpu" stays the host.
TEST(LintFlowEval, ANameAssignedCpuAndADeviceOnTwoWaysIsTheDeviceChosen) {
  const Flowed module_level(
      "import torch\n"
      "if torch.cuda.is_available():\n"
      "    device = 'cuda'\n"
      "else:\n"
      "    device = 'cpu'\n"
      "def f(x):\n"
      "    return x.to(device) + torch.ones(3)\n");
  EXPECT_EQ(meetings(module_level), (Lines{"7 factory@7 meets device"}));
  const Flowed in_a_function(
      "import torch\n"
      "def run(args, x):\n"
      "    target = 'cuda:0'\n"
      "    if args.no_cuda:\n"
      "        target = 'cpu'\n"
      "    y = x.to(target)\n"
      "    return y * torch.arange(3)\n");
  EXPECT_EQ(meetings(in_a_function), (Lines{"7 factory@7 meets device"}));
  const Flowed only_the_host(
      "import torch\n"
      "if torch.cuda.is_available():\n"
      "    device = 'cpu'\n"
      "else:\n"
      "    device = 'cpu'\n"
      "def f(x):\n"
      "    return x.to(device) + torch.ones(3)\n");
  EXPECT_EQ(meetings(only_the_host), (Lines{}));
}

// `self.device` kept from an __init__ parameter that defaults to "cpu" is the
// host where every construction in the file leaves it out; passed by any
// (or never constructed in the file: its callers decide), the device chosen.
TEST(LintFlowEval, ADeviceParameterDefaultingToCpuThatNoCallPassesIsTheHost) {
  const std::string loss =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Loss(nn.Module):\n"
      "    def __init__(self, scale=1.0, device='cpu'):\n"
      "        super().__init__()\n"
      "        self.device = device\n"
      "    def forward(self, x):\n"
      "        centre = x.mean(0).to(self.device)\n"
      "        return x - centre\n";
  const Flowed omitted(loss + "crit = Loss(scale=2.0)\n");
  EXPECT_EQ(meetings(omitted), (Lines{"9 copy@8 meets module"}));
  const Flowed plain_class(
      "import torch\n"
      "class Sampler:\n"
      "    def __init__(self, n, target='cpu'):\n"
      "        self.target = target\n"
      "    def draw(self, x):\n"
      "        y = torch.randn(3, device='cuda')\n"
      "        return y + y.to(self.target)\n"
      "s = Sampler(4)\n");
  EXPECT_EQ(meetings(plain_class), (Lines{"7 copy@7 meets device"}));
  EXPECT_EQ(meetings(Flowed(loss + "crit = Loss(device='cuda')\n")), (Lines{}));
  EXPECT_EQ(meetings(Flowed(loss + "crit = Loss(1.0, 'cuda')\n")), (Lines{}));
  EXPECT_EQ(meetings(Flowed(loss)), (Lines{}));
}

// In `__init__`, the parameter itself (`nn.Linear(5, 4).to(device)` of
// `def __init__(self, device="cpu")`) is the host too when no construction
// passes it (diffusers' DiffusionPolicy, seed 53); passed, it is the device.
TEST(LintFlowEval, AnInitsOwnParameterDefaultingToCpuThatNoCallPassesIsTheHost) {
  const std::string policy =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Policy:\n"
      "    def __init__(self, state_dim=5, device='cpu'):\n"
      "        self.device = device\n"
      "        self.enc = nn.Linear(state_dim, 4).to(device)\n"
      "    def predict(self, obs):\n"
      "        obs = obs.to(self.device)\n"
      "        return self.enc(obs)\n";
  const std::string call = "p = Policy()\np.predict(torch.tensor([[1.0, 2.0, 3.0, 4.0, 5.0]]))\n";
  EXPECT_EQ(meetings(Flowed(policy + call)), (Lines{}));
  const Flowed module(
      "import torch\n"
      "import torch.nn as nn\n"
      "class Head:\n"
      "    def __init__(self, target='cpu'):\n"
      "        self.net = nn.Sequential(nn.Linear(3, 3)).to(target)\n"
      "    def __call__(self, x):\n"
      "        return self.net(x)\n"
      "h = Head()\n"
      "h(torch.ones(2, 3))\n");
  EXPECT_EQ(meetings(module), (Lines{}));
  // Without the move of obs, the layer's place decides: the host where the
  // device is not passed, the device where it is.
  const std::string unmoved =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Policy:\n"
      "    def __init__(self, device='cpu'):\n"
      "        self.enc = nn.Linear(5, 4).to(device)\n"
      "    def predict(self, obs):\n"
      "        return self.enc(obs)\n";
  const std::string obs = "p.predict(torch.tensor([[1.0, 2.0, 3.0, 4.0, 5.0]]))\n";
  EXPECT_EQ(meetings(Flowed(unmoved + "p = Policy()\n" + obs)), (Lines{}));
  EXPECT_EQ(meetings(Flowed(unmoved + "p = Policy(device='cuda')\n" + obs)),
            (Lines{"7 factory@9 meets device"}));
}

// A dict of tensors and Python numbers (a literal, `len(...)`, `int(...)`,
// `.item()`, a name assigned one): `segment["offset"]` of `{"ids":
// ids.to(device), "offset": len(ids) + 2}` is the number under that key,
// not the device tensor (diffusers' Cosmos3 pipeline, seed 53), and
// `batch["x"]` the tensor under its key (dicts_test.cc). A dict of tensors
// alone, or of tensors and names the flow does not know, holds the tensor.
TEST(LintFlowEval, ADictOfTensorsAndNumbersHoldsEachUnderItsKey) {
  const Flowed segment(
      "import torch\n"
      "def prepare(ids, device):\n"
      "    n = len(ids)\n"
      "    return {'ids': torch.tensor(ids, device=device), 'len': n}\n"
      "def mrope(offset):\n"
      "    return torch.arange(4, dtype=torch.float32) + offset\n"
      "def run(ids, device):\n"
      "    seg = prepare(ids, device)\n"
      "    return mrope(seg['len'])\n");
  EXPECT_EQ(meetings(segment), (Lines{}));
  const Flowed inputs(
      "import torch\n"
      "def step(model, x):\n"
      "    batch = {'x': x.cuda(), 'steps': 2, 'scale': x.max().item()}\n"
      "    return batch['x'] + torch.rand(3)\n");
  EXPECT_EQ(meetings(inputs), (Lines{"4 factory@4 meets device"}));
  const Flowed tensors(
      "import torch\n"
      "def step(x, k):\n"
      "    batch = {'x': x.cuda(), 'k': k}\n"
      "    return batch['x'] + torch.rand(3)\n");
  EXPECT_EQ(meetings(tensors), (Lines{"4 factory@4 meets device"}));
}

// `device = t.device` of a tensor known on the host is the host, whatever the
// name says (allennlp's bias metrics: `prob = torch.zeros(n).to(device)`
// beside the counts it was taken from); of a tensor whose place is not known
// (a parameter), the name's device still.
TEST(LintFlowEval, TheDeviceOfAHostTensorIsTheHostWhateverItsName) {
  const Flowed function(
      "import torch\n"
      "def histogram(values, n):\n"
      "    counts = torch.zeros(n)\n"
      "    device = counts.device\n"
      "    total = torch.ones(n).to(device)\n"
      "    return counts / total\n"
      "def near(values, n):\n"
      "    counts = torch.zeros(n)\n"
      "    device = values.device\n"
      "    total = torch.ones(n).to(device)\n"
      "    return counts / total\n");
  EXPECT_EQ(meetings(function), (Lines{"11 factory@8 meets device"}));
  const Flowed metric(
      "import torch\n"
      "class Metric:\n"
      "    def __init__(self, n):\n"
      "        self.n = n\n"
      "        self._counts = torch.zeros(n)\n"
      "        self._total = torch.tensor(0)\n"
      "    def terms(self):\n"
      "        device = self._counts.device\n"
      "        prob = torch.zeros(self.n).to(device)\n"
      "        torch.div(self._counts, self._total, out=prob)\n"
      "        return prob\n"
      "    def near(self, labels):\n"
      "        device = labels.device\n"
      "        prob = torch.zeros(self.n).to(device)\n"
      "        return torch.div(self._counts, 2.0, out=prob)\n");
  EXPECT_EQ(meetings(metric), (Lines{"15 factory@5 meets device"}));
}

// In a module's method, `a if cond else b` with a host tensor one way and
// the module's place the other is the host tensor: the condition does not
// move the module. A device chosen by the condition (`x.cuda() if cuda else
// x`) stays unknown.
TEST(LintFlowEval, AConditionalOfAHostTensorAndTheModulesPlaceIsTheHostTensor) {
  const Flowed embedding(
      "import torch\n"
      "import torch.nn as nn\n"
      "class Encoder(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.emb = nn.Embedding(n, 4) if n else None\n"
      "    def forward(self, x, cats):\n"
      "        e = self.emb(cats) if self.emb is not None else torch.zeros(x.shape[0], 0)\n"
      "        return torch.cat((x, e), dim=1)\n");
  EXPECT_EQ(meetings(embedding), (Lines{"9 factory@8 meets module"}));
  const Flowed buffer(
      "import torch\n"
      "import torch.nn as nn\n"
      "class Memory(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.register_buffer('state', torch.zeros(4))\n"
      "    def forward(self, x, reset):\n"
      "        s = torch.ones(4) if reset else self.state\n"
      "        return x + s\n");
  EXPECT_EQ(meetings(buffer), (Lines{"9 factory@8 meets module"}));
  const Flowed chosen(
      "import torch\n"
      "def f(x, use_cuda):\n"
      "    y = x.cuda() if use_cuda else x\n"
      "    h = torch.ones(3).cuda() if use_cuda else torch.ones(3)\n"
      "    return y + h\n");
  EXPECT_EQ(meetings(chosen), Lines{});
}

// An expression deeper than the stack allows (twenty thousand chained
// `.cuda()`, valid Python) is followed as far as the stack goes and no
// further (src/lint/stack.h): no overflow, and the rest of the file is read.
TEST(LintFlowEval, AnExpressionDeeperThanTheStackIsFollowedAsFarAsItGoes) {
  std::string code = "import torch\nx = torch.zeros(3)";
  for (int i = 0; i < 20000; ++i) code += ".cuda()";
  code += "\ndef f(y):\n    y = y.cuda()\n    return y + torch.ones(3)\n";
  const Flowed f(code);
  EXPECT_EQ(meetings(f), (Lines{"5 factory@5 meets device"}));
}

}  // namespace
}  // namespace devcheck::lint::detail
