// devcheck inspect, in-process: output, JSON, exit codes 0/1/2.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "checkpoint/fixtures.h"
#include "cli/run_cli.h"

using ::testing::HasSubstr;

namespace devcheck::cli {
namespace {

using devcheck::testing::fixture;

TEST(InspectCommand, ReadableCheckpointExits0WithTableAndDevices) {
  const CliResult r = run_cli({"inspect", fixture("cuda1.pt")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("model.0.weight"));
  EXPECT_THAT(r.out, HasSubstr("cuda:1"));
  EXPECT_THAT(r.out, HasSubstr("devcheck remap"));
  EXPECT_TRUE(r.err.empty());
}

TEST(InspectCommand, JsonHasFormatTensorsDevicesFindings) {
  const CliResult r = run_cli({"inspect", fixture("optimizer.pt"), "--json"});
  EXPECT_EQ(r.exit_code, 0);
  const auto j = nlohmann::json::parse(r.out);
  for (const char* field : {"format", "tensors", "devices", "findings"}) {
    EXPECT_TRUE(j.contains(field)) << field;
  }
  bool found = false;
  for (const auto& t : j["tensors"]) found = found || t["key"] == "optimizer.state.0.exp_avg";
  EXPECT_TRUE(found);
}

TEST(InspectCommand, TorchScriptAndLegacyAreReadable) {
  EXPECT_EQ(run_cli({"inspect", fixture("scripted.pt")}).exit_code, 0);
  EXPECT_EQ(run_cli({"inspect", fixture("traced.pt")}).exit_code, 0);
  const CliResult legacy = run_cli({"inspect", fixture("legacy.pt")});
  EXPECT_EQ(legacy.exit_code, 0);
  EXPECT_THAT(legacy.out, HasSubstr("legacy-format"));
}

TEST(InspectCommand, MaliciousPickleExits1AndNeverRuns) {
  for (const char* name : {"evil_system.pt", "evil_eval.pt", "evil_legacy.pt"}) {
    const CliResult r = run_cli({"inspect", fixture(name)});
    EXPECT_EQ(r.exit_code, 1) << name;
    EXPECT_THAT(r.out, HasSubstr("unsafe-global"));
  }
  EXPECT_FALSE(std::filesystem::exists(devcheck::testing::pwned_marker()));
}

TEST(InspectCommand, SizeViolationsExit1) {
  EXPECT_EQ(run_cli({"inspect", fixture("short_record.pt")}).exit_code, 1);
  EXPECT_EQ(run_cli({"inspect", fixture("view_oob.pt")}).exit_code, 1);
  EXPECT_EQ(run_cli({"inspect", fixture("escape.pt")}).exit_code, 1);
}

TEST(InspectCommand, UnreadableFilesExit2WithOneLineNamingTheFile) {
  for (const char* name : {"truncated.pt", "empty.pt", "not_a_checkpoint.pt", "missing.pt"}) {
    const CliResult r = run_cli({"inspect", fixture(name)});
    EXPECT_EQ(r.exit_code, 2) << name;
    EXPECT_THAT(r.err, HasSubstr(fixture(name)));
    EXPECT_THAT(r.err, HasSubstr("[devcheck]"));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
}

TEST(InspectCommand, MissingArgumentIsUsageErrorExit2) {
  EXPECT_EQ(run_cli({"inspect"}).exit_code, 2);
}

}  // namespace
}  // namespace devcheck::cli
