// `devcheck launch` and `devcheck train --nproc N`: the flags reach
// devcheck::launch (tests/launch/ tests the launcher itself), and the
// torch-free program launches without LibTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "cli/run_cli.h"

namespace devcheck::cli {
namespace {

using devcheck::testing::binary_dir;
using devcheck::testing::source_dir;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(LaunchCommand, FlagsReachTheRanksAndTorchrunsNprocFlagWorks) {
  const CliResult r =
      run_cli({"launch", "--nproc-per-node", "2", "--master-port", "29517", "--grace", "5", "--",
               "sh", "-c", "echo \"rank $RANK of $WORLD_SIZE port $MASTER_PORT\""});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("[rank0]: rank 0 of 2 port 29517\n"));
  EXPECT_THAT(r.out, HasSubstr("[rank1]: rank 1 of 2 port 29517\n"));
  // "--" before COMMAND is optional; -n is --nproc.
  const CliResult bare = run_cli({"launch", "-n", "1", "sh", "-c", "echo \"$WORLD_SIZE\""});
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  EXPECT_EQ(bare.out, "[rank0]: 1\n");
}

TEST(LaunchCommand, BadUsageIsOneMessageAndExitTwo) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"launch", "-n", "0", "--", "true"}, "--nproc: Value 0 not in range"},
      {{"launch", "-n", "2"}, "command is required"},
      {{"launch", "-n", "2", "--master-port", "70000", "--", "true"}, "--master-port"},
      {{"launch", "-n", "2", "--grace", "-1", "--", "true"}, "--grace"},
      {{"launch", "-n", "2", "--bogus", "--", "true"}, "--bogus"},
      {{"launch", "--", "true"}, "--nproc is required"},
      {{"launch", "-n", "2", "--", "no-such-program-xyz"},
       "devcheck launch: command not found: 'no-such-program-xyz' (not in PATH)"},
      {{"launch", "-n", "2", "--", "/tmp"},
       "devcheck launch: cannot run '/tmp': it is a directory"},
  };
  for (const auto& [args, message] : cases) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args[2] << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr(message));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'),
              r.err.find("Run 'devcheck") != std::string::npos ? 2 : 1)
        << r.err;
    EXPECT_EQ(r.out, "");
  }
}

TEST(LaunchCommand, LoadsNoLibTorch) {
  const std::vector<std::string> argv{
      "env", "LD_DEBUG=libs", binary_dir() + "/devcheck", "launch", "-n", "1", "--", "true"};
  const auto r = devcheck::testing::run_process(argv);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("calling init:"));
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("[rank", 0) == 0) continue;  // the rank's own loader
    EXPECT_THAT(line, Not(HasSubstr("libtorch"))) << line;
    EXPECT_THAT(line, Not(HasSubstr("libc10"))) << line;
    EXPECT_THAT(line, Not(HasSubstr("libdevcheck"))) << line;
  }
}

// `devcheck train --nproc N` with a stand-in for devcheck-torch.
TEST(LaunchCommand, TrainWithNprocStartsThatManyHelpersAndPassesRankZerosStdout) {
  const std::string helper =
      "DEVCHECK_TORCH_HELPER=" + source_dir() + "/tests/cli/programs/fake_devcheck_torch.py";
  const auto two = devcheck::testing::run_process(
      {"sh", "-c", "\"$0\" train --epochs 1 --nproc 2 --json 2>/dev/null",
       binary_dir() + "/devcheck"},
      {helper});
  ASSERT_EQ(two.exit_code, 0) << two.output;
  EXPECT_EQ(two.output,
            "{\"argv\": [\"train\", \"--epochs\", \"1\", \"--nproc\", \"2\", \"--json\"], "
            "\"rank\": \"0\", \"world_size\": \"2\"}\n");
  const auto logs =
      devcheck::testing::run_process({binary_dir() + "/devcheck", "train", "--nproc=2"}, {helper});
  EXPECT_THAT(logs.output, HasSubstr("[rank0]: helper process rank=0\n"));
  EXPECT_THAT(logs.output, HasSubstr("[rank1]: helper process rank=1\n"));

  const auto one = devcheck::testing::run_process(
      {binary_dir() + "/devcheck", "train", "--nproc", "1"}, {helper});
  ASSERT_EQ(one.exit_code, 0) << one.output;
  EXPECT_THAT(one.output, HasSubstr("\"rank\": null, \"world_size\": null}"));
  EXPECT_THAT(one.output, HasSubstr("helper process rank=None"));
  EXPECT_THAT(one.output, Not(HasSubstr("[rank")));

  // --help is printed once, by one helper.
  const auto help = devcheck::testing::run_process(
      {binary_dir() + "/devcheck", "train", "--nproc", "2", "--help"}, {helper});
  ASSERT_EQ(help.exit_code, 0) << help.output;
  EXPECT_THAT(help.output, HasSubstr("\"--nproc\", \"2\", \"--help\"], \"rank\": null"));
  EXPECT_THAT(help.output, Not(HasSubstr("[rank")));
}

}  // namespace
}  // namespace devcheck::cli
