// The shared judgements (common.cc).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "flow/flow_testing.h"
#include "lint/common.h"
#include "lint/rule.h"

namespace devcheck::lint::detail {
namespace {
using testing::Flowed;

TEST(LintCommon, ReadsStringsAndNamesDevicesAndLayers) {
  const Flowed f("x = 'cuda:1'\ny = f'{x}'\n");
  const TSNode first =
      field(ts_node_named_child(ts_node_named_child(f.source.root(), 0), 0), "right");
  const TSNode second =
      field(ts_node_named_child(ts_node_named_child(f.source.root(), 1), 0), "right");
  EXPECT_EQ(string_value(f.source, first), std::optional<std::string>("cuda:1"));
  EXPECT_EQ(string_value(f.source, second), std::nullopt);
  EXPECT_TRUE(is_cuda_string(std::string("cuda")));
  EXPECT_FALSE(is_cuda_string(std::string("cudax")));
  EXPECT_TRUE(is_cpu_string(std::string("cpu")));
  EXPECT_TRUE(is_cpu_string(std::string("cpu:0")));
  EXPECT_FALSE(is_cpu_string(std::string("cpus")));
  EXPECT_FALSE(is_cpu_string(std::string("cuda:0")));
  EXPECT_FALSE(is_cpu_string(std::nullopt));
  EXPECT_TRUE(is_factory("torch.arange"));
  EXPECT_FALSE(is_factory("torch.zeros_like"));
  EXPECT_TRUE(is_device_name("self.main_device"));
  EXPECT_TRUE(is_device_name("dev"));
  EXPECT_FALSE(is_device_name("devices_seen.count"));
  EXPECT_TRUE(layer_has_parameters("Conv2d"));
  EXPECT_FALSE(layer_has_parameters("CrossEntropyLoss"));
  EXPECT_TRUE(names_any("TEST_CUDA", {"cuda"}));
  EXPECT_EQ(line_of(second), "line 2");
  EXPECT_EQ(where_in(f.source, second), "the module's code");
}

TEST(LintCommon, SinkReportsPositionsOneBased) {
  const Flowed f("import torch\n  torch.load(p)\n");
  Sink sink("p.py");
  sink.report(f.source.calls()[0].node, "DC105", "m");
  ASSERT_EQ(sink.findings().size(), 1U);
  EXPECT_EQ(sink.findings()[0].line, 2);
  EXPECT_EQ(sink.findings()[0].column, 3);
  EXPECT_EQ(sink.findings()[0].end_column, 16);
  EXPECT_EQ(sink.findings()[0].path, "p.py");
}

// ancestors() gives what a walk up with ts_node_parent() gives, for every
// node of a program (nodes of no bytes included: the parser's MISSING ones),
// and for the innermost call of a long chain.
TEST(LintCommon, AncestorsAreTheParentsUpToTheRoot) {
  auto parents = [](TSNode node) {
    std::vector<TSNode> out;
    for (TSNode n = ts_node_parent(node); !ts_node_is_null(n); n = ts_node_parent(n)) {
      out.push_back(n);
    }
    return out;
  };
  auto same = [](const std::vector<TSNode>& a, const std::vector<TSNode>& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                              [](TSNode x, TSNode y) { return ts_node_eq(x, y); });
  };
  for (const char* code : {"import torch\n"
                           "class M(torch.nn.Module):\n"
                           "    def forward(self, x):\n"
                           "        for i in range(3):\n"
                           "            x = x.cuda() if i else f(x)[0]\n"
                           "        return x\n",
                           "def f(:\n    return (1 +\n",  // errors and missing nodes
                           "x = torch.zeros(1).cuda().cuda().cuda().cuda().cuda()\n"}) {
    const Flowed f(code);
    std::vector<TSNode> stack{f.source.root()};
    int checked = 0;
    while (!stack.empty()) {
      const TSNode node = stack.back();
      stack.pop_back();
      EXPECT_TRUE(same(ancestors(node), parents(node)))
          << code << " at " << ts_node_type(node) << " " << ts_node_start_byte(node);
      ++checked;
      for (uint32_t i = 0, n = ts_node_child_count(node); i < n; ++i) {
        stack.push_back(ts_node_child(node, i));
      }
    }
    EXPECT_GT(checked, 10) << code;
  }
  EXPECT_TRUE(ancestors(TSNode{}).empty());
}

}  // namespace
}  // namespace devcheck::lint::detail
