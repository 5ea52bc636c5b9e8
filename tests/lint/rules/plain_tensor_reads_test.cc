// DC111's judgement of how a module's plain tensor is read and set
// (src/lint/rules/plain_tensor_reads.cc), asked directly of each set.
#include <gtest/gtest.h>

#include <string_view>

#include "../flow/flow_testing.h"
#include "lint/rules/plain_tensor_reads.h"

namespace devcheck::lint::detail {
namespace {
using testing::Flowed;

// The first set of `name` (`self.x`) the flow recorded.
const AttributeSet& set_of(const Flowed& f, std::string_view name) {
  for (const AttributeSet& set : f.flow.attributes()) {
    if (set.name == name) return set;
  }
  ADD_FAILURE() << "no set of " << name;
  return f.flow.attributes().front();
}

// A module whose __init__ keeps a plain tensor `self.k` and whose forward
// runs `use` (a line of Python reading it).
std::string module_reading(std::string_view use) {
  return std::string(
             "import torch\n"
             "class Net(torch.nn.Module):\n"
             "    def __init__(self):\n"
             "        super().__init__()\n"
             "        self.k = torch.ones(3)\n"
             "    def forward(self, x):\n"
             "        ") +
         std::string(use) + "\n";
}

TEST(LintPlainTensorReads, MovedAtEachUseOnlyWhereEveryReadIsMoved) {
  const Flowed moved(module_reading("return x * self.k.to(x.device)"));
  EXPECT_TRUE(moved_at_each_use(moved.source, set_of(moved, "self.k")));
  const Flowed chained(module_reading("return x * self.k.repeat(2).type_as(x)"));
  EXPECT_TRUE(moved_at_each_use(chained.source, set_of(chained, "self.k")));
  const Flowed once(module_reading("return x * self.k.to(x.device) + self.k"));
  EXPECT_FALSE(moved_at_each_use(once.source, set_of(once, "self.k")));
}

// A read in a helper that forward calls too is a read on the built module,
// unmoved: not a use only while built.
TEST(LintPlainTensorReads, AHelperForwardCallsReadsOnTheBuiltModule) {
  const Flowed built(
      "import torch\n"
      "class Net(torch.nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.k = torch.ones(3)\n"
      "        self.w = torch.nn.Parameter(self._scaled())\n"
      "    def _scaled(self):\n"
      "        return self.k * 2\n"
      "    def forward(self, x):\n"
      "        return x * self.w\n");
  EXPECT_TRUE(read_only_while_built(built.source, set_of(built, "self.k")));
  const Flowed per_call(
      "import torch\n"
      "class Net(torch.nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.k = torch.ones(3)\n"
      "        self.w = torch.nn.Parameter(self._scaled())\n"
      "    def _scaled(self):\n"
      "        return self.k * 2\n"
      "    def forward(self, x):\n"
      "        return x * self._scaled()\n");
  EXPECT_FALSE(read_only_while_built(per_call.source, set_of(per_call, "self.k")));
  // And a helper forward calls that moves its read is moved at each use.
  const Flowed helper_moves(
      "import torch\n"
      "class Net(torch.nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.k = torch.ones(3)\n"
      "        self._scaled()\n"
      "    def _scaled(self):\n"
      "        return self.k * 2\n"
      "    def forward(self, x):\n"
      "        return x * self._scaled() * self.k.to(x.device)\n");
  EXPECT_FALSE(moved_at_each_use(helper_moves.source, set_of(helper_moves, "self.k")));
}

TEST(LintPlainTensorReads, ReplacedBeforeEveryReadOnlyWhereASetComesFirstOnEveryWay) {
  const Flowed replaced(module_reading("self.k = x.sum(0)\n        return x * self.k"));
  EXPECT_TRUE(replaced_before_every_read(replaced.source, set_of(replaced, "self.k")));
  const Flowed sometimes(
      module_reading("if x.dim() > 1:\n            self.k = x.sum(0)\n        return x * self.k"));
  EXPECT_FALSE(replaced_before_every_read(sometimes.source, set_of(sometimes, "self.k")));
}

TEST(LintPlainTensorReads, ReadOnlyOnTheOtherWayOfAFlagSetInInit) {
  const std::string head =
      "import torch\n"
      "class Net(torch.nn.Module):\n"
      "    def __init__(self, spinor):\n"
      "        super().__init__()\n"
      "        self.spinor = spinor\n"
      "        if self.spinor:\n"
      "            self.k = torch.nn.Parameter(torch.ones(3))\n"
      "        else:\n"
      "            self.k = torch.ones(3)\n"
      "    def forward(self, x):\n";
  const Flowed guarded(head +
                       "        if self.spinor:\n"
                       "            return x * self.k\n"
                       "        return x\n");
  const AttributeSet* plain = nullptr;
  for (const AttributeSet& set : guarded.flow.attributes()) {
    if (set.name == "self.k" && !set.v.registered) plain = &set;
  }
  ASSERT_NE(plain, nullptr);
  EXPECT_TRUE(read_only_on_the_other_way(guarded.source, *plain));
  const Flowed unguarded(head + "        return x * self.k\n");
  const AttributeSet* plain2 = nullptr;
  for (const AttributeSet& set : unguarded.flow.attributes()) {
    if (set.name == "self.k" && !set.v.registered) plain2 = &set;
  }
  ASSERT_NE(plain2, nullptr);
  EXPECT_FALSE(read_only_on_the_other_way(unguarded.source, *plain2));
}

}  // namespace
}  // namespace devcheck::lint::detail
