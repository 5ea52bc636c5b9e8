#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

TEST(LintDC105, FindsTorchLoadWithoutMapLocation) {
  const std::string source =
      "import torch\n"
      "state = torch.load('model.pt')\n"
      "ok = torch.load('model.pt', map_location='cpu')\n"
      "ok2 = torch.load('model.pt', 'cpu')\n"
      "unknown = torch.load(*args)\n";
  EXPECT_EQ(found(source, "DC105"), (Lines{"2 DC105"}));
  EXPECT_NE(only(source, "DC105").message.find("map_location=\"cpu\""), std::string::npos);
  EXPECT_EQ(only(source, "DC105").column, 9);
}

TEST(LintDC105, FollowsImportAliases) {
  EXPECT_EQ(found("import torch as T\nT.load(p)\n", "DC105"), (Lines{"2 DC105"}));
  EXPECT_EQ(found("from torch import load\nload(p)\n", "DC105"), (Lines{"2 DC105"}));
  // Not torch's load: a name nobody imported from torch says nothing.
  EXPECT_EQ(found("import pickle\npickle.load(f)\njson.load(f)\n", "DC105"), Lines{});
}

TEST(LintDC108, FindsNonBlockingCopiesOfBatchesWithoutPinnedMemory) {
  const std::string bad =
      "import torch\n"
      "for x, y in loader:\n"
      "    x = x.to(device, non_blocking=True)\n"
      "    y = y.cuda(non_blocking=True)\n"
      "for batch in loader:\n"
      "    inputs = batch['x'].to(device, non_blocking=True)\n";
  EXPECT_EQ(found(bad, "DC108"), (Lines{"3 DC108", "4 DC108", "6 DC108"}));
  EXPECT_NE(lint_source(bad, "t.py").at(0).message.find("pin_memory=True"), std::string::npos);
  EXPECT_EQ(found(bad + "loader = DataLoader(ds, pin_memory=True)\n", "DC108"), Lines{});
}

TEST(LintDC108, SaysNothingForCopiesThatNeedNoPinning) {
  // Device to device (a GradScaler's scale), to the CPU, or blocking.
  EXPECT_EQ(found("def f(self, outputs):\n"
                  "    return outputs * self._scale.to(device=outputs.device, non_blocking=True)\n"
                  "for x in xs:\n"
                  "    x = x.to('cpu', non_blocking=True)\n"
                  "    x = x.to(device, non_blocking=False)\n"
                  "    z = w.to(device, non_blocking=True)\n"
                  "for x in tensors:\n"
                  "    x = x.to(device, non_blocking=True)\n",
                  "DC108"),
            Lines{});
}

TEST(LintDC109, FindsDeprecatedCudaAmpAndFixesKeywordCalls) {
  const std::string source =
      "import torch\n"
      "scaler = torch.cuda.amp.GradScaler()\n"
      "with torch.cuda.amp.autocast(dtype=torch.bfloat16):\n"
      "    pass\n"
      "with torch.amp.autocast('cuda'):\n"
      "    pass\n";
  EXPECT_EQ(found(source, "DC109"), (Lines{"2 DC109", "3 DC109"}));
  LintOptions options;
  options.select = {"DC109"};
  const std::string fixed = apply_fixes(source, lint_source(source, "t.py", options));
  EXPECT_NE(fixed.find("scaler = torch.amp.GradScaler(\"cuda\")\n"), std::string::npos) << fixed;
  EXPECT_NE(fixed.find("with torch.amp.autocast(\"cuda\", dtype=torch.bfloat16):"),
            std::string::npos)
      << fixed;
  EXPECT_EQ(found(fixed, "DC109"), Lines{});
}

TEST(LintDC109, DoesNotFixPositionalArgumentsWhoseMeaningDiffers) {
  // torch.cuda.amp.autocast(True) is `enabled`; torch.amp.autocast's second
  // position is `dtype`.
  const Finding f = only("import torch\nwith torch.cuda.amp.autocast(True):\n  pass\n", "DC109");
  EXPECT_EQ(f.line, 2);
  EXPECT_FALSE(f.fix.has_value());
  const Finding imported =
      only("from torch.cuda.amp import autocast\nwith autocast():\n  pass\n", "DC109");
  EXPECT_EQ(imported.line, 2);
  EXPECT_FALSE(imported.fix.has_value());
}

TEST(LintDC110, FindsSetDefaultTensorTypeAndFixesKnownTypes) {
  const std::string source =
      "import torch\n"
      "torch.set_default_tensor_type(torch.cuda.FloatTensor)\n"
      "torch.set_default_tensor_type('torch.DoubleTensor')\n"
      "torch.set_default_tensor_type(t)\n";
  EXPECT_EQ(found(source, "DC110"), (Lines{"2 DC110", "3 DC110", "4 DC110"}));
  LintOptions options;
  options.select = {"DC110"};
  const std::string fixed = apply_fixes(source, lint_source(source, "t.py", options));
  EXPECT_EQ(fixed,
            "import torch\n"
            "torch.set_default_device(\"cuda\")\n"
            "torch.set_default_dtype(torch.float64)\n"
            "torch.set_default_tensor_type(t)\n");
  // The legacy type inside set_default_tensor_type is DC110's, not DC119's.
  EXPECT_EQ(found(source, "DC119"), Lines{});
}

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

TEST(LintDC119, FindsLegacyConstructorsAndFixesCertainOnes) {
  const std::string source =
      "import torch\n"
      "a = torch.cuda.FloatTensor(2, 3)\n"
      "b = torch.LongTensor([1, 2])\n"
      "c = torch.FloatTensor(x)\n"
      "d = x.type(torch.cuda.HalfTensor)\n"
      "e = x.type('torch.cuda.FloatTensor')\n"
      "f = torch.tensor([1.0])\n";
  EXPECT_EQ(found(source, "DC119"), (Lines{"2 DC119", "3 DC119", "4 DC119", "5 DC119", "6 DC119"}));
  LintOptions options;
  options.select = {"DC119"};
  const std::vector<Finding> findings = lint_source(source, "t.py", options);
  EXPECT_FALSE(findings[2].fix.has_value());  // torch.FloatTensor(x): data or size?
  const std::string fixed = apply_fixes(source, findings);
  EXPECT_NE(fixed.find("a = torch.empty(2, 3, dtype=torch.float32, device=\"cuda\")"),
            std::string::npos)
      << fixed;
  EXPECT_NE(fixed.find("b = torch.tensor([1, 2], dtype=torch.int64)"), std::string::npos) << fixed;
  EXPECT_NE(findings[3].message.find(".to(dtype=torch.float16, device=\"cuda\")"),
            std::string::npos)
      << findings[3].message;
}

}  // namespace
}  // namespace devcheck::lint
