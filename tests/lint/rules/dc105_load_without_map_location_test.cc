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

// A state dict saved and read back by the same function, in the same process
// (torch's quantization tests through a BytesIO, ignite's LR scheduler
// simulation through a temporary file): its tensors come back to devices
// this process has. A whole module saved so is still found (weights_only),
// and so is a load of another file, or of one saved by another function.
TEST(LintDC105, SaysNothingOnAStateDictsRoundTripInOneFunction) {
  const std::string source =
      "import io, torch\n"
      "def check(ref_model, loaded_model):\n"
      "    model_dict = ref_model.state_dict()\n"
      "    b = io.BytesIO()\n"
      "    torch.save(model_dict, b)\n"
      "    b.seek(0)\n"
      "    loaded_model.load_state_dict(torch.load(b))\n"
      "def simulate(schedulers, path):\n"
      "    objs = {f'lr_{i}': s.state_dict() for i, s in enumerate(schedulers)}\n"
      "    torch.save(objs, path.as_posix())\n"
      "    run(schedulers)\n"
      "    objs = torch.load(path.as_posix())\n"
      "def whole(model_ddp, tmp):\n"
      "    torch.save(model_ddp, tmp)\n"
      "    tmp.seek(0)\n"
      "    return torch.load(tmp)\n"
      "def other_file(model, a, b):\n"
      "    torch.save(model.state_dict(), a)\n"
      "    return torch.load(b)\n"
      "def load_only(b):\n"
      "    return torch.load(b)\n"
      "def before(model, b):\n"
      "    state = torch.load(b)\n"
      "    torch.save(model.state_dict(), b)\n"
      "    return state\n"
      "def then_whole(ref_model, b):\n"
      "    torch.save(ref_model.state_dict(), b)\n"
      "    b.seek(0)\n"
      "    torch.load(b)\n"
      "    torch.save(ref_model, b)\n"
      "    b.seek(0)\n"
      "    return torch.load(b)\n";
  EXPECT_EQ(found(source, "DC105"),
            (Lines{"16 DC105", "19 DC105", "21 DC105", "23 DC105", "32 DC105"}));
}

}  // namespace
}  // namespace devcheck::lint
