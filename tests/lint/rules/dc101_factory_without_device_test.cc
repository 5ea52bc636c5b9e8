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

TEST(LintDC101, FindsFactoryWithoutDeviceInAFunctionOnADevice) {
  const std::string source =
      "import torch\n"
      "def step(x):\n"
      "    mask = x * torch.zeros(x.shape[0])\n"
      "    ok = torch.zeros(3, device=x.device)\n"
      "    moved = torch.ones(3).to(x.device)\n"
      "    scale = torch.tensor(2.0)\n"
      "    return x.to('cuda') * mask\n"
      "def cpu_only():\n"
      "    return torch.zeros(3)\n"
      "top = torch.zeros(3)\n";
  EXPECT_EQ(found(source, "DC101"), (Lines{"3 DC101"}));
  EXPECT_NE(only(source, "DC101").message.find("'step'"), std::string::npos);
  EXPECT_NE(only(source, "DC101").message.find("device="), std::string::npos);
}

// The flow follows values, not words: a factory that meets the function's
// own CPU tensors (pytorch/examples' load_cora adds torch.eye to a CPU sparse
// matrix and moves the result at the return) or a parameter it knows nothing
// of is not found; one that meets a tensor moved to a device is.
TEST(LintDC101, FindsOnlyWhatMeetsAKnownDeviceTensor) {
  const std::string source =
      "import torch\n"
      "def load(path, device):\n"
      "    adj = torch.sparse_coo_tensor(index, values)\n"
      "    adj = torch.eye(5) + adj\n"
      "    return adj.to(device)\n"
      "def passed_in(x, device):\n"
      "    y = x + torch.zeros(3)\n"
      "    return y.to(device)\n"
      "def looped(items, device):\n"
      "    for t in items:\n"
      "        acc = t + torch.zeros(3)\n"
      "        acc = acc.to(device)\n"
      "def after(path, device):\n"
      "    adj = read(path).to(device)\n"
      "    return torch.eye(5) + adj\n"
      "def later(x, device):\n"
      "    noise = torch.randn(4)\n"
      "    x = x.to(device)\n"
      "    return x * noise\n";
  EXPECT_EQ(found(source, "DC101"), (Lines{"15 DC101", "17 DC101"}));
  const std::vector<Finding> all = lint_source(source, "t.py", [] {
    LintOptions o;
    o.select = {"DC101"};
    return o;
  }());
  ASSERT_EQ(all.size(), 2U);
  EXPECT_EQ(all[1].message,
            "torch.randn(...) without device= makes a tensor on the CPU, and line 19 (in 'later') "
            "uses it with tensors on a device: a device mismatch there; pass device= (e.g. "
            "device=x.device)");
}

TEST(LintDC101, FindsFactoriesInAModulesForward) {
  const std::string source =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Net(nn.Module):\n"
      "    def forward(self, x):\n"
      "        return x + torch.arange(x.shape[-1])\n"
      "class Plain:\n"
      "    def forward(self, x):\n"
      "        return x + torch.arange(x.shape[-1])\n";
  EXPECT_EQ(found(source, "DC101"), (Lines{"5 DC101"}));
}

TEST(LintDC101, SaysNothingWhenTheResultIsMovedOrNoDeviceIsNamed) {
  EXPECT_EQ(found("import torch\n"
                  "def rpc_result(x, device):\n"
                  "    y = x.to(device)\n"
                  "    return (torch.zeros(2) - torch.ones(2)).to(0)\n"
                  "def get_batch(data, device):\n"
                  "    ix = torch.randint(len(data), (4,))\n"
                  "    return torch.stack([data[i] for i in ix]).to(device)\n"
                  "def meta(device):\n"
                  "    with torch.device('meta'):\n"
                  "        x = torch.randint(0, 1, (2, 3)) + 1\n"
                  "    return x.to(device)\n"
                  "def sliced(x, device):\n"
                  "    return x.to(device), torch.tensor([1, 2, 3])[::2] + 1\n"
                  "def passed_on(x, device):\n"
                  "    check(torch.empty(3), x.to(device))\n"
                  "def build(size, device_id=None):\n"
                  "    t = torch.empty(size)\n"
                  "    return t.cuda(device_id)\n",
                  "DC101"),
            Lines{});
}

TEST(LintDC101, SaysNothingForDrawsComparedIndexedOrReadByElementInForward) {
  // torchvision's transforms: a random draw compared with a probability, an
  // index tensor (a CPU index indexes a tensor on any device), elements read
  // as numbers (a 0-dim tensor mixes with any device).
  EXPECT_EQ(found("import torch\n"
                  "import torch.nn as nn\n"
                  "class RandomCrop(nn.Module):\n"
                  "    def forward(self, img, magnitudes):\n"
                  "        if torch.rand(1) < self.p:\n"
                  "            return img\n"
                  "        m = magnitudes[torch.randint(3, (1,))]\n"
                  "        r = torch.rand(2)\n"
                  "        left = int((img.shape[-1] - 8) * r[0])\n"
                  "        top = int(r.shape[0] * r[1].item())\n"
                  "        perm = torch.randperm(3)\n"
                  "        img = img[..., perm, :, :]\n"
                  "        return img[..., top:, left:] * m\n",
                  "DC101"),
            Lines{});
  // Assigned and then used whole: found.
  EXPECT_EQ(found("import torch\n"
                  "import torch.nn as nn\n"
                  "class Seq(nn.Module):\n"
                  "    def forward(self, x):\n"
                  "        h = torch.zeros(x.size(0), 51)\n"
                  "        h, c = self.lstm(x, (h, h))\n"
                  "        return h\n",
                  "DC101"),
            (Lines{"5 DC101"}));
}

TEST(LintDC101, SaysNothingWithSplatsOrLikeFactories) {
  EXPECT_EQ(found("import torch\n"
                  "def f(x, **kw):\n"
                  "    a = torch.zeros(3, **kw)\n"
                  "    b = torch.zeros_like(x)\n"
                  "    c = x.new_zeros(3)\n"
                  "    return x.cuda()\n",
                  "DC101"),
            Lines{});
}

// The cases: a GRU's hidden state made in a training method and
// given to a model on the device; an arange meeting a module's parameter in
// a method; class weights made on the CPU by a helper and given to a loss
// while the model is on the device.
TEST(LintDC101, FindsHiddenStatesParametersAndLossWeights) {
  const std::string source =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Decay(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.decay = nn.Parameter(torch.ones(1))\n"
      "    def kernel(self, length):\n"
      "        t = torch.arange(length)\n"
      "        return torch.exp(-self.decay * t)\n"
      "def class_weights(counts):\n"
      "    return torch.tensor([sum(counts) / c for c in counts])\n"
      "class Trainer:\n"
      "    def __init__(self, model, device):\n"
      "        self.device = device\n"
      "        self.model = model.to(device)\n"
      "        self.loss = nn.CrossEntropyLoss(weight=class_weights([3, 1]))\n"
      "    def step(self, x, y):\n"
      "        h = torch.zeros(2, x.size(0), 16)\n"
      "        out, h = self.model(x.to(self.device), h)\n"
      "        return self.loss(out, y.to(self.device))\n";
  EXPECT_EQ(found(source, "DC101"), (Lines{"8 DC101", "11 DC101", "18 DC101"}));
}

TEST(LintDC101, FollowsTheHiddenStateThroughABranchAndAHelper) {
  const std::string source =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Cell(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.rnn = nn.GRU(4, 8)\n"
      "    def init_hidden(self, batch):\n"
      "        return torch.zeros(1, batch, 8)\n"
      "    def forward(self, x, h=None):\n"
      "        if h is None:\n"
      "            h = self.init_hidden(x.size(1))\n"
      "        return self.rnn(x, h)\n"
      "class Fixed(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.rnn = nn.GRU(4, 8)\n"
      "    def forward(self, x, h=None):\n"
      "        if h is None:\n"
      "            h = torch.zeros(1, x.size(1), 8, device=x.device)\n"
      "        return self.rnn(x, h)\n";
  EXPECT_EQ(found(source, "DC101"), (Lines{"8 DC101"}));
}

TEST(LintDC101, FindsALossWeightHandedToTheTrainingFunctionWithItsLoss) {
  const std::string code =
      "import torch\n"
      "import torch.nn as nn\n"
      "def train(model, criterion, x, y):\n"
      "    return criterion(model(x), y)\n"
      "def main(x, y):\n"
      "    weights = torch.tensor([1.0, 3.0])\n"
      "    criterion = nn.CrossEntropyLoss(weight=weights)\n"
      "    model = nn.Linear(4, 2).to('cuda')\n"
      "    return train(model, criterion, x.cuda(), y.cuda())\n";
  EXPECT_EQ(found(code, "DC101"), (Lines{"6 DC101"}));
  // The loss moved with its weight.
  std::string moved = code;
  moved.replace(moved.find("weight=weights)"), 15, "weight=weights).cuda()");
  EXPECT_EQ(found(moved, "DC101"), Lines{});
}

TEST(LintDC101, FindsAFactoryMeetingALightningStepsBatch) {
  const std::string code =
      "import torch\n"
      "import pytorch_lightning as pl\n"
      "class Lit(pl.LightningModule):\n"
      "    def training_step(self, batch, batch_idx):\n"
      "        x, y = batch\n"
      "        mask = torch.ones(x.size(0), 1)\n"
      "        return (x * mask).sum()\n";
  EXPECT_EQ(found(code, "DC101"), (Lines{"6 DC101"}));
  // Made where the batch is; and a plain nn.Module's method of that name is no step.
  std::string placed = code;
  placed.replace(placed.find("1)\n"), 3, "1, device=x.device)\n");
  EXPECT_EQ(found(placed, "DC101"), Lines{});
  std::string plain = code;
  plain.replace(plain.find("pl.LightningModule"), 18, "torch.nn.Module");
  EXPECT_EQ(found(plain, "DC101"), Lines{});
}

// A draw made on the CPU with a generator on a device fails (issue 38's fifth
// round: a font transform's random location given a CUDA generator); not
// with device=, nor with a generator on the CPU.
TEST(LintDC101, FindsADrawOnTheCpuWithAGeneratorOnADevice) {
  const std::string source =
      "import torch\n"
      "def random_location(axes, generator=None):\n"
      "    return torch.rand(len(axes), generator=generator)\n"
      "def main(device):\n"
      "    gen = torch.Generator(device=device)\n"
      "    return random_location([1, 2], generator=gen)\n";
  EXPECT_EQ(found(source, "DC101"), (Lines{"3 DC101"}));
  EXPECT_NE(only(source, "DC101").message.find("generator= (line 5) is on a device"),
            std::string::npos);
  std::string fixed = source;
  fixed.replace(fixed.find("generator=generator)"), 20,
                "generator=generator, device=generator.device)");
  EXPECT_EQ(found(fixed, "DC101"), Lines{});
  std::string cpu = source;
  cpu.replace(cpu.find("device=device"), 13, "");
  EXPECT_EQ(found(cpu, "DC101"), Lines{});
}

// The bug as users write it in other shapes (issue 38's seventh round:
// variants of the tuning cases' bugs that the rules missed, with their
// fixed twins): class weights from a name, labels copied with
// torch.tensor, masks compared with inputs or numbers, states made tensors
// for a policy, a plain object's schedule indexed by device steps, a
// property's mask.
TEST(LintDC101, FindsHostFactoriesInTheShapesUsersWriteThem) {
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
      // class weights trainer init
      {"class Trainer:\n"
       "    def __init__(self, model, device, w):\n"
       "        self.device = device\n"
       "        self.model = model.to(device)\n"
       "        self.criterion = nn.CrossEntropyLoss(weight=torch.tensor(w, dtype=torch.float))\n"
       "    def step(self, x, y):\n"
       "        x, y = x.to(self.device), y.to(self.device)\n"
       "        return self.criterion(self.model(x), y)\n",
       "class Trainer:\n"
       "    def __init__(self, model, device, w):\n"
       "        self.device = device\n"
       "        self.model = model.to(device)\n"
       "        self.criterion = nn.CrossEntropyLoss(weight=torch.tensor(w, dtype=torch.float, "
       "device=device))\n"
       "    def step(self, x, y):\n"
       "        x, y = x.to(self.device), y.to(self.device)\n"
       "        return self.criterion(self.model(x), y)\n"},
      // labels tensor in loop
      {"def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    for x, labels in DataLoader(ds):\n"
       "        out = model(x.to(device))\n"
       "        loss = F.cross_entropy(out, torch.tensor(labels))\n",
       "def main():\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    for x, labels in DataLoader(ds):\n"
       "        out = model(x.to(device))\n"
       "        loss = F.cross_entropy(out, torch.tensor(labels, device=device))\n"},
      // length mask compare
      {"class M(nn.Module):\n"
       "    def __init__(self):\n"
       "        super().__init__()\n"
       "        self.fc = nn.Linear(4, 4)\n"
       "    def forward(self, x, lengths):\n"
       "        mask = torch.arange(x.size(1))[None, :] < lengths[:, None]\n"
       "        return self.fc(x) * mask.unsqueeze(-1)\n",
       "class M(nn.Module):\n"
       "    def __init__(self):\n"
       "        super().__init__()\n"
       "        self.fc = nn.Linear(4, 4)\n"
       "    def forward(self, x, lengths):\n"
       "        mask = torch.arange(x.size(1), device=x.device)[None, :] < lengths[:, None]\n"
       "        return self.fc(x) * mask.unsqueeze(-1)\n"},
      // ones mask in helper method
      {"class Attn(nn.Module):\n"
       "    def __init__(self):\n"
       "        super().__init__()\n"
       "        self.q = nn.Linear(4, 4)\n"
       "    def causal(self, n):\n"
       "        return torch.tril(torch.ones(n, n))\n"
       "    def forward(self, x):\n"
       "        s = self.q(x) @ x.transpose(-1, -2)\n"
       "        return s.masked_fill(self.causal(x.size(1)) == 0, -1e9)\n",
       "class Attn(nn.Module):\n"
       "    def __init__(self):\n"
       "        super().__init__()\n"
       "        self.q = nn.Linear(4, 4)\n"
       "    def causal(self, n):\n"
       "        return torch.tril(torch.ones(n, n, device=self.q.weight.device))\n"
       "    def forward(self, x):\n"
       "        s = self.q(x) @ x.transpose(-1, -2)\n"
       "        return s.masked_fill(self.causal(x.size(1)) == 0, -1e9)\n"},
      // rl floattensor state
      {"class Agent:\n"
       "    def __init__(self, device):\n"
       "        self.device = device\n"
       "        self.q = Net().to(device)\n"
       "    def act(self, state):\n"
       "        s = torch.FloatTensor(state).unsqueeze(0)\n"
       "        return self.q(s).argmax(1).item()\n",
       "class Agent:\n"
       "    def __init__(self, device):\n"
       "        self.device = device\n"
       "        self.q = Net().to(device)\n"
       "    def act(self, state):\n"
       "        s = torch.FloatTensor(state).unsqueeze(0).to(self.device)\n"
       "        return self.q(s).argmax(1).item()\n"},
      // rl loop main
      {"import gym\n"
       "def main():\n"
       "    device = torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")\n"
       "    policy = Net().to(device)\n"
       "    env = gym.make(\"CartPole-v1\")\n"
       "    obs = env.reset()\n"
       "    for t in range(100):\n"
       "        x = torch.tensor(obs, dtype=torch.float32)\n"
       "        action = policy(x).argmax().item()\n"
       "        obs, r, done, info = env.step(action)\n",
       "import gym\n"
       "def main():\n"
       "    device = torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")\n"
       "    policy = Net().to(device)\n"
       "    env = gym.make(\"CartPole-v1\")\n"
       "    obs = env.reset()\n"
       "    for t in range(100):\n"
       "        x = torch.tensor(obs, dtype=torch.float32).to(device)\n"
       "        action = policy(x).argmax().item()\n"
       "        obs, r, done, info = env.step(action)\n"},
      // predict list input
      {"def predict(model, features, device):\n"
       "    x = torch.Tensor(features)\n"
       "    return model(x)\n"
       "def main(rows):\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    return [predict(model, r, device) for r in rows]\n",
       "def predict(model, features, device):\n"
       "    x = torch.Tensor(features).to(device)\n"
       "    return model(x)\n"
       "def main(rows):\n"
       "    device = torch.device(\"cuda\")\n"
       "    model = Net().to(device)\n"
       "    return [predict(model, r, device) for r in rows]\n"},
      // schedule table plain class
      {"class Schedule:\n"
       "    def __init__(self, T=100):\n"
       "        self.betas = torch.linspace(1e-4, 0.02, T)\n"
       "        self.alphas = 1 - self.betas\n"
       "def train(model, loader, device):\n"
       "    sched = Schedule()\n"
       "    for x, _ in loader:\n"
       "        x = x.to(device)\n"
       "        t = torch.randint(0, 100, (x.size(0),), device=device)\n"
       "        a = sched.alphas[t]\n"
       "        loss = F.mse_loss(model(x * a[:, None]), x)\n",
       "class Schedule:\n"
       "    def __init__(self, T=100):\n"
       "        self.betas = torch.linspace(1e-4, 0.02, T).cuda()\n"
       "        self.alphas = 1 - self.betas\n"
       "def train(model, loader, device):\n"
       "    sched = Schedule()\n"
       "    for x, _ in loader:\n"
       "        x = x.to(device)\n"
       "        t = torch.randint(0, 100, (x.size(0),), device=device)\n"
       "        a = sched.alphas[t]\n"
       "        loss = F.mse_loss(model(x * a[:, None]), x)\n"},
      // property mask
      {"class M(nn.Module):\n"
       "    def __init__(self):\n"
       "        super().__init__()\n"
       "        self.fc = nn.Linear(4, 4)\n"
       "        self.n = 4\n"
       "    @property\n"
       "    def mask(self):\n"
       "        return torch.ones(self.n)\n"
       "    def forward(self, x):\n"
       "        return self.fc(x) * self.mask\n",
       "class M(nn.Module):\n"
       "    def __init__(self):\n"
       "        super().__init__()\n"
       "        self.fc = nn.Linear(4, 4)\n"
       "        self.n = 4\n"
       "    @property\n"
       "    def mask(self):\n"
       "        return torch.ones(self.n, device=self.fc.weight.device)\n"
       "    def forward(self, x):\n"
       "        return self.fc(x) * self.mask\n"},
  };
  expect_bugs_found_and_twins_clean(net, variants, "DC101");
}

// `x.type_as(y)` is where y is (device and dtype): a factory's tensor given
// the type of a device tensor meets it on its device (RetinaNet's focal
// loss); one given the type of a host tensor stays on the host.
TEST(LintDC101, AFactoryTypedAsADeviceTensorIsOnItsDevice) {
  const std::string source =
      "import torch\n"
      "import torch.nn as nn\n"
      "class FocalLoss(nn.Module):\n"
      "    def forward(self, classifications):\n"
      "        targets = torch.ones(classifications.shape).type_as(classifications) * -1\n"
      "        alpha = torch.ones(classifications.shape) * 0.25\n"
      "        host = torch.zeros(3)\n"
      "        scale = torch.Tensor([[0.1, 0.2]]).type_as(host)\n"
      "        return torch.where(targets == 1.0, alpha, classifications) / scale\n";
  EXPECT_EQ(found(source, "DC101"), (Lines{"6 DC101", "8 DC101"}));
  // `.type(y.type())` of a device tensor's type string goes to a CUDA device
  // too (DC112 says which one).
  std::string typed = source;
  typed.replace(typed.find(".type_as(classifications)"), 25, ".type(classifications.type())");
  EXPECT_EQ(found(typed, "DC101"), (Lines{"6 DC101", "8 DC101"}));
  typed.replace(typed.find(".type(classifications.type())"), 29, ".type(torch.FloatTensor)");
  EXPECT_EQ(found(typed, "DC101"), (Lines{"5 DC101", "8 DC101"}));
}

// A module only ever built on an RPC worker (`rpc.remote(worker, RemoteEM,
// args=...)`, never called in the file) is made there on the CPU and stays
// there: its tensors are on the CPU, a CPU factory meets nothing on a
// device. The same class also built in the file (and moved) is found.
TEST(LintDC101, SaysNothingInAModuleOnlyBuiltOnAnRpcWorker) {
  const std::string embedding =
      "import torch\n"
      "import torch.nn as nn\n"
      "import torch.distributed.rpc as rpc\n"
      "class RemoteEM(nn.Module):\n"
      "    def __init__(self, num_embeddings, embedding_dim):\n"
      "        super().__init__()\n"
      "        self.em = nn.EmbeddingBag(num_embeddings, embedding_dim)\n"
      "    def forward(self, input):\n"
      "        return self.em(input, offsets=torch.arange(input.shape[0]))\n"
      "class Trainer:\n"
      "    def __init__(self, worker):\n"
      "        self.remote_em_rref = rpc.remote(worker, RemoteEM, args=(100, 16))\n";
  EXPECT_EQ(found(embedding, "DC101"), Lines{});
  const std::string server =
      "import torch\n"
      "import torch.nn as nn\n"
      "from torch.distributed.rpc import remote\n"
      "class ParameterServer(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.weight = nn.Parameter(torch.randn(n, n))\n"
      "    def forward(self, x):\n"
      "        bias = torch.zeros(x.size(0), 1)\n"
      "        return x @ self.weight + bias\n"
      "def run(ps_name, n):\n"
      "    return remote(ps_name, ParameterServer, args=(n,))\n";
  EXPECT_EQ(found(server, "DC101"), Lines{});
  const std::string also_local = server + "def local(n):\n    return ParameterServer(n).cuda()\n";
  EXPECT_EQ(found(also_local, "DC101"), (Lines{"9 DC101"}));
  EXPECT_EQ(only(also_local, "DC101").message,
            "torch.zeros(...) without device= makes a tensor on the CPU, and line 10 (in "
            "'forward') uses it with tensors on the module's device: a device mismatch there; "
            "pass device= (e.g. device=x.device)");
}

// seed 49: a private module class (`_NISQADIM`) that only private functions
// of a file putting nothing on a device build (a model loaded with
// map_location="cpu" and run on NumPy features) stays on the CPU: what its
// forward meets is on the host. A public class, one a public function
// builds, or a file that moves something is found.
TEST(LintDC101, SilentInAPrivateModuleOnlyPrivateHostCodeBuilds) {
  const std::string loaded =
      "import torch\n"
      "import torch.nn as nn\n"
      "class _Dim(nn.Module):\n"
      "    def forward(self, x, n_wins):\n"
      "        mask = torch.arange(x.shape[1]) < n_wins[:, None]\n"
      "        return x * mask\n"
      "def _load_model(path):\n"
      "    model = _Dim()\n"
      "    model.load_state_dict(torch.load(path, map_location='cpu', weights_only=True))\n"
      "    return model\n"
      "def score(x, path):\n"
      "    model = _load_model(path)\n"
      "    return model(torch.from_numpy(x.cpu().numpy()), torch.tensor([3]))\n";
  EXPECT_EQ(found(loaded, "DC101"), Lines{});
  const std::string kept =
      "import torch\n"
      "import torch.nn as nn\n"
      "class _Smoother(nn.Module):\n"
      "    def forward(self, x):\n"
      "        return x + torch.zeros(x.shape)\n"
      "class Metric:\n"
      "    def _smoother(self):\n"
      "        self.s = _Smoother()\n"
      "        return self.s\n";
  EXPECT_EQ(found(kept, "DC101"), Lines{});
  const std::string moved =
      "import torch\n"
      "import torch.nn as nn\n"
      "class _Dim(nn.Module):\n"
      "    def forward(self, x):\n"
      "        return x + torch.zeros(x.shape)\n"
      "class Seq(nn.Module):\n"
      "    def forward(self, x):\n"
      "        return x + torch.ones(x.shape)\n"
      "def _build():\n"
      "    return _Dim().cuda()\n"
      "def build():\n"
      "    return Seq()\n";
  EXPECT_EQ(found(moved, "DC101"), (Lines{"5 DC101", "8 DC101"}));
  const std::string public_builder =
      "import torch\n"
      "import torch.nn as nn\n"
      "class _Dim(nn.Module):\n"
      "    def forward(self, x):\n"
      "        return x + torch.zeros(x.shape)\n"
      "def load_model():\n"
      "    return _Dim()\n";
  EXPECT_EQ(found(public_builder, "DC101"), (Lines{"5 DC101"}));
  // A public class (users of the file build it and move it), and a private
  // one built in a public class's __init__ (it moves with that class), in a
  // file that moves nothing: still found.
  const std::string public_class =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Dim(nn.Module):\n"
      "    def forward(self, x):\n"
      "        return x + torch.zeros(x.shape)\n"
      "class _Head(nn.Module):\n"
      "    def forward(self, x):\n"
      "        return x + torch.ones(x.shape)\n"
      "class Model(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.head = _Head()\n"
      "def _build():\n"
      "    return Dim()\n";
  EXPECT_EQ(found(public_class, "DC101"), (Lines{"5 DC101", "8 DC101"}));
  EXPECT_EQ(only(public_builder, "DC101").message,
            "torch.zeros(...) without device= makes a tensor on the CPU, and line 5 (in "
            "'forward') uses it with tensors on the module's device: a device mismatch there; "
            "pass device= (e.g. device=x.device)");
}

}  // namespace
TEST(LintDC101, SaysNothingOfAParameterOfAClassWithAnImportedBase) {
  // fairseq's hubert decoder (seed 46): an nn.Parameter set in a class whose
  // base comes from elsewhere, which may be a module: it moves with it.
  const std::string decoder =
      "import torch\n"
      "import torch.nn.functional as F\n"
      "from torch import nn\n"
      "from fairseq.models import FairseqIncrementalDecoder\n"
      "class Decoder(FairseqIncrementalDecoder):\n"
      "    def __init__(self, vocab, dim):\n"
      "        super().__init__(vocab)\n"
      "        self.embed_out = nn.Parameter(torch.Tensor(vocab, dim))\n"
      "    def forward(self, tokens):\n"
      "        x = torch.zeros(len(tokens), 4, device=tokens[0].device)\n"
      "        return self.output_layer(x)\n"
      "    def output_layer(self, features):\n"
      "        return F.linear(features, self.embed_out)\n";
  EXPECT_EQ(found(decoder, "DC101"), Lines{});
  const std::string head =
      "import torch\n"
      "from transformers import PreTrainedModel\n"
      "class Head(PreTrainedModel):\n"
      "    def __init__(self, config):\n"
      "        super().__init__(config)\n"
      "        self.bias = torch.nn.Parameter(torch.zeros(config.vocab_size))\n"
      "    def logits(self, hidden):\n"
      "        h = hidden.to('cuda')\n"
      "        return h + self.bias\n";
  EXPECT_EQ(found(head, "DC101"), Lines{});
  // Near miss: the same in a class of no base is no module; nothing moves it.
  const std::string plain =
      "import torch\n"
      "import torch.nn.functional as F\n"
      "from torch import nn\n"
      "class Projection:\n"
      "    def __init__(self, vocab, dim):\n"
      "        self.weight = nn.Parameter(torch.zeros(vocab, dim))\n"
      "    def project(self, features):\n"
      "        return F.linear(features, self.weight)\n"
      "x = torch.ones(2, 4, device='cuda')\n"
      "Projection(10, 4).project(x)\n";
  EXPECT_EQ(found(plain, "DC101"), (Lines{"6 DC101"}));
  EXPECT_EQ(only(plain, "DC101").message,
            "torch.zeros(...) without device= makes a tensor on the CPU, and line 8 (in "
            "'project') uses it with tensors on a device: a device mismatch there; pass device= "
            "(e.g. device=x.device)");
}

// A host tensor given to a method of a module on a device (not its
// forward): the method uses it with the module's layers, as a call of the
// module would.
TEST(LintDC101, FindsAHostTensorGivenToAMethodOfAModuleOnADevice) {
  const std::string ranker =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Ranker(nn.Module):\n"
      "    def __init__(self, n, d):\n"
      "        super().__init__()\n"
      "        self.items = nn.Embedding(n, d)\n"
      "    def forward(self, a):\n"
      "        return self.items(a)\n"
      "    def top(self, a, k):\n"
      "        return torch.topk(self.items(a).sum(-1), k).indices\n"
      "model = Ranker(100, 8).to('cuda')\n"
      "print(model.top(torch.tensor([3, 4]), 1))\n";
  EXPECT_EQ(found(ranker, "DC101"), (Lines{"12 DC101"}));
  EXPECT_EQ(only(ranker, "DC101").message,
            "torch.tensor(...) without device= makes a tensor on the CPU, and line 10 (in 'top') "
            "uses it with tensors on the module's device: a device mismatch there; pass device= "
            "(e.g. device=x.device)");
  const std::string coder =
      "import torch\n"
      "from torch import nn\n"
      "class AutoCoder(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.dec = nn.Linear(16, 64)\n"
      "    def decode(self, z):\n"
      "        return self.dec(z)\n"
      "class Sampler:\n"
      "    def __init__(self, net):\n"
      "        self.net = net\n"
      "    def sample(self, n):\n"
      "        return self.net.decode(torch.randn(n, 16))\n"
      "def main():\n"
      "    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
      "    print(Sampler(AutoCoder().to(device)).sample(4))\n";
  EXPECT_EQ(found(coder, "DC101"), (Lines{"13 DC101"}));
  // Near misses: the module left on the CPU takes host tensors; one given
  // a tensor made on the device is fine.
  const std::string host =
      "import torch\n"
      "from torch import nn\n"
      "class AutoCoder(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.dec = nn.Linear(16, 64)\n"
      "    def decode(self, z):\n"
      "        return self.dec(z)\n"
      "model = AutoCoder()\n"
      "print(model.decode(torch.randn(4, 16)))\n";
  EXPECT_EQ(found(host, "DC101"), Lines{});
  const std::string placed =
      "import torch\n"
      "from torch import nn\n"
      "class AutoCoder(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.dec = nn.Linear(16, 64)\n"
      "    def decode(self, z):\n"
      "        return self.dec(z)\n"
      "model = AutoCoder().cuda()\n"
      "print(model.decode(torch.randn(4, 16, device='cuda')))\n";
  EXPECT_EQ(found(placed, "DC101"), Lines{});
}

// A torch factory kept in an attribute (`self.win = torch.hann_window`) is
// that factory where it is called; the window functions take device= too.
TEST(LintDC101, FindsAFactoryKeptInAnAttribute) {
  const std::string spectral =
      "import torch\n"
      "class Spectral:\n"
      "    def __init__(self):\n"
      "        self.window = torch.hann_window\n"
      "    def __call__(self, signal, n):\n"
      "        return torch.stft(signal, n, window=self.window(n), return_complex=True)\n"
      "spec = Spectral()\n"
      "print(spec(torch.randn(2, 512, device='cuda'), 64))\n";
  EXPECT_EQ(found(spectral, "DC101"), (Lines{"6 DC101"}));
  EXPECT_EQ(only(spectral, "DC101").message,
            "self.window(...) without device= makes a tensor on the CPU, and line 6 (in "
            "'__call__') uses it with tensors on a device: a device mismatch there; pass device= "
            "(e.g. device=x.device)");
  const std::string noise =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Jitter:\n"
      "    def __init__(self, scale):\n"
      "        self.scale = scale\n"
      "        self.draw = torch.randn\n"
      "    def apply(self, x):\n"
      "        return x + self.scale * self.draw(x.shape)\n"
      "net = nn.Linear(8, 8).cuda()\n"
      "jitter = Jitter(0.1)\n"
      "print(jitter.apply(net(torch.ones(2, 8).cuda())))\n";
  EXPECT_EQ(found(noise, "DC101"), (Lines{"8 DC101"}));
  const std::string direct =
      "import torch\n"
      "def power(x, n):\n"
      "    return torch.stft(x, n, window=torch.hamming_window(n), return_complex=True).abs()\n"
      "print(power(torch.randn(2, 512).cuda(), 64))\n";
  EXPECT_EQ(found(direct, "DC101"), (Lines{"3 DC101"}));
  // Near miss: the kept factory told where (device=).
  const std::string placed =
      "import torch\n"
      "class Spectral:\n"
      "    def __init__(self):\n"
      "        self.window = torch.hann_window\n"
      "    def __call__(self, signal, n):\n"
      "        w = self.window(n, device=signal.device)\n"
      "        return torch.stft(signal, n, window=w, return_complex=True)\n"
      "spec = Spectral()\n"
      "print(spec(torch.randn(2, 512, device='cuda'), 64))\n";
  EXPECT_EQ(found(placed, "DC101"), Lines{});
}

// A plain class a module keeps (a loss given to its constructor) is called
// with what is on the module's device: a host tensor it keeps meets it.
TEST(LintDC101, FindsAHostTensorAPlainClassAModuleKeepsHolds) {
  const std::string pinball =
      "import torch\n"
      "import torch.nn as nn\n"
      "import pytorch_lightning as pl\n"
      "def levels(qs):\n"
      "    return [q / 100 for q in sorted(qs)]\n"
      "class Pinball:\n"
      "    def __init__(self, qs):\n"
      "        self.qs = torch.Tensor(levels(qs))\n"
      "    def __call__(self, y, y_hat):\n"
      "        return (self.qs * (y_hat - y.unsqueeze(-1))).mean()\n"
      "class Forecaster(pl.LightningModule):\n"
      "    def __init__(self, loss):\n"
      "        super().__init__()\n"
      "        self.loss = loss\n"
      "        self.net = nn.Linear(8, 3)\n"
      "    def training_step(self, batch, batch_idx):\n"
      "        x, y = batch\n"
      "        return self.loss(y=y, y_hat=self.net(x))\n"
      "model = Forecaster(loss=Pinball([10, 50, 90]))\n"
      "pl.Trainer(accelerator='gpu').fit(model)\n";
  EXPECT_EQ(found(pinball, "DC101"), (Lines{"8 DC101"}));
  EXPECT_EQ(only(pinball, "DC101").message,
            "torch.Tensor(...) without device= makes a tensor on the CPU, and line 10 (in "
            "'__call__') uses it with tensors on the module's device: a device mismatch there; "
            "pass device= (e.g. device=x.device)");
  const std::string scaler =
      "import torch\n"
      "from torch import nn\n"
      "class Scaler:\n"
      "    def __init__(self, n):\n"
      "        self.mean = torch.zeros(n)\n"
      "    def __call__(self, h):\n"
      "        return h - self.mean\n"
      "class Net(nn.Module):\n"
      "    def __init__(self, scaler):\n"
      "        super().__init__()\n"
      "        self.scaler = scaler\n"
      "        self.fc = nn.Linear(4, 4)\n"
      "    def forward(self, x):\n"
      "        return self.scaler(self.fc(x))\n"
      "net = Net(Scaler(4)).to('cuda')\n";
  EXPECT_EQ(found(scaler, "DC101"), (Lines{"5 DC101"}));
  // Near miss: the plain class puts what it makes where its input is.
  const std::string placed =
      "import torch\n"
      "from torch import nn\n"
      "class Scaler:\n"
      "    def __init__(self, n):\n"
      "        self.n = n\n"
      "    def __call__(self, h):\n"
      "        return h - torch.zeros(self.n, device=h.device)\n"
      "class Net(nn.Module):\n"
      "    def __init__(self, scaler):\n"
      "        super().__init__()\n"
      "        self.scaler = scaler\n"
      "        self.fc = nn.Linear(4, 4)\n"
      "    def forward(self, x):\n"
      "        return self.scaler(self.fc(x))\n"
      "net = Net(Scaler(4)).to('cuda')\n";
  EXPECT_EQ(found(placed, "DC101"), Lines{});
}

// seed 52: a CTC loss takes its targets on the CPU beside device log_probs
// (ATen's LossCTC.cpp moves them): a host arange as the targets of
// F.ctc_loss or an nn.CTCLoss (speechbrain's FastSpeech2 alignment loss) is
// not found; a host tensor as its input lengths still is (and the targets,
// where host lengths are given beside them).
TEST(LintDC101, SilentOnHostTargetsOfACtcLoss) {
  const std::string functional =
      "import torch\n"
      "import torch.nn.functional as F\n"
      "def loss(logits, n):\n"
      "    lp = logits.cuda().log_softmax(-1)\n"
      "    t = torch.arange(1, n + 1).unsqueeze(0)\n"
      "    return F.ctc_loss(lp, t, [5], [3]) + F.ctc_loss(lp, targets=torch.ones(1, n),\n"
      "                                                   input_lengths=[5], target_lengths=[3])\n";
  EXPECT_EQ(found(functional, "DC101"), (Lines{}));
  const std::string module =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Aligner(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.proj = nn.Linear(4, 3)\n"
      "        self.ctc = nn.CTCLoss(zero_infinity=True)\n"
      "    def forward(self, x, key_lens):\n"
      "        lp = self.proj(x).log_softmax(-1)\n"
      "        total = 0.0\n"
      "        for b in range(x.shape[1]):\n"
      "            target = torch.arange(1, key_lens[b] + 1).unsqueeze(0)\n"
      "            total = total + self.ctc(lp[:, b : b + 1], target, input_lengths=[x.shape[0]],\n"
      "                                     target_lengths=key_lens[b : b + 1])\n"
      "        return total\n";
  EXPECT_EQ(found(module, "DC101"), (Lines{}));
  const std::string lengths =
      "import torch\n"
      "import torch.nn as nn\n"
      "def validate(model, image, text, length):\n"
      "    criterion = nn.CTCLoss(zero_infinity=True).cuda()\n"
      "    preds = model.cuda()(image.cuda()).log_softmax(2)\n"
      "    size = torch.IntTensor([preds.size(0)] * preds.size(1))\n"
      "    return criterion(preds, text, size, length)\n";
  EXPECT_EQ(found(lengths, "DC101"), (Lines{"6 DC101"}));
  // Host lengths beside host targets: the call is found at its targets, as before.
  const std::string both =
      "import torch\n"
      "import torch.nn.functional as F\n"
      "def loss(logits, n):\n"
      "    lp = logits.cuda().log_softmax(-1)\n"
      "    t = torch.randint(1, 5, (n,), dtype=torch.int)\n"
      "    lengths = torch.full((1,), 50, dtype=torch.int)\n"
      "    return F.ctc_loss(lp, t, lengths, torch.tensor([n], dtype=torch.int))\n";
  EXPECT_EQ(found(both, "DC101"), (Lines{"5 DC101"}));
  EXPECT_EQ(only(lengths, "DC101").message,
            "torch.IntTensor(...) without device= makes a tensor on the CPU, and line 7 (in "
            "'validate') uses it with tensors on a device: a device mismatch there; pass device= "
            "(e.g. device=x.device)");
}

// An element of a randint of one draw (`torch.randint(lo, hi, (1,))[0]`) is
// 0-dim: read as a number (`shifts=(r[0],)`, a size) it mixes with any
// device (speechbrain's rand_shift and SpectrogramDrop's warp, seed 53). A
// draw of two meets the device whole.
TEST(LintDC101, SilentOnTheElementOfARandintOfOneDraw) {
  const std::string recipe =
      "import torch\n"
      "class Brain:\n"
      "    def add_shift(self, targets):\n"
      "        targets = targets.to('cuda')\n"
      "        for i in range(targets.shape[-1]):\n"
      "            r = torch.randint(-5, 5, (1,))\n"
      "            targets[i] = torch.roll(targets[i], shifts=(r[0],), dims=1)\n"
      "        return targets\n";
  EXPECT_EQ(found(recipe, "DC101"), (Lines{}));
  const std::string warp =
      "import torch\n"
      "import torch.nn as nn\n"
      "import torch.nn.functional as F\n"
      "class Warp(nn.Module):\n"
      "    def forward(self, spec):\n"
      "        c = torch.randint(4, spec.shape[2] - 4, size=(1,))[0]\n"
      "        w = torch.randint(c - 4, c + 4, (1,))[0] + 1\n"
      "        left = F.interpolate(spec[:, :, :c], (w, spec.shape[3]))\n"
      "        return torch.cat([left, spec[:, :, c:]], dim=2)\n";
  EXPECT_EQ(found(warp, "DC101"), (Lines{}));
  const std::string two =
      "import torch\n"
      "def add_shift(targets):\n"
      "    targets = targets.to('cuda')\n"
      "    r = torch.randint(-5, 5, (2,))\n"
      "    return targets + r\n";
  EXPECT_EQ(only(two, "DC101").message,
            "torch.randint(...) without device= makes a tensor on the CPU, and line 5 (in "
            "'add_shift') uses it with tensors on a device: a device mismatch there; pass device= "
            "(e.g. device=x.device)");
}

// `torch.normal(mean, std)` of tensors draws where they are, and
// `torch.tensor(t)` of a device tensor copies it there (speechbrain's SEGAN,
// seed 53); a normal given a size is a factory, found as one.
TEST(LintDC101, SilentOnANormalOfTensorsAndACopyOfADeviceTensor) {
  const std::string segan =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Generator(nn.Module):\n"
      "    def forward(self, x):\n"
      "        z = torch.normal(torch.zeros_like(x), torch.ones_like(x))\n"
      "        return torch.cat((x, z), dim=1)\n";
  EXPECT_EQ(found(segan, "DC101"), (Lines{}));
  const std::string copy =
      "import torch\n"
      "def jitter(x, sigma):\n"
      "    x = x.cuda()\n"
      "    base = torch.tensor(x, dtype=torch.float32)\n"
      "    return base + torch.normal(mean=base, std=sigma)\n";
  EXPECT_EQ(found(copy, "DC101"), (Lines{}));
  const std::string sized =
      "import torch\n"
      "def jitter(x):\n"
      "    x = x.cuda()\n"
      "    return x + torch.normal(0.0, 1.0, size=(4,))\n";
  EXPECT_EQ(only(sized, "DC101").message,
            "torch.normal(...) without device= makes a tensor on the CPU, and line 4 (in "
            "'jitter') uses it with tensors on a device: a device mismatch there; pass device= "
            "(e.g. device=x.device)");
}

// A layer moved in `__init__` to its own parameter defaulting to "cpu" that
// no construction passes is on the host, as `self.device` kept from it is
// (diffusers' DiffusionPolicy, seed 53): a host input meets nothing there.
// Passed a device, the layer is there, and a host input meets it.
TEST(LintDC101, SilentOnALayerMovedToAnInitParameterDefaultingToCpu) {
  const std::string policy =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Policy:\n"
      "    def __init__(self, device='cpu'):\n"
      "        self.encoder = nn.Linear(5, 4).to(device)\n"
      "    def predict(self, obs):\n"
      "        return self.encoder(obs)\n"
      "obs = torch.tensor([[1.0, 2.0, 3.0, 4.0, 5.0]])\n";
  EXPECT_EQ(found(policy + "Policy().predict(obs)\n", "DC101"), (Lines{}));
  const std::string agent =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Agent:\n"
      "    def __init__(self, n, target='cpu'):\n"
      "        self.q = nn.Sequential(nn.Linear(n, 2)).to(target)\n"
      "    def act(self, state):\n"
      "        return self.q(state).argmax()\n"
      "a = Agent(3)\n"
      "a.act(torch.zeros(1, 3))\n";
  EXPECT_EQ(found(agent, "DC101"), (Lines{}));
  const std::string passed = policy + "Policy(device='cuda').predict(obs)\n";
  EXPECT_EQ(only(passed, "DC101").message,
            "torch.tensor(...) without device= makes a tensor on the CPU, and line 7 (in "
            "'predict') uses it with tensors on a device: a device mismatch there; pass device= "
            "(e.g. device=x.device)");
}

// A tensor moved by a framework's container move (fairseq's
// `utils.move_to_cuda`, Accelerate's `send_to_device`) before it meets the
// device, or chosen by the same flag that moves the model, is not found
// (fairseq's vocoder scripts, seed 53); one whose move is kept under
// another name, and itself given to the device, is.
TEST(LintDC101, SilentOnATensorAFrameworkMovesWithItsContainer) {
  const std::string vocoder =
      "import torch\n"
      "from fairseq import utils\n"
      "def synth(vocoder, code, use_cuda):\n"
      "    if use_cuda:\n"
      "        vocoder = vocoder.cuda()\n"
      "    x = {'code': torch.LongTensor(code).view(1, -1)}\n"
      "    x = utils.move_to_cuda(x) if use_cuda else x\n"
      "    return vocoder(x)\n";
  EXPECT_EQ(found(vocoder, "DC101"), (Lines{}));
  const std::string accelerate =
      "import torch\n"
      "from accelerate.utils import send_to_device\n"
      "def evaluate(model, device):\n"
      "    model = model.to(device)\n"
      "    batch = send_to_device({'x': torch.zeros(2, 3)}, device)\n"
      "    return model(batch['x'])\n";
  EXPECT_EQ(found(accelerate, "DC101"), (Lines{}));
  const std::string unmoved =
      "import torch\n"
      "from fairseq import utils\n"
      "def synth(vocoder, code):\n"
      "    vocoder = vocoder.cuda()\n"
      "    x = torch.LongTensor(code).view(1, -1)\n"
      "    moved = utils.move_to_cuda(x)\n"
      "    return vocoder(x)\n";
  EXPECT_EQ(only(unmoved, "DC101").message,
            "torch.LongTensor(...) without device= makes a tensor on the CPU, and line 7 (in "
            "'synth') uses it with tensors on a device: a device mismatch there; pass device= "
            "(e.g. device=x.device)");
}

// A placeholder (`torch.zeros(1)`) replaced on the first turn of a loop
// under a flag set True before it and False there is never what the else
// concatenates (speechbrain's Tacotron2 inference, seed 53); with the flag
// cleared outside the `if`, the placeholder may reach the else: found.
TEST(LintDC101, SilentOnAPlaceholderTheFirstTurnReplaces) {
  const std::string tacotron =
      "import torch\n"
      "import torch.nn as nn\n"
      "class Decoder(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.step = nn.GRUCell(4, 4)\n"
      "    def infer(self, x, h):\n"
      "        mels = torch.zeros(1)\n"
      "        first_iter = True\n"
      "        for t in range(10):\n"
      "            h = self.step(x, h)\n"
      "            if first_iter:\n"
      "                mels = h.unsqueeze(0)\n"
      "                first_iter = False\n"
      "            else:\n"
      "                mels = torch.cat((mels, h.unsqueeze(0)), dim=0)\n"
      "        return mels\n";
  EXPECT_EQ(found(tacotron, "DC101"), (Lines{}));
  const std::string running =
      "import torch\n"
      "def run(model, xs):\n"
      "    model = model.cuda()\n"
      "    total = torch.zeros(3)\n"
      "    first = True\n"
      "    for x in xs:\n"
      "        y = model(x.cuda())\n"
      "        if first:\n"
      "            total = y\n"
      "            first = False\n"
      "        else:\n"
      "            total = total + y\n"
      "    return total\n";
  EXPECT_EQ(found(running, "DC101"), (Lines{}));
  const std::string reset =
      "import torch\n"
      "def run(model, xs, resume):\n"
      "    model = model.cuda()\n"
      "    total = torch.zeros(3)\n"
      "    first = not resume\n"
      "    for x in xs:\n"
      "        y = model(x.cuda())\n"
      "        if first:\n"
      "            total = y\n"
      "            first = False\n"
      "        else:\n"
      "            total = total + y\n"
      "    return total\n";
  EXPECT_EQ(only(reset, "DC101").message,
            "torch.zeros(...) without device= makes a tensor on the CPU, and line 12 (in 'run') "
            "uses it with tensors on a device: a device mismatch there; pass device= (e.g. "
            "device=x.device)");
}

// An entry of a dict that mixes tensors with Python numbers
// (`{"ids": ids.cuda(), "offset": len(ids)}`) may be a number: a factory
// meeting it is not found (diffusers' Cosmos3 mRoPE offset, seed 53); an
// entry of a dict of tensors alone is a tensor, and a factory meeting it is.
TEST(LintDC101, SilentOnAnEntryOfADictOfTensorsAndNumbers) {
  const std::string offset =
      "import torch\n"
      "def segment(ids):\n"
      "    return {'ids': torch.tensor(ids).cuda(), 'offset': len(ids) + 0}\n"
      "def positions(n, offset):\n"
      "    return torch.arange(n, dtype=torch.float32) + offset\n"
      "def run(ids):\n"
      "    seg = segment(ids)\n"
      "    return positions(4, seg['offset'])\n";
  EXPECT_EQ(found(offset, "DC101"), (Lines{}));
  const std::string config =
      "import torch\n"
      "def forward(model, x):\n"
      "    steps = 4\n"
      "    cfg = {'x': model(x.cuda()), 'steps': steps}\n"
      "    return torch.linspace(0, 1, 8) * cfg['steps']\n";
  EXPECT_EQ(found(config, "DC101"), (Lines{}));
  const std::string tensors =
      "import torch\n"
      "def forward(model, x):\n"
      "    out = {'y': model(x.cuda()), 'x': x.cuda()}\n"
      "    return torch.linspace(0, 1, 8) * out['y']\n";
  EXPECT_EQ(only(tensors, "DC101").message,
            "torch.linspace(...) without device= makes a tensor on the CPU, and line 4 (in "
            "'forward') uses it with tensors on a device: a device mismatch there; pass device= "
            "(e.g. device=x.device)");
}

// The tensor under a key of a dict that also holds Python numbers
// (`batch["input"]` of `{"input": x.cuda(), "len": len(ids)}`) is that
// tensor: a factory meeting it is found, as one meeting the number's key is
// not; a key computed (`batch[k] = ...`) makes the entries unknown again.
TEST(LintDC101, FindsAFactoryMeetingTheTensorUnderAKeyOfAMixedDict) {
  const std::string batch =
      "import torch\n"
      "def step(model, ids):\n"
      "    batch = {'input': torch.tensor(ids).cuda(), 'len': len(ids)}\n"
      "    mask = torch.ones(4, 8)\n"
      "    return model(batch['input'] * mask)\n";
  EXPECT_EQ(only(batch, "DC101").message,
            "torch.ones(...) without device= makes a tensor on the CPU, and line 5 (in "
            "'step') uses it with tensors on a device: a device mismatch there; pass device= "
            "(e.g. device=x.device)");
  const std::string state =
      "import torch\n"
      "def sample(x, steps):\n"
      "    state = {'latents': x.cuda(), 'step': 0, 'scale': x.max().item()}\n"
      "    state['latents'] = state['latents'] + torch.randn(4)\n"
      "    return state\n";
  EXPECT_EQ(found(state, "DC101"), (Lines{"4 DC101"}));
  const std::string computed =
      "import torch\n"
      "def sample(x, key):\n"
      "    state = {'latents': x.cuda(), 'step': 0}\n"
      "    state[key] = 1\n"
      "    return state['latents'] + torch.randn(4)\n";
  EXPECT_EQ(found(computed, "DC101"), (Lines{}));
}

}  // namespace devcheck::lint
