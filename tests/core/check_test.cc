#include "devcheck/check.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include <functional>

#include "devcheck/error.h"
#include "devcheck/fake_device.h"
#include "support/support.h"

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

namespace devcheck {
namespace {

const c10::Device kCpu(c10::kCPU);

// The second device: the fake accelerator (it computes, and fails on mixed
// devices as CUDA does). Its name differs by LibTorch version: use .str().
std::string fake_name(int index = 0) { return fake_device(index).str(); }

torch::Tensor on_fake(std::vector<int64_t> shape, int index = 0) {
  return torch::ones(shape, torch::TensorOptions().device(fake_device(index)));
}

// A row of a check's table: the device column is as wide as the longest device name.
std::string row(const std::string& name, const std::string& device, const std::string& rest) {
  return fmt::format("{}{:<{}} {}", name, device, std::max<size_t>(6, fake_name().size()), rest);
}

std::string libtorch_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const c10::Error& e) {
    return e.what_without_backtrace();
  }
  return "(no error)";
}

std::string same_device_error(const std::string& a, const std::string& b) {
  return "Expected all tensors to be on the same device, but found at least two devices, " + a +
         " and " + b + "!";
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
  const std::string fake = fake_name();
  torch::Tensor input = torch::ones({32, 784});
  torch::Tensor weight = on_fake({10, 784});
  torch::Tensor bias = on_fake({10});
  const std::string m = mismatch_message([&] {
    check_same_device({{"input", input}, {"weight", weight}, {"bias", bias}}, "linear");
  });
  EXPECT_THAT(m, HasSubstr("device mismatch in linear"));
  EXPECT_THAT(m, HasSubstr(fake + " (2 tensors) and cpu (1 tensor)"));
  EXPECT_THAT(m, HasSubstr(row("input   ", "cpu", "float32   [32, 784]   <- not on " + fake)));
  EXPECT_THAT(m, HasSubstr(row("weight  ", fake, "float32   [10, 784]")));
  EXPECT_THAT(m, HasSubstr(row("bias    ", fake, "float32   [10]")));
  EXPECT_THAT(m, HasSubstr("fix: move input to " + fake));
  EXPECT_THAT(m, Not(HasSubstr(row("weight  ", fake, "float32   [10, 784]   <-"))));
  // The op itself fails too, naming neither the tensors nor the fix.
  EXPECT_THAT(libtorch_error([&] { torch::nn::functional::linear(input, weight, bias); }),
              HasSubstr(same_device_error(fake, "cpu")));
}

TEST(CheckSameDevice, ZeroDimCpuTensorsAreAllowedBesideOthers) {
  torch::Tensor w = on_fake({3});
  torch::Tensor scale = torch::scalar_tensor(2.0);
  EXPECT_NO_THROW(check_same_device({{"w", w}, {"scale", scale}}, "mul"));
  // as the op allows it: it runs, on the fake device
  const torch::Tensor scaled = w * scale;
  EXPECT_EQ(scaled.device(), fake_device());
  EXPECT_TRUE(torch::equal(scaled.cpu(), torch::full({3}, 2.0F)));
  torch::Tensor one_elem = torch::ones({1});  // 1-dim is not exempt, for the op either
  const std::string m = mismatch_message([&] {
    check_same_device({{"w", w}, {"one", one_elem}}, "mul");
  });
  EXPECT_THAT(m, HasSubstr("fix: move one to " + fake_name()));
  EXPECT_THAT(libtorch_error([&] { (void)(w * one_elem); }),
              HasSubstr(same_device_error(fake_name(), "cpu")));
}

TEST(CheckSameDevice, UndefinedTensorsAreSkipped) {
  torch::Tensor x = torch::ones({2});
  torch::Tensor none;
  EXPECT_NO_THROW(check_same_device({{"x", x}, {"bias", none}}, "linear"));
}

TEST(CheckSameDevice, ATieWithTheCpuGoesToTheOtherDevice) {
  torch::Tensor b = torch::ones({1});
  torch::Tensor a = on_fake({1});
  const std::string m = mismatch_message([&] { check_same_device({{"b", b}, {"a", a}}, "add"); });
  EXPECT_THAT(m, HasSubstr("found " + fake_name() + " (1 tensor) and cpu (1 tensor)"));
  EXPECT_THAT(m, HasSubstr("fix: move b to " + fake_name()));
}

TEST(CheckSameDevice, ATieBetweenTwoDevicesGoesToTheFirstSeen) {
  torch::Tensor a = on_fake({1}, 1);
  torch::Tensor b = on_fake({1}, 0);
  const std::string m = mismatch_message([&] { check_same_device({{"a", a}, {"b", b}}, "add"); });
  EXPECT_THAT(m, HasSubstr("<- not on " + fake_name(1)));
  EXPECT_THAT(m, HasSubstr("fix: move b to " + fake_name(1)));
}

TEST(CheckSameDevice, TwoIndexesOfOneDeviceTypeAreTwoDevices) {
  torch::Tensor a = on_fake({2}, 0);
  torch::Tensor b = on_fake({2}, 1);
  torch::Tensor c = on_fake({2}, 1);
  const std::string m = mismatch_message([&] {
    check_same_device({{"a", a}, {"b", b}, {"c", c}}, "add");
  });
  EXPECT_THAT(m, HasSubstr(fake_name(1) + " (2 tensors) and " + fake_name(0) + " (1 tensor)"));
  EXPECT_THAT(m,
              HasSubstr(row("a     ", fake_name(0), "float32   [2]   <- not on " + fake_name(1))));
  EXPECT_THAT(m, HasSubstr("fix: move a to " + fake_name(1)));
  EXPECT_THAT(libtorch_error([&] { (void)(b + a); }),
              HasSubstr(same_device_error(fake_name(1), fake_name(0))));
}

TEST(CheckSameDevice, AcceptsARuntimeList) {
  torch::Tensor a = on_fake({1});
  torch::Tensor b = torch::ones({1});
  std::vector<NamedTensor> list{{"a", a}, {"b", b}};
  const std::string m = mismatch_message([&] { check_same_device(list, "cat"); });
  EXPECT_THAT(m, HasSubstr("device mismatch in cat"));
  EXPECT_THAT(m, HasSubstr("fix: move b to " + fake_name()));
}

TEST(CheckOn, NamesTheStrayAndTheExpectedDevice) {
  const std::string fake = fake_name();
  torch::Tensor x = torch::ones({4}, torch::kInt64);
  torch::Tensor y = on_fake({2, 2});
  const std::string m = mismatch_message([&] {
    check_on(fake_device(), {{"labels", x}, {"logits", y}}, "loss");
  });
  EXPECT_THAT(m, HasSubstr("device mismatch in loss: expected every tensor on " + fake));
  EXPECT_THAT(m, HasSubstr(row("labels  ", "cpu", "int64     [4]   <- not on " + fake)));
  EXPECT_THAT(m, HasSubstr("fix: move labels to " + fake));
}

TEST(CheckOn, IndexlessDeviceMatchesAnyIndex) {
  torch::Tensor x = torch::ones({1});
  EXPECT_NO_THROW(check_on(kCpu, {{"x", x}}));
  const c10::Device any_fake(fake_device().type());
  EXPECT_NO_THROW(check_on(any_fake, {{"on1", on_fake({1}, 1)}, {"on0", on_fake({1}, 0)}}));
  const std::string m = mismatch_message([&] { check_on(any_fake, {{"x", x}}); });
  EXPECT_THAT(m, HasSubstr("device check"));
  EXPECT_THAT(m, HasSubstr("expected every tensor on " + any_fake.str()));
  // with an index, the other index is a stray
  const std::string one = mismatch_message([&] {
    check_on(fake_device(1), {{"y", on_fake({1})}});
  });
  EXPECT_THAT(one,
              HasSubstr(row("y     ", fake_name(0), "float32   [1]   <- not on " + fake_name(1))));
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
    stray = register_buffer("stray_mask",
                            torch::ones({4}, torch::TensorOptions().device(fake_device())));
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
  // and after Module::to() every one is on the new device
  net.to(fake_device(1));
  r = audit(net);
  EXPECT_TRUE(r.ok());
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].device, fake_device(1));
  EXPECT_EQ(r.devices[0].parameters + r.devices[0].buffers, 9u);
  EXPECT_THAT(r.to_text(), HasSubstr("all on " + fake_name(1)));
}

TEST(Audit, ListsEveryEntryOffTheMajorityByQualifiedName) {
  NetWithStray net;
  PlacementReport r = audit(net);
  ASSERT_EQ(r.misplaced.size(), 1u);
  EXPECT_EQ(r.misplaced[0].name, "stray_mask");
  EXPECT_TRUE(r.misplaced[0].is_buffer);
  EXPECT_EQ(r.misplaced[0].device, fake_device());
  EXPECT_EQ(*r.expected, kCpu);
  EXPECT_THAT(r.to_text(),
              HasSubstr("stray_mask (buffer) on " + fake_name() + ", float32 [4], 16 B"));
}

TEST(Audit, ExpectedDeviceMakesEverythingElseMisplaced) {
  NetWithStray net;
  PlacementReport r = audit(net, fake_device());
  EXPECT_TRUE(r.expected_was_given);
  EXPECT_EQ(r.misplaced.size(), 9u);
  bool found = false;
  for (const auto& e : r.misplaced) found = found || e.name == "encoder.norm.running_mean";
  EXPECT_TRUE(found);
  // fake:1 is another device: then the stray on fake:0 is misplaced too
  EXPECT_EQ(audit(net, fake_device(1)).misplaced.size(), 10u);
}

TEST(Audit, JsonHasTheSameContent) {
  NetWithStray net;
  const auto j = nlohmann::json::parse(audit(net).to_json());
  EXPECT_EQ(j["expected"], "cpu");
  EXPECT_FALSE(j["ok"].get<bool>());
  EXPECT_EQ(j["devices"].size(), 2u);
  EXPECT_EQ(j["misplaced"][0]["name"], "stray_mask");
  EXPECT_EQ(j["misplaced"][0]["device"], fake_name());
  EXPECT_EQ(j["misplaced"][0]["kind"], "buffer");
  EXPECT_EQ(j["misplaced"][0]["shape"], nlohmann::json::array({4}));
  EXPECT_EQ(j["misplaced"][0]["nbytes"], 16);
}

TEST(CheckInputs, PassesWhenInputsAreOnTheModuleDevice) {
  Net net;
  torch::Tensor x = torch::ones({2, 4});
  const torch::Tensor on_cpu = net.forward(x);
  EXPECT_NO_THROW(check_inputs(net, {{"x", x}}));
  // on the fake device: the check passes and the forward gives the CPU's numbers
  net.to(fake_device());
  const torch::Tensor on_device = net.forward(x.to(fake_device()));
  EXPECT_EQ(on_device.device(), fake_device());
  EXPECT_TRUE(torch::equal(on_device.cpu(), on_cpu));
}

TEST(CheckInputs, MacroNamesTheModuleTheArgumentAndBothDevices) {
  Net net;
  torch::Tensor x = on_fake({2, 4});
  const std::string m = mismatch_message([&] { net.forward(x); });
  EXPECT_THAT(m, HasSubstr("device mismatch in Net.forward: input 'x' is on " + fake_name()));
  EXPECT_THAT(m, HasSubstr("module 'Net' lives on cpu"));
  EXPECT_THAT(m, HasSubstr("fix: move 'x' to cpu"));
  // Without the check, LibTorch's error names the devices but not the input or the module.
  EXPECT_THAT(libtorch_error([&] { net.head(net.encoder->layer(x)); }),
              AllOf(HasSubstr(same_device_error(fake_name(), "cpu")), Not(HasSubstr("'x'"))));
}

TEST(CheckInputs, ModuleAndInputOnTwoIndexesOfOneDeviceType) {
  Net net;
  net.to(fake_device(0));
  torch::Tensor x = on_fake({2, 4}, 1);
  const std::string m = mismatch_message([&] { net.forward(x); });
  EXPECT_THAT(m, HasSubstr("input 'x' is on " + fake_name(1) + " (float32 [2, 4])"));
  EXPECT_THAT(m, HasSubstr("module 'Net' lives on " + fake_name(0)));
  EXPECT_THAT(m, HasSubstr("fix: move 'x' to " + fake_name(0)));
}

TEST(CheckInputs, ExplicitNamesAndModuleHolders) {
  torch::nn::Linear linear(4, 2);
  torch::Tensor features = on_fake({1, 4});
  const std::string m = mismatch_message([&] { check_inputs(linear, {{"features", features}}); });
  EXPECT_THAT(
      m, HasSubstr("Linear.forward: input 'features' is on " + fake_name() + " (float32 [1, 4])"));
}

TEST(CheckInputs, MacroSplitsSeveralArgumentsAtTopLevelCommas) {
  torch::nn::Linear linear(4, 2);
  torch::Tensor a = torch::ones({1, 4});
  std::vector<torch::Tensor> v{on_fake({1})};
  const std::string m = mismatch_message([&] { DEVCHECK_CHECK_INPUTS(linear, a, v.at(0)); });
  EXPECT_THAT(m, HasSubstr("input 'v.at(0)' is on " + fake_name()));
}

TEST(CheckInputs, ParameterFreeModuleChecksInputsAgainstEachOther) {
  torch::nn::ReLU relu;
  torch::Tensor a = torch::ones({2});
  torch::Tensor b = on_fake({2});
  const std::string m = mismatch_message([&] { DEVCHECK_CHECK_INPUTS(relu, a, b); });
  EXPECT_THAT(m, HasSubstr("ReLU.forward inputs"));
  // a tie between the CPU and a device: the CPU tensor is the stray
  EXPECT_THAT(m, HasSubstr(row("a     ", "cpu", "float32   [2]   <- not on " + fake_name())));
  EXPECT_THAT(m, HasSubstr(row("b     ", fake_name(), "float32   [2]\n")));
  EXPECT_NO_THROW(DEVCHECK_CHECK_INPUTS(relu, a, a));
  EXPECT_NO_THROW(DEVCHECK_CHECK_INPUTS(relu, b, b));
}

TEST(CheckInputs, MixedModuleIsReportedAsSuch) {
  NetWithStray net;
  torch::Tensor x = on_fake({1, 4});
  const std::string m = mismatch_message([&] { check_inputs(net, {{"x", x}}); });
  EXPECT_THAT(m, HasSubstr("spread over 2 devices"));
  EXPECT_THAT(m, HasSubstr("stray_mask"));
  EXPECT_THAT(m, AllOf(HasSubstr("cpu"), HasSubstr(fake_name())));
}

}  // namespace
}  // namespace devcheck
