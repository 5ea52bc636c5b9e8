// The words the flow knows torch by (src/lint/flow/words.cc), and the
// module builders of calls.cc.
#include <gtest/gtest.h>

#include <optional>

#include "flow_testing.h"
#include "lint/flow/run.h"

namespace devcheck::lint::detail {
namespace {
using testing::Flowed;

TEST(LintFlowWords, TellsDtypesAndTorchOps) {
  const Flowed f(
      "import torch\nx = (torch.float32, torch.long, y.dtype, torch.nn.functional.relu)\n");
  const TSNode tuple =
      ts_node_named_child(ts_node_named_child(ts_node_named_child(f.source.root(), 1), 0), 1);
  const TSNode right =
      field(ts_node_named_child(ts_node_named_child(f.source.root(), 1), 0), "right");
  ASSERT_TRUE(is(right, "parenthesized_expression") || is(right, "tuple")) << ts_node_type(right);
  (void)tuple;
  const TSNode inner = is(right, "tuple") ? right : ts_node_named_child(right, 0);
  EXPECT_TRUE(is_dtype(f.source, ts_node_named_child(inner, 0)));
  EXPECT_TRUE(is_dtype(f.source, ts_node_named_child(inner, 1)));
  EXPECT_TRUE(is_dtype(f.source, ts_node_named_child(inner, 2)));
  EXPECT_FALSE(is_dtype(f.source, ts_node_named_child(inner, 3)));
  EXPECT_TRUE(computes_on_arguments("torch.cat"));
  EXPECT_TRUE(computes_on_arguments("torch.nn.functional.cross_entropy"));
  EXPECT_FALSE(computes_on_arguments("torch.save"));
  EXPECT_FALSE(computes_on_arguments("torch.cuda.synchronize"));
  EXPECT_FALSE(computes_on_arguments("torch.nn.Linear"));
  EXPECT_EQ(legacy_type_on_cuda("torch.cuda.LongTensor"), std::optional<bool>(true));
  EXPECT_EQ(legacy_type_on_cuda("torch.FloatTensor"), std::optional<bool>(false));
  EXPECT_EQ(legacy_type_on_cuda("torch.zeros"), std::nullopt);
  EXPECT_TRUE(tensor_method("tril"));
  EXPECT_TRUE(non_tensor_method("item"));
  EXPECT_FALSE(tensor_method("item"));
}

TEST(LintFlowWords, TellsTorchvisionModelBuildersFromTheirWeights) {
  EXPECT_TRUE(is_torchvision_model("torchvision.models.resnet50"));
  EXPECT_TRUE(is_torchvision_model("torchvision.models.detection.fasterrcnn_resnet50_fpn"));
  EXPECT_TRUE(is_torchvision_model("torchvision.models.get_model"));
  EXPECT_FALSE(is_torchvision_model("torchvision.models.ResNet50_Weights"));
  EXPECT_FALSE(is_torchvision_model("torchvision.models.get_weight"));
  EXPECT_FALSE(
      is_torchvision_model("torchvision.models.feature_extraction.create_feature_extractor"));
  EXPECT_FALSE(is_torchvision_model("torchvision.transforms.resize"));
}

TEST(LintFlowWords, TellsTorchMetricsMetricClasses) {
  EXPECT_TRUE(is_metric_class("torchmetrics.Accuracy"));
  EXPECT_TRUE(is_metric_class("torchmetrics.image.PeakSignalNoiseRatio"));
  EXPECT_FALSE(is_metric_class("torchmetrics.functional.accuracy"));
  EXPECT_FALSE(is_metric_class("torchmetrics.functional.image.PeakSignalNoiseRatio"));
  EXPECT_FALSE(is_metric_class("torchmetrics.utilities.dim_zero_cat"));
  EXPECT_FALSE(is_metric_class("torch.nn.Linear"));
}

TEST(LintFlowWords, FindsTheModuleAChainOfItsMethodsStartsFrom) {
  const Flowed f(
      "net.eval().cuda()\n"
      "model.train().float().to(device)\n"
      "net.train(False).cuda()\n"
      "x.view(3).cuda()\n");
  std::vector<std::string> roots;
  for (const Call& call : f.source.calls()) {
    if (call.method == "cuda" || call.method == "to") {
      roots.emplace_back(f.source.text(module_chain_root(f.source, call.object)));
    }
  }
  EXPECT_EQ(roots, (std::vector<std::string>{"net", "model", "net.train(False)", "x.view(3)"}));
}

}  // namespace
}  // namespace devcheck::lint::detail
