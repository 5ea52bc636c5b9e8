// The flow's calls (src/lint/flow/calls.cc): modules, losses, wrappers, functions and
// methods of the file, NumPy, tokenizers.
#include <gtest/gtest.h>

#include "flow_testing.h"

namespace devcheck::lint::detail {
namespace {
using testing::Flowed;
using testing::Lines;
using testing::meetings;

TEST(LintFlowCalls, ModulesOutputWhereTheyAreAndMeetHostArguments) {
  const Flowed f(
      "import torch\n"
      "import torch.nn as nn\n"
      "rnn = nn.GRU(4, 8).cuda()\n"
      "plain = nn.Linear(4, 4)\n"
      "def step(x):\n"
      "    h = torch.zeros(1, 2, 8)\n"
      "    out, h = rnn(x.cuda(), h)\n"
      "    out2 = plain(x.cuda())\n"
      "    return out + torch.ones(8)\n");
  EXPECT_EQ(meetings(f), (Lines{"7 factory@6 meets device", "8 unmoved@4 meets device",
                                "9 factory@9 meets device"}));
}

TEST(LintFlowCalls, ALossHoldsItsWeightOnTheHostUntilMoved) {
  const Flowed f(
      "import torch\n"
      "import torch.nn as nn\n"
      "w = torch.tensor([1.0, 2.0])\n"
      "loss = nn.CrossEntropyLoss(weight=w)\n"
      "moved = nn.CrossEntropyLoss(weight=w).cuda()\n"
      "def f(out, y):\n"
      "    return loss(out.cuda(), y.cuda()) + moved(out.cuda(), y.cuda())\n");
  EXPECT_EQ(meetings(f), (Lines{"7 factory@3 meets device"}));
  EXPECT_EQ(ts_node_start_point(f.flow.meetings()[0].host_at).row, 3U);
}

TEST(LintFlowCalls, WrappersScatterTheirInputs) {
  const Flowed f(
      "import torch\n"
      "import torch.nn as nn\n"
      "dp = nn.DataParallel(nn.Linear(2, 2)).cuda()\n"
      "ddp = nn.parallel.DistributedDataParallel(nn.Linear(2, 2).cuda(0), device_ids=[0])\n"
      "y = dp(torch.ones(2)) + ddp(torch.ones(2))\n");
  EXPECT_EQ(meetings(f), Lines{});
  // Both wrappers are recorded (DC104 reads them), each with its model.
  ASSERT_EQ(f.flow.wraps().size(), 2U);
  EXPECT_EQ(f.flow.wraps()[0].value.place, Place::kHost);
  EXPECT_EQ(f.flow.wraps()[1].value.place, Place::kDevice);
}

TEST(LintFlowCalls, FollowsFunctionsAndMethodsOfTheFile) {
  const Flowed f(
      "import numpy as np\n"
      "import torch\n"
      "def table(n):\n"
      "    return torch.from_numpy(np.ones(n)), torch.ones(n, device='cuda')\n"
      "class Net(torch.nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.rnn = torch.nn.GRU(2, 2)\n"
      "    def init_hidden(self, n):\n"
      "        return torch.zeros(1, n, 2)\n"
      "model = Net().cuda()\n"
      "def step(x):\n"
      "    host, dev = table(3)\n"
      "    y = host + dev\n"
      "    h = model.init_hidden(4)\n"
      "    return model.rnn(x.cuda(), h)\n");
  EXPECT_EQ(meetings(f), (Lines{"14 numpy@4 meets device", "16 factory@10 meets device"}));
}

TEST(LintFlowCalls, RecordsNumpyReadsAndTokenizersTensors) {
  const Flowed f(
      "import numpy as np\n"
      "import torch\n"
      "def f(tokenizer, model, text):\n"
      "    model.cuda()\n"
      "    inputs = tokenizer(text, return_tensors='pt')\n"
      "    out = model(inputs['input_ids'])\n"
      "    return out.numpy(), np.asarray(out)\n");
  ASSERT_EQ(f.flow.numpy_reads().size(), 2U);
  EXPECT_EQ(f.flow.numpy_reads()[0].value.place, Place::kDevice);
  EXPECT_EQ(meetings(f), (Lines{"6 batch@5 meets device"}));
}

// zip(*rows) keeps what the rows hold; map(np.asarray, ...) reads each.
TEST(LintFlowCalls, MapOfANumpyFunctionReadsEachElement) {
  const Flowed f(
      "import numpy as np\n"
      "import torch\n"
      "def collect(model, loader, device):\n"
      "    pairs = []\n"
      "    for x, y in loader:\n"
      "        pairs.append((model(x.to(device)), y.to(device)))\n"
      "    predictions, targets = map(np.asarray, zip(*pairs))\n"
      "    return predictions\n");
  ASSERT_EQ(f.flow.numpy_reads().size(), 1U);
  EXPECT_EQ(testing::line(f.flow.numpy_reads()[0].call), 7);
}

// NumPy functions given what is on a module's device record the read (DC113
// decides); `cls(...)` in a classmethod constructs the class: its __init__
// gets what the call passes.
TEST(LintFlowCalls, NumpyOfTheModulesDeviceAndClsInAClassmethod) {
  const Flowed f(
      "import numpy as np\n"
      "import torch.nn as nn\n"
      "class Head(nn.Module):\n"
      "    def forward(self, x):\n"
      "        return np.sum([x], 0)\n");
  ASSERT_EQ(f.flow.numpy_reads().size(), 1U);
  EXPECT_EQ(f.flow.numpy_reads()[0].value.place, Place::kModuleDevice);
  const Flowed g(
      "import torch\n"
      "class Wrapper:\n"
      "    def __init__(self, model):\n"
      "        self.model = model\n"
      "    @classmethod\n"
      "    def load(cls):\n"
      "        return cls(torch.nn.Linear(2, 2))\n"
      "    def run(self, x):\n"
      "        return self.model(x.cuda())\n");
  EXPECT_EQ(meetings(g), (Lines{"9 unmoved@7 meets device"}));
}

// A Hugging Face model's from_pretrained is a model made on the CPU, unless
// device_map= or quantization places it; a tokenizer's is no model.
TEST(LintFlowCalls, FromPretrainedMakesAModelOnTheCpu) {
  const Flowed f(
      "import torch\n"
      "import transformers\n"
      "from transformers import AutoModel, AutoTokenizer\n"
      "a = AutoModel.from_pretrained('bert')\n"
      "b = transformers.BertForMaskedLM.from_pretrained('bert')\n"
      "c = AutoModel.from_pretrained('bert', device_map='auto')\n"
      "d = AutoModel.from_pretrained('bert', load_in_8bit=True)\n"
      "e = AutoTokenizer.from_pretrained('bert')\n"
      "x = torch.ones(2, 3).cuda()\n"
      "outs = a(x), b(x), c(x), d(x), e(x)\n");
  EXPECT_EQ(meetings(f), (Lines{"10 unmoved@4 meets device", "10 unmoved@5 meets device"}));
}

TEST(LintFlowCalls, AFactoryDrawingWithAGeneratorOnADeviceMeetsIt) {
  // torch.rand(n, generator=g) makes its tensor on the CPU: a CUDA
  // generator there fails. Passed into a function, the generator is still
  // on its device; one made without a device, or a draw given device=, is
  // fine.
  const Flowed f(
      "import torch\n"
      "def location(n, generator=None):\n"
      "    return torch.rand(n, generator=generator)\n"
      "def main():\n"
      "    g = torch.Generator(device='cuda')\n"
      "    cpu = torch.Generator()\n"
      "    a = torch.randn(3, generator=cpu)\n"
      "    b = torch.randn(3, generator=g, device='cuda')\n"
      "    return location(2, generator=g)\n");
  EXPECT_EQ(meetings(f), (Lines{"3 factory@3 meets device"}));
}

TEST(LintFlowCalls, SizesSplattedIntoAFactoryGiveNoDevice) {
  // `*shape` passes sizes (device= is keyword-only); `**options` may pass one.
  const Flowed f(
      "import torch\n"
      "def f(x, shape, options):\n"
      "    x = x.cuda()\n"
      "    a = x + torch.randn(4, *shape)\n"
      "    return x + torch.randn(4, **options)\n");
  EXPECT_EQ(meetings(f), (Lines{"4 factory@4 meets device"}));
}

TEST(LintFlowCalls, ATorchMetricsMetricIsAModuleMadeOnTheCpu) {
  // A metric keeps its running sums where it is: one never moved, given
  // device tensors, mismatches; one moved (or a functional metric) does not.
  const Flowed f(
      "import torch\n"
      "from torchmetrics import PeakSignalNoiseRatio, Accuracy\n"
      "from torchmetrics.functional import accuracy\n"
      "def evaluate(preds, target, device):\n"
      "    psnr = PeakSignalNoiseRatio()\n"
      "    acc = Accuracy(task='binary').to(device)\n"
      "    preds, target = preds.to(device), target.to(device)\n"
      "    return psnr(preds, target), acc(preds, target), accuracy(preds, target)\n");
  // (One meeting for each device tensor the metric is given.)
  EXPECT_EQ(meetings(f), (Lines{"8 unmoved@5 meets device", "8 unmoved@5 meets device"}));
}

TEST(LintFlowCalls, ATorchFunctionOfZeroDimTensorsGivesAZeroDimTensor) {
  // torch.log of a 0-dim host tensor is 0-dim: it mixes with the device
  // tensor (which stays on the device and meets the host draw after it).
  const Flowed f(
      "import torch\n"
      "def f(x):\n"
      "    x = x.cuda()\n"
      "    d = x - torch.log(torch.tensor(2.0))\n"
      "    u = torch.rand(3)\n"
      "    return d > u\n");
  EXPECT_EQ(meetings(f), (Lines{"6 factory@5 meets device"}));
}

// NumPy of a 0-dim tensor on a device fails as any other does
// (foolwood/DCFNet_pytorch#23: np.unravel_index of a CUDA index).
TEST(LintFlowCalls, NumpyOfA0DimDeviceTensorIsARead) {
  const Flowed f(
      "import numpy as np\n"
      "import torch\n"
      "def peak(x):\n"
      "    response = x.cuda()\n"
      "    peak, idx = torch.max(response.view(3, -1), 1)\n"
      "    a = np.unravel_index(idx[0], (5, 5))\n"
      "    b = np.sqrt(response.sum())\n"
      "    c = np.sqrt(response.sum().cpu())\n");
  EXPECT_EQ(testing::numpy_reads(f), (Lines{"6 device", "7 device"}));
}

// A module of the file without parameters (a loss written as one) computes
// where its inputs are: never moved, it meets no device tensor, and its
// output is on their device (swz30/MPRNet#128: np.sum of its losses).
TEST(LintFlowCalls, AParameterFreeModuleComputesWhereItsInputsAre) {
  const Flowed f(
      "import numpy as np\n"
      "import torch\n"
      "import torch.nn as nn\n"
      "class Charbonnier(nn.Module):\n"
      "    def __init__(self, eps=1e-3):\n"
      "        super().__init__()\n"
      "        self.eps = eps\n"
      "    def forward(self, x, y):\n"
      "        return torch.mean(torch.sqrt((x - y) ** 2 + self.eps))\n"
      "class Head(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.lin = nn.Linear(3, 3)\n"
      "    def forward(self, x):\n"
      "        return self.lin(x)\n"
      "criterion = Charbonnier()\n"
      "head = Head()\n"
      "def step(outs, y):\n"
      "    y = y.cuda()\n"
      "    loss = np.sum([criterion(o.cuda(), y) for o in outs])\n"
      "    return head(y)\n");
  EXPECT_EQ(testing::numpy_reads(f), (Lines{"20 device"}));
  EXPECT_EQ(meetings(f), (Lines{"21 unmoved@17 meets device"}));
}

// scikit-learn's metrics, SciPy, pyplot's plots and pandas make NumPy arrays
// of what they are given (np.asarray inside): a device tensor there is read
// as .numpy() would read it; a copy on the host is not.
TEST(LintFlowCalls, LibrariesThatTakeArraysReadTheirTensorsWithNumPy) {
  const Flowed f(
      "import matplotlib.pyplot as plt\n"
      "import pandas as pd\n"
      "import torch\n"
      "from sklearn.metrics import accuracy_score\n"
      "model = torch.nn.Linear(2, 2).cuda()\n"
      "def report(x, y):\n"
      "    pred = model(x.cuda()).argmax(1)\n"
      "    acc = accuracy_score(y, pred)\n"
      "    plt.plot(pred)\n"
      "    df = pd.DataFrame(pred)\n"
      "    ok = accuracy_score(y, pred.cpu())\n"
      "    plt.title('accuracy')\n"
      "    return pd.DataFrame(pred.cpu())\n");
  EXPECT_EQ(testing::numpy_reads(f), (Lines{"8 device", "9 device", "10 device"}));
}

// A loss's class weights are a vector: `weight=torch.tensor(w)` of a name
// (which alone could be a number) is held on the host as a list's would be.
TEST(LintFlowCalls, ALossWeightMadeFromANameIsAHostVector) {
  const Flowed f(
      "import torch\n"
      "import torch.nn as nn\n"
      "class Trainer:\n"
      "    def __init__(self, model, device, w):\n"
      "        self.device = device\n"
      "        self.model = model.to(device)\n"
      "        self.criterion = nn.CrossEntropyLoss(weight=torch.tensor(w))\n"
      "        self.placed = nn.CrossEntropyLoss(weight=torch.tensor(w, device=device))\n"
      "    def step(self, x, y):\n"
      "        x, y = x.to(self.device), y.to(self.device)\n"
      "        return self.criterion(self.model(x), y) + self.placed(self.model(x), y)\n");
  EXPECT_EQ(meetings(f), (Lines{"11 factory@7 meets device"}));
}

// torchvision's ToTensor (alone, in a Compose kept by a class, or
// functional.to_tensor) makes a tensor on the host of an image; what the
// pipeline gives, moved, is on the device.
TEST(LintFlowCalls, TorchvisionMakesImagesTensorsOnTheHost) {
  const Flowed f(
      "import torch\n"
      "import torchvision.transforms.functional as TF\n"
      "from torchvision import transforms\n"
      "class Predictor:\n"
      "    def __init__(self, device):\n"
      "        self.device = device\n"
      "        self.model = torch.nn.Linear(2, 2).to(device)\n"
      "        self.tf = transforms.Compose([transforms.Resize(8), transforms.ToTensor()])\n"
      "        self.resize = transforms.Compose([transforms.Resize(8)])\n"
      "    def predict(self, img):\n"
      "        out = self.model(self.tf(img).unsqueeze(0))\n"
      "        out = self.model(TF.to_tensor(img))\n"
      "        out = self.model(transforms.ToTensor()(img))\n"
      "        out = self.model(self.tf(img).to(self.device))\n"
      "        return self.model(self.resize(img))\n");
  EXPECT_EQ(meetings(f), (Lines{"11 image@11 meets device", "12 image@12 meets device",
                                "13 image@13 meets device"}));
}

// torch.tensor(t) of a host tensor (a batch's labels) copies it on the host:
// no 0-dim number, it meets the device; of a device tensor it says nothing.
TEST(LintFlowCalls, ATensorMadeFromAHostTensorIsOnTheHost) {
  const Flowed f(
      "import torch\n"
      "import torch.nn.functional as F\n"
      "from torch.utils.data import DataLoader\n"
      "model = torch.nn.Linear(2, 2).cuda()\n"
      "for x, labels in DataLoader(data):\n"
      "    out = model(x.cuda())\n"
      "    loss = F.cross_entropy(out, torch.tensor(labels))\n"
      "    again = F.cross_entropy(out, torch.tensor(labels.cuda()))\n");
  EXPECT_EQ(meetings(f), (Lines{"7 factory@7 meets device"}));
}

// A legacy constructor of a name (`torch.FloatTensor(state)`) makes a host
// tensor of data or sizes, never 0-dim; torch.tensor of a name may be 0-dim,
// which mixes in operators, but a module's layers refuse it on the host all
// the same (`policy(torch.tensor(obs))`). Not torch.tensor of a number.
TEST(LintFlowCalls, StatesMadeTensorsOnTheHostMeetAModelOnADevice) {
  const Flowed f(
      "import torch\n"
      "policy = torch.nn.Linear(4, 2).cuda()\n"
      "def act(state, obs, step):\n"
      "    a = policy(torch.FloatTensor(state))\n"
      "    b = policy(torch.tensor(obs, dtype=torch.float32))\n"
      "    c = policy(torch.tensor(obs).cuda())\n"
      "    d = policy(obs) * torch.tensor(step)\n"
      "    return policy(torch.tensor(1.0))\n");
  EXPECT_EQ(meetings(f), (Lines{"4 factory@4 meets device", "5 factory@5 meets device"}));
}

// An instance of a plain class of the file keeps what its methods leave in
// `self.x`: a host table read from outside and indexed by device timesteps
// meets them; one its constructor moves does not.
TEST(LintFlowCalls, APlainObjectsAttributesAreWhatItsMethodsLeft) {
  const Flowed f(
      "import torch\n"
      "class Schedule:\n"
      "    def __init__(self, T=100):\n"
      "        self.betas = torch.linspace(1e-4, 0.02, T)\n"
      "        self.alphas = 1 - self.betas\n"
      "class Placed:\n"
      "    def __init__(self, T=100):\n"
      "        self.alphas = torch.linspace(1e-4, 0.02, T).cuda()\n"
      "def step(x):\n"
      "    t = torch.randint(0, 100, (x.size(0),), device='cuda')\n"
      "    a = Schedule().alphas[t]\n"
      "    return Placed().alphas[t]\n");
  EXPECT_EQ(meetings(f), (Lines{"11 factory@4 meets device"}));
}

// An instance of a plain class of the file called runs its __call__: made
// here, kept by a class, or handed to a function. A class without __call__
// tells nothing.
TEST(LintFlowCalls, APlainObjectCalledRunsItsCall) {
  const Flowed f(
      "import torch\n"
      "class Pre:\n"
      "    def __call__(self, crops):\n"
      "        return torch.from_numpy(crops)\n"
      "class Plain:\n"
      "    pass\n"
      "class Q:\n"
      "    def __init__(self):\n"
      "        self.pre = Pre()\n"
      "        self.lin = torch.nn.Linear(2, 2).cuda()\n"
      "    def run(self, crops):\n"
      "        return self.lin(self.pre(crops))\n"
      "def use(pre, crops):\n"
      "    return torch.nn.Linear(2, 2).cuda()(pre(crops))\n"
      "def main(crops):\n"
      "    lin = torch.nn.Linear(2, 2).cuda()\n"
      "    a = lin(Pre()(crops))\n"
      "    b = use(Pre(), crops)\n"
      "    return lin(Plain()(crops))\n");
  EXPECT_EQ(meetings(f), (Lines{"12 numpy@4 meets device", "14 numpy@4 meets device",
                                "17 numpy@4 meets device"}));
}

// A legacy constructor of a comprehension (`torch.Tensor([s[0] for s in
// sizes])`) is data, on the host, as of a list.
TEST(LintFlowCalls, ALegacyConstructorOfAComprehensionIsHostData) {
  const Flowed f(
      "import torch\n"
      "def main(sizes):\n"
      "    x = torch.randn(3, device='cuda')\n"
      "    h = torch.Tensor([s[0] for s in sizes])\n"
      "    w = torch.LongTensor([s[1] for s in sizes]).cuda()\n"
      "    return x * h, x * w\n");
  EXPECT_EQ(meetings(f), (Lines{"6 factory@4 meets device"}));
}

// In a module's method, `self(x)` runs its forward: what it gives is on the
// module's device.
TEST(LintFlowCalls, SelfCalledInAModulesMethodGivesWhatIsOnItsDevice) {
  const Flowed f(
      "import torch\n"
      "import torch.nn as nn\n"
      "class Net(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.lin = nn.Linear(4, 4)\n"
      "    def forward(self, x):\n"
      "        return self.lin(x)\n"
      "    def loss(self, x):\n"
      "        out = self(x)\n"
      "        return out - torch.eye(4)\n"
      "    def near(self, x):\n"
      "        out = self(x)\n"
      "        return out - torch.eye(4, device=out.device)\n");
  EXPECT_EQ(meetings(f), (Lines{"11 factory@11 meets module"}));
}

// A function of the file that a class's __init__ keeps (`self.loss_fn =
// loss_fn`, directly or through a parameter's default) runs when the class
// calls it, with what it is given.
TEST(LintFlowCalls, AFunctionKeptInAnAttributeRunsWhenCalled) {
  const Flowed f(
      "import torch\n"
      "import torch.nn as nn\n"
      "def poly(w):\n"
      "    return (torch.eye(w.shape[-1]) + w).trace()\n"
      "class Net(nn.Module):\n"
      "    def __init__(self, reg=poly):\n"
      "        super().__init__()\n"
      "        self.lin = nn.Linear(4, 4)\n"
      "        self.reg = reg\n"
      "    def loss(self, x):\n"
      "        return self.reg(self.lin(x))\n");
  EXPECT_EQ(meetings(f), (Lines{"4 factory@4 meets module"}));
  const Flowed g(
      "import torch\n"
      "def jitter(x):\n"
      "    return x + torch.randn(x.shape)\n"
      "class Augment:\n"
      "    def __init__(self):\n"
      "        self.fn = jitter\n"
      "    def apply(self, x):\n"
      "        return self.fn(x)\n"
      "def main():\n"
      "    a = Augment()\n"
      "    return a.apply(torch.ones(3, device='cuda'))\n");
  EXPECT_EQ(meetings(g), (Lines{"3 factory@3 meets device"}));
  // Near miss: a function from elsewhere kept the same way is not followed.
  const Flowed near(
      "import torch\n"
      "import torch.nn as nn\n"
      "from regs import poly\n"
      "class Net(nn.Module):\n"
      "    def __init__(self, reg=poly):\n"
      "        super().__init__()\n"
      "        self.lin = nn.Linear(4, 4)\n"
      "        self.reg = reg\n"
      "    def loss(self, x):\n"
      "        return self.reg(self.lin(x)) + torch.zeros(())\n");
  EXPECT_EQ(meetings(near), Lines{});
}

// torch.load(f, map_location=device) puts what it loads on that device: a
// model saved whole is a module there, a checkpoint's entries are there.
TEST(LintFlowCalls, WhatTorchLoadMapsToADeviceIsThere) {
  const Flowed f(
      "import torch\n"
      "class Predictor:\n"
      "    def __init__(self, path, device='cuda'):\n"
      "        self.device = torch.device(device)\n"
      "        self.model = torch.load(path, map_location=self.device)\n"
      "    def predict(self, img):\n"
      "        x = torch.from_numpy(img).float()\n"
      "        return self.model(x)\n");
  EXPECT_EQ(meetings(f), (Lines{"8 numpy@7 meets device"}));
  const Flowed g(
      "import torch\n"
      "def main(path):\n"
      "    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
      "    ckpt = torch.load(path, map_location=device)\n"
      "    mean = ckpt['mean']\n"
      "    return mean - torch.zeros(3)\n");
  EXPECT_EQ(meetings(g), (Lines{"6 factory@6 meets device"}));
  // Near miss: loaded on the CPU, or where it was saved.
  const Flowed near(
      "import torch\n"
      "def main(path, img):\n"
      "    model = torch.load(path, map_location='cpu')\n"
      "    other = torch.load(path)\n"
      "    x = torch.from_numpy(img).float()\n"
      "    return model(x), other(x)\n");
  EXPECT_EQ(meetings(near), Lines{});
}

// `factory.create(...)` on an object the flow knows nothing of, where one
// class of the file alone has `create` and it makes a model of the file:
// the model, unmoved. Where two classes have the method, nothing.
TEST(LintFlowCalls, AFactoryMethodOfTheFileGivesTheModelItMakes) {
  const std::string classes =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Encoder(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.fc = nn.Linear(4, 4)\n"
      "    def forward(self, x):\n"
      "        return self.fc(x)\n"
      "class EncoderFactory:\n"
      "    def create(self):\n"
      "        return Encoder()\n";
  const Flowed probe(classes +
                     "def probe(factory, device):\n"
                     "    enc = factory.create()\n"
                     "    return enc(torch.zeros(1, 4, device=device))\n");
  EXPECT_EQ(meetings(probe), (Lines{"14 unmoved@11 meets device"}));
  const Flowed build(classes +
                     "def build(maker, x):\n"
                     "    heads = [maker.create() for _ in range(2)]\n"
                     "    h = maker.create()\n"
                     "    return h(x.cuda())\n");
  EXPECT_EQ(meetings(build), (Lines{"15 unmoved@11 meets device"}));
  const Flowed two_classes(classes +
                           "class Other:\n"
                           "    def create(self):\n"
                           "        return nn.Linear(4, 4).cuda()\n"
                           "def probe(factory, device):\n"
                           "    enc = factory.create()\n"
                           "    return enc(torch.zeros(1, 4, device=device))\n");
  EXPECT_EQ(meetings(two_classes), (Lines{}));
}

// `next(model.parameters())` is a tensor where the model is, and so is a
// device taken from it: a model left on the CPU gets inputs made there.
TEST(LintFlowCalls, TheDeviceOfAModelsFirstParameterIsWhereTheModelIs) {
  const Flowed host_model(
      "import torch\n"
      "import torch.nn as nn\n"
      "def probe(x):\n"
      "    net = nn.Linear(4, 4)\n"
      "    device = next(net.parameters()).device\n"
      "    y = torch.zeros(1, 4).to(device)\n"
      "    return x.cuda() + y\n");
  EXPECT_EQ(meetings(host_model), (Lines{"7 factory@6 meets device"}));
  const Flowed device_model(
      "import torch\n"
      "import torch.nn as nn\n"
      "def probe():\n"
      "    net = nn.Linear(4, 4).cuda()\n"
      "    dev = next(net.buffers()).device\n"
      "    return net.weight + torch.ones(4, 4, device=dev)\n"
      "def other():\n"
      "    net = nn.Linear(4, 4).cuda()\n"
      "    w = next(net.parameters())\n"
      "    return w + torch.ones(4, 4)\n");
  EXPECT_EQ(meetings(device_model), (Lines{"10 factory@10 meets device"}));
}

// A function the flow does not follow, given a tensor it knows on the
// module's device, computes there (`box_iou(boxes, anchors)`); given a
// forward's input of unknown kind (an image, a size), it says nothing.
TEST(LintFlowCalls, AnUnfollowedFunctionOfAModulesTensorComputesOnItsDevice) {
  const Flowed iou(
      "import torch\n"
      "import torch.nn as nn\n"
      "from torchvision.ops import box_iou\n"
      "class Matcher(nn.Module):\n"
      "    def forward(self, boxes, anchors):\n"
      "        iou = box_iou(boxes.float(), anchors.float())\n"
      "        keep = iou.max(0).values > 0.5\n"
      "        return torch.arange(len(anchors))[keep]\n");
  EXPECT_EQ(meetings(iou), (Lines{"8 factory@8 meets module"}));
  const Flowed warp(
      "import torch\n"
      "import torch.nn as nn\n"
      "from kornia.geometry import warp_affine\n"
      "class Aug(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.register_buffer('m', torch.eye(2, 3)[None])\n"
      "    def forward(self, x):\n"
      "        y = warp_affine(x, self.m, (8, 8))\n"
      "        return y * torch.rand(8, 8)\n");
  EXPECT_EQ(meetings(warp), (Lines{"10 factory@10 meets module"}));
  const Flowed sizes(
      "import torch\n"
      "import torch.nn as nn\n"
      "import torchvision.transforms.functional as F\n"
      "class Crop(nn.Module):\n"
      "    def forward(self, image):\n"
      "        w, h = F.get_image_size(image)\n"
      "        r = torch.rand(2)\n"
      "        return int(w * r[0]), int(h * r[1])\n");
  EXPECT_EQ(meetings(sizes), (Lines{}));
}

TEST(LintFlowCalls, ALayerMadeWithADeviceIsThere) {
  const Flowed f(
      "import torch\n"
      "import torch.nn as nn\n"
      "def f(x, device):\n"
      "    on = nn.Linear(3, 3, device=device)\n"
      "    host = nn.Linear(3, 3, device='cpu')\n"
      "    return on(torch.ones(3)), host(x.to(device))\n");
  EXPECT_EQ(meetings(f), (Lines{"6 factory@6 meets device", "6 unmoved@5 meets device"}));
}

// A CTC loss takes its targets on the CPU beside log_probs on a device (ATen
// moves them itself); log_probs or lengths on the host still meet, and where
// lengths are host tensors too the call meets at its first host argument.
TEST(LintFlowCalls, ACtcLossTakesHostTargets) {
  const Flowed functional(
      "import torch\n"
      "import torch.nn.functional as F\n"
      "def loss(logits, n):\n"
      "    lp = logits.cuda().log_softmax(-1)\n"
      "    t = torch.arange(1, n + 1).unsqueeze(0)\n"
      "    a = F.ctc_loss(lp, t, [5], [3])\n"
      "    b = F.ctc_loss(lp, targets=torch.ones(1, n), input_lengths=[5],\n"
      "                   target_lengths=[3])\n"
      "    c = F.ctc_loss(lp, t.cuda(), torch.full((1,), 5), [3])\n"
      "    d = F.ctc_loss(lp, t, torch.full((1,), 5), [3])\n"
      "    return a + b + c + d\n");
  EXPECT_EQ(meetings(functional), (Lines{"9 factory@9 meets device", "10 factory@5 meets device"}));
  const Flowed module(
      "import torch\n"
      "import torch.nn as nn\n"
      "class Aligner(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.proj = nn.Linear(4, 3)\n"
      "        self.ctc = nn.CTCLoss(zero_infinity=True)\n"
      "    def forward(self, x, n, lengths):\n"
      "        lp = self.proj(x).log_softmax(-1)\n"
      "        target = torch.arange(1, n + 1).unsqueeze(0)\n"
      "        return self.ctc(lp, target, input_lengths=lengths, target_lengths=lengths)\n"
      "    def other(self, x, n, lengths):\n"
      "        lp = self.proj(x).log_softmax(-1)\n"
      "        return self.ctc(lp, x, torch.IntTensor([x.shape[0]]), lengths)\n");
  EXPECT_EQ(meetings(module), (Lines{"14 factory@14 meets module"}));
}

// torch's device-generic tests run an `@onlyCPU` test with device "cpu".
TEST(LintFlowCalls, TheDeviceOfATestRunOnTheCpuOnlyIsTheHost) {
  const Flowed f(
      "import torch\n"
      "class T:\n"
      "    @onlyCPU\n"
      "    def test_a(self, device):\n"
      "        return torch.randn(3, device=device) + torch.ones(3)\n"
      "    @onlyCUDA\n"
      "    def test_b(self, device):\n"
      "        return torch.randn(3, device=device) + torch.ones(3)\n");
  EXPECT_EQ(meetings(f), (Lines{"8 factory@8 meets device"}));
}

// A TensorDataset is where the tensors it is given are: the host where the
// flow knows every one is, a device where one is there, else not known (the
// caller's `x`).
TEST(LintFlowCalls, ATensorDatasetIsWhereItsTensorsAre) {
  const Flowed f(
      "import numpy as np\n"
      "import torch\n"
      "from torch.utils.data import DataLoader, TensorDataset\n"
      "def make(x, y):\n"
      "    a = DataLoader(TensorDataset(x, y))\n"
      "    b = DataLoader(TensorDataset(torch.from_numpy(np.ones(3)), torch.zeros(3)))\n"
      "    c = DataLoader(TensorDataset(x, torch.zeros(3, device='cuda')))\n");
  ASSERT_EQ(f.flow.loaders().size(), 3U);
  EXPECT_EQ(f.flow.loaders()[0].dataset.place, Place::kUnknown);
  EXPECT_EQ(f.flow.loaders()[1].dataset.place, Place::kHost);
  EXPECT_EQ(f.flow.loaders()[2].dataset.place, Place::kDevice);
}

// `torch.normal(mean, std)` of tensors, without a size, draws where they
// are (speechbrain's SEGAN, seed 53), and `torch.tensor(t)` of a tensor on a
// device copies it there: neither is a factory on the host. With a size,
// normal is one; a tensor on the host copied so stays there.
TEST(LintFlowCalls, ANormalOfTensorsAndATensorsCopyAreWhereTheirTensorsAre) {
  const Flowed noise(
      "import torch\n"
      "import torch.nn as nn\n"
      "class Noisy(nn.Module):\n"
      "    def forward(self, x):\n"
      "        z = torch.normal(torch.zeros_like(x), torch.ones_like(x))\n"
      "        c = torch.normal(mean=x, std=0.1)\n"
      "        w = torch.normal(0.0, 1.0, size=(4, 4))\n"
      "        return x + z + c + w\n");
  EXPECT_EQ(meetings(noise), (Lines{"8 factory@7 meets module"}));
  const Flowed copy(
      "import torch\n"
      "def f(x, y):\n"
      "    x = x.cuda()\n"
      "    a = torch.tensor(x, dtype=torch.float)\n"
      "    b = torch.tensor(torch.rand(3))\n"
      "    c = torch.normal(torch.zeros(3), 1.0)\n"
      "    return x + a, x + b, x + c\n");
  EXPECT_EQ(meetings(copy), (Lines{"7 factory@5 meets device", "7 factory@6 meets device"}));
}

// A count, a type or a flag torch gives is no tensor, whatever it is given
// (`torch.numel(x)` of a device tensor is an int: DeepSpeed's compressed
// allreduce, `np.sqrt(torch.numel(buffer))`); torch.sum of it is a tensor
// there.
TEST(LintFlowCalls, TorchsCountsAndFlagsAreNoTensors) {
  const Flowed f(
      "import torch\n"
      "def scale(x):\n"
      "    x = x.cuda()\n"
      "    n = torch.numel(x)\n"
      "    a = torch.zeros(3) * n\n"
      "    b = torch.ones(3) * torch.is_floating_point(x)\n"
      "    return a + b\n"
      "def total(x):\n"
      "    x = x.cuda()\n"
      "    return torch.zeros(3) * torch.sum(x, dim=0)\n");
  EXPECT_EQ(meetings(f), (Lines{"10 factory@10 meets device"}));
  const Flowed layer(
      "import torch\n"
      "import torch.nn as nn\n"
      "class Scaled(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.w = nn.Parameter(torch.ones(4))\n"
      "    def forward(self, x):\n"
      "        size = torch.numel(self.w)\n"
      "        count = torch.full((1,), 1.0) + size\n"
      "        return x + torch.full((4,), 2.0) * self.w, count\n"
      "model = Scaled().cuda()\n");
  EXPECT_EQ(meetings(layer), (Lines{"10 factory@10 meets module"}));
}

}  // namespace
// A sparse tensor made without device= is where its indices and values
// are: a host one only when they are host tensors.
TEST(LintFlowCalls, ASparseTensorIsWhereItsIndicesAndValuesAre) {
  const Flowed host(
      "import torch\n"
      "def select(dense, stride):\n"
      "    dense = dense.cuda()\n"
      "    rows = torch.arange(0, dense.shape[0], stride)\n"
      "    sel = torch.sparse_coo_tensor(torch.stack([torch.arange(len(rows)), rows]),\n"
      "                                  torch.ones(len(rows)), (len(rows), dense.shape[0]))\n"
      "    return torch.sparse.mm(sel, dense)\n");
  EXPECT_EQ(meetings(host), (Lines{"7 factory@5 meets device"}));
  const Flowed csr(
      "import torch\n"
      "import torch.nn as nn\n"
      "class Graph(nn.Module):\n"
      "    def forward(self, x, n):\n"
      "        crow = torch.arange(n + 1)\n"
      "        adj = torch.sparse_csr_tensor(crow, torch.arange(n), torch.ones(n))\n"
      "        return adj @ x\n");
  EXPECT_EQ(meetings(csr), (Lines{"7 factory@6 meets module"}));
  const Flowed from_device(
      "import torch\n"
      "def project(w, x):\n"
      "    w = w.cuda()\n"
      "    idx = torch.zeros(2, w.shape[0], dtype=torch.long, device=w.device)\n"
      "    m = torch.sparse_coo_tensor(idx, w)\n"
      "    return torch.sparse.mm(m, torch.ones(w.shape[0], 1))\n");
  EXPECT_EQ(meetings(from_device), (Lines{"6 factory@6 meets device"}));
  const Flowed placed(
      "import torch\n"
      "def select(dense, idx, vals):\n"
      "    dense = dense.cuda()\n"
      "    a = torch.sparse_coo_tensor(idx.to(dense.device), vals.to(dense.device))\n"
      "    b = torch.sparse_coo_tensor(torch.zeros(2, 1).long(), torch.ones(1), device='cuda')\n"
      "    return torch.sparse.mm(a, dense) + torch.sparse.mm(b, dense)\n");
  EXPECT_EQ(meetings(placed), Lines{});
}

}  // namespace devcheck::lint::detail
