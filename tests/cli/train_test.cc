// devcheck train, run in-process.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/run_cli.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace devcheck::cli {
namespace {

TEST(TrainCommand, PrintsOneLinePerEpochThenAccuracyAndTime) {
  const CliResult r = run_cli({"train", "--device", "cpu", "--epochs", "2", "--max-steps", "40",
                               "--test-samples", "500", "--threads", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_THAT(r.out, HasSubstr("device: cpu"));
  EXPECT_THAT(r.out, HasSubstr("epoch 1/2: 40 steps"));
  EXPECT_THAT(r.out, HasSubstr("epoch 2/2: 40 steps"));
  EXPECT_THAT(r.out, HasSubstr("test accuracy: "));
  EXPECT_THAT(r.out, HasSubstr("time: "));
  EXPECT_THAT(r.out, Not(HasSubstr("\r")));  // not a terminal: no progress bar
  // It ran under the sanitizer, which found nothing.
  EXPECT_THAT(r.out, HasSubstr("sanitizer"));
}

TEST(TrainCommand, WritesAndResumesACheckpoint) {
  testing::TempDir dir;
  const std::string ckpt = (dir / "c.pt").string();
  const CliResult a = run_cli({"train", "--device", "cpu", "--max-steps", "30", "--test-samples",
                               "200", "--threads", "1", "--out", ckpt, "--no-sanitize"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_THAT(a.out, HasSubstr("checkpoint: " + ckpt));
  const CliResult b =
      run_cli({"train", "--device", "cpu", "--epochs", "2", "--max-steps", "30", "--test-samples",
               "200", "--threads", "1", "--resume", ckpt, "--json", "--no-sanitize"});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const auto j = nlohmann::json::parse(b.out);
  EXPECT_EQ(j["first_epoch"], 2);
  EXPECT_EQ(j["global_step"], 60);
  EXPECT_EQ(j["resumed_from"], ckpt);
}

TEST(TrainCommand, MissingDataIsExit2WithOneLine) {
  testing::TempDir dir;
  const CliResult r = run_cli({"train", "--data", dir.path().string(), "--no-sanitize"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("dataset-fashion-mnist"));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(TrainCommand, BadFlagsAreExit2) {
  EXPECT_EQ(run_cli({"train", "--epochs", "0", "--no-sanitize"}).exit_code, 2);
  EXPECT_EQ(run_cli({"train", "--device", "tpu", "--no-sanitize"}).exit_code, 2);
  EXPECT_EQ(run_cli({"train", "--bogus"}).exit_code, 2);
  const CliResult schedule = run_cli({"train", "--lr-schedule", "step", "--no-sanitize"});
  EXPECT_EQ(schedule.exit_code, 2);
  EXPECT_THAT(schedule.err, HasSubstr("--lr-schedule"));
  EXPECT_THAT(schedule.err, HasSubstr("step"));
}

TEST(TrainCommand, HelpListsTheFlags) {
  const CliResult r = run_cli({"train", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* flag : {"--device", "--epochs", "--batch-size", "--amp", "--out", "--resume",
                           "--data", "--max-steps", "--lr-schedule"}) {
    EXPECT_THAT(r.out, HasSubstr(flag));
  }
}

}  // namespace
}  // namespace devcheck::cli
