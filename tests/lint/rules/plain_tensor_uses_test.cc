// DC111's judgement of how a module's plain attribute is used
// (src/lint/rules/plain_tensor_uses.cc), asked directly.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "../flow/flow_testing.h"
#include "lint/rules/plain_tensor_uses.h"

namespace devcheck::lint::detail {
namespace {
using testing::Flowed;

// The scope of the method `name` of the class `cls` (-1 if none).
int method(const Flowed& f, std::string_view cls, std::string_view name) {
  const std::vector<Scope>& scopes = f.source.scopes();
  for (int s = 0; s < static_cast<int>(scopes.size()); ++s) {
    if (scopes[s].name == name && scopes[s].owner_class >= 0 &&
        scopes[scopes[s].owner_class].name == cls) {
      return s;
    }
  }
  return -1;
}

// The first set of `name` (`self.x`) the flow recorded.
const AttributeSet& set_of(const Flowed& f, std::string_view name) {
  for (const AttributeSet& set : f.flow.attributes()) {
    if (set.name == name) return set;
  }
  ADD_FAILURE() << "no set of " << name;
  return f.flow.attributes().front();
}

// The `index`-th `self.x` node (`name`) of the snippet.
TSNode read_of(const Flowed& f, std::string_view name, std::size_t index) {
  const auto nodes = self_attribute_nodes(f.source, name);
  if (!nodes || nodes->size() <= index) {
    ADD_FAILURE() << "no read " << index << " of " << name;
    return TSNode{};
  }
  return (*nodes)[index];
}

TEST(LintPlainTensorUses, EndsThereOnlyAtTheEndOfAName) {
  EXPECT_TRUE(ends_there("x.mask", 6));
  EXPECT_TRUE(ends_there("x.mask + 1", 6));
  EXPECT_FALSE(ends_there("x.mask_id", 6));
  EXPECT_FALSE(ends_there("x.mask2", 6));
}

TEST(LintPlainTensorUses, FindsAttributesOnAnyObjectAndSelfAlone) {
  const Flowed f(
      "class A:\n"
      "    def f(self, other):\n"
      "        self.mask = 1\n"
      "        return other.mask + self.mask_id\n");
  EXPECT_EQ(attribute_nodes(f.source, ".mask").size(), 2U);
  // `other.mask` is another object's: no list of `self.mask` alone.
  EXPECT_FALSE(self_attribute_nodes(f.source, "self.mask").has_value());
  const auto ids = self_attribute_nodes(f.source, "self.mask_id");
  ASSERT_TRUE(ids.has_value());
  EXPECT_EQ(ids->size(), 1U);
  // In a string too, `.mask` is not only `self.mask`.
  const Flowed s(
      "class A:\n"
      "    def f(self):\n"
      "        return self.mask, 'a.mask'\n");
  EXPECT_FALSE(self_attribute_nodes(s.source, "self.mask").has_value());
}

// A helper __init__ calls runs while the module is built; one `forward`
// (or another method, or a caller on another object) also calls runs on
// the built module too: not only while built. runs_in_init says __init__
// runs it, whoever else does.
TEST(LintPlainTensorUses, InInitOnlyWhereNoOtherCallReachesTheMethod) {
  const Flowed f(
      "import torch\n"
      "class Net(torch.nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self._build()\n"
      "        self._reset()\n"
      "    def _build(self):\n"
      "        self._make_table()\n"
      "    def _make_table(self):\n"
      "        self.table = torch.ones(3)\n"
      "    def _reset(self):\n"
      "        self.state = torch.zeros(3)\n"
      "    def forward(self, x):\n"
      "        self._reset()\n"
      "        return x\n"
      "    def other(self):\n"
      "        pass\n");
  EXPECT_TRUE(in_init(f.source, method(f, "Net", "__init__")));
  EXPECT_TRUE(in_init(f.source, method(f, "Net", "_build")));
  EXPECT_TRUE(in_init(f.source, method(f, "Net", "_make_table")));
  EXPECT_FALSE(in_init(f.source, method(f, "Net", "_reset")));
  EXPECT_FALSE(in_init(f.source, method(f, "Net", "forward")));
  EXPECT_FALSE(in_init(f.source, method(f, "Net", "other")));
  EXPECT_TRUE(runs_in_init(f.source, method(f, "Net", "_reset")));
  EXPECT_FALSE(runs_in_init(f.source, method(f, "Net", "forward")));
  // A call on another object (`net.reset()`) reaches it after the build; a
  // `self.reset()` of another class with its own `reset` does not.
  const Flowed g(
      "import torch\n"
      "class Net(torch.nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.reset()\n"
      "    def reset(self):\n"
      "        self.buf = torch.zeros(3)\n"
      "class Other:\n"
      "    def step(self):\n"
      "        self.reset()\n"
      "    def reset(self):\n"
      "        pass\n"
      "def train(net):\n"
      "    net.reset()\n");
  EXPECT_FALSE(in_init(g.source, method(g, "Net", "reset")));
  EXPECT_TRUE(runs_in_init(g.source, method(g, "Net", "reset")));
  const Flowed h(
      "import torch\n"
      "class Net(torch.nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.reset()\n"
      "    def reset(self):\n"
      "        self.buf = torch.zeros(3)\n"
      "class Other:\n"
      "    def step(self):\n"
      "        self.reset()\n"
      "    def reset(self):\n"
      "        pass\n");
  EXPECT_TRUE(in_init(h.source, method(h, "Net", "reset")));
}

TEST(LintPlainTensorUses, NoDeviceUseOfMetadataNumbersTruthAndIndices) {
  const Flowed f(
      "import torch\n"
      "class Net(torch.nn.Module):\n"
      "    def forward(self, y):\n"
      "        a = self.m.shape\n"
      "        b = self.m.sum().item()\n"
      "        if self.m[0]:\n"
      "            pass\n"
      "        c = y[:, self.m]\n"
      "        d = self.m is None\n"
      "        self.m.fill_(0.5)\n"
      "        e = self.m.device\n"
      "        g = y * self.m\n"
      "        h = self.m.sum(y)\n");
  std::vector<bool> none;
  for (std::size_t i = 0; i < 9; ++i)
    none.push_back(no_device_use(f.source, read_of(f, "self.m", i)));
  EXPECT_EQ(none, (std::vector<bool>{true, true, true, true, true, true, false, false, false}));
}

TEST(LintPlainTensorUses, NeverUsedOnADeviceWhereEveryReadIsNoneOrItIsAnOutput) {
  const Flowed counted(
      "import torch\n"
      "class Net(torch.nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.count = torch.zeros(3)\n"
      "    def forward(self, x):\n"
      "        print(self.count.shape)\n"
      "        return x\n");
  EXPECT_TRUE(never_used_on_a_device(counted.source, set_of(counted, "self.count")));
  const Flowed output(
      "import torch\n"
      "class Net(torch.nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.att = torch.zeros(3)\n"
      "    def forward(self, x):\n"
      "        self.att = x.detach()\n"
      "        return x\n");
  EXPECT_TRUE(never_used_on_a_device(output.source, set_of(output, "self.att")));
  const Flowed used(
      "import torch\n"
      "class Net(torch.nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.w = torch.zeros(3)\n"
      "    def forward(self, x):\n"
      "        return x * self.w\n");
  EXPECT_FALSE(never_used_on_a_device(used.source, set_of(used, "self.w")));
}

TEST(LintPlainTensorUses, ModulesRegisteredOneByOneOnlyWithAddModuleBesideEachAppend) {
  const Flowed registered(
      "import torch\n"
      "class Net(torch.nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.blocks = []\n"
      "        for i in range(n):\n"
      "            b = torch.nn.Linear(2, 2)\n"
      "            self.add_module(f'b{i}', b)\n"
      "            self.blocks.append(b)\n");
  EXPECT_TRUE(modules_registered_one_by_one(registered.source, set_of(registered, "self.blocks")));
  const Flowed extended(
      "import torch\n"
      "class Net(torch.nn.Module):\n"
      "    def __init__(self, n, more):\n"
      "        super().__init__()\n"
      "        self.blocks = []\n"
      "        for i in range(n):\n"
      "            b = torch.nn.Linear(2, 2)\n"
      "            self.add_module(f'b{i}', b)\n"
      "            self.blocks.append(b)\n"
      "        self.blocks.extend(more)\n");
  EXPECT_FALSE(modules_registered_one_by_one(extended.source, set_of(extended, "self.blocks")));
}

TEST(LintPlainTensorUses, AWayNeverTakenWhereEveryCallGivesTheDevice) {
  const Flowed given(
      "import torch\n"
      "class Rope(torch.nn.Module):\n"
      "    def get(self, n, device=None):\n"
      "        return torch.arange(n, device=device) if device is not None else self.freqs\n"
      "    def forward(self, x):\n"
      "        return self.get(4, device=x.device)\n");
  EXPECT_TRUE(on_a_way_never_taken(given.source, read_of(given, "self.freqs", 0)));
  const Flowed maybe(
      "import torch\n"
      "class Rope(torch.nn.Module):\n"
      "    def get(self, n, device=None):\n"
      "        return torch.arange(n, device=device) if device is not None else self.freqs\n"
      "    def forward(self, x):\n"
      "        return self.get(4, device=self.device)\n");
  EXPECT_FALSE(on_a_way_never_taken(maybe.source, read_of(maybe, "self.freqs", 0)));
}

}  // namespace
}  // namespace devcheck::lint::detail
