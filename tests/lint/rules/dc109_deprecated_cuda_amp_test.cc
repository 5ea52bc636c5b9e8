#include <gtest/gtest.h>

#include "devcheck/lint.h"
#include "lint_testing.h"

namespace devcheck::lint {
namespace {
using testing::found;
using testing::Lines;
using testing::only;

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

// The old spelling as the fallback of a test of torch's version or of the new
// API (accelerate's get_grad_scaler) is what an old torch needs; the same
// call under any other test is still found.
TEST(LintDC109, SaysNothingOnTheFallbackOfAVersionTest) {
  const std::string source =
      "import torch\n"
      "def get_grad_scaler(**kwargs):\n"
      "    if is_npu_available():\n"
      "        return torch.npu.amp.GradScaler(**kwargs)\n"
      "    else:\n"
      "        if is_torch_version('>=', '2.3'):\n"
      "            return torch.amp.GradScaler('cuda', **kwargs)\n"
      "        else:\n"
      "            return torch.cuda.amp.GradScaler(**kwargs)\n"
      "def old():\n"
      "    if TORCH_VERSION < (2, 4):\n"
      "        pass\n"
      "    elif use_amp:\n"
      "        return torch.cuda.amp.autocast()\n"
      "def new():\n"
      "    return torch.amp.autocast('cuda') if hasattr(torch, 'amp') else "
      "torch.cuda.amp.autocast()\n"
      "def amp(enabled):\n"
      "    if enabled:\n"
      "        return torch.cuda.amp.autocast()\n";
  EXPECT_EQ(found(source, "DC109"), (Lines{"19 DC109"}));
}

// A version flag of the program's own (Lightning's `_TORCH_GREATER_EQUAL_2_4`)
// is a version test, and the handler of a `try` of the new API that catches
// what a torch without it raises (timm's NativeScaler) is its fallback; a flag
// that is no version and a handler of another failure are not.
TEST(LintDC109, SaysNothingOnAVersionFlagsFallbackOrAMissingApisHandler) {
  const std::string source =
      "import torch\n"
      "def scaler(device):\n"
      "    return torch.amp.GradScaler(device=device) if _TORCH_GREATER_EQUAL_2_4 else "
      "torch.cuda.amp.GradScaler()\n"
      "class NativeScaler:\n"
      "    def __init__(self, device='cuda'):\n"
      "        try:\n"
      "            self._scaler = torch.amp.GradScaler(device=device)\n"
      "        except (AttributeError, TypeError) as e:\n"
      "            self._scaler = torch.cuda.amp.GradScaler()\n"
      "def old_only():\n"
      "    try:\n"
      "        from torch.amp import autocast\n"
      "    except ImportError:\n"
      "        autocast = torch.cuda.amp.autocast\n"
      "        return torch.cuda.amp.autocast()\n"
      "def flagged(use_amp):\n"
      "    return torch.cuda.amp.GradScaler() if _TORCH_CUDA_AVAILABLE else None\n"
      "def retried():\n"
      "    try:\n"
      "        return run()\n"
      "    except RuntimeError:\n"
      "        return torch.cuda.amp.autocast()\n";
  EXPECT_EQ(found(source, "DC109"), (Lines{"17 DC109", "22 DC109"}));
}

}  // namespace
}  // namespace devcheck::lint
