#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::expect_bugs_found_and_twins_clean;
using testing::found;
using testing::Lines;
using testing::only;

TEST(LintDC112, FindsHardCodedCudaBesideADeviceVariable) {
  const std::string source =
      "import torch\n"
      "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
      "model = model.to(device)\n"
      "x = x.cuda()\n"
      "y = y.to('cuda')\n"
      "z = torch.zeros(1, device='cuda:0')\n";
  EXPECT_EQ(found(source, "DC112"), (Lines{"4 DC112", "5 DC112", "6 DC112"}));
  EXPECT_EQ(found("import torch\nx = x.cuda()\n", "DC112"), Lines{});
}

TEST(LintDC112, SaysNothingForChosenIndicesOrOtherFunctionsDevices) {
  EXPECT_EQ(found("import torch\n"
                  "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
                  "x = x.cuda(rank)\n",
                  "DC112"),
            Lines{});
  const std::string two_functions =
      "import torch\n"
      "def setup():\n"
      "    device = torch.device('cuda:0')\n"
      "    return device\n"
      "def other(x):\n"
      "    return x.cuda()\n"
      "def same(x, local_rank):\n"
      "    dev = torch.device('cuda', local_rank)\n"
      "    return x.cuda()\n";
  EXPECT_EQ(found(two_functions, "DC112"), (Lines{"9 DC112"}));
}

TEST(LintDC112, SaysNothingBesideADeviceVariableThatIsCudaItself) {
  // skorch's tests: a CUDA-only test names its device "cuda" and says so again.
  EXPECT_EQ(found("import torch\n"
                  "def test_cuda(x):\n"
                  "    device = 'cuda'\n"
                  "    x = x.to('cuda')\n"
                  "    return x.to(device)\n",
                  "DC112"),
            Lines{});
}

TEST(LintDC112, SaysNothingBesideADeviceVariableThatIsTheCpuLiteral) {
  // torch's FSDP tests: `cpu_device = torch.device("cpu")` chooses no
  // accelerator, so a CUDA-only test's `.cuda()` beside it ignores nothing.
  EXPECT_EQ(found("import torch\n"
                  "def test_offload(model, loss):\n"
                  "    cpu_device = torch.device('cpu')\n"
                  "    model.to(cpu_device)\n"
                  "    return loss.cuda()\n",
                  "DC112"),
            Lines{});
  // ... nor does a flag whose name says device and whose test says CUDA.
  EXPECT_EQ(found("import torch\n"
                  "def check(model, loss, offload, cuda_mode):\n"
                  "    if cuda_mode == Mode.CUDA_AFTER:\n"
                  "        model = model.cuda()\n"
                  "    expects_cpu_device = offload and cuda_mode != Mode.CUDA_AFTER\n"
                  "    if expects_cpu_device:\n"
                  "        cpu_device = torch.device('cpu')\n"
                  "        model.to(cpu_device)\n"
                  "    return loss.cuda()\n",
                  "DC112"),
            Lines{});
  // (Without those names, the move under a test of CUDA is the choice.)
  EXPECT_EQ(found("import torch\n"
                  "def check(model, loss, offload, cuda_mode):\n"
                  "    if cuda_mode == Mode.CUDA_AFTER:\n"
                  "        model = model.cuda()\n"
                  "    return loss.cuda()\n",
                  "DC112"),
            Lines{"5 DC112"});
  EXPECT_EQ(found("import torch\n"
                  "CPU_DEVICE = torch.device('cpu', 0)\n"
                  "def run(x):\n"
                  "    y = x.to(CPU_DEVICE)\n"
                  "    return torch.zeros(2, device='cuda') + y.to('cuda')\n",
                  "DC112"),
            Lines{});
  // Near misses: a generic name that holds the CPU is the program's choice
  // (a demo run on the CPU), and one that chooses by a test.
  EXPECT_EQ(found("import torch\n"
                  "def sample(n):\n"
                  "    return torch.randperm(n).cuda()\n"
                  "if __name__ == '__main__':\n"
                  "    device = torch.device('cpu')\n"
                  "    x = torch.randperm(4).cuda()\n",
                  "DC112"),
            (Lines{"3 DC112", "6 DC112"}));
  EXPECT_EQ(found("import torch\n"
                  "device = torch.cuda.is_available() and 'cuda' or 'cpu'\n"
                  "x = torch.zeros(2).cuda()\n",
                  "DC112"),
            (Lines{"3 DC112"}));
  const Finding f = only(
      "import torch\n"
      "def run(x, use_gpu):\n"
      "    device = torch.device('cuda' if use_gpu else 'cpu')\n"
      "    return x.cuda()\n",
      "DC112");
  EXPECT_EQ(f.line, 4);
  EXPECT_EQ(f.message,
            "hard-coded CUDA where a device variable is defined: this line ignores it and "
            "fails where CUDA is absent; use .to(device) / device=device");
}

TEST(LintDC112, SaysNothingUnderATestOfTheDeviceOrOfCuda) {
  // pytorch/examples' imagenet: the .cuda() calls follow the device's type.
  const std::string source =
      "import torch\n"
      "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
      "if device.type == 'cuda':\n"
      "    model.cuda()\n"
      "elif args.gpu is not None:\n"
      "    model = model.cuda(args.gpu)\n"
      "elif device.type == 'mps':\n"
      "    model = model.to(device)\n"
      "else:\n"
      "    model = torch.nn.DataParallel(model).cuda()\n"
      "y = y.cuda() if use_cuda else y\n"
      "if y.cuda().sum() > 0:\n"
      "    pass\n"
      "z = z.cuda()\n";
  // Line 12: the .cuda() in the test itself is governed by nothing; line 14
  // by no test at all.
  EXPECT_EQ(found(source, "DC112"), (Lines{"12 DC112", "14 DC112"}));
}

// Without a device variable the choice can be a test: a function that moves
// the model only under `if args.cuda:` and the data always ignores it.
TEST(LintDC112, FindsCudaThatIgnoresAFunctionsOwnTest) {
  const std::string source =
      "def evaluate(args, model, image):\n"
      "    if args.cuda:\n"
      "        model.cuda()\n"
      "    image = image.cuda()\n"
      "    return model(image)\n"
      "def follows(args, model, image):\n"
      "    if args.cuda:\n"
      "        model.cuda()\n"
      "    image = image.cuda() if args.cuda else image\n"
      "    return model(image)\n"
      "def no_choice(model, image):\n"
      "    return model.cuda()(image.cuda())\n";
  EXPECT_EQ(found(source, "DC112"), (Lines{"4 DC112"}));
  EXPECT_NE(only("def f(args, m, x):\n"
                 "    if args.cuda:\n"
                 "        m.cuda()\n"
                 "    return x.cuda()\n",
                 "DC112")
                .message.find("moves to CUDA only under a test (line 3)"),
            std::string::npos);
}

// A module that moves one of its own layers with .cuda() splits itself.
TEST(LintDC112, FindsAModuleMovingOneOfItsOwnLayers) {
  const std::string source =
      "import torch.nn as nn\n"
      "class Net(nn.Module):\n"
      "    def reset_classifier(self, n, to_gpu=False):\n"
      "        self.head = nn.Linear(8, n).cuda()\n"
      "    def placed(self, n):\n"
      "        self.tail = nn.Linear(8, n)\n"
      "        if self.to_gpu:\n"
      "            self.tail = self.tail.cuda()\n"
      "class Plain:\n"
      "    def setup(self, n):\n"
      "        self.head = nn.Linear(8, n).cuda()\n";
  EXPECT_EQ(found(source, "DC112"), (Lines{"4 DC112"}));
  EXPECT_NE(only(source, "DC112").message.find("self.head is moved to CUDA by the module itself"),
            std::string::npos);
}

// A class's own cuda() (torch's PackedSequence.cuda) moves to CUDA on
// purpose, whatever its test of where a tensor is.
TEST(LintDC112, SaysNothingInAClassesOwnCudaMethod) {
  EXPECT_EQ(found("import torch\n"
                  "class Packed:\n"
                  "    def cuda(self, *args, **kwargs):\n"
                  "        ex = torch.tensor((), device=self.data.device).to(*args, **kwargs)\n"
                  "        if ex.is_cuda:\n"
                  "            return self.to(*args, **kwargs)\n"
                  "        return self.to(*args, device='cuda', **kwargs)\n",
                  "DC112"),
            Lines{});
}

// A function whose name says CUDA or a GPU (torch's common_utils.to_gpu) is
// called to put things there; the same line in another function beside the
// device variable is still found.
TEST(LintDC112, SaysNothingInAFunctionNamedForCuda) {
  const std::string source =
      "import torch\n"
      "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
      "def to_gpu(obj):\n"
      "    return obj.clone().to(dtype=obj.dtype, device='cuda')\n"
      "def make_cuda_copy(x):\n"
      "    return x.cuda()\n"
      "def prepare(obj):\n"
      "    return obj.clone().to(dtype=obj.dtype, device='cuda')\n";
  EXPECT_EQ(found(source, "DC112"), (Lines{"8 DC112"}));
}

// A module's methods run where its owner moves it: hard-coded CUDA in them,
// in a file that moves the module to a device it chooses, ignores that
// choice (grammarly/gector#59: torch.cuda.FloatTensor in forward).
TEST(LintDC112, FindsCudaInAModuleTheFileMovesToAChosenDevice) {
  const std::string source =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Tagger(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.lin = nn.Linear(3, 3)\n"
      "    def forward(self, x):\n"
      "        return self.lin(x) + torch.cuda.FloatTensor([1.0, 0.0, 0.0])\n"
      "class Other(nn.Module):\n"
      "    def forward(self, x):\n"
      "        return x + torch.ones(3).cuda()\n"
      "class Wrapper:\n"
      "    def __init__(self):\n"
      "        self.device = torch.device('cuda:0' if torch.cuda.is_available() else 'cpu')\n"
      "        self.model = Tagger().to(self.device)\n"
      "other = Other().cuda()\n";
  EXPECT_EQ(testing::found(source, "DC112"), (testing::Lines{"8 DC112"}));
}

// A class that keeps a device (its own or a base class's of the file) runs
// its methods there (devzhk/InverseBench#9); a function that puts what it
// makes on its inputs' device, but one line on the current CUDA device,
// ignores them (maszhongming/MatchSum#10).
TEST(LintDC112, FindsCudaBesideADeviceKeptOrTakenFromInputs) {
  const std::string source =
      "import torch\n"
      "class Base:\n"
      "    def __init__(self, device='cuda'):\n"
      "        self.device = device\n"
      "class Operator(Base):\n"
      "    def index(self, rows):\n"
      "        self.rows = torch.tensor(rows).long().cuda()\n"
      "        self.cols = torch.tensor(rows).long().to(self.device)\n"
      "def margin_loss(score):\n"
      "    ones = torch.ones(score.size()).cuda()\n"
      "    twos = torch.ones(score.size()).cuda(score.device)\n"
      "    return ones + twos\n"
      "def configured(self, x):\n"
      "    y = torch.zeros(3).cuda()\n"
      "    return y.to(self.device) + x\n";
  EXPECT_EQ(testing::found(source, "DC112"), (testing::Lines{"7 DC112", "10 DC112"}));
}

// set_device chooses the GPU of the thread that calls it: "cuda" in the
// file's other threads is cuda:0 (TadaoYamaoka/DeepLearningShogi#40). Not
// without threads, nor with the index named.
TEST(LintDC112, FindsCudaAfterSetDeviceInAFileWithThreads) {
  const std::string head =
      "import torch\n"
      "from concurrent.futures import ThreadPoolExecutor\n"
      "torch.cuda.set_device(args.gpu)\n";
  const std::string tail =
      "pool = ThreadPoolExecutor(max_workers=1)\n"
      "pool.submit(prefetch)\n";
  EXPECT_EQ(testing::found(head + "device = torch.device('cuda')\n" + tail, "DC112"),
            (testing::Lines{"4 DC112"}));
  EXPECT_EQ(testing::found(head + "device = torch.device(f'cuda:{args.gpu}')\n" + tail, "DC112"),
            (testing::Lines{}));
  EXPECT_EQ(testing::found(head + "device = torch.device('cuda')\n", "DC112"), (testing::Lines{}));
}

// A function given its device (a parameter it moves to, or its model's
// device) follows it: a bare `.cuda()` there ignores it. Not in a test (its
// runner's device is often CUDA alone), not beside a parameter that
// defaults to CUDA or is rebound, nor beside a factory's device= alone.
TEST(LintDC112, FindsCudaInAFunctionThatMovesToTheDeviceItIsGiven) {
  const std::string source =
      "import torch\n"
      "def train(model, loader, device):\n"
      "    for x, y in loader:\n"
      "        x = x.to(device)\n"
      "        y = y.cuda()\n"
      "def evaluate(model, x):\n"
      "    device = next(model.parameters()).device\n"
      "    return model(x.to(device)), x.cuda()\n"
      "def test_gather(self, device):\n"
      "    return torch.randn(2).to(device), torch.randn(2).cuda()\n"
      "def defaults(x, device='cuda'):\n"
      "    return x.to(device), x.cuda()\n"
      "def rebound(x, device):\n"
      "    for device in range(2):\n"
      "        y = x.to(device)\n"
      "    return x.cuda()\n"
      "def factories(x, device):\n"
      "    return torch.zeros(2, device=device), x.cuda()\n";
  EXPECT_EQ(found(source, "DC112"), (Lines{"5 DC112", "8 DC112"}));
}

// The bug as users write it in other shapes (issue 38's seventh round:
// variants of the tuning cases' bugs that the rules missed, with their
// fixed twins): a function given its device, or its model's; a class whose
// constructor moves to the device it is given.
TEST(LintDC112, FindsHardCodedCudaInTheShapesUsersWriteThem) {
  const std::string net =
      "import torch\n"
      "import torch.nn as nn\n"
      "import torch.nn.functional as F\n"
      "import numpy as np\n"
      "from torch.utils.data import DataLoader\n"
      "class Net(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.fc = nn.Linear(4, 2)\n"
      "    def forward(self, x):\n"
      "        return self.fc(x)\n";
  const std::vector<std::pair<std::string, std::string>> variants = {
      // train fn device param cuda
      {"def train(model, loader, device):\n"
       "    model.to(device)\n"
       "    for x, y in loader:\n"
       "        x = x.to(device)\n"
       "        y = y.cuda()\n"
       "        loss = F.cross_entropy(model(x), y)\n",
       "def train(model, loader, device):\n"
       "    model.to(device)\n"
       "    for x, y in loader:\n"
       "        x = x.to(device)\n"
       "        y = y.to(device)\n"
       "        loss = F.cross_entropy(model(x), y)\n"},
      // eval fn next params cuda
      {"def evaluate(model, loader):\n"
       "    device = next(model.parameters()).device\n"
       "    for x, y in loader:\n"
       "        x = x.to(device)\n"
       "        y = y.cuda()\n"
       "        acc = (model(x).argmax(1) == y).float().mean()\n",
       "def evaluate(model, loader):\n"
       "    device = next(model.parameters()).device\n"
       "    for x, y in loader:\n"
       "        x = x.to(device)\n"
       "        y = y.to(device)\n"
       "        acc = (model(x).argmax(1) == y).float().mean()\n"},
      // args attr device
      {"class Runner:\n"
       "    def __init__(self, args):\n"
       "        self.args = args\n"
       "        self.model = Net().to(args.device)\n"
       "    def step(self, x):\n"
       "        x = x.cuda()\n"
       "        return self.model(x)\n",
       "class Runner:\n"
       "    def __init__(self, args):\n"
       "        self.args = args\n"
       "        self.model = Net().to(args.device)\n"
       "    def step(self, x):\n"
       "        x = x.to(self.args.device)\n"
       "        return self.model(x)\n"},
  };
  expect_bugs_found_and_twins_clean(net, variants, "DC112");
}

// A class whose constructor moves to a device it is given runs there in its
// other methods: a bare `.cuda()` there ignores it. Not where the
// constructor moves to CUDA itself.
TEST(LintDC112, FindsCudaInAClassWhoseConstructorMovesToTheDeviceItIsGiven) {
  const std::string source =
      "import torch\n"
      "class Runner:\n"
      "    def __init__(self, model, args):\n"
      "        self.model = model.to(args.device)\n"
      "    def step(self, x):\n"
      "        return self.model(x.cuda())\n"
      "class CudaOnly:\n"
      "    def __init__(self, model):\n"
      "        self.model = model.to('cuda')\n"
      "    def step(self, x):\n"
      "        return self.model(x.cuda())\n";
  EXPECT_EQ(found(source, "DC112"), (Lines{"6 DC112"}));
}

// `t.type(x.type())` makes t's copy on the current CUDA device whatever
// device x is on (MONAI's adversarial loss's labels); not when moved at
// once, nor a type named by a dtype or a legacy type.
TEST(LintDC112, FindsATypeTakenFromAnotherTensorsTypeString) {
  const std::string source =
      "import torch\n"
      "def target(input, label):\n"
      "    a = torch.tensor(1).fill_(label).type(input.type())\n"
      "    b = torch.tensor(0).type(input[0].type()).to(input[0].device)\n"
      "    c = torch.tensor(0).type(torch.float32)\n"
      "    d = torch.tensor(0).type(torch.cuda.FloatTensor)\n"
      "    return a.expand_as(input) + b + c + d\n";
  EXPECT_EQ(found(source, "DC112"), (Lines{"3 DC112"}));
  EXPECT_NE(only(source, "DC112").message.find("current device"), std::string::npos);
  // A test compares the result with what it expects, wherever each is.
  const std::string test =
      "import torch\n"
      "def test_quantile(self, device):\n"
      "    result = torch.ones(3, device=device)\n"
      "    self.assertEqual(result.cpu(), torch.ones(3).type(result.type()))\n";
  EXPECT_EQ(found(test, "DC112"), (Lines{}));
}

// A receiver already on the other tensor's device keeps it: .type() of a
// type string of the same device type changes the dtype only (timm's
// merge_pre_bn: torch.zeros(n, device=w.device).type(w.type())). A host
// receiver still lands on the current device.
TEST(LintDC112, SaysNothingOfATypeStringGivenATensorAlreadyOnThatDevice) {
  const std::string source =
      "import torch\n"
      "def merge(module, w):\n"
      "    zeros = torch.zeros(module.out_chs, device=w.device).type(w.type())\n"
      "    ones = w.new_ones(3).type(w.type())\n"
      "    moved = torch.ones(3).to(w.device).type(w.type())\n"
      "    host = torch.zeros(module.out_chs).type(w.type())\n"
      "    return zeros + ones + moved + host\n";
  EXPECT_EQ(found(source, "DC112"), (Lines{"6 DC112"}));
}

// Tensor.type(string) keeps a tensor's own device where the string names
// its device type: a receiver computed from other tensors (DeepSpeed's
// quantizer: `(x > t).type(x.type())`, pyro's mask of a sample) stays where
// they are; only one made on the host, by a factory without device= or a
// name assigned one, lands on the current device.
TEST(LintDC112, SaysNothingOfATypeStringGivenATensorComputedFromOthers) {
  const std::string quantize =
      "import torch\n"
      "def ternary(inputs, thres):\n"
      "    flat = inputs.view(-1)\n"
      "    pos = (flat > thres).type(inputs.type())\n"
      "    neg = (flat < -thres).type(inputs.type())\n"
      "    return (pos - neg).view(inputs.shape)\n";
  EXPECT_EQ(found(quantize, "DC112"), (Lines{}));
  const std::string mask =
      "import torch\n"
      "class Empirical:\n"
      "    def sample(self, probs):\n"
      "        mask = self._samples.eq(probs.argmax())\n"
      "        return mask.type(probs.type())\n"
      "def labels(pred, value):\n"
      "    label = torch.full((1,), value)\n"
      "    return label.type(pred.type()).expand_as(pred)\n";
  EXPECT_EQ(found(mask, "DC112"), (Lines{"8 DC112"}));
  EXPECT_NE(only(mask, "DC112").message.find(".type(pred.type()) of a CUDA tensor's type string"),
            std::string::npos);
}

// `"cuda" if x.is_cuda else "cpu"` names the current GPU, not x's: found in
// an assignment, torch.device(...), .to(...) or device=; not x.device, nor a
// choice made by whether CUDA is there at all.
TEST(LintDC112, FindsCudaChosenBecauseATensorIsOnAGpu) {
  const std::string normalise =
      "import torch\n"
      "def normalise(adj):\n"
      "    device = torch.device('cuda' if adj.is_cuda else 'cpu')\n"
      "    return adj + torch.eye(adj.shape[0]).to(device)\n";
  EXPECT_EQ(found(normalise, "DC112"), (Lines{"3 DC112"}));
  EXPECT_NE(only(normalise, "DC112").message.find("use adj.device"), std::string::npos);
  const std::string inline_choice =
      "import torch\n"
      "def pad(x, n):\n"
      "    z = torch.zeros(n, device='cuda' if x.device.type == 'cuda' else 'cpu')\n"
      "    return torch.cat([x, z.to('cuda' if x.is_cuda else 'cpu')])\n";
  EXPECT_EQ(found(inline_choice, "DC112"), (Lines{"3 DC112", "4 DC112"}));
  const std::string near_misses =
      "import torch\n"
      "def f(x):\n"
      "    a = torch.zeros(3, device=x.device)\n"
      "    b = torch.zeros(3, device='cuda' if torch.cuda.is_available() else 'cpu')\n"
      "    c = 'cuda:1' if x.is_cuda else 'cpu'\n"
      "    return a, b, c\n";
  EXPECT_EQ(found(near_misses, "DC112"), (Lines{}));
}

// A test (or a class of tests) a decorator runs only where CUDA is
// (`@pytest.mark.gpu`, `@unittest.skipIf(not torch.cuda.is_available())`)
// puts its tensors on CUDA on purpose; the same line in an undecorated test
// beside it, or in one parametrized over "cpu" and "cuda" (it runs with
// each), still ignores the file's device.
TEST(LintDC112, SaysNothingInADefinitionThatOnlyRunsWhereCudaIs) {
  const std::string marked =
      "import pytest\n"
      "import torch\n"
      "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
      "@pytest.mark.gpu\n"
      "def test_sharded():\n"
      "    model = torch.nn.Linear(2, 2, device='cuda')\n"
      "    return model(torch.ones(2).cuda())\n"
      "def test_plain():\n"
      "    return torch.ones(2).cuda()\n"
      "@pytest.mark.parametrize('dev', ['cpu', 'cuda'])\n"
      "def test_each(dev):\n"
      "    return torch.ones(2).cuda()\n"
      "@parameterized.expand([('cpu',), ('cuda',)])\n"
      "def test_expanded(dev):\n"
      "    return torch.ones(2).cuda()\n";
  EXPECT_EQ(found(marked, "DC112"), (Lines{"9 DC112", "12 DC112", "15 DC112"}));
  const std::string skipped =
      "import unittest\n"
      "import torch\n"
      "DEVICE = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
      "@unittest.skipIf(not torch.cuda.is_available(), 'needs CUDA')\n"
      "class TestOnGpu(unittest.TestCase):\n"
      "    def test_copy(self):\n"
      "        x = torch.zeros(3).to('cuda')\n"
      "        self.assertTrue(x.is_cuda)\n"
      "class TestAnywhere(unittest.TestCase):\n"
      "    def test_copy(self):\n"
      "        x = torch.zeros(3).to('cuda')\n"
      "        self.assertTrue(x.is_cuda)\n";
  EXPECT_EQ(only(skipped, "DC112").line, 11);
}

// A device name that says CUDA only by literals (`torch.device("cuda")`, a
// mesh made on "cuda") chooses nothing, as `device = "cuda"` does; "cuda"
// with another index, or a choice, is a device variable.
TEST(LintDC112, SaysNothingBesideADeviceNameThatIsCudaByLiteralsOnly) {
  const std::string mesh =
      "import torch\n"
      "from torch.distributed.device_mesh import init_device_mesh\n"
      "def shard(model):\n"
      "    device_mesh = init_device_mesh('cuda', (2,))\n"
      "    return model.cuda(), device_mesh\n";
  EXPECT_EQ(found(mesh, "DC112"), Lines{});
  const std::string plain =
      "import torch\n"
      "device = torch.device('cuda')\n"
      "x = torch.zeros(3).cuda()\n";
  EXPECT_EQ(found(plain, "DC112"), Lines{});
  const std::string second =
      "import torch\n"
      "device = torch.device('cuda', 1)\n"
      "x = torch.zeros(3).cuda()\n";
  EXPECT_EQ(found(second, "DC112"), (Lines{"3 DC112"}));
  const std::string chosen =
      "import torch\n"
      "def run(use_gpu):\n"
      "    device = torch.device('cuda' if use_gpu else 'cpu')\n"
      "    return torch.zeros(3).cuda()\n";
  EXPECT_NE(only(chosen, "DC112").message.find("ignores it"), std::string::npos);
}

}  // namespace
}  // namespace devcheck::lint
