#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

TEST(LintDC102, FindsADiscardedTensorMoveAndFixesIt) {
  const std::string source =
      "import torch\n"
      "import torch.nn as nn\n"
      "x = torch.zeros(3)\n"
      "x.cuda()\n"
      "model = nn.Linear(3, 3)\n"
      "model.to('cuda')\n"
      "y = torch.ones(3)\n"
      "y = y.cuda()\n"
      "z.cuda()\n";
  EXPECT_EQ(found(source, "DC102"), (Lines{"4 DC102"}));
  const Finding f = only(source, "DC102");
  EXPECT_NE(f.message.find("write x = x.cuda()"), std::string::npos) << f.message;
  ASSERT_TRUE(f.fix.has_value());
  const std::string fixed = apply_fixes(source, {f});
  EXPECT_NE(fixed.find("\nx = x.cuda()\n"), std::string::npos) << fixed;
  EXPECT_EQ(found(fixed, "DC102"), Lines{});
}

TEST(LintDC102, KnowsModulesOfThisFileAndSelfAttributes) {
  const std::string source =
      "import torch\n"
      "from torch import nn\n"
      "class Net(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.fc = nn.Linear(2, 2)\n"
      "        self.scale = torch.ones(2)\n"
      "    def move(self):\n"
      "        self.fc.cuda()\n"
      "        self.scale.cuda()\n"
      "net = Net()\n"
      "net.to('cuda')\n";
  EXPECT_EQ(found(source, "DC102"), (Lines{"10 DC102"}));
}

// The first pitfall: a parameter moved and dropped, then given to a
// model (so a tensor, not a module); a module-level name moved again later.
TEST(LintDC102, FindsAParameterUsedAsATensorAndANameMovedAgainLater) {
  const std::string source =
      "import torch\n"
      "def step(model, x, device):\n"
      "    model.to(device)\n"
      "    x.to(device)\n"
      "    return model(x)\n"
      "def shape_only(x, device):\n"
      "    x.to(device)\n"
      "    return x.shape[0]\n"
      "def unknown(thing, device):\n"
      "    thing.to(device)\n"
      "    return thing\n"
      "def module(net, device):\n"
      "    net.to(device)\n"
      "    return net(torch.ones(2)), net.parameters()\n"
      "x = torch.zeros(3)\n"
      "x.cuda()\n"
      "x = x.cuda()\n";
  EXPECT_EQ(found(source, "DC102"), (Lines{"4 DC102", "7 DC102", "16 DC102"}));
  EXPECT_EQ(
      only("import torch\ndef f(m, x, d):\n    m.to(d)\n    x.to(d)\n    return m(x)\n", "DC102")
          .message,
      "x.to(...) returns a moved copy and this discards it: tensors do not move in place; "
      "write x = x.to(d)");
}

// A tokenizer's tensors (return_tensors="pt") are a dict whose .to() moves in
// place; its elements are tensors.
TEST(LintDC102, KnowsATokenizersOutputAndItsTensors) {
  const std::string source =
      "def generate(tokenizer, model, prompt, device):\n"
      "    inputs = tokenizer(prompt, return_tensors='pt')\n"
      "    inputs.to(device)\n"
      "    inputs['input_ids'].to(device)\n"
      "    return model.generate(**inputs)\n";
  EXPECT_EQ(found(source, "DC102"), (Lines{"4 DC102"}));
}

// A loop over what a class annotation says holds tensors moves copies and
// drops them: found; not over modules, nor over a mapping's keys, nor where
// the class says nothing.
TEST(LintDC102, FindsMovesDroppedInALoopOverAnnotatedTensors) {
  const std::string property =
      "from typing import Optional, Tuple\n"
      "import torch\n"
      "class Mixin:\n"
      "    _inputs: Optional[Tuple[torch.Tensor, ...]]\n"
      "    @property\n"
      "    def inputs(self):\n"
      "        for t in self._inputs:\n"
      "            t.to(self.device)\n"
      "        return self._inputs\n";
  EXPECT_EQ(found(property, "DC102"), (Lines{"8 DC102"}));
  EXPECT_NE(only(property, "DC102").message.find("self._inputs keeps the unmoved ones"),
            std::string::npos);
  const std::string list =
      "from typing import List\n"
      "from torch import Tensor\n"
      "class Buffer:\n"
      "    states: List[Tensor]\n"
      "    def __init__(self):\n"
      "        self.states = []\n"
      "    def to(self, device):\n"
      "        for s in self.states:\n"
      "            s.cuda()\n"
      "        return self\n";
  EXPECT_EQ(found(list, "DC102"), (Lines{"9 DC102"}));
  const std::string near_misses =
      "from typing import Dict, List\n"
      "import torch\n"
      "import torch.nn as nn\n"
      "class Holder:\n"
      "    layers: List[nn.Module]\n"
      "    named: Dict[str, torch.Tensor]\n"
      "    plain = None\n"
      "    def to(self, device):\n"
      "        for m in self.layers:\n"
      "            m.to(device)\n"
      "        for k in self.named:\n"
      "            k.to(device)\n"
      "        for p in self.plain:\n"
      "            p.to(device)\n";
  EXPECT_EQ(found(near_misses, "DC102"), (Lines{}));
}

// A comprehension of moves as a statement drops the copies: found where the
// elements may be tensors; not over what the flow knows are modules, nor a
// comprehension whose moves are kept.
TEST(LintDC102, FindsMovesDroppedInAComprehensionStatement) {
  const std::string helper =
      "def to_cuda(*args):\n"
      "    [o.cuda() for o in args]\n"
      "def run(model, x):\n"
      "    to_cuda(model, x)\n"
      "    return model(x)\n";
  EXPECT_EQ(found(helper, "DC102"), (Lines{"2 DC102"}));
  EXPECT_NE(only(helper, "DC102").message.find("a tensor does not move"), std::string::npos);
  const std::string batch =
      "import torch\n"
      "def step(model, batch, device):\n"
      "    inputs, labels = batch\n"
      "    list(t.to(device) for t in (inputs, labels))\n"
      "    {t.to(device) for t in batch}\n"
      "    return model(inputs)\n";
  EXPECT_EQ(found(batch, "DC102"), (Lines{"5 DC102"}));
  const std::string near_misses =
      "import torch.nn as nn\n"
      "def place(device, xs):\n"
      "    layers = [nn.Linear(2, 2), nn.Linear(2, 2)]\n"
      "    [m.to(device) for m in layers]\n"
      "    moved = [x.to(device) for x in xs]\n"
      "    return [x.cuda() for x in xs], moved\n";
  EXPECT_EQ(found(near_misses, "DC102"), (Lines{}));
}

// `X.from_pretrained(...)` loads a model or a pipeline, which moves in
// place, even where the file reads what tensors have too (`.dtype`); a
// tensor beside it, moved and dropped, still reports.
TEST(LintDC102, SaysNothingOfAModelLoadedWithFromPretrained) {
  const std::string training =
      "import torch\n"
      "from diffusers import AutoencoderKL\n"
      "def train(args, device):\n"
      "    vae = AutoencoderKL.from_pretrained(args.model, subfolder='vae')\n"
      "    latents = torch.randn(2, 4)\n"
      "    vae.to(device, dtype=torch.float16)\n"
      "    latents.to(device)\n"
      "    return vae.decode(latents.to(vae.dtype)).sample\n";
  EXPECT_EQ(found(training, "DC102"), (Lines{"7 DC102"}));
  EXPECT_EQ(only(training, "DC102").message,
            "latents.to(...) returns a moved copy and this discards it: tensors do not move in "
            "place; write latents = latents.to(device)");
  const std::string loader =
      "import diffusers\n"
      "def load(path, dtype, x):\n"
      "    unet = diffusers.UNet2DConditionModel.from_pretrained(path)\n"
      "    unet.to(dtype=dtype)\n"
      "    x.to(dtype=dtype)\n"
      "    unet = unet.to('cuda')\n"
      "    return unet, unet.dtype, x.shape\n";
  EXPECT_EQ(found(loader, "DC102"), (Lines{"5 DC102"}));
}

// A tensor's `.to()` of its own device and dtype returns the tensor itself:
// such a statement drops nothing, and means an object whose `to()` works in
// place (lerobot's normalizer steps, `step.to(device=step.device,
// dtype=step.dtype)`). In the body of `if isinstance(x, C)`, C a class of
// the file that is no Tensor subclass, x is a C and its `to()` is C's. A
// new dtype, or a Tensor subclass of the file, still drops a copy.
TEST(LintDC102, SaysNothingOfAMoveToItsOwnPlaceNorOfAnInstanceOfAPlainClass) {
  const std::string steps =
      "import torch\n"
      "from lerobot.processor import Normalizer\n"
      "\n"
      "\n"
      "class Stats:\n"
      "    def __init__(self, mean):\n"
      "        self.mean = mean\n"
      "\n"
      "    def to(self, device):\n"
      "        self.mean = self.mean.to(device)\n"
      "        return self\n"
      "\n"
      "\n"
      "class Scaled(torch.Tensor):\n"
      "    pass\n"
      "\n"
      "\n"
      "def refresh(steps, device):\n"
      "    for step in steps:\n"
      "        if isinstance(step, Stats):\n"
      "            step.mean = step.mean * 2\n"
      "            step.to(device)\n"
      "        elif isinstance(step, Scaled):\n"
      "            step.add_(1)\n"
      "            step.to(device)\n"
      "        if isinstance(step, Normalizer):\n"
      "            step.stats = None\n"
      "            step.to(device=step.device, dtype=step.dtype)\n"
      "\n";
  EXPECT_EQ(found(steps, "DC102"), (Lines{"25 DC102"}));
  EXPECT_NE(
      only(steps, "DC102").message.find("step.to(...) returns a moved copy and this discards it"),
      std::string::npos);
  const std::string own =
      "import torch\n"
      "def half(x: torch.Tensor):\n"
      "    x = x.float()\n"
      "    x.to(x.device)\n"
      "    return x\n"
      "def half2(x, y):\n"
      "    x = x.float() + y\n"
      "    x.to(x.device, dtype=torch.float16)\n"
      "    x.to(device=x.device, non_blocking=True)\n"
      "    return x\n";
  EXPECT_EQ(found(own, "DC102"), (Lines{"8 DC102"}));
  EXPECT_NE(only(own, "DC102").message.find("write x = x.to(x.device, dtype=torch.float16)"),
            std::string::npos);
}

}  // namespace
}  // namespace devcheck::lint
