// The flow's methods of values (src/lint/flow/methods.cc): a tensor's
// methods that need their arguments where the tensor is.
#include <gtest/gtest.h>

#include "flow_testing.h"

namespace devcheck::lint::detail {
namespace {
using testing::Flowed;
using testing::Lines;
using testing::meetings;

// index_select (and the other methods given an index or a mask) needs the
// index where the tensor is; plain indexing `x[index]` takes a host index.
TEST(LintFlowCalls, AHostIndexGivenToIndexSelectOfADeviceTensorMeetsIt) {
  const Flowed f(
      "import torch\n"
      "def reverse(var, dim):\n"
      "    index = torch.arange(var.size(dim) - 1, -1, -1).long()\n"
      "    rows = var[index]\n"
      "    return var.index_select(dim, index)\n"
      "def main():\n"
      "    reverse(torch.randn(4, 5, device='cuda'), 1)\n");
  EXPECT_EQ(meetings(f), (Lines{"5 factory@3 meets device"}));
}

// A module's state_dict() holds tensors where it is; what is on a device and
// has a module's methods (`model.cuda().eval()`) is a module.
TEST(LintFlowMethods, StateDictAndEvalOfAModelOnADevice) {
  const Flowed f(
      "import torch\n"
      "def f(model, other):\n"
      "    model = model.cuda().eval()\n"
      "    a = model.state_dict()['w'].numpy()\n"
      "    b = other.state_dict()['w'].numpy()\n");
  ASSERT_EQ(f.flow.numpy_reads().size(), 2U);
  EXPECT_EQ(f.flow.numpy_reads()[0].value.place, Place::kDevice);
  EXPECT_EQ(f.flow.numpy_reads()[0].value.kind, Kind::kTensor);
  EXPECT_EQ(f.flow.numpy_reads()[1].value.place, Place::kUnknown);
}

// A Hugging Face model's generate() runs its forward on what it is given: a
// tokenizer's mask left on the host meets a model on a device there (issue
// 38's tuning half: databrickslabs/dolly#180); the ids moved, or a model on
// the host, meet nothing.
TEST(LintFlowMethods, GenerateOfAModelOnADeviceMeetsHostInputs) {
  const Flowed f(
      "import torch\n"
      "def run(model, tokenizer, prompt):\n"
      "    model = model.to('cuda')\n"
      "    inputs = tokenizer(prompt, return_tensors='pt')\n"
      "    ids = inputs['input_ids'].to('cuda')\n"
      "    mask = inputs['attention_mask']\n"
      "    out = model.generate(input_ids=ids, attention_mask=mask)\n"
      "    return model.generate(input_ids=ids)\n"
      "def cpu(model, tokenizer, prompt):\n"
      "    inputs = tokenizer(prompt, return_tensors='pt')\n"
      "    return model.generate(**inputs)\n");
  EXPECT_EQ(meetings(f), (Lines{"7 batch@4 meets device"}));
}

// A model of the file whose forward returns a tuple: each part is where the
// model's output is, but a number forward takes out of a tensor (`.item()`)
// is no tensor (wengong-jin/hgraph2graph#35: NumPy of the parts).
TEST(LintFlowMethods, ThePartsOfAModelsTupleAreWhatItsForwardReturns) {
  const Flowed f(
      "import numpy as np\n"
      "import torch.nn as nn\n"
      "class VAE(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.lin = nn.Linear(4, 4)\n"
      "    def forward(self, x):\n"
      "        y = self.lin(x)\n"
      "        kl = y.sum()\n"
      "        return y, kl.item(), (y > 0).float().mean()\n"
      "model = VAE().cuda()\n"
      "def step(x):\n"
      "    loss, kl, acc = model(x.cuda())\n"
      "    a = np.array([kl, loss.item()])\n"
      "    b = np.array([kl, acc * 100])\n"
      "    c = np.array([kl, acc.cpu() * 100])\n");
  EXPECT_EQ(testing::numpy_reads(f), (Lines{"15 device"}));
}

// `net.eval().cuda()` moves `net` itself: eval() and train() return it.
TEST(LintFlowMethods, AMoveOfWhatEvalReturnsMovesTheModule) {
  const Flowed f(
      "import numpy as np\n"
      "import torch\n"
      "import torch.nn as nn\n"
      "class Net(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.conv = nn.Conv2d(3, 3, 1)\n"
      "    def forward(self, x):\n"
      "        return self.conv(x)\n"
      "def track(x):\n"
      "    net = Net()\n"
      "    net.eval().cuda()\n"
      "    out = net(torch.Tensor(x).cuda())\n"
      "    return np.argmax(out)\n"
      "def host(x):\n"
      "    net = Net()\n"
      "    net.eval()\n"
      "    return np.argmax(net(torch.Tensor(x)))\n");
  EXPECT_EQ(testing::numpy_reads(f), (Lines{"14 device"}));
  EXPECT_EQ(meetings(f), (Lines{}));
}

// A container's modules moved one by one in place (`nets[k].to(device)`,
// `for m in models: m.to(device)`) are on the device after; not moved, they
// are models never moved.
TEST(LintFlowMethods, AContainersModulesMovedInPlaceAreOnTheDevice) {
  const std::string head =
      "import torch\n"
      "import torch.nn as nn\n"
      "def main(x, device):\n"
      "    nets = {'a': nn.Linear(2, 2), 'b': nn.Linear(2, 2)}\n"
      "    models = [nn.Linear(2, 2), nn.Linear(2, 2)]\n";
  const std::string use =
      "    a = nets['a'](x.to(device))\n"
      "    return models[0](x.to(device))\n";
  EXPECT_EQ(meetings(Flowed(head + use)).size(), 2U);
  EXPECT_EQ(meetings(Flowed(head +
                            "    for k in nets:\n"
                            "        nets[k].to(device)\n"
                            "    for m in models:\n"
                            "        m.to(device)\n" +
                            use)),
            Lines{});
}

// `model = net`, then `model.to(device)`: `net` is the same module, on the
// device after; a module built apart is not.
TEST(LintFlowMethods, AMoveOfAnAliasMovesTheModuleItNames) {
  const Flowed f(
      "import torch\n"
      "def main(x, device):\n"
      "    net = torch.nn.Linear(2, 2)\n"
      "    other = torch.nn.Linear(2, 2)\n"
      "    model = net\n"
      "    model.to(device)\n"
      "    a = net(x.to(device))\n"
      "    return other(x.to(device))\n");
  EXPECT_EQ(meetings(f), (Lines{"8 unmoved@4 meets device"}));
}

}  // namespace
}  // namespace devcheck::lint::detail
