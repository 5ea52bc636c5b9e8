#include "devcheck/doctor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/version.h>
#include <nlohmann/json.hpp>

using ::testing::HasSubstr;

namespace devcheck {
namespace {

TEST(EnvironmentReport, NamesLibTorchDevicesAndTheAutoChoice) {
  const EnvironmentReport r = environment_report();
  EXPECT_EQ(r.torch_version, TORCH_VERSION);
  EXPECT_GT(r.threads, 0);
  ASSERT_FALSE(r.devices.empty());
  const std::string text = r.to_text();
  EXPECT_THAT(text, HasSubstr("LibTorch " + std::string(TORCH_VERSION)));
  EXPECT_THAT(text, HasSubstr("  cpu "));
  EXPECT_THAT(text, HasSubstr("auto:      " + r.auto_choice.device.str() + ": "));
  EXPECT_THAT(text, HasSubstr(r.auto_choice.reason));
}

TEST(EnvironmentReport, JsonHasTheSameFacts) {
  const EnvironmentReport r = environment_report();
  const auto j = nlohmann::json::parse(r.to_json());
  EXPECT_EQ(j["torch_version"], r.torch_version);
  EXPECT_EQ(j["cuda"], r.cuda_built);
  EXPECT_EQ(j["devices"].size(), r.devices.size());
  EXPECT_EQ(j["devices"][0]["device"], "cpu");
  EXPECT_TRUE(j["devices"][0]["total_bytes"].is_number());
  EXPECT_EQ(j["auto"]["device"], r.auto_choice.device.str());
}

TEST(EnvironmentReport, SaysWhetherLibTorchWasBuiltWithCuda) {
  const EnvironmentReport r = environment_report();
  const std::string text = r.to_text();
  if (!r.cuda_built) {
    EXPECT_TRUE(r.cuda_version.empty());
    EXPECT_THAT(text, HasSubstr("CUDA:      no (this LibTorch was built without CUDA)"));
    return;
  }
  EXPECT_THAT(text, HasSubstr("CUDA:      CUDA " + r.cuda_version + " build"));
}

TEST(EnvironmentReport, CudaBuildWithoutADeviceSaysSoAndWhy) {
  const EnvironmentReport r = environment_report();
  if (!r.cuda_built) GTEST_SKIP() << "this LibTorch has no CUDA";
  if (cuda_device_count() > 0) GTEST_SKIP() << "this machine has a CUDA device";
  ASSERT_FALSE(r.cuda_note.empty());
  EXPECT_THAT(r.to_text(), HasSubstr("CUDA:      CUDA " + r.cuda_version + " build, no device (" +
                                     r.cuda_note + ")"));
  EXPECT_THAT(r.auto_choice.reason, HasSubstr("cpu: no CUDA device"));
  EXPECT_THAT(r.auto_choice.reason, HasSubstr(r.cuda_note));
  const auto j = nlohmann::json::parse(r.to_json());
  EXPECT_EQ(j["cuda_version"], r.cuda_version);
  EXPECT_EQ(j["cuda_note"], r.cuda_note);
}

}  // namespace
}  // namespace devcheck
