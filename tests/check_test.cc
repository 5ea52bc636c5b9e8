#include "devcheck/check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include "devcheck/error.h"
#include "support/support.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace devcheck {
namespace {

const c10::Device kCpu(c10::kCPU);
const c10::Device kMeta(c10::kMeta);

torch::Tensor on_meta(std::vector<int64_t> shape) {
  return torch::empty(shape, torch::TensorOptions().device(kMeta));
}

template <typename F>
std::string mismatch_message(F&& f) {
  try {
    f();
  } catch (const DeviceMismatchError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kDeviceMismatch);
    return e.message();
  }
  ADD_FAILURE() << "no DeviceMismatchError";
  return {};
}

TEST(CheckSameDevice, PassesWhenAllAgree) {
  torch::Tensor x = torch::ones({2, 4});
  torch::Tensor w = torch::ones({3, 4});
  EXPECT_NO_THROW(check_same_device({{"x", x}, {"w", w}}, "linear"));
  EXPECT_NO_THROW(check_same_device({}, "nothing"));
}

TEST(CheckSameDevice, NamesEveryTensorBothDevicesAndTheStray) {
  torch::Tensor input = torch::ones({32, 784});
  torch::Tensor weight = on_meta({10, 784});
  torch::Tensor bias = on_meta({10});
  const std::string m = mismatch_message([&] {
    check_same_device({{"input", input}, {"weight", weight}, {"bias", bias}}, "linear");
  });
  EXPECT_THAT(m, HasSubstr("device mismatch in linear"));
  EXPECT_THAT(m, HasSubstr("meta (2 tensors) and cpu (1 tensor)"));
  EXPECT_THAT(m, HasSubstr("input   cpu    float32   [32, 784]   <- not on meta"));
  EXPECT_THAT(m, HasSubstr("weight  meta   float32   [10, 784]"));
  EXPECT_THAT(m, HasSubstr("bias    meta   float32   [10]"));
  EXPECT_THAT(m, HasSubstr("fix: move input to meta"));
  EXPECT_THAT(m, Not(HasSubstr("weight  meta   float32   [10, 784]   <-")));
}

TEST(CheckSameDevice, ZeroDimCpuTensorsAreAllowedBesideOthers) {
  torch::Tensor w = on_meta({3});
  torch::Tensor scale = torch::scalar_tensor(2.0);
  EXPECT_NO_THROW(check_same_device({{"w", w}, {"scale", scale}}, "mul"));
  torch::Tensor one_elem = torch::ones({1});  // 1-dim is not exempt
  EXPECT_THROW(check_same_device({{"w", w}, {"one", one_elem}}, "mul"), DeviceMismatchError);
}

TEST(CheckSameDevice, UndefinedTensorsAreSkipped) {
  torch::Tensor x = torch::ones({2});
  torch::Tensor none;
  EXPECT_NO_THROW(check_same_device({{"x", x}, {"bias", none}}, "linear"));
}

TEST(CheckSameDevice, TieGoesToTheFirstSeenDevice) {
  torch::Tensor a = on_meta({1});
  torch::Tensor b = torch::ones({1});
  const std::string m = mismatch_message([&] { check_same_device({{"a", a}, {"b", b}}, "add"); });
  EXPECT_THAT(m, HasSubstr("<- not on meta"));
  EXPECT_THAT(m, HasSubstr("fix: move b to meta"));
}

TEST(CheckSameDevice, AcceptsARuntimeList) {
  torch::Tensor a = on_meta({1});
  torch::Tensor b = torch::ones({1});
  std::vector<NamedTensor> list{{"a", a}, {"b", b}};
  const std::string m = mismatch_message([&] { check_same_device(list, "cat"); });
  EXPECT_THAT(m, HasSubstr("device mismatch in cat"));
}

TEST(CheckOn, NamesTheStrayAndTheExpectedDevice) {
  torch::Tensor x = torch::ones({4}, torch::kInt64);
  torch::Tensor y = on_meta({2, 2});
  const std::string m = mismatch_message([&] {
    check_on(kMeta, {{"labels", x}, {"logits", y}}, "loss");
  });
  EXPECT_THAT(m, HasSubstr("device mismatch in loss: expected every tensor on meta"));
  EXPECT_THAT(m, HasSubstr("labels  cpu    int64     [4]   <- not on meta"));
  EXPECT_THAT(m, HasSubstr("fix: move labels to meta"));
}

TEST(CheckOn, IndexlessDeviceMatchesAnyIndex) {
  torch::Tensor x = torch::ones({1});
  EXPECT_NO_THROW(check_on(kCpu, {{"x", x}}));
  const std::string m = mismatch_message([&] { check_on(kMeta, {{"x", x}}); });
  EXPECT_THAT(m, HasSubstr("device check"));
}

struct Encoder : torch::nn::Module {
  Encoder() {
    layer = register_module("layer", torch::nn::Linear(4, 4));
    norm = register_module("norm", torch::nn::BatchNorm1d(4));
  }
  torch::nn::Linear layer{nullptr};
  torch::nn::BatchNorm1d norm{nullptr};
};

struct Net : torch::nn::Module {
  Net() {
    encoder = register_module("encoder", std::make_shared<Encoder>());
    head = register_module("head", torch::nn::Linear(4, 2));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    DEVCHECK_CHECK_INPUTS(*this, x);
    return head(encoder->layer(x));
  }
  std::shared_ptr<Encoder> encoder;
  torch::nn::Linear head{nullptr};
};

struct NetWithStray : Net {
  NetWithStray() {
    stray = register_buffer("stray_mask", torch::empty({4}, torch::TensorOptions().device(kMeta)));
  }
  torch::Tensor stray;
};

TEST(Audit, CountsPerDeviceAndFindsNothingOnAUniformModule) {
  Net net;
  PlacementReport r = audit(net);
  EXPECT_TRUE(r.ok());
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].device, kCpu);
  EXPECT_EQ(r.devices[0].parameters, 6u);  // layer w,b; norm w,b; head w,b
  EXPECT_EQ(r.devices[0].buffers, 3u);     // running mean, var, num_batches_tracked
  EXPECT_EQ(r.module, "Net");
  EXPECT_THAT(r.to_text(), HasSubstr("all on cpu"));
}

TEST(Audit, ListsEveryEntryOffTheMajorityByQualifiedName) {
  NetWithStray net;
  PlacementReport r = audit(net);
  ASSERT_EQ(r.misplaced.size(), 1u);
  EXPECT_EQ(r.misplaced[0].name, "stray_mask");
  EXPECT_TRUE(r.misplaced[0].is_buffer);
  EXPECT_EQ(r.misplaced[0].device, kMeta);
  EXPECT_EQ(*r.expected, kCpu);
  EXPECT_THAT(r.to_text(), HasSubstr("stray_mask (buffer) on meta, float32 [4], 16 B"));
}

TEST(Audit, ExpectedDeviceMakesEverythingElseMisplaced) {
  NetWithStray net;
  PlacementReport r = audit(net, kMeta);
  EXPECT_TRUE(r.expected_was_given);
  EXPECT_EQ(r.misplaced.size(), 9u);
  bool found = false;
  for (const auto& e : r.misplaced) found = found || e.name == "encoder.norm.running_mean";
  EXPECT_TRUE(found);
}

TEST(Audit, JsonHasTheSameContent) {
  NetWithStray net;
  const auto j = nlohmann::json::parse(audit(net).to_json());
  EXPECT_EQ(j["expected"], "cpu");
  EXPECT_FALSE(j["ok"].get<bool>());
  EXPECT_EQ(j["devices"].size(), 2u);
  EXPECT_EQ(j["misplaced"][0]["name"], "stray_mask");
  EXPECT_EQ(j["misplaced"][0]["device"], "meta");
  EXPECT_EQ(j["misplaced"][0]["kind"], "buffer");
  EXPECT_EQ(j["misplaced"][0]["shape"], nlohmann::json::array({4}));
  EXPECT_EQ(j["misplaced"][0]["nbytes"], 16);
}

TEST(CheckInputs, PassesWhenInputsAreOnTheModuleDevice) {
  Net net;
  torch::Tensor x = torch::ones({2, 4});
  EXPECT_NO_THROW(net.forward(x));
  EXPECT_NO_THROW(check_inputs(net, {{"x", x}}));
}

TEST(CheckInputs, MacroNamesTheModuleTheArgumentAndBothDevices) {
  Net net;
  torch::Tensor x = on_meta({2, 4});
  const std::string m = mismatch_message([&] { net.forward(x); });
  EXPECT_THAT(m, HasSubstr("device mismatch in Net.forward: input 'x' is on meta"));
  EXPECT_THAT(m, HasSubstr("module 'Net' lives on cpu"));
  EXPECT_THAT(m, HasSubstr("fix: move 'x' to cpu"));
}

TEST(CheckInputs, ExplicitNamesAndModuleHolders) {
  torch::nn::Linear linear(4, 2);
  torch::Tensor features = on_meta({1, 4});
  const std::string m = mismatch_message([&] { check_inputs(linear, {{"features", features}}); });
  EXPECT_THAT(m, HasSubstr("Linear.forward: input 'features' is on meta (float32 [1, 4])"));
}

TEST(CheckInputs, MacroSplitsSeveralArgumentsAtTopLevelCommas) {
  torch::nn::Linear linear(4, 2);
  torch::Tensor a = torch::ones({1, 4});
  std::vector<torch::Tensor> v{on_meta({1})};
  const std::string m = mismatch_message([&] { DEVCHECK_CHECK_INPUTS(linear, a, v.at(0)); });
  EXPECT_THAT(m, HasSubstr("input 'v.at(0)' is on meta"));
}

TEST(CheckInputs, ParameterFreeModuleChecksInputsAgainstEachOther) {
  torch::nn::ReLU relu;
  torch::Tensor a = torch::ones({2});
  torch::Tensor b = on_meta({2});
  const std::string m = mismatch_message([&] { DEVCHECK_CHECK_INPUTS(relu, a, b); });
  EXPECT_THAT(m, HasSubstr("ReLU.forward inputs"));
  EXPECT_THAT(m, HasSubstr("a "));
  EXPECT_THAT(m, HasSubstr("<- not on cpu"));
  EXPECT_NO_THROW(DEVCHECK_CHECK_INPUTS(relu, a, a));
}

TEST(CheckInputs, MixedModuleIsReportedAsSuch) {
  NetWithStray net;
  torch::Tensor x = on_meta({1, 4});
  const std::string m = mismatch_message([&] { check_inputs(net, {{"x", x}}); });
  EXPECT_THAT(m, HasSubstr("spread over 2 devices"));
  EXPECT_THAT(m, HasSubstr("stray_mask"));
}

}  // namespace
}  // namespace devcheck
