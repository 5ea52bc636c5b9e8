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

}  // namespace
}  // namespace devcheck::lint::detail
