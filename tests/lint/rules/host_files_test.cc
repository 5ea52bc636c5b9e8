// DC105's judgement of files holding host values alone
// (src/lint/rules/host_files.cc), asked directly of each load.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../flow/flow_testing.h"
#include "lint/rules/host_files.h"

namespace devcheck::lint::detail {
namespace {
using testing::Flowed;
using testing::loads;

TEST(LintHostFiles, FindsTheFileArgumentByKeywordOrPosition) {
  const Flowed f(
      "import torch\n"
      "torch.save(x, 'a.pt')\n"
      "torch.save(obj=x, f='b.pt')\n"
      "torch.load('c.pt')\n");
  const std::vector<Call> calls = f.source.calls();
  EXPECT_EQ(f.source.text(file_argument(f.source, calls[0].node, 1)), "'a.pt'");
  EXPECT_EQ(f.source.text(file_argument(f.source, calls[1].node, 1)), "'b.pt'");
  EXPECT_EQ(f.source.text(file_argument(f.source, calls[2].node, 0)), "'c.pt'");
  EXPECT_TRUE(ts_node_is_null(file_argument(f.source, calls[2].node, 1)));
}

TEST(LintHostFiles, KnowsAPathEveryWriterOfWhichSavesHostValues) {
  const Flowed f(
      "import os, torch\n"
      "def save(d, x, m):\n"
      "    p = os.path.join(d, 'x.pt')\n"
      "    torch.save([x.cpu(), x.numpy(), 1, None], p)\n"
      "    torch.save(m, os.path.join(d, 'm.pt'))\n"
      "    torch.save(x.cpu(), d)\n"
      "def load(d):\n"
      "    q = os.path.join(d, 'x.pt')\n"
      "    torch.load(q, weights_only=True)\n"
      "    torch.load(q)\n"
      "    torch.load(os.path.join(d, 'm.pt'), weights_only=True)\n"
      "    torch.load(d, weights_only=True)\n"
      "    torch.load(os.path.join(d, 'other.pt'), weights_only=True)\n");
  const std::vector<const Call*> l = loads(f);
  ASSERT_EQ(l.size(), 5U);
  EXPECT_TRUE(saved_from_host(f.source, *l[0]));
  EXPECT_FALSE(saved_from_host(f.source, *l[1]));  // no weights_only=
  EXPECT_FALSE(saved_from_host(f.source, *l[2]));  // a model
  EXPECT_FALSE(saved_from_host(f.source, *l[3]));  // a directory's name, no file
  EXPECT_FALSE(saved_from_host(f.source, *l[4]));  // nothing saved there
}

TEST(LintHostFiles, KnowsALoadItsFunctionDeclaresANumpyArray) {
  const Flowed f(
      "import numpy as np, torch\n"
      "def a(p) -> np.ndarray:\n"
      "    return torch.load(p, weights_only=False)\n"
      "def b(p) -> np.ndarray:\n"
      "    s = torch.load(p, weights_only=False)\n"
      "    return s.reshape(1, -1)\n"
      "def c(p) -> np.ndarray:\n"
      "    s = torch.load(p, weights_only=False)\n"
      "    return s.cuda()\n"
      "def d(p) -> np.ndarray:\n"
      "    return torch.load(p)\n"
      "def e(p) -> list:\n"
      "    return torch.load(p, weights_only=False)\n");
  const std::vector<const Call*> l = loads(f);
  ASSERT_EQ(l.size(), 5U);
  EXPECT_TRUE(returned_as_numpy(f.source, *l[0]));
  EXPECT_TRUE(returned_as_numpy(f.source, *l[1]));
  // `s.cuda()` is a method call returned as well: the annotation still says
  // numpy, but a numpy array has no .cuda(): a tensor, found.
  EXPECT_FALSE(returned_as_numpy(f.source, *l[2]));
  EXPECT_FALSE(returned_as_numpy(f.source, *l[3]));
  EXPECT_FALSE(returned_as_numpy(f.source, *l[4]));
}

}  // namespace
}  // namespace devcheck::lint::detail
