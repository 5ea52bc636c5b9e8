#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

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

TEST(LintDC110, SilentOnTheFallbackForATorchWithoutTheReplacements) {
  // A version test whose other way calls set_default_device.
  EXPECT_EQ(found("import torch\n"
                  "from packaging import version\n"
                  "def use_gpu():\n"
                  "    if version.parse(torch.__version__) >= version.parse('2.1'):\n"
                  "        torch.set_default_device('cuda')\n"
                  "    else:\n"
                  "        torch.set_default_tensor_type('torch.cuda.FloatTensor')\n",
                  "DC110"),
            Lines{});
  // An attribute test whose first way calls set_default_dtype, an elif
  // beside it; and a try whose except falls back.
  EXPECT_EQ(found("import torch as th\n"
                  "def precision(double, legacy):\n"
                  "    if hasattr(th, 'set_default_dtype'):\n"
                  "        th.set_default_dtype(th.float64 if double else th.float32)\n"
                  "    elif double:\n"
                  "        th.set_default_tensor_type(th.DoubleTensor)\n"
                  "    else:\n"
                  "        th.set_default_tensor_type(th.FloatTensor)\n"
                  "try:\n"
                  "    th.set_default_device('cuda')\n"
                  "except AttributeError:\n"
                  "    th.set_default_tensor_type(th.cuda.FloatTensor)\n",
                  "DC110"),
            Lines{});
}

TEST(LintDC110, FindsTheCallBesideAReplacementThatIsNoFallback) {
  // The test asks for a GPU, not for the torch: the old call runs on any
  // torch that has a GPU.
  const Finding f = only(
      "import torch\n"
      "if torch.cuda.is_available():\n"
      "    torch.set_default_tensor_type(torch.cuda.FloatTensor)\n"
      "else:\n"
      "    torch.set_default_dtype(torch.float32)\n",
      "DC110");
  EXPECT_EQ(f.line, 3);
  EXPECT_EQ(f.message,
            "torch.set_default_tensor_type is deprecated; use torch.set_default_device(...) for "
            "the device and torch.set_default_dtype(...) for the dtype");
  // A version test with nothing newer on the other way, and a try whose
  // body holds the old call itself.
  EXPECT_EQ(found("import torch\n"
                  "if torch.__version__ < '2.0':\n"
                  "    torch.set_default_tensor_type(torch.DoubleTensor)\n"
                  "else:\n"
                  "    print('new torch')\n"
                  "try:\n"
                  "    torch.set_default_tensor_type(torch.cuda.FloatTensor)\n"
                  "except RuntimeError:\n"
                  "    torch.set_default_dtype(torch.float32)\n",
                  "DC110"),
            (Lines{"3 DC110", "7 DC110"}));
}

}  // namespace
}  // namespace devcheck::lint
