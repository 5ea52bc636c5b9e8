// What the file's calls pass to its functions' parameters
// (src/lint/flow/params.cc): the device chosen in main() followed into the
// functions, methods and constructors that receive the model and the data.
#include <gtest/gtest.h>

#include "flow_testing.h"

namespace devcheck::lint::detail {
namespace {
using testing::Flowed;
using testing::Lines;
using testing::meetings;

TEST(LintFlowParams, AModelMovedInMainIsOnTheDeviceInTheFunctionGivenIt) {
  const Flowed f(
      "import numpy as np\n"
      "import torch\n"
      "def predict(model, x):\n"
      "    t = torch.from_numpy(x)\n"
      "    return model(t)\n"
      "def main():\n"
      "    model = torch.nn.Linear(4, 2).cuda()\n"
      "    predict(model, np.zeros((1, 4)))\n");
  EXPECT_EQ(meetings(f), (Lines{"5 numpy@4 meets device"}));
}

// Through two calls: main -> evaluate -> helper.
TEST(LintFlowParams, FollowsADeviceTensorThroughTwoCalls) {
  const Flowed f(
      "import torch\n"
      "def helper(var):\n"
      "    index = torch.arange(var.size(0))\n"
      "    return var + index\n"
      "def evaluate(x):\n"
      "    return helper(x * 2)\n"
      "def main():\n"
      "    evaluate(torch.randn(4, device='cuda'))\n");
  EXPECT_EQ(meetings(f), (Lines{"4 factory@3 meets device"}));
}

// A constructor's argument reaches the attribute __init__ keeps it in: an
// unmoved model meets the batches another method moves.
TEST(LintFlowParams, AConstructorsArgumentReachesTheAttribute) {
  const Flowed f(
      "import torch\n"
      "class Trainer:\n"
      "    def __init__(self, model, device):\n"
      "        self.model = model\n"
      "        self.device = device\n"
      "    def step(self, images):\n"
      "        images = images.to(self.device)\n"
      "        return self.model(images)\n"
      "def main(device):\n"
      "    model = torch.nn.Conv2d(3, 8, 3)\n"
      "    Trainer(model, device).step(torch.rand(1, 3, 8, 8))\n");
  EXPECT_EQ(meetings(f), (Lines{"8 unmoved@10 meets device"}));
}

// Calls that pass different things (a moved model and an unmoved one, or
// nothing known) teach nothing.
TEST(LintFlowParams, CallsThatDisagreeTeachNothing) {
  const Flowed f(
      "import numpy as np\n"
      "import torch\n"
      "def predict(model, x):\n"
      "    return model(torch.from_numpy(x))\n"
      "def main(other):\n"
      "    predict(torch.nn.Linear(4, 2).cuda(), np.zeros((1, 4)))\n"
      "    predict(other, np.zeros((1, 4)))\n"
      "def splat(args):\n"
      "    predict(*args)\n");
  EXPECT_EQ(meetings(f), Lines{});
}

// A loss without parameters computes where it is given: labels left on the
// host meet the model's output on the device.
TEST(LintFlowParams, ALossMeetsHostLabelsAndDeviceOutputsOfAModelPassedIn) {
  const Flowed f(
      "import torch\n"
      "from torch.utils.data import DataLoader\n"
      "def train(net, dataset, device):\n"
      "    loss_func = torch.nn.CrossEntropyLoss()\n"
      "    for images, labels in DataLoader(dataset):\n"
      "        log_probs = net(images.to(device))\n"
      "        loss = loss_func(log_probs, labels)\n"
      "def main(dataset, net, device):\n"
      "    train(net.to(device), dataset, device)\n");
  EXPECT_EQ(meetings(f), (Lines{"7 batch@5 meets device"}));
}

// A method called on an object the flow knows nothing of, where one class
// of the file alone has a method of that name: the call's arguments reach
// it (a replay buffer given device indices); not where two classes have one.
TEST(LintFlowParams, AMethodOnlyOneClassHasIsGivenTheCallsArguments) {
  const std::string code =
      "import numpy as np\n"
      "import torch\n"
      "class Buffer:\n"
      "    def update_priorities(self, idxes):\n"
      "        return np.unique(idxes)\n"
      "def update(buffer, device):\n"
      "    buffer.update_priorities(torch.as_tensor([1, 2], device=device))\n";
  const Flowed one(code);
  ASSERT_EQ(one.flow.numpy_reads().size(), 1U);
  EXPECT_EQ(one.flow.numpy_reads()[0].value.place, Place::kDevice);
  const Flowed two(code +
                   "class Other:\n"
                   "    def update_priorities(self, idxes):\n"
                   "        return np.unique(idxes)\n");
  for (const NumpyRead& read : two.flow.numpy_reads()) {
    EXPECT_NE(read.value.place, Place::kDevice);
  }
}

// A tensor one factory made without device=, passed by every call, reaches
// the parameter: a helper that indexes it with device indices meets them.
TEST(LintFlowParams, AHostFactoryTensorPassedByEveryCallReachesTheParameter) {
  const Flowed f(
      "import torch\n"
      "def gather(table, t):\n"
      "    return table[t]\n"
      "class Schedule:\n"
      "    def __init__(self, n):\n"
      "        self.betas = torch.linspace(1e-4, 0.02, n)\n"
      "    def at(self, t):\n"
      "        return gather(self.betas, t)\n"
      "def step(schedule, device):\n"
      "    t = torch.randint(0, 10, (4,), device=device)\n"
      "    return schedule.at(t)\n");
  EXPECT_EQ(meetings(f), (Lines{"3 factory@6 meets device"}));
}

// Not into a module's method: there the inputs are where the module is,
// and a module left on the CPU takes host tensors.
TEST(LintFlowParams, AHostFactoryTensorDoesNotEnterAModulesMethod) {
  const Flowed f(
      "import torch\n"
      "import torch.nn as nn\n"
      "class Net(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.fc = nn.Linear(1, 1)\n"
      "    def forward(self, x):\n"
      "        return self.fc(x)\n"
      "def run():\n"
      "    model = torch.nn.parallel.DistributedDataParallel(Net())\n"
      "    return model.forward(torch.rand((1,)))\n");
  EXPECT_EQ(meetings(f), Lines{});
}

TEST(LintFlowParams, ADatasetPassedInGivesHostItems) {
  const Flowed f(
      "import torch\n"
      "from torch.utils.data import TensorDataset\n"
      "def evaluate(model, data, device):\n"
      "    for i in range(len(data)):\n"
      "        x, y = data[i]\n"
      "        out = model(x)\n"
      "        ok = model(x.to(device))\n"
      "def main(xs, ys):\n"
      "    model = torch.nn.Linear(4, 2).cuda()\n"
      "    evaluate(model, TensorDataset(xs, ys), 'cuda')\n");
  EXPECT_EQ(meetings(f), (Lines{"6 item@5 meets device"}));
}

// A factory's host tensor a module's method makes and hands to another of
// its methods meets the module's device there, even where forward passes
// that method the module's own values (issue 38, the HGN case); not from
// __init__ (what it keeps so is DC111's), nor another class's method.
TEST(LintFlowParams, AModulesOwnFactoryTensorReachesItsOtherMethod) {
  const Flowed f(
      "import torch\n"
      "import torch.nn as nn\n"
      "class HGN(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.hnn = nn.Linear(4, 1)\n"
      "    def step(self, q, p):\n"
      "        return self.hnn(torch.cat([q, p], dim=1))\n"
      "    def forward(self, z):\n"
      "        q, p = z.chunk(2, dim=1)\n"
      "        return self.step(q, p)\n"
      "    def sample(self):\n"
      "        z = torch.randn(1, 4)\n"
      "        q, p = z.chunk(2, dim=1)\n"
      "        return self.step(q, p)\n");
  EXPECT_EQ(meetings(f), (Lines{"8 factory@13 meets module"}));
  const Flowed near(
      "import torch\n"
      "import torch.nn as nn\n"
      "class HGN(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.hnn = nn.Linear(4, 1)\n"
      "    def step(self, q):\n"
      "        return self.hnn(q)\n"
      "    def sample(self):\n"
      "        return self.step(torch.randn(1, 4, device=self.hnn.weight.device))\n"
      "class Other:\n"
      "    def run(self, hgn):\n"
      "        return hgn.step(torch.randn(1, 4))\n");
  EXPECT_EQ(meetings(near), Lines{});
}

// A plain function of the file that a module's forward gives its values
// and a plain function (a hand-run comparison, a `__main__` check) gives a
// factory's host tensor: the calls differ, so its parameter is unknown and
// the host tensor meets nothing in forward (torchtune's compare_attention:
// `apply_rotary_emb(x, ...)`); a module's own method that hands its factory
// tensor to another of its methods still meets the module's device there.
TEST(LintFlowParams, APlainCallersFactoryTensorDoesNotReachAModulesForward) {
  const Flowed rope(
      "import torch\n"
      "import torch.nn as nn\n"
      "def rotate(x, freqs):\n"
      "    return x * freqs\n"
      "class Attention(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.wq = nn.Linear(8, 8)\n"
      "    def forward(self, x, freqs, mask):\n"
      "        q = rotate(self.wq(x), freqs)\n"
      "        return q + mask\n"
      "def compare(freqs):\n"
      "    x = torch.randn(2, 8)\n"
      "    return rotate(x, freqs)\n");
  EXPECT_EQ(meetings(rope), Lines{});
  const Flowed mixer(
      "import torch\n"
      "import torch.nn as nn\n"
      "def mix(a, b):\n"
      "    return torch.cat([a, b], dim=-1)\n"
      "class Mixer(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.proj = nn.Linear(8, 4)\n"
      "    def forward(self, a, b):\n"
      "        return self.proj(mix(a, b))\n"
      "    def combine(self, a, b):\n"
      "        return self.proj(torch.cat([a, b], dim=-1))\n"
      "    def sample(self):\n"
      "        noise = torch.randn(1, 4)\n"
      "        return self.combine(noise, noise)\n"
      "if __name__ == \"__main__\":\n"
      "    print(mix(torch.ones(1, 4), torch.zeros(1, 4)).shape)\n");
  EXPECT_EQ(meetings(mixer), (Lines{"12 factory@14 meets module"}));
}

TEST(LintFlowParams, AModelAFunctionOfTheFileMovesIsOnTheDeviceAfterTheCall) {
  // train() moves the model it is given in place: evaluate() then gets it
  // on the device. A function that does not move it leaves it where it was.
  const Flowed f(
      "import torch\n"
      "import torch.nn as nn\n"
      "def train(model, device):\n"
      "    model.to(device)\n"
      "def show(model):\n"
      "    print(model)\n"
      "def evaluate(model, x, device):\n"
      "    return model(x.to(device))\n"
      "def main(x):\n"
      "    device = torch.device('cuda')\n"
      "    model = nn.Linear(2, 2)\n"
      "    train(model, device)\n"
      "    evaluate(model, x, device)\n"
      "    other = nn.Linear(2, 2)\n"
      "    show(other)\n"
      "    return other(x.to(device))\n");
  EXPECT_EQ(meetings(f), (Lines{"16 unmoved@14 meets device"}));
}

// A batch handed on whole (`train_step(model, batch, device)`) is a batch
// there: a part left unmoved meets the device. Not where a call hands on
// something else, or the parts are moved.
TEST(LintFlowParams, ABatchHandedToAFunctionIsABatchThere) {
  const Flowed f(
      "import torch\n"
      "import torch.nn.functional as F\n"
      "from torch.utils.data import DataLoader\n"
      "def train_step(model, batch, device):\n"
      "    x, y = batch\n"
      "    return F.cross_entropy(model(x.to(device)), y)\n"
      "def moved_step(model, batch, device):\n"
      "    x, y = batch\n"
      "    return F.cross_entropy(model(x.to(device)), y.to(device))\n"
      "def mixed_step(model, batch, device):\n"
      "    x, y = batch\n"
      "    return F.cross_entropy(model(x.to(device)), y)\n"
      "def main(data, other):\n"
      "    device = torch.device('cuda')\n"
      "    model = torch.nn.Linear(2, 2).to(device)\n"
      "    for batch in DataLoader(data):\n"
      "        train_step(model, batch, device)\n"
      "        moved_step(model, batch, device)\n"
      "        mixed_step(model, batch, device)\n"
      "    mixed_step(model, other, device)\n");
  EXPECT_EQ(meetings(f), (Lines{"6 batch@16 meets device"}));
}

// A batch given to a method of a model on a device (`clf.predict(x)`) meets
// the model's device where the method runs it; not where another call gives
// that method device tensors, nor a model left on the CPU.
TEST(LintFlowParams, ABatchGivenToAMethodOfAModelOnADeviceMeetsItThere) {
  const std::string head =
      "import torch\n"
      "import torch.nn as nn\n"
      "from torch.utils.data import DataLoader\n"
      "class Classifier(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.fc = nn.Linear(4, 2)\n"
      "    def forward(self, x):\n"
      "        return self.fc(x)\n"
      "    def predict(self, x):\n"
      "        return self.forward(x).argmax(1)\n"
      "def main(ds):\n";
  const Flowed f(head +
                 "    clf = Classifier().to('cuda')\n"
                 "    for x, y in DataLoader(ds):\n"
                 "        preds = clf.predict(x)\n");
  EXPECT_EQ(meetings(f), (Lines{"11 batch@14 meets module"}));
  const Flowed both(head +
                    "    clf = Classifier().to('cuda')\n"
                    "    for x, y in DataLoader(ds):\n"
                    "        preds = clf.predict(x)\n"
                    "        again = clf.predict(x.to('cuda'))\n");
  EXPECT_EQ(meetings(both), Lines{});
  const Flowed host(head +
                    "    clf = Classifier()\n"
                    "    for x, y in DataLoader(ds):\n"
                    "        preds = clf.predict(x)\n");
  EXPECT_EQ(meetings(host), Lines{});
}

// A tensor copied to the host to be handed to a helper of the file
// (`nearest(points.cpu(), k)`) is a host copy there, and so is what the
// helper makes of it and returns: it meets the device where it comes back.
TEST(LintFlowParams, AHostCopyHandedToAHelperComesBackOnTheHost) {
  const Flowed f(
      "import torch\n"
      "def nearest(points, k):\n"
      "    d = torch.cdist(points, points)\n"
      "    return d.topk(k, largest=False).indices\n"
      "def main():\n"
      "    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
      "    pts = torch.randn(100, 3, device=device)\n"
      "    idx = nearest(pts.cpu(), 4)\n"
      "    return torch.gather(pts, 0, idx)\n");
  EXPECT_EQ(meetings(f), (Lines{"9 copy@8 meets device"}));
  // Another program: a module's input grouped on the host by a helper that
  // returns two tensors, the groups then masked by the module's scores.
  const Flowed g(
      "import torch\n"
      "import torch.nn as nn\n"
      "def group_ids(ids):\n"
      "    order = ids.argsort()\n"
      "    return ids[order], torch.bincount(ids)\n"
      "class Head(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.score = nn.Linear(8, 1)\n"
      "    def forward(self, x, ids):\n"
      "        keep = self.score(x).squeeze(-1).max(-1).values > 0.5\n"
      "        groups, sizes = group_ids(ids.cpu())\n"
      "        return groups[keep]\n"
      "def run(x, ids):\n"
      "    head = Head().cuda()\n"
      "    return head(x.cuda(), ids.cuda())\n");
  EXPECT_EQ(meetings(g), (Lines{"13 copy@12 meets module"}));
  // Near misses: the helper's result moved back, and a copy handed to a
  // helper whose result stays on the host.
  const Flowed near(
      "import torch\n"
      "def nearest(points, k):\n"
      "    d = torch.cdist(points, points)\n"
      "    return d.topk(k, largest=False).indices\n"
      "def main():\n"
      "    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
      "    pts = torch.randn(100, 3, device=device)\n"
      "    idx = nearest(pts.cpu(), 4).to(device)\n"
      "    near = nearest(pts.cpu(), 2)\n"
      "    print(near + 1)\n"
      "    return torch.gather(pts, 0, idx)\n");
  EXPECT_EQ(meetings(near), Lines{});
}

// A call from within the function's own class or itself (a recursion, a
// method that makes a new object of its class from what it holds) passes
// what the other calls gave: where the flow cannot follow it, the other
// calls decide what the parameter is.
TEST(LintFlowParams, CallsFromWithinTheClassOrTheFunctionLeaveTheOthersHint) {
  const Flowed f(
      "import torch\n"
      "class Boxes:\n"
      "    def __init__(self, t):\n"
      "        self.t = t\n"
      "    def crop(self, keep):\n"
      "        return Boxes(self.t[keep])\n"
      "    def scale(self, f):\n"
      "        return self.t * torch.tensor([f, f, f, f])\n"
      "def main():\n"
      "    b = Boxes(torch.rand(5, 4, device='cuda'))\n"
      "    return b.scale(2.0)\n");
  EXPECT_EQ(meetings(f), (Lines{"8 factory@8 meets device"}));
  const Flowed g(
      "import torch\n"
      "def walk(t, cache, depth):\n"
      "    w = t * torch.linspace(0, 1, t.shape[-1])\n"
      "    if depth > 0:\n"
      "        walk(cache[depth], cache, depth - 1)\n"
      "    return w\n"
      "def main(cache):\n"
      "    return walk(torch.randn(4, 8, device='cuda'), cache, 3)\n");
  EXPECT_EQ(meetings(g), (Lines{"3 factory@3 meets device"}));
  // Near miss: a second call from outside that passes what the flow does
  // not know still leaves nothing known.
  const Flowed near(
      "import torch\n"
      "class Boxes:\n"
      "    def __init__(self, t):\n"
      "        self.t = t\n"
      "    def scale(self, f):\n"
      "        return self.t * torch.tensor([f, f, f, f])\n"
      "def main(loaded):\n"
      "    a = Boxes(torch.rand(5, 4, device='cuda'))\n"
      "    b = Boxes(loaded)\n"
      "    return a.scale(2.0), b.scale(2.0)\n");
  EXPECT_EQ(meetings(near), Lines{});
}

// What is on a module's device, handed from one of its methods to a plain
// function of the file (`penalty(W)`), stays on the module's device there.
TEST(LintFlowParams, TheModulesDeviceCrossesIntoAPlainFunction) {
  const Flowed f(
      "import torch\n"
      "import torch.nn as nn\n"
      "def penalty(w):\n"
      "    return torch.trace(torch.eye(w.shape[-1]) - w @ w)\n"
      "class Net(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.lin = nn.Linear(4, 4)\n"
      "    def loss(self, x):\n"
      "        return penalty(self.lin(x))\n");
  EXPECT_EQ(meetings(f), (Lines{"4 factory@4 meets module"}));
  const Flowed g(
      "import torch\n"
      "import torch.nn as nn\n"
      "def smooth(logits, eps):\n"
      "    uniform = torch.full_like(logits, eps)\n"
      "    prior = torch.ones(logits.shape[-1]) / logits.shape[-1]\n"
      "    return logits * (1 - eps) + uniform + prior\n"
      "class Head(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.fc = nn.Linear(8, 3)\n"
      "    def forward(self, x):\n"
      "        return smooth(self.fc(x), 0.1)\n");
  EXPECT_EQ(meetings(g), (Lines{"6 factory@5 meets module"}));
  // Near miss: the function puts what it makes where its input is.
  const Flowed near(
      "import torch\n"
      "import torch.nn as nn\n"
      "def penalty(w):\n"
      "    return torch.trace(torch.eye(w.shape[-1], device=w.device) - w @ w)\n"
      "class Net(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.lin = nn.Linear(4, 4)\n"
      "    def loss(self, x):\n"
      "        return penalty(self.lin(x))\n");
  EXPECT_EQ(meetings(near), Lines{});
}

// Parameters after `*` or `*args` take keywords: a call that names them
// passes to them; a positional argument never reaches them.
TEST(LintFlowParams, KeywordOnlyParametersTakeWhatTheCallNames) {
  const Flowed after_star(
      "import torch\n"
      "def score(*, pred, target):\n"
      "    return pred - torch.ones(3)\n"
      "def main():\n"
      "    x = torch.randn(3, device='cuda')\n"
      "    score(pred=x, target=x)\n");
  EXPECT_EQ(meetings(after_star), (Lines{"3 factory@3 meets device"}));
  const Flowed after_args(
      "import torch\n"
      "class Head:\n"
      "    def apply(self, *layers, bias):\n"
      "        return bias * torch.zeros(2)\n"
      "def run(device):\n"
      "    h = Head()\n"
      "    h.apply(1, 2, bias=torch.ones(2, device=device))\n");
  EXPECT_EQ(meetings(after_args), (Lines{"4 factory@4 meets device"}));
  const Flowed positional_only_reach(
      "import torch\n"
      "def score(a, *, target=None):\n"
      "    return target - torch.ones(3)\n"
      "def main():\n"
      "    x = torch.randn(3, device='cuda')\n"
      "    score(x)\n");
  EXPECT_EQ(meetings(positional_only_reach), (Lines{}));
}

TEST(LintFlowParams, AnInputBesideOneTheFunctionMovesComesFromTheHost) {
  const Flowed f(
      "import torch\n"
      "def step(model, x, target, device):\n"
      "    out = model(x.to(device))\n"
      "    return torch.nn.functional.mse_loss(out, target)\n"
      "def apply(values, weights):\n"
      "    values = values.cuda()\n"
      "    return torch.stack([values, weights.float()])\n"
      "def given(values, weights):\n"
      "    values = values.cuda()\n"
      "    return torch.stack([values, weights.float()])\n"
      "given(torch.ones(2), torch.ones(2))\n");
  // (given() is run by the module's code, first.)
  EXPECT_EQ(meetings(f), (Lines{"10 factory@11 meets device", "4 input@2 meets device",
                                "7 input@5 meets device"}));
}

// Calls that pass host tensors of two origins (two factories) leave the
// parameter on the host all the same: what the function makes where it is
// (`device=t.device`) is on the host too, and meets nothing there. Where a
// call passes a tensor on a device, the place stays unknown.
TEST(LintFlowParams, HostTensorsOfTwoFactoriesLeaveTheParameterOnTheHost) {
  const std::string sinc =
      "import torch\n"
      "def sinc(t):\n"
      "    one = torch.ones(t.shape, device=t.device)\n"
      "    return torch.where(t == 0, one, torch.sin(t) / t)\n"
      "def kernel_a(n):\n"
      "    w = torch.hann_window(n)\n"
      "    return sinc(torch.linspace(-1, 1, n)) * w\n"
      "def kernel_b(n):\n"
      "    w = torch.hann_window(n)\n";
  EXPECT_EQ(meetings(Flowed(sinc + "    return sinc(torch.arange(n).float()) * w\n")), Lines{});
  EXPECT_EQ(meetings(Flowed(sinc + "    return sinc(torch.arange(n, device='cuda')) * w\n")),
            (Lines{"7 factory@6 meets device", "10 factory@9 meets device"}));
  const Flowed scale(
      "import torch\n"
      "def scale(x):\n"
      "    s = torch.full((x.shape[0],), 2.0, device=x.device)\n"
      "    return x * s\n"
      "a = scale(torch.randn(4)) + torch.ones(4)\n"
      "b = scale(torch.rand(4))\n");
  EXPECT_EQ(meetings(scale), Lines{});
}

}  // namespace
}  // namespace devcheck::lint::detail
