// DC105's judgement of files the loading process wrote itself
// (src/lint/rules/written_here.cc), asked directly of each load.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../flow/flow_testing.h"
#include "lint/rules/written_here.h"

namespace devcheck::lint::detail {
namespace {
using testing::Flowed;
using testing::loads;

TSNode path_of(const Flowed& f, const Call& load) { return f.source.positional(load.node)[0]; }

// The call whose callee's text is `name` (its first in the snippet).
TSNode call_named(const Flowed& f, std::string_view name) {
  for (const Call& call : f.source.calls()) {
    if (f.source.text(field(call.node, "function")) == name) return call.node;
  }
  return TSNode{};
}

TEST(LintWrittenHere, RunsBeforeOnlyFromTheSameBlockOrOneAroundIt) {
  const Flowed f(
      "def f(p, flag):\n"
      "    save(p)\n"
      "    with open(p) as h:\n"
      "        for _ in range(2):\n"
      "            read(p)\n"
      "    if flag:\n"
      "        other(p)\n"
      "    last(p)\n");
  const TSNode save = call_named(f, "save");
  EXPECT_TRUE(runs_before(save, call_named(f, "read")));
  EXPECT_TRUE(runs_before(save, call_named(f, "last")));
  EXPECT_FALSE(runs_before(call_named(f, "other"), call_named(f, "last")));
  EXPECT_FALSE(runs_before(call_named(f, "last"), save));
}

TEST(LintWrittenHere, KnowsTheProcesssOwnTemporaryFiles) {
  const Flowed f(
      "import io, shutil, tempfile, torch\n"
      "def test_round_trip(tmp_path):\n"
      "    torch.load(tmp_path / 'm.pt')\n"
      "def helper(tmp_path):\n"
      "    torch.load(tmp_path / 'm.pt')\n"
      "def g(url):\n"
      "    with tempfile.TemporaryDirectory() as d:\n"
      "        torch.load(d + '/m.pt')\n"
      "    with tempfile.TemporaryDirectory() as d:\n"
      "        shutil.copytree(url, d)\n"
      "        torch.load(d + '/m.pt')\n"
      "    torch.load(io.BytesIO())\n"
      "    torch.load(io.BytesIO(open(url, 'rb').read()))\n");
  const std::vector<const Call*> all = loads(f);
  ASSERT_EQ(all.size(), 6U);
  std::vector<bool> own;
  for (const Call* load : all) own.push_back(in_own_temporary(f.source, *load, path_of(f, *load)));
  // A test's tmp_path, a tempfile directory, an empty buffer: the process's
  // own. tmp_path outside a test, a directory something is copied into, a
  // buffer of another file's bytes: from elsewhere.
  EXPECT_EQ(own, (std::vector<bool>{true, false, true, false, true, false}));
}

TEST(LintWrittenHere, KnowsASaveOfTheSameFunctionOrClassOrCaller) {
  const Flowed f(
      "import os, torch\n"
      "def convert(fabric, out, state):\n"
      "    fabric.save(out, state)\n"
      "    return torch.load(out)\n"
      "def resume(fabric, out, args):\n"
      "    if args.save:\n"
      "        fabric.save(out, {})\n"
      "    return torch.load(out)\n"
      "class Cache:\n"
      "    def put(self, key, value):\n"
      "        torch.save(value, os.path.join(self.root, key))\n"
      "    def get(self, key):\n"
      "        return torch.load(os.path.join(self.root, key), weights_only=False)\n"
      "def train(root):\n"
      "    torch.save({}, os.path.join(root, 'best.pth'))\n"
      "def infer(root):\n"
      "    return torch.load(os.path.join(root, 'best.pth'))\n"
      "def test_both(tmp):\n"
      "    train(tmp)\n"
      "    infer(tmp)\n"
      "class Reader:\n"
      "    def get(self, key):\n"
      "        return torch.load(os.path.join(self.root, key), weights_only=False)\n"
      "def evaluate(root):\n"
      "    return torch.load(os.path.join(root, 'best.pth'))\n"
      "def test_wrong_order(tmp):\n"
      "    evaluate(tmp)\n"
      "    train(tmp)\n");
  const std::vector<const Call*> all = loads(f);
  ASSERT_EQ(all.size(), 6U);
  EXPECT_TRUE(saved_before_by_same_function(f.source, *all[0], path_of(f, *all[0])));
  // A save in another branch does not run whenever the load does.
  EXPECT_FALSE(saved_before_by_same_function(f.source, *all[1], path_of(f, *all[1])));
  EXPECT_TRUE(cache_of_own_class(f.source, *all[2], path_of(f, *all[2])));
  // The same load in a class that never saves there: a cache of another's.
  EXPECT_FALSE(cache_of_own_class(f.source, *all[4], path_of(f, *all[4])));
  EXPECT_FALSE(ts_node_is_null(saved_by_earlier_call(f.source, *all[3], path_of(f, *all[3]))));
  // The same file name, but the caller loads before it saves.
  EXPECT_TRUE(ts_node_is_null(saved_by_earlier_call(f.source, *all[5], path_of(f, *all[5]))));
}

}  // namespace
}  // namespace devcheck::lint::detail
