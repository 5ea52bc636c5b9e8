// The flow's dicts (src/lint/flow/dicts.cc): what a dict literal keeps under
// each string key, and when the flow forgets it.
#include <gtest/gtest.h>

#include "flow_testing.h"

namespace devcheck::lint::detail {
namespace {
using testing::Flowed;
using testing::Lines;
using testing::meetings;

// `batch["input"]` of a dict literal is what was stored under "input",
// whatever the other keys hold: a tensor beside a Python number is still
// that tensor (a host one meets a device one), and the number's key is
// the number.
TEST(LintFlowDicts, AKeyHoldsWhatWasStoredUnderIt) {
  const Flowed batch(
      "import torch\n"
      "def step(x, ids):\n"
      "    batch = {'input': torch.zeros(4, 8), 'len': len(ids)}\n"
      "    return x.cuda() + batch['input']\n");
  EXPECT_EQ(meetings(batch), (Lines{"4 factory@3 meets device"}));
  const Flowed segment(
      "import torch\n"
      "def prepare(ids, device):\n"
      "    return {'ids': torch.tensor(ids, device=device), 'offset': int(len(ids))}\n"
      "def run(ids, device):\n"
      "    seg = prepare(ids, device)\n"
      "    a = torch.arange(4) + seg['offset']\n"
      "    return torch.arange(4) + seg['ids']\n");
  EXPECT_EQ(meetings(segment), (Lines{"7 factory@7 meets device"}));
  // A key no literal or assignment stored is unknown.
  const Flowed missing(
      "import torch\n"
      "def step(x, n):\n"
      "    out = {'y': x.cuda(), 'n': n + 1}\n"
      "    return torch.arange(4) + out['z']\n");
  EXPECT_EQ(meetings(missing), (Lines{}));
}

// `d["k"] = v` replaces (or adds) that key alone; `d[k] = v` with a key the
// flow cannot read makes every key unknown (of a dict that mixes tensors
// and numbers).
TEST(LintFlowDicts, AnAssignmentUnderAStringKeyReplacesThatKey) {
  const Flowed replaced(
      "import torch\n"
      "def step(x, n):\n"
      "    out = {'y': torch.ones(3), 'n': n + 1}\n"
      "    out['y'] = x.cuda()\n"
      "    return torch.arange(3) * out['y']\n");
  EXPECT_EQ(meetings(replaced), (Lines{"5 factory@5 meets device"}));
  const Flowed added(
      "import torch\n"
      "def step(x, steps):\n"
      "    state = {'x': x.cuda(), 'steps': 2}\n"
      "    state['noise'] = torch.randn(3)\n"
      "    return state['x'] + state['noise']\n");
  EXPECT_EQ(meetings(added), (Lines{"5 factory@4 meets device"}));
  const Flowed computed(
      "import torch\n"
      "def step(x, key):\n"
      "    out = {'y': x.cuda(), 'n': 2}\n"
      "    out[key] = 3\n"
      "    return torch.arange(3) * out['y']\n");
  EXPECT_EQ(meetings(computed), (Lines{}));
}

// A method that may change the dict (`update`, `pop`) or a function given
// it (`fill(d)`) makes its keys unknown; one that only reads it (`get`,
// `keys`, `items`) does not.
TEST(LintFlowDicts, AnUpdateTheFlowDoesNotFollowForgetsTheKeys) {
  const Flowed updated(
      "import torch\n"
      "def step(x, extra):\n"
      "    out = {'y': torch.ones(3), 'n': 2}\n"
      "    out.update(extra)\n"
      "    return x.cuda() * out['y']\n");
  EXPECT_EQ(meetings(updated), (Lines{}));
  const Flowed given(
      "import torch\n"
      "def fill(d):\n"
      "    d['y'] = d['y'].cuda()\n"
      "def step(x):\n"
      "    out = {'y': torch.ones(3), 'n': 2}\n"
      "    fill(out)\n"
      "    return x.cuda() * out['y']\n");
  EXPECT_EQ(meetings(given), (Lines{}));
  const Flowed read(
      "import torch\n"
      "def step(x):\n"
      "    out = {'y': torch.ones(3), 'n': 2}\n"
      "    keys = out.keys()\n"
      "    out.get('n')\n"
      "    return x.cuda() * out['y']\n");
  EXPECT_EQ(meetings(read), (Lines{"6 factory@3 meets device"}));
}

// Two ways through that leave different dicts: the keys are not followed
// (an entry is what the dict's entries have in common).
TEST(LintFlowDicts, TwoWaysThroughWithDifferentDictsForgetTheKeys) {
  const Flowed f(
      "import torch\n"
      "def step(x, flag):\n"
      "    out = {'y': torch.ones(3), 'n': 2}\n"
      "    if flag:\n"
      "        out = {'y': x.cuda(), 'n': 3}\n"
      "    return x.cuda() * out['y']\n");
  EXPECT_EQ(meetings(f), (Lines{}));
}

}  // namespace
}  // namespace devcheck::lint::detail
