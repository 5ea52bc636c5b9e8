// devcheck doctor, run in-process.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

#include "cli/run_cli.h"

using ::testing::HasSubstr;

namespace devcheck::cli {
namespace {

TEST(DoctorCommand, PrintsDevicesAndTheAutoChoice) {
  const CliResult r = run_cli({"doctor"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("on LibTorch"));
  EXPECT_THAT(r.out, HasSubstr("devices:"));
  EXPECT_THAT(r.out, HasSubstr("auto:"));
  EXPECT_TRUE(r.err.empty());
}

TEST(DoctorCommand, JsonIsParseable) {
  const CliResult r = run_cli({"doctor", "--json"});
  EXPECT_EQ(r.exit_code, 0);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j.contains("auto"));
  EXPECT_EQ(j["devices"][0]["device"], "cpu");
}

TEST(DoctorCommand, SaysWhenTheCudaDevicesAreFake) {
  const testing::ProcessResult r = testing::run_process(
      {testing::binary_dir() + "/devcheck", "doctor"}, {"DEVCHECK_FAKE_CUDA=3"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("CUDA:      fake: 3 devcheck fake CUDA devices (host memory, CPU "
                                  "kernels; no GPU)"));
  EXPECT_THAT(r.output, HasSubstr("cuda:2   devcheck fake CUDA device 2"));
  EXPECT_THAT(r.output, HasSubstr("auto:      cuda:0: first of 3 fake CUDA devices"));
}

TEST(DoctorCommand, UnknownFlagIsUsageErrorExit2) {
  const CliResult r = run_cli({"doctor", "--bogus"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--bogus"));
  EXPECT_TRUE(r.out.empty());
}

}  // namespace
}  // namespace devcheck::cli
