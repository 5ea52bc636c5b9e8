// load_tensors and load_state_dict against what real torch.load reads.
#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>

#include "checkpoint/fixtures.h"
#include "devcheck/checkpoint.h"
#include "devcheck/error.h"
#include "devcheck/fake_device.h"

using ::testing::HasSubstr;

namespace devcheck {
namespace {

using devcheck::testing::fixture;
using devcheck::testing::torch_check;

std::string hex_of(const at::Tensor& t) {
  at::Tensor flat = t.reshape({-1}).contiguous();
  if (flat.scalar_type() == at::kBool) flat = flat.to(at::kByte);
  const auto* p = static_cast<const unsigned char*>(flat.data_ptr());
  std::string hex;
  for (std::int64_t i = 0; i < flat.numel() * static_cast<std::int64_t>(flat.element_size()); ++i) {
    static const char* digits = "0123456789abcdef";
    hex += digits[p[i] >> 4];
    hex += digits[p[i] & 15];
  }
  return hex;
}

void expect_same_as_torch(const std::string& name, const MapLocation& map) {
  const auto r = torch_check({"dump", fixture(name)});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto expected = nlohmann::json::parse(r.output);
  const auto tensors = load_tensors(fixture(name), map);
  ASSERT_EQ(tensors.size(), expected.size()) << name;
  for (const auto& [key, tensor] : tensors) {
    ASSERT_TRUE(expected.contains(key)) << key;
    EXPECT_EQ(tensor.sizes().vec(), expected[key]["shape"].get<std::vector<std::int64_t>>()) << key;
    EXPECT_EQ(hex_of(tensor), expected[key]["hex"].get<std::string>()) << name << " " << key;
    EXPECT_TRUE(tensor.device().is_cpu());
  }
}

TEST(LoadTensors, BitwiseEqualToTorchLoadForEveryFixture) {
  const MapLocation cpu = MapLocation::to(c10::Device("cpu"));
  for (const char* name : {"cpu_state_dict.pt", "cuda1.pt", "optimizer.pt", "views.pt", "dtypes.pt",
                           "legacy.pt", "legacy_cuda1.pt", "mixed.pt"}) {
    expect_same_as_torch(name, cpu);
  }
}

TEST(LoadTensors, DtypesMatchTheFile) {
  const auto tensors = load_tensors(fixture("dtypes.pt"));
  for (const auto& [key, t] : tensors) {
    if (key == "bfloat16") {
      EXPECT_EQ(t.scalar_type(), at::kBFloat16);
    } else if (key == "complex128") {
      EXPECT_EQ(t.scalar_type(), at::kComplexDouble);
    } else if (key == "bool") {
      EXPECT_EQ(t.scalar_type(), at::kBool);
    }
    if (key == "scalar") {
      EXPECT_EQ(t.dim(), 0);
      EXPECT_FLOAT_EQ(t.item<float>(), 3.5f);
    }
  }
}

TEST(LoadTensors, ViewsShareOneStorageInMemory) {
  const auto tensors = load_tensors(fixture("views.pt"));
  std::map<std::string, at::Tensor> by_key(tensors.begin(), tensors.end());
  EXPECT_TRUE(by_key["base"].is_alias_of(by_key["slice"]));
  EXPECT_TRUE(by_key["base"].is_alias_of(by_key["t"]));
  EXPECT_TRUE(by_key["tied.emb.weight"].is_alias_of(by_key["tied.out.weight"]));
  by_key["base"].fill_(7);
  EXPECT_EQ(by_key["slice"][0].item<float>(), 7.0f);
  EXPECT_EQ(by_key["slice"].storage_offset(), 2);
  EXPECT_TRUE(by_key["param"].requires_grad());
}

TEST(LoadTensors, LargeStoragesAreReadWholeWritableAndShared) {
  constexpr std::int64_t kCount = 786437;  // 3 MiB + 20 B of float32
  for (const char* name : {"large.pt", "large_legacy.pt"}) {
    SCOPED_TRACE(name);
    auto tensors = load_tensors(fixture(name));
    std::map<std::string, at::Tensor> by_key(tensors.begin(), tensors.end());
    tensors.clear();
    at::Tensor big = by_key["big"];
    EXPECT_TRUE(at::equal(big, at::arange(kCount, at::kFloat)));
    EXPECT_TRUE(at::equal(by_key["tail"], at::arange(kCount - 5, kCount, at::kFloat)));
    EXPECT_TRUE(at::equal(by_key["grid"], at::arange(1000, 2000, at::kFloat).view({10, 100})));
    EXPECT_TRUE(big.is_alias_of(by_key["tail"]));
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(big.data_ptr()) % 64, 0U);
    big.fill_(2);  // the memory is the tensor's own and writable
    EXPECT_EQ(by_key["tail"].sum().item<double>(), 10.0);
    by_key.clear();  // last references: the mapping is released
  }
}

TEST(LoadTensors, CudaTaggedWithoutMapLocationNamesKeyAndBothDevices) {
  if (cuda_device_count() > 1) GTEST_SKIP() << "this machine has cuda:1";
  try {
    load_tensors(fixture("cuda1_state_dict.pt"));
    FAIL() << "expected DeviceUnavailableError";
  } catch (const DeviceUnavailableError& e) {
    EXPECT_THAT(e.message(), HasSubstr("'0.weight'"));
    EXPECT_THAT(e.message(), HasSubstr("saved on cuda:1"));
    EXPECT_THAT(e.message(), HasSubstr("created on cuda:1"));
    EXPECT_THAT(e.message(), HasSubstr("MapLocation::to"));
  }
}

TEST(LoadTensors, MapToMetaCreatesTensorsThereWithoutData) {
  const auto tensors =
      load_tensors(fixture("cuda1_state_dict.pt"), MapLocation::to(c10::Device("meta")));
  ASSERT_FALSE(tensors.empty());
  for (const auto& [key, t] : tensors) EXPECT_TRUE(t.is_meta()) << key;
}

TEST(LoadTensors, MapToAFakeDevicePutsEveryTensorThereWithTheFilesBytes) {
  const c10::Device fake1 = fake_device(1);
  for (const MapLocation& map : {MapLocation::to(fake1), MapLocation().map("cuda:1", "fake:1"),
                                 MapLocation().map("cuda:1", "privateuseone:1")}) {
    SCOPED_TRACE(map.str());
    const auto on_fake = load_tensors(fixture("cuda1_state_dict.pt"), map);
    const auto on_cpu =
        load_tensors(fixture("cuda1_state_dict.pt"), MapLocation::to(c10::Device(c10::kCPU)));
    ASSERT_EQ(on_fake.size(), on_cpu.size());
    for (size_t i = 0; i < on_fake.size(); ++i) {
      EXPECT_EQ(on_fake[i].second.device(), fake1) << on_fake[i].first;
      EXPECT_EQ(hex_of(on_fake[i].second.cpu()), hex_of(on_cpu[i].second)) << on_fake[i].first;
    }
  }
  // views keep sharing one storage on the fake device
  const auto views = load_tensors(fixture("views.pt"), MapLocation::to(fake1));
  std::map<std::string, at::Tensor> by_key(views.begin(), views.end());
  EXPECT_TRUE(by_key["base"].is_alias_of(by_key["slice"]));
  by_key["base"].fill_(7);
  EXPECT_EQ(by_key["slice"][0].item<float>(), 7.0F);
  EXPECT_EQ(by_key["slice"].device(), fake1);
}

TEST(LoadTensors, UnsafeFilesAreRefusedAndNeverRun) {
  for (const char* name : {"evil_system.pt", "evil_eval.pt", "short_record.pt", "view_oob.pt"}) {
    EXPECT_THROW(load_tensors(fixture(name)), UnsafeContentError) << name;
  }
  EXPECT_FALSE(std::filesystem::exists(devcheck::testing::pwned_marker()));
}

torch::nn::Sequential mlp() {
  return torch::nn::Sequential(torch::nn::Linear(4, 3), torch::nn::BatchNorm1d(3),
                               torch::nn::Linear(3, 2));
}

TEST(LoadStateDict, PythonStateDictFillsTheLibTorchModule) {
  auto model = mlp();
  const LoadReport report = load_state_dict(*model, fixture("cpu_state_dict.pt"));
  EXPECT_TRUE(report.ok()) << report.to_text();
  EXPECT_EQ(report.loaded, 9u);
  const auto tensors = load_tensors(fixture("cpu_state_dict.pt"));
  for (const auto& [key, t] : tensors) {
    const auto* p = model->named_parameters().find(key);
    const auto* b = model->named_buffers().find(key);
    ASSERT_TRUE(p != nullptr || b != nullptr) << key;
    EXPECT_TRUE(torch::equal(p ? *p : *b, t)) << key;
  }
}

TEST(LoadStateDict, DataParallelPrefixIsStrippedAutomatically) {
  auto model = mlp();
  const LoadReport report = load_state_dict(*model, fixture("dataparallel.pt"));
  EXPECT_TRUE(report.ok()) << report.to_text();
  EXPECT_EQ(report.stripped_prefix, "module.");
}

TEST(LoadStateDict, CudaTaggedFileLoadsIntoACpuModule) {
  auto model = mlp();
  EXPECT_TRUE(load_state_dict(*model, fixture("cuda1_state_dict.pt")).ok());
}

TEST(LoadStateDict, StrictMismatchThrowsWithBothShapesAndChangesNothing) {
  auto model = torch::nn::Sequential(torch::nn::Linear(5, 3), torch::nn::BatchNorm1d(3));
  const at::Tensor before = model->named_parameters()["0.weight"].clone();
  try {
    load_state_dict(*model, fixture("cpu_state_dict.pt"));
    FAIL() << "expected InvalidArgumentError";
  } catch (const InvalidArgumentError& e) {
    EXPECT_THAT(e.message(), HasSubstr("'0.weight': module [3, 5], file [3, 4]"));
    EXPECT_THAT(e.message(), HasSubstr("unexpected: 2.weight, 2.bias"));
    EXPECT_THAT(e.message(), HasSubstr(fixture("cpu_state_dict.pt")));
  }
  EXPECT_TRUE(torch::equal(before, model->named_parameters()["0.weight"]));
}

TEST(LoadStateDict, NonStrictLoadsWhatMatchesAndReports) {
  auto model = torch::nn::Sequential(torch::nn::Linear(5, 3), torch::nn::BatchNorm1d(3));
  const LoadReport report =
      load_state_dict(*model, fixture("cpu_state_dict.pt"), LoadOptions().strict(false));
  EXPECT_FALSE(report.ok());
  ASSERT_EQ(report.mismatched.size(), 1u);
  EXPECT_EQ(report.mismatched[0].key, "0.weight");
  EXPECT_EQ(report.unexpected.size(), 2u);
  EXPECT_EQ(report.loaded, 6u);  // 0.bias and five BatchNorm tensors
  EXPECT_THAT(report.to_json(), HasSubstr("\"mismatched\""));
}

}  // namespace
}  // namespace devcheck
