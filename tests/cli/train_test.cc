// devcheck train, run in-process.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/run_cli.h"
#include "devcheck/device.h"

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

// The fake device runs the CPU's kernels on the same bytes: every number of
// a run equals the CPU run's bit for bit, and the sanitizer (on by default)
// finds nothing in a device-clean program on a second device.
TEST(TrainCommand, FakeDeviceLossesEqualTheCpusBitwise) {
  const std::vector<std::string> common = {"train", "--epochs",       "2",   "--max-steps",
                                           "25",    "--test-samples", "300", "--threads",
                                           "1",     "--json"};
  std::vector<std::string> cpu_args = common;
  cpu_args.insert(cpu_args.end(), {"--device", "cpu", "--no-sanitize"});
  std::vector<std::string> fake_args = common;
  fake_args.insert(fake_args.end(), {"--device", "fake"});
  const CliResult cpu = run_cli(cpu_args);
  const CliResult fake = run_cli(fake_args);
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err << cpu.out;
  ASSERT_EQ(fake.exit_code, 0) << fake.err << fake.out;
  const auto c = nlohmann::json::parse(cpu.out);
  const auto f = nlohmann::json::parse(fake.out);
  EXPECT_EQ(f["device"], devcheck::select_device("fake").device.str());
  ASSERT_EQ(c["epochs"].size(), 2U);
  for (size_t e = 0; e < 2; ++e) {
    EXPECT_EQ(c["epochs"][e]["mean_loss"].get<double>(), f["epochs"][e]["mean_loss"].get<double>())
        << "epoch " << e + 1;
  }
  EXPECT_EQ(c["loss_end"].get<double>(), f["loss_end"].get<double>());
  EXPECT_EQ(c["test_accuracy"].get<double>(), f["test_accuracy"].get<double>());
  // the prefetcher's whole-batch copies are counted under its name, not flagged
  EXPECT_THAT(fake.out + fake.err, HasSubstr("0 findings"));
  EXPECT_THAT(fake.out + fake.err, HasSubstr("devcheck::DevicePrefetcher (batch staging)"));
}

// DEVCHECK_FAKE_CUDA: the classifier trains on fake CUDA's cuda:0 with the
// CPU run's numbers, and the sanitizer watches it there. In a process of its
// own: fake CUDA cannot be turned off.
TEST(TrainCommand, FakeCudaFromTheEnvironmentTrainsWithTheCpusLossesBitwise) {
  const std::vector<std::string> common = {testing::binary_dir() + "/devcheck",
                                           "train",
                                           "--max-steps",
                                           "25",
                                           "--test-samples",
                                           "300",
                                           "--threads",
                                           "1",
                                           "--json"};
  std::vector<std::string> cpu_args = common;
  cpu_args.insert(cpu_args.end(), {"--device", "cpu", "--no-sanitize"});
  std::vector<std::string> cuda_args = common;
  cuda_args.insert(cuda_args.end(), {"--device", "cuda"});
  const testing::ProcessResult cpu = testing::run_process(cpu_args);
  const testing::ProcessResult cuda = testing::run_process(cuda_args, {"DEVCHECK_FAKE_CUDA=2"});
  ASSERT_EQ(cpu.exit_code, 0) << cpu.output;
  ASSERT_EQ(cuda.exit_code, 0) << cuda.output;
  const auto json_of = [](const std::string& output) {
    return nlohmann::json::parse(output.substr(output.find('{')));
  };
  const auto c = json_of(cpu.output);
  const auto g = json_of(cuda.output);
  EXPECT_EQ(g["device"], "cuda:0");
  EXPECT_EQ(c["loss_end"].get<double>(), g["loss_end"].get<double>());
  EXPECT_EQ(c["test_accuracy"].get<double>(), g["test_accuracy"].get<double>());
  EXPECT_THAT(cuda.output, HasSubstr("0 findings"));
  const testing::ProcessResult bad =
      testing::run_process({testing::binary_dir() + "/devcheck", "train", "--device", "cuda"},
                           {"DEVCHECK_FAKE_CUDA=many"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.output, HasSubstr("invalid DEVCHECK_FAKE_CUDA='many'"));
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
