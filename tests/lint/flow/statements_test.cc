// The flow's statements (src/lint/flow/statements.cc): names in order,
// branches, loops, moves as statements.

#include <gtest/gtest.h>

#include "flow_testing.h"

namespace devcheck::lint::detail {
namespace {
using testing::Flowed;
using testing::Lines;
using testing::meetings;

TEST(LintFlowStatements, FollowsNamesInOrderThroughMovesAndRebinding) {
  const Flowed f(
      "import torch\n"
      "def step(x, device):\n"
      "    noise = torch.randn(3)\n"
      "    a = x.to(device) + noise\n"
      "    noise = noise.to(device)\n"
      "    b = x.to(device) + noise\n"
      "    return a, b\n");
  EXPECT_EQ(meetings(f), (Lines{"4 factory@3 meets device"}));
}

TEST(LintFlowStatements, JoinsBranchesAndKeepsWhatOneWayKnows) {
  const Flowed f(
      "import torch\n"
      "def moved_on_one_way(x, cuda):\n"
      "    m = torch.ones(3)\n"
      "    if cuda:\n"
      "        m = m.cuda()\n"
      "    return x.cuda() * m\n"
      "def made_on_one_way(x, h=None):\n"
      "    if h is None:\n"
      "        h = torch.zeros(3)\n"
      "    return x.cuda() * h\n"
      "def both_ways(x, cuda):\n"
      "    if cuda:\n"
      "        m = torch.ones(3, device='cuda')\n"
      "    else:\n"
      "        m = torch.ones(3)\n"
      "    return x.cuda() * m\n");
  EXPECT_EQ(meetings(f), (Lines{"10 factory@9 meets device"}));
}

TEST(LintFlowStatements, RunsLoopsOnceAndBindsLoaderBatches) {
  const Flowed f(
      "import torch\n"
      "from torch.utils.data import DataLoader\n"
      "model = torch.nn.Linear(2, 2).cuda()\n"
      "h = torch.zeros(2)\n"
      "for i, (x, y) in enumerate(DataLoader(data)):\n"
      "    out = model(x.cuda())\n"
      "    out = out + h\n"
      "    h = out.detach()\n"
      "    bad = out - y\n");
  EXPECT_EQ(meetings(f), (Lines{"7 factory@4 meets device", "9 batch@5 meets device"}));
}

TEST(LintFlowStatements, RecordsMovesAsStatementsOrNot) {
  const Flowed f(
      "import torch\n"
      "def f(x, y, device):\n"
      "    x.to(device)\n"
      "    y = y.cuda(non_blocking=True)\n"
      "    z = y.to(torch.float16)\n");
  const auto& moves = f.flow.moves();
  ASSERT_EQ(moves.size(), 3U);
  EXPECT_TRUE(moves[0].statement);
  EXPECT_EQ(moves[0].target, Place::kDevice);
  EXPECT_FALSE(moves[1].statement);
  EXPECT_TRUE(moves[1].non_blocking);
  EXPECT_EQ(moves[2].target, Place::kDevice);
  EXPECT_TRUE(f.flow.module_input(0, "x") == false);
}

// A model's output iterated row by row and unpacked (`*box, conf, cls`):
// the parts are where the output is, and a list of lists of them given to
// np.array is read on the device; the same rows copied with .cpu() are not.
TEST(LintFlowStatements, RowsOfADeviceOutputUnpackedIntoListsStayOnTheDevice) {
  const Flowed f(
      "import numpy as np\n"
      "def to_target(output):\n"
      "    targets = []\n"
      "    for i, o in enumerate(output):\n"
      "        for *box, conf, cls in o:\n"
      "            targets.append([i, cls, *box, conf])\n"
      "    return np.array(targets)\n"
      "def to_host(output):\n"
      "    rows = []\n"
      "    for *box, conf in output:\n"
      "        rows.append([conf.cpu()])\n"
      "    return np.array(rows)\n"
      "def test(model, img, device):\n"
      "    output = model(img.to(device))\n"
      "    to_target(output)\n"
      "    to_host(output)\n");
  // Only reads of device values are recorded.
  ASSERT_EQ(f.flow.numpy_reads().size(), 1U);
  EXPECT_EQ(testing::line(f.flow.numpy_reads()[0].call), 7);
  EXPECT_EQ(f.flow.numpy_reads()[0].value.place, Place::kDevice);
}

// A forward's inputs zipped and iterated (lengths per sample) are where the
// module is, down a static method they are handed to: a grid made there
// with arange meets them.
TEST(LintFlowStatements, ElementsOfZippedInputsStayOnTheModulesDevice) {
  const Flowed f(
      "import torch\n"
      "import torch.nn as nn\n"
      "class Loss(nn.Module):\n"
      "    def masks(self, ilens, olens):\n"
      "        for idx, (ilen, olen) in enumerate(zip(ilens, olens)):\n"
      "            self.mask(ilen, olen)\n"
      "    @staticmethod\n"
      "    def mask(ilen, olen):\n"
      "        grid = torch.arange(olen).float()\n"
      "        return grid / ilen\n"
      "    def forward(self, att, ilens, olens):\n"
      "        return self.masks(ilens, olens)\n");
  EXPECT_EQ(meetings(f), (Lines{"10 factory@9 meets module"}));
}

TEST(LintFlowStatements, AValueMovedToADeviceOnOneWayIsOnItAfterTheBranch) {
  // `if args.cuda: model.cuda()`: when the move ran, what meets the model
  // after the branch meets it on the device (mlcommons/inference#95).
  const Flowed f(
      "import torch\n"
      "def run(model_cls, x, cuda):\n"
      "    model = model_cls()\n"
      "    h = torch.zeros(3)\n"
      "    if cuda:\n"
      "        h = h.cuda()\n"
      "    a = h + torch.ones(3)\n"
      "def back(x):\n"
      "    x = x.cuda()\n"
      "    if x.is_cuda:\n"
      "        x = x.cpu()\n"
      "    return x + torch.ones(3)\n"
      "def elif_way(cuda, mps):\n"
      "    h = torch.zeros(3)\n"
      "    if cuda:\n"
      "        h = h.cuda()\n"
      "    elif mps:\n"
      "        h = h.to('mps')\n"
      "    return h + torch.ones(3)\n");
  EXPECT_EQ(meetings(f), (Lines{"7 factory@7 meets device"}));
}

TEST(LintFlowStatements, AssigningDataMovesTheTensor) {
  const Flowed f(
      "import torch\n"
      "def f(rnn):\n"
      "    rnn.cuda()\n"
      "    x = torch.rand(3, 2, 100)\n"
      "    x.data = x.data.cuda()\n"
      "    y = torch.rand(3)\n"
      "    a = x * torch.ones(3)\n"
      "    return rnn(x)\n");
  EXPECT_EQ(meetings(f), (Lines{"7 factory@7 meets device"}));
}

// `total = 0`, then `total += loss` in a loop: a number plus a tensor is a
// tensor where that one is (jokermask/SANet#4: np.sqrt of the sum).
TEST(LintFlowStatements, ANumberAccumulatingTensorsIsWhereTheyAre) {
  const Flowed f(
      "import numpy as np\n"
      "def validate(loader, model):\n"
      "    mse = 0\n"
      "    count = 0\n"
      "    for img, target in loader:\n"
      "        err = model(img.cuda()).sum() - target.cuda().sum()\n"
      "        mse += err * err\n"
      "        count += err.item()\n"
      "    return np.sqrt(mse), np.sqrt(count)\n");
  EXPECT_EQ(testing::numpy_reads(f), (Lines{"9 device"}));
}

// `self.save_hyperparameters()` in a module's __init__ keeps each argument
// in `self.hparams.<name>`: a host tensor there is an attribute.
TEST(LintFlowStatements, SaveHyperparametersKeepsTheArgumentsAsAttributes) {
  const Flowed f(
      "import torch\n"
      "class Loss(torch.nn.Module):\n"
      "    def __init__(self, pos_weight=None, alpha=0.5):\n"
      "        super().__init__()\n"
      "        pos_weight = torch.ones(1)\n"
      "        self.save_hyperparameters()\n");
  std::vector<std::string> names;
  for (const AttributeSet& set : f.flow.attributes()) {
    names.push_back(std::string(set.name) + "@" + std::to_string(testing::line(set.value)));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"self.hparams.pos_weight@5"}));
}

// A loop over what the flow does not know (a parameter `dl`, `data`) whose
// body moves what it binds to a device: the batches come from the host, and
// a part left unmoved meets the device. Not a loop over a method's result
// (`d.items()`), nor one whose moves are to a dtype or the CPU.
TEST(LintFlowStatements, ALoopThatMovesWhatItBindsIteratesHostBatches) {
  const Flowed f(
      "import torch\n"
      "import torch.nn.functional as F\n"
      "def train_one_epoch(model, dl, device):\n"
      "    for x, y in dl:\n"
      "        x = x.to(device)\n"
      "        loss = F.cross_entropy(model(x), y)\n"
      "    for i, batch in enumerate(dl):\n"
      "        out = model(batch['x'].cuda())\n"
      "        loss = F.cross_entropy(out, batch['y'])\n"
      "def near_misses(model, dl, state, device):\n"
      "    for x, y in dl:\n"
      "        x, y = x.to(device), y.to(device)\n"
      "        loss = F.cross_entropy(model(x), y)\n"
      "    for k, v in state.items():\n"
      "        w = v.to(device) * k\n"
      "    w = torch.ones(2, device=device)\n"
      "    for x, y in dl:\n"
      "        x = x.to(torch.float32)\n"
      "        z = w - y\n"
      "    for x, y in dl:\n"
      "        x = x.to('cpu')\n"
      "        z = w - y\n");
  EXPECT_EQ(meetings(f), (Lines{"6 batch@4 meets device", "9 batch@7 meets device"}));
  // Accelerate's prepared loaders put their batches on the device already.
  const Flowed prepared(
      "import torch.nn.functional as F\n"
      "from accelerate import Accelerator\n"
      "def train(model, dl, accelerator):\n"
      "    for x, y in dl:\n"
      "        x = x.to(accelerator.device)\n"
      "        loss = F.cross_entropy(model(x), y)\n");
  EXPECT_EQ(meetings(prepared), Lines{});
}

// `outs[key] = model(x)` into a dict the flow follows: reading it back gives
// what was put there, as after `outs.append(...)`.
TEST(LintFlowStatements, ADictFilledByKeyHoldsWhatWasPutThere) {
  const Flowed f(
      "import numpy as np\n"
      "import torch\n"
      "model = torch.nn.Linear(2, 2).cuda()\n"
      "def run(x):\n"
      "    results = {}\n"
      "    results['pred'] = model(x.cuda())\n"
      "    a = np.array(results['pred'])\n"
      "    kept = {}\n"
      "    kept['pred'] = model(x.cuda()).cpu()\n"
      "    return np.array(kept['pred'])\n");
  EXPECT_EQ(testing::numpy_reads(f), (Lines{"7 device"}));
}

// `ys, ps = [], []` makes two lists to fill, as `ps = []` does: what is
// appended is followed to the metric that reads them with NumPy.
TEST(LintFlowStatements, EmptyListsMadeTogetherAreFilledAsOnesMadeAlone) {
  const Flowed f(
      "import torch\n"
      "from sklearn.metrics import roc_auc_score\n"
      "def evaluate(model, loader, device):\n"
      "    ys, ps = [], []\n"
      "    for x, y in loader:\n"
      "        ps.append(torch.sigmoid(model(x.to(device))))\n"
      "        ys.append(y)\n"
      "    return roc_auc_score(torch.cat(ys), torch.cat(ps))\n"
      "def main(ds):\n"
      "    device = torch.device('cuda')\n"
      "    evaluate(torch.nn.Linear(2, 2).to(device), ds, device)\n");
  EXPECT_EQ(testing::numpy_reads(f), (Lines{"8 device"}));
}

// What the loop's body unpacks what it binds into (`x, y = batch`) counts
// as what it binds; a move in a loop inside the body (one part at a time of
// something else) does not.
TEST(LintFlowStatements, ALoopsBatchUnpackedInItsBodyIsStillItsBatch) {
  const Flowed f(
      "import torch\n"
      "import torch.nn.functional as F\n"
      "def train(model, dl, device):\n"
      "    for batch in dl:\n"
      "        x, y = batch\n"
      "        loss = F.cross_entropy(model(x.to(device)), y)\n"
      "def gather(data, w):\n"
      "    for rank_data in data:\n"
      "        parts = rank_data[1]\n"
      "        for i in range(len(parts)):\n"
      "            w.add_(parts[i].to(w.device))\n"
      "        z = w.cuda() - parts\n");
  EXPECT_EQ(meetings(f), (Lines{"6 batch@4 meets device"}));
}

// After an `if`/`else` where one way makes a host tensor and the other a
// tensor the flow cannot place, the host one meets the device when that
// way ran (a may-analysis for the host side of a meeting).
TEST(LintFlowStatements, AHostTensorMadeOnOneWayMeetsTheDeviceAfterTheJoin) {
  const Flowed f(
      "import torch\n"
      "def scale(boxes, sizes):\n"
      "    if isinstance(sizes, list):\n"
      "        h = torch.Tensor([s[0] for s in sizes])\n"
      "    else:\n"
      "        h, w = sizes.unbind(1)\n"
      "    return boxes * h[:, None]\n"
      "def main(model, x):\n"
      "    model = model.cuda()\n"
      "    scale(model(x.cuda()), [(4, 4)])\n");
  EXPECT_EQ(meetings(f), (Lines{"7 factory@4 meets device"}));
  // Another program: a conditional expression, then a torch function.
  const Flowed g(
      "import torch\n"
      "def pad_to(x, n, fill):\n"
      "    pad = torch.full((n,), 0.0) if fill is None else torch.as_tensor(fill).expand(n)\n"
      "    return torch.cat([x, pad])\n"
      "def main():\n"
      "    x = torch.randn(5, device='cuda')\n"
      "    return pad_to(x, 3, None)\n");
  EXPECT_EQ(meetings(g), (Lines{"4 factory@3 meets device"}));
  // Near misses: the host way placed by device=, and a way that moves it.
  const Flowed near(
      "import torch\n"
      "def scale(boxes, sizes):\n"
      "    if isinstance(sizes, list):\n"
      "        h = torch.Tensor([s[0] for s in sizes]).to(boxes.device)\n"
      "    else:\n"
      "        h, w = sizes.unbind(1)\n"
      "    return boxes * h[:, None]\n"
      "def pad_to(x, n, fill):\n"
      "    pad = torch.full((n,), 0.0, device=x.device) if fill is None else "
      "torch.as_tensor(fill)\n"
      "    return torch.cat([x, pad])\n"
      "def main(model, x):\n"
      "    model = model.cuda()\n"
      "    scale(model(x.cuda()), [(4, 4)])\n"
      "    return pad_to(torch.randn(5, device='cuda'), 3, None)\n");
  EXPECT_EQ(meetings(near), Lines{});
}

// register_buffer in __init__ of a class whose base is imported (pyro's
// TransformModule): read there, the buffer is where its value is, since
// nothing has moved the module yet; in its other methods, on the module's
// device, where a host factory meets it.
TEST(LintFlowStatements, ABufferReadInInitIsWhereItWasMade) {
  const Flowed polynomial(
      "import torch\n"
      "from pyro.distributions.torch_transform import TransformModule\n"
      "class Polynomial(TransformModule):\n"
      "    def __init__(self, degree):\n"
      "        super().__init__()\n"
      "        powers = torch.arange(1, degree + 2, dtype=torch.float32)\n"
      "        self.register_buffer('powers', powers)\n"
      "        mask = self.powers + torch.arange(degree + 1).unsqueeze(-1).type_as(powers)\n"
      "        self.register_buffer('mask', mask)\n"
      "    def forward(self, x):\n"
      "        return x * self.mask + torch.arange(3)\n");
  EXPECT_EQ(meetings(polynomial), (Lines{"11 factory@11 meets module"}));
  const Flowed table(
      "import torch\n"
      "class Table(Base):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.register_buffer('steps', torch.linspace(0, 1, n))\n"
      "        self.edges = self.steps * torch.ones(n)\n"
      "    def lookup(self, t):\n"
      "        return self.steps * torch.ones(4)\n");
  EXPECT_EQ(meetings(table), (Lines{"8 factory@8 meets module"}));
}

// In a loop, `if first: ... else: ...` where `first` is set True before the
// loop and False only in the `if`'s block: the else runs on a later turn,
// after that block replaced the placeholders (speechbrain's Tacotron2
// inference, seed 53). A flag set False anywhere else, or set before the
// loop and never cleared, tells nothing: the placeholder meets the device.
TEST(LintFlowStatements, TheElseOfAFirstTurnsFlagRunsAfterItsBlock) {
  const Flowed decode(
      "import torch\n"
      "def infer(step, x):\n"
      "    x = x.cuda()\n"
      "    outs, gates = torch.zeros(1), torch.zeros(1)\n"
      "    first = True\n"
      "    while True:\n"
      "        out, gate = step(x)\n"
      "        if first:\n"
      "            outs = out.unsqueeze(0)\n"
      "            gates = gate\n"
      "            first = False\n"
      "        else:\n"
      "            outs = torch.cat((outs, out.unsqueeze(0)), dim=0)\n"
      "            gates = torch.cat((gates, gate), dim=0)\n"
      "        if gate.max() > 0.5:\n"
      "            break\n"
      "    return outs, gates\n");
  EXPECT_EQ(meetings(decode), (Lines{}));
  const Flowed collect(
      "import torch\n"
      "def collect(model, loader):\n"
      "    model = model.cuda()\n"
      "    acc = torch.empty(0)\n"
      "    start = True\n"
      "    for b in loader:\n"
      "        y = model(b.cuda())\n"
      "        if start:\n"
      "            start = False\n"
      "            acc = y\n"
      "        else:\n"
      "            acc = acc + y\n"
      "    return acc\n");
  EXPECT_EQ(meetings(collect), (Lines{}));
  const Flowed cleared_elsewhere(
      "import torch\n"
      "def infer(step, x, reset):\n"
      "    x = x.cuda()\n"
      "    outs = torch.zeros(1)\n"
      "    first = True\n"
      "    if reset:\n"
      "        first = False\n"
      "    for _ in range(4):\n"
      "        out = step(x)\n"
      "        if first:\n"
      "            outs = out\n"
      "        else:\n"
      "            outs = torch.cat((outs, out))\n"
      "    return outs\n");
  EXPECT_EQ(meetings(cleared_elsewhere), (Lines{"13 factory@4 meets device"}));
  // The other way round: `start = False` before the loop, `start = True` in
  // an elif that replaces the placeholder: the `if start:` block runs after
  // it (MONAI's DiNTS). After the loop, the placeholder is still what a loop
  // that never set the flag leaves: it meets the device there.
  const Flowed dints(
      "import torch\n"
      "def decode(ups, outputs, active, final):\n"
      "    final = final.cuda()\n"
      "    start = False\n"
      "    temp = torch.empty(0)\n"
      "    for i in range(3):\n"
      "        up = ups[i].cuda()\n"
      "        if start:\n"
      "            temp = up(outputs[i].cuda() + temp)\n"
      "        elif active[i]:\n"
      "            start = True\n"
      "            temp = up(outputs[i].cuda())\n"
      "    return final(temp)\n");
  EXPECT_EQ(meetings(dints), (Lines{"13 factory@5 meets device"}));
}

}  // namespace
}  // namespace devcheck::lint::detail
