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

}  // namespace
}  // namespace devcheck::lint::detail
