// The shared judgements (common.cc).
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace devcheck::lint::detail
