#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

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

// torch.Tensor(..., device=d) refuses any device but the CPU: found where the
// device may be a GPU; not with device="cpu", nor where the code expects the
// error, nor torch.Tensor used as a type.
TEST(LintDC119, FindsTheTensorConstructorGivenADevice) {
  const std::string beam =
      "import torch\n"
      "def init_scores(size, batch, enc):\n"
      "    scores = torch.Tensor([0.0] + [float('-inf')] * (size - 1), device=enc.device)\n"
      "    return scores.repeat(batch)\n";
  EXPECT_EQ(found(beam, "DC119"), (Lines{"3 DC119"}));
  EXPECT_NE(only(beam, "DC119").message.find("refuses a CUDA device"), std::string::npos);
  const std::string sizes =
      "import torch\n"
      "from torch import Tensor\n"
      "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
      "buf = Tensor(4, 4, device=device)\n";
  EXPECT_EQ(found(sizes, "DC119"), (Lines{"4 DC119"}));
  const std::string near_misses =
      "import pytest\n"
      "import torch\n"
      "def f(x: torch.Tensor) -> torch.Tensor:\n"
      "    a = torch.Tensor([1.0], device='cpu')\n"
      "    b = torch.Tensor([1.0])\n"
      "    return isinstance(x, torch.Tensor)\n"
      "def test_refused(self):\n"
      "    self.assertRaises(RuntimeError, lambda: torch.Tensor(2, device='cuda'))\n"
      "    with pytest.raises(RuntimeError):\n"
      "        torch.Tensor((2.0,), device='cuda')\n";
  EXPECT_EQ(found(near_misses, "DC119"), (Lines{}));
}

}  // namespace
}  // namespace devcheck::lint
