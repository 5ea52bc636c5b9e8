#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

TEST(LintDC115, FindsCudaChosenWithoutIsAvailable) {
  const std::string bad = "import torch\ndevice = torch.device('cuda:0')\n";
  EXPECT_EQ(found(bad, "DC115"), (Lines{"2 DC115"}));
  EXPECT_NE(only(bad, "DC115").message.find("torch.cuda.is_available()"), std::string::npos);
  EXPECT_EQ(found("import torch\ndevice = torch.device('cuda' if torch.cuda.is_available() else "
                  "'cpu')\n",
                  "DC115"),
            Lines{});
  EXPECT_EQ(
      found("import torch\nn = torch.cuda.device_count()\nd = torch.device('cuda')\n", "DC115"),
      Lines{});
  EXPECT_EQ(found("import torch\nd = torch.device('cpu')\n", "DC115"), Lines{});
  EXPECT_EQ(found("import torch\n"
                  "same = t.device == torch.device('cuda', 0)\n"
                  "here = torch.device('cuda', torch.cuda.current_device())\n",
                  "DC115"),
            Lines{});
}

TEST(LintDC115, SaysNothingWhereADecoratorOrAMarkGatesOnCuda) {
  // lit-gpt's tests: CUDA-only tests skipped by a decorator or a pytest mark;
  // the availability test lives in conftest.py.
  const std::string source =
      "import torch\n"
      "import pytest\n"
      "@RunIf(min_cuda_gpus=1, thunder=True)\n"
      "def test_on_gpu():\n"
      "    with torch.device('cuda'):\n"
      "        pass\n"
      "@pytest.mark.skipif(not TEST_CUDA, reason='needs CUDA')\n"
      "class TestCuda:\n"
      "    def test_it(self):\n"
      "        d = torch.device('cuda:0')\n"
      "@pytest.mark.parametrize('device', [\n"
      "    torch.device('cpu'),\n"
      "    pytest.param(torch.device('cuda'), marks=[RunIf(min_cuda_gpus=1)]),\n"
      "    pytest.param(torch.device('cuda:1'), marks=[pytest.mark.slow]),\n"
      "])\n"
      "def test_param(device):\n"
      "    pass\n"
      "@pytest.mark.slow\n"
      "def test_slow():\n"
      "    d = torch.device('cuda')\n";
  EXPECT_EQ(found(source, "DC115"), (Lines{"14 DC115", "20 DC115"}));
}

// torch's pipeline worker: a device already of type "cuda" gets its index;
// code under an `if` that tests for CUDA runs only where it is.
TEST(LintDC115, SaysNothingUnderAConditionOnCuda) {
  const std::string source =
      "import torch\n"
      "def normalize(device):\n"
      "    if device.type == 'cuda' and device.index is None:\n"
      "        return torch.device('cuda', index=torch.cuda.current_device())\n"
      "    elif args.use_gpu:\n"
      "        return torch.device('cuda:0')\n"
      "    else:\n"
      "        return torch.device('cuda')\n"
      "if device.type == 'cuda':\n"
      "    pass\n"
      "d = torch.device('cuda', index=0)\n";
  EXPECT_EQ(found(source, "DC115"), (Lines{"8 DC115", "11 DC115"}));
}

// torchvision's test_image: the parametrized devices of a test that
// `@needs_cuda` gates are made for that test alone. A parametrize without
// such a gate is still reported.
TEST(LintDC115, SaysNothingInADecoratorOfADefinitionGatedOnCuda) {
  const std::string source =
      "import torch\n"
      "import pytest\n"
      "@needs_cuda\n"
      "@pytest.mark.parametrize('d', ('cuda', torch.device('cuda')))\n"
      "def test_gated(d):\n"
      "    pass\n"
      "@pytest.mark.parametrize('d', ('cuda', torch.device('cuda')))\n"
      "def test_open(d):\n"
      "    pass\n";
  EXPECT_EQ(found(source, "DC115"), (Lines{"7 DC115"}));
}

// torch's pipeline balancer: the default of a keyword-only parameter is an
// option the caller sets (`balance_by_time(..., *, device=...)`); a
// positional parameter's default, or a device made in the body, is still
// reported.
TEST(LintDC115, SaysNothingForAKeywordOnlyParametersDefault) {
  const std::string source =
      "import torch\n"
      "def balance(module, *, device: Device = torch.device('cuda')):\n"
      "    pass\n"
      "def run(module, *args, device=torch.device('cuda')):\n"
      "    pass\n"
      "def main(module, device=torch.device('cuda'), *, n=1):\n"
      "    d = torch.device('cuda')\n";
  EXPECT_EQ(found(source, "DC115"), (Lines{"6 DC115", "7 DC115"}));
}

// torch's cuDNN RNN: a function that calls torch.cuda.current_device()
// already runs only on a GPU; a function beside it that does not is still
// reported, and so is one where that call is only under a condition.
TEST(LintDC115, SaysNothingInAFunctionThatAlreadyNeedsCuda) {
  const std::string source =
      "import torch\n"
      "def init_dropout_state(p):\n"
      "    name = 'desc_' + str(torch.cuda.current_device())\n"
      "    return torch._cudnn_init_dropout_state(p, device=torch.device('cuda'))\n"
      "def other(p):\n"
      "    return torch.zeros(1, device=torch.device('cuda'))\n"
      "def maybe(p, gpu):\n"
      "    i = torch.cuda.current_device() if gpu else 0\n"
      "    return torch.device('cuda')\n";
  EXPECT_EQ(found(source, "DC115"), (Lines{"6 DC115", "9 DC115"}));
}

// A module whose __init__ makes tensors on "cuda" cannot be built without a
// GPU (facebookresearch/sam3#592); elsewhere device="cuda" is left to DC112.
TEST(LintDC115, FindsCudaTensorsMadeWhenAModuleIsBuilt) {
  const std::string source =
      "import torch\n"
      "from torch import nn\n"
      "class PositionEmbedding(nn.Module):\n"
      "    def __init__(self, sizes):\n"
      "        super().__init__()\n"
      "        for size in sizes:\n"
      "            self.forward(torch.zeros((1, 1) + size, device='cuda'))\n"
      "    def forward(self, x):\n"
      "        return torch.zeros(3, device='cuda')\n"
      "def bench():\n"
      "    return torch.randn(3, device='cuda')\n";
  EXPECT_EQ(testing::found(source, "DC115"), (testing::Lines{"7 DC115"}));
}

// A function whose name says CUDA (a module's own `cuda(device)`, Lightning's
// device mixin) was called for CUDA: its `torch.device("cuda", ...)` is the
// caller's choice. The same line in another method is still found.
TEST(LintDC115, SaysNothingInAFunctionNamedForCuda) {
  const std::string source =
      "import torch\n"
      "class Mixin(torch.nn.Module):\n"
      "    def cuda(self, device=None):\n"
      "        if isinstance(device, int):\n"
      "            device = torch.device('cuda', index=device)\n"
      "        return super().cuda(device=device)\n"
      "    def half(self):\n"
      "        self._device = torch.device('cuda', index=0)\n"
      "        return super().half()\n";
  EXPECT_EQ(found(source, "DC115"), (Lines{"8 DC115"}));
}

// The `else` of an `if` that is false only where a CUDA flag is set (`if
// args.cpu_data or not args.cuda:`, pyro's ProfileHMM; `if (not use_gpu):`)
// runs where the user asked for CUDA. Not the `else` of `a and not cuda`
// (it runs where `a` is false too), nor of a test that CUDA is asked for.
TEST(LintDC115, SkipsTheElseOfATestThatCudaWasNotAskedFor) {
  EXPECT_EQ(found("import argparse\n"
                  "import torch\n"
                  "def main(args):\n"
                  "    if args.cpu_data or not args.cuda:\n"
                  "        device = torch.device(\"cpu\")\n"
                  "    else:\n"
                  "        device = torch.device(\"cuda\")\n"
                  "    return torch.zeros(3, device=device)\n",
                  "DC115"),
            Lines{});
  const std::string pick =
      "import torch\n"
      "def pick(use_gpu, cpu_only):\n"
      "    if (not use_gpu):\n"
      "        return torch.device(\"cpu\")\n"
      "    else:\n"
      "        return torch.device(\"cuda:0\")\n"
      "def near(use_gpu, small):\n"
      "    if small and not use_gpu:\n"
      "        return torch.device(\"cpu\")\n"
      "    else:\n"
      "        return torch.device(\"cuda\")\n"
      "def near2(use_gpu):\n"
      "    if use_gpu:\n"
      "        return torch.device(\"cpu\")\n"
      "    else:\n"
      "        return torch.device(\"cuda\")\n";
  EXPECT_EQ(found(pick, "DC115"), (Lines{"11 DC115", "16 DC115"}));
  const std::vector<Finding> all = lint_source(pick, "t.py", [] {
    LintOptions o;
    o.select = {"DC115"};
    return o;
  }());
  ASSERT_EQ(all.size(), 2U);
  EXPECT_EQ(all[0].message,
            "CUDA chosen without torch.cuda.is_available() anywhere in this file: it fails on "
            "machines without a GPU; use torch.device(\"cuda\" if torch.cuda.is_available() "
            "else \"cpu\")");
}

// A test file that asks for no GPU and skips no test without CUDA belongs to
// a suite run only where a GPU is (pytorch3d's tests, seed 53): its tests
// choose CUDA by design. Where the file skips some test without CUDA, the
// suite runs without a GPU, and a test that does not skip is found; so is
// the same code outside test code.
TEST(LintDC115, SilentInTheTestsOfASuiteThatAssumesAGpu) {
  const std::string unittest_style =
      "import unittest\n"
      "import torch\n"
      "class TestMeshLoss(TestCaseMixin, unittest.TestCase):\n"
      "    def test_empty(self):\n"
      "        device = torch.device('cuda:0')\n"
      "    @staticmethod\n"
      "    def init(n):\n"
      "        return torch.zeros(n, device=torch.device('cuda'))\n"
      "    @needs_multigpu\n"
      "    def test_two(self):\n"
      "        d = torch.device('cuda:1')\n";
  EXPECT_EQ(found(unittest_style, "DC115"), Lines{});
  const std::string module_level = "import torch\nDEVICES = [torch.device('cuda'), 'cpu']\n";
  EXPECT_EQ(found(module_level, "DC115", "tests/pulsar/test_hands.py"), Lines{});
  EXPECT_EQ(found(module_level, "DC115", "ops/renderer_test.py"), Lines{});
  // Near misses: the file gates another test on CUDA; the same code in a
  // file that is no test; a function named like a test's helper elsewhere.
  const std::string gated = unittest_style +
                            "    @unittest.skipIf(not TEST_CUDA, 'needs CUDA')\n"
                            "    def test_gpu(self):\n"
                            "        d = torch.device('cuda')\n";
  // (The multi-GPU test itself runs only on GPUs: its decorator gates it.)
  EXPECT_EQ(found(gated, "DC115"), (Lines{"5 DC115", "8 DC115"}));
  EXPECT_EQ(found(module_level, "DC115", "examples/render.py"), (Lines{"2 DC115"}));
  EXPECT_EQ(found(module_level, "DC115", "tests/latest.py"), (Lines{"2 DC115"}));
  const std::string script =
      "import torch\n"
      "def main():\n"
      "    device = torch.device('cuda:0')\n";
  EXPECT_EQ(found(script, "DC115", "tests/benchmarks/bm_render.py"), (Lines{"3 DC115"}));
  EXPECT_NE(only(script, "DC115").message.find("fails on machines without a GPU"),
            std::string::npos);
  // A script's `def test(model, loader)` (the MNIST example's) and the
  // methods of classes that are no TestCase (`Tester`, `TestTimeAugment`)
  // are no test code outside a test file.
  const std::string mnist =
      "import torch\n"
      "def test(model, loader):\n"
      "    device = torch.device('cuda')\n"
      "class Tester:\n"
      "    def test_all(self):\n"
      "        d = torch.device('cuda')\n"
      "class TestTimeAugment:\n"
      "    def run(self):\n"
      "        d = torch.device('cuda')\n";
  EXPECT_EQ(found(mnist, "DC115"), (Lines{"3 DC115", "6 DC115", "9 DC115"}));
}

// A function that synchronizes with CUDA (a benchmark's timing) runs only on
// a GPU: the device it makes beside that is not found; one under a condition
// still is.
TEST(LintDC115, SilentInAFunctionThatSynchronizesWithCuda) {
  const std::string source =
      "import torch\n"
      "def to_bm(n):\n"
      "    device = torch.device('cuda:0')\n"
      "    x = torch.rand(n, device=device)\n"
      "    torch.cuda.synchronize()\n"
      "def other(n, timing):\n"
      "    device = torch.device('cuda:0')\n"
      "    if timing:\n"
      "        torch.cuda.synchronize()\n";
  EXPECT_EQ(found(source, "DC115"), (Lines{"7 DC115"}));
}

// A device that never reaches a tensor cannot fail without a GPU: only
// compared, asked its `.type` (stable-baselines3's `set_random_seed(seed,
// using_cuda=self.device.type == th.device("cuda").type)`), printed or
// logged, directly or through a name every read of which in its function is
// such a use. One read that moves a tensor (also through `str(dev)`, an
// f-string or `.type`), or a name at module level (another module may
// import it), is still found.
TEST(LintDC115, SaysNothingOfADeviceThatNeverReachesATensor) {
  const std::string seeding =
      "import torch as th\n"
      "def set_seed(self, seed):\n"
      "    set_random_seed(seed, using_cuda=self.device.type == th.device('cuda').type)\n"
      "    print(th.device('cuda:0'))\n"
      "    assert th.device('cuda:1').index == 1\n";
  EXPECT_EQ(found(seeding, "DC115"), Lines{});
  const std::string described =
      "import logging\n"
      "import torch\n"
      "logger = logging.getLogger(__name__)\n"
      "def on_gpu(t):\n"
      "    cuda = torch.device('cuda')\n"
      "    logger.info(f'checking {cuda}')\n"
      "    print(str(cuda))\n"
      "    return t.device == cuda or cuda.type == t.device.type\n";
  EXPECT_EQ(found(described, "DC115"), Lines{});
  const std::string moved =
      "import torch\n"
      "def move(t):\n"
      "    cuda = torch.device('cuda')\n"
      "    print(cuda)\n"
      "    return t.to(cuda)\n"
      "def direct(t):\n"
      "    return t.to(torch.device('cuda'))\n"
      "DEVICE = torch.device('cuda')\n"
      "def compare(t):\n"
      "    return t.device == DEVICE\n"
      "def as_text(t):\n"
      "    cuda = torch.device('cuda')\n"
      "    return t.to(str(cuda)), torch.zeros(1, device=torch.device('cuda').type)\n"
      "def formatted(t):\n"
      "    return t.to(f\"{torch.device('cuda')}\")\n";
  EXPECT_EQ(found(moved, "DC115"),
            (Lines{"3 DC115", "7 DC115", "8 DC115", "12 DC115", "13 DC115", "15 DC115"}));
  EXPECT_NE(
      only("import torch\ndef f(t):\n    d = torch.device('cuda')\n    return t.to(d)\n", "DC115")
          .message.find("torch.cuda.is_available()"),
      std::string::npos);
}

// A device in a list that loops iterate, each skipping CUDA first where no
// GPU was asked for (`if d.type == "cuda" and not HAS_GPU: continue`). A
// loop that does not skip first or skips for another reason (`small and not
// use_gpu`, `d.type != "cuda"`), a name read otherwise too, or a list at
// module level (another module may import it) is still found.
TEST(LintDC115, SaysNothingOfALoopThatSkipsCudaFirst) {
  const std::string inline_list =
      "import torch\n"
      "from common import HAS_GPU\n"
      "def run_all(n):\n"
      "    for d in [torch.device('cpu'), torch.device('cuda')]:\n"
      "        # the GPU only where there is one\n"
      "        if d.type == 'cuda' and not HAS_GPU:\n"
      "            continue\n"
      "        x = torch.zeros(n, device=d)\n";
  EXPECT_EQ(found(inline_list, "DC115"), Lines{});
  const std::string named =
      "import torch\n"
      "def compare(model, use_gpu):\n"
      "    devices = (torch.device('cpu'), torch.device('cuda:0'))\n"
      "    for device in devices:\n"
      "        if 'cuda' in str(device) and not use_gpu:\n"
      "            continue\n"
      "        model.to(device)\n"
      "    for device in devices:\n"
      "        if device.type == 'cuda' and not use_gpu:\n"
      "            continue\n"
      "        model.to(device)\n";
  EXPECT_EQ(found(named, "DC115"), Lines{});
  const std::string near =
      "import torch\n"
      "def late(t, use_gpu):\n"
      "    for d in [torch.device('cuda')]:\n"
      "        t = t.to(d)\n"
      "        if d.type == 'cuda' and not use_gpu:\n"
      "            continue\n"
      "def also_read(t, use_gpu):\n"
      "    devices = [torch.device('cuda')]\n"
      "    for d in devices:\n"
      "        if not use_gpu:\n"
      "            continue\n"
      "    return t.to(devices[0])\n"
      "def other_test(t, small, use_gpu):\n"
      "    for d in [torch.device('cuda')]:\n"
      "        if small and not use_gpu:\n"
      "            continue\n"
      "        t = t.to(d)\n"
      "    for d in [torch.device('cuda')]:\n"
      "        if d.type != 'cuda':\n"
      "            continue\n"
      "        t = t.to(d)\n"
      "DEVICES = [torch.device('cuda')]\n"
      "def module_level(t, use_gpu):\n"
      "    for d in DEVICES:\n"
      "        if not use_gpu:\n"
      "            continue\n"
      "        t = t.to(d)\n";
  EXPECT_EQ(found(near, "DC115"),
            (Lines{"3 DC115", "8 DC115", "14 DC115", "18 DC115", "22 DC115"}));
  EXPECT_NE(
      only("import torch\nfor d in [torch.device('cuda')]:\n    x = torch.ones(1, device=d)\n",
           "DC115")
          .message.find("is_available()"),
      std::string::npos);
}

}  // namespace
}  // namespace devcheck::lint
