// Functions defined inside functions (src/lint/flow/closures.cc): run from
// the function around them, they read its names as they are at the call.
#include <gtest/gtest.h>

#include "flow_testing.h"

namespace devcheck::lint::detail {
namespace {
using testing::Flowed;
using testing::Lines;
using testing::meetings;

TEST(LintFlowClosures, ANestedFunctionReadsTheNamesAroundItAtTheCall) {
  // An attack's loss helper indexes a host identity matrix with the labels
  // the function around it moved to the GPU.
  const Flowed f(
      "import torch\n"
      "def attack(model, images, labels, device):\n"
      "    images = images.to(device)\n"
      "    labels = labels.to(device)\n"
      "    def f(x):\n"
      "        outputs = model(x)\n"
      "        return torch.eye(10)[labels] * outputs\n"
      "    return f(images)\n");
  EXPECT_EQ(meetings(f), (Lines{"7 factory@7 meets device"}));
}

TEST(LintFlowClosures, NamesStillOnTheHostAtTheCallMeetNothing) {
  // The labels are moved after the call (and the helper of the same name at
  // the top level is another function).
  const Flowed f(
      "import torch\n"
      "def f(x):\n"
      "    return x\n"
      "def attack(images, labels, device):\n"
      "    def f(x):\n"
      "        return torch.eye(10)[labels] + x\n"
      "    out = f(images)\n"
      "    labels = labels.to(device)\n"
      "    return out, labels\n");
  EXPECT_EQ(meetings(f), Lines{});
}

// A function a function (or a method of a plain class) defines and
// returns is called where the call's result is (`loss_fn =
// PairLoss().build()`, then `loss_fn(out, out)`): its parameters take what
// that call passes. The method is its instance's class's, where two classes
// have one of that name.
TEST(LintFlowClosures, AReturnedFunctionIsCalledWithTheArgumentsGivenToIt) {
  const Flowed pair(
      "import torch\n"
      "import torch.nn as nn\n"
      "class PairLoss:\n"
      "    def build(self):\n"
      "        def loss(a, b):\n"
      "            mask = torch.eye(a.shape[0])\n"
      "            return (a @ b.t() * mask).sum()\n"
      "        return loss\n"
      "class OtherLoss:\n"
      "    def build(self):\n"
      "        return None\n"
      "def train(batches):\n"
      "    net = nn.Linear(4, 4).to('cuda')\n"
      "    loss_fn = PairLoss().build()\n"
      "    for x in batches:\n"
      "        out = net(x.to('cuda'))\n"
      "        loss_fn(out, out)\n");
  EXPECT_EQ(meetings(pair), (Lines{"7 factory@6 meets device"}));
  const Flowed scaled(
      "import torch\n"
      "def make_scaler(n):\n"
      "    def scale(x):\n"
      "        return x * torch.linspace(0, 1, n)\n"
      "    return scale\n"
      "scaler = make_scaler(8)\n"
      "y = scaler(torch.ones(8, device='cuda'))\n");
  EXPECT_EQ(meetings(scaled), (Lines{"4 factory@4 meets device"}));
  // Near miss: called with host tensors only.
  const Flowed host(
      "import torch\n"
      "def make_scaler(n):\n"
      "    def scale(x):\n"
      "        return x * torch.linspace(0, 1, n)\n"
      "    return scale\n"
      "scaler = make_scaler(8)\n"
      "y = scaler(torch.ones(8))\n");
  EXPECT_EQ(meetings(host), Lines{});
}

}  // namespace
}  // namespace devcheck::lint::detail
