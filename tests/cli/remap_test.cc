// devcheck remap, in-process: exit codes, flags and no partial outputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "checkpoint/fixtures.h"
#include "cli/run_cli.h"
#include "devcheck/checkpoint.h"
#include "devcheck/device.h"

#include <filesystem>

using ::testing::HasSubstr;
using ::testing::Not;

namespace devcheck::cli {
namespace {

using devcheck::testing::fixture;
using devcheck::testing::read_file;
using devcheck::testing::TempDir;
using devcheck::testing::torch_check;

TEST(RemapCommand, ToCpuWritesAFileTorchLoadsWithoutMapLocation) {
  TempDir dir;
  const std::string out = (dir / "out.pt").string();
  const CliResult r = run_cli({"remap", fixture("cuda1.pt"), "-o", out, "--to", "cpu"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("cuda:1 -> cpu"));
  const auto check = torch_check({"compare", fixture("cuda1.pt"), out});
  EXPECT_EQ(check.exit_code, 0) << check.output;
}

// PyTorch 2.6's torch.load defaults to weights_only=True: what remap writes
// must load that way (and, op by op, use nothing 2.6 refuses).
TEST(RemapCommand, OutputsLoadWithTorchLoadWeightsOnly) {
  TempDir dir;
  struct Case {
    std::string input;
    std::vector<std::string> flags;
    std::string prefix;
  };
  const std::vector<Case> cases = {
      {"cuda1_config.pt", {"--to", "cpu"}, ""},
      {"cuda1_config.pt", {"--map", "cuda:1=cuda:0"}, ""},
      {"cpu_config.pt", {"--to", "cuda:0"}, ""},
      {"dataparallel.pt", {"--to", "cuda:0", "--strip-prefix", "module."}, "module."},
      {"dataparallel.pt", {"--strip-prefix", "module."}, "module."},
      {"legacy_cuda1.pt", {"--to", "cpu"}, ""},
  };
  int n = 0;
  for (const auto& c : cases) {
    const std::string out = (dir / ("out" + std::to_string(n++) + ".pt")).string();
    std::vector<std::string> args{"remap", fixture(c.input), "-o", out};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    const CliResult r = run_cli(args);
    ASSERT_EQ(r.exit_code, 0) << c.input << ": " << r.err;
    devcheck::testing::expect_weights_only_loads(out, fixture(c.input), c.prefix);
  }
}

TEST(RemapCommand, MapAndStripPrefix) {
  TempDir dir;
  const std::string out = (dir / "out.pt").string();
  CliResult r = run_cli({"remap", fixture("mixed.pt"), "-o", out, "--map", "cuda:0=cpu"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string out2 = (dir / "out2.pt").string();
  r = run_cli(
      {"remap", fixture("dataparallel.pt"), "-o", out2, "--strip-prefix", "module.", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"keys_renamed\": 12"));
  EXPECT_EQ(Checkpoint::open(out2).entries()[0].key, "0.weight");
}

TEST(RemapCommand, RewriteCodeRewritesTorchScriptLiterals) {
  TempDir dir;
  const std::string out = (dir / "out.pt").string();
  const CliResult r =
      run_cli({"remap", fixture("scripted.pt"), "-o", out, "--to", "cpu", "--rewrite-code"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("code: code/__torch__.py:"));
}

TEST(RemapCommand, ExistingOutputNeedsForce) {
  TempDir dir;
  const std::string out = (dir / "out.pt").string();
  devcheck::testing::write_file(out, "precious");
  CliResult r = run_cli({"remap", fixture("cpu_state_dict.pt"), "-o", out, "--to", "cpu"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("allow it with --force"));
  EXPECT_THAT(r.err, Not(HasSubstr("RemapOptions")));
  EXPECT_EQ(read_file(out), "precious");
  r = run_cli({"remap", fixture("cpu_state_dict.pt"), "-o", out, "--to", "cpu", "--force"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(RemapCommand, UnsafeInputExits1WithoutOutput) {
  TempDir dir;
  const std::string out = (dir / "out.pt").string();
  const CliResult r = run_cli({"remap", fixture("evil_system.pt"), "-o", out, "--to", "cpu"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("refusing"));
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
  EXPECT_FALSE(std::filesystem::exists(devcheck::testing::pwned_marker()));
}

// --to and --map read devices as every devcheck flag does (DeviceSpec).
TEST(RemapCommand, DevicesAreSpelledAsForEveryOtherFlag) {
  TempDir dir;
  const std::string a = (dir / "a.pt").string();
  CliResult r = run_cli({"remap", fixture("cuda1.pt"), "-o", a, "--to", "CUDA:0"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("cuda:1 -> cuda:0"));
  const std::string b = (dir / "b.pt").string();
  r = run_cli({"remap", fixture("cuda1.pt"), "-o", b, "--to", "auto"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("cuda:1 -> " + select_device("auto").device.str()));
  const std::string c = (dir / "c.pt").string();
  r = run_cli({"remap", fixture("cuda1.pt"), "-o", c, "--map", "cuda:1=Fake:1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // Written as torch 2.x names the fake device, whatever this LibTorch calls it.
  EXPECT_THAT(r.out, HasSubstr("cuda:1 -> fake:1"));
  const std::string d = (dir / "d.pt").string();
  r = run_cli({"remap", fixture("cuda1.pt"), "-o", d, "--to", "tpu:0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("remap --to: invalid device 'tpu:0': expected one of auto"));
  EXPECT_FALSE(std::filesystem::exists(d));
}

TEST(RemapCommand, BadInputAndUsageExit2WithoutOutput) {
  TempDir dir;
  const std::string out = (dir / "out.pt").string();
  EXPECT_EQ(run_cli({"remap", fixture("truncated.pt"), "-o", out, "--to", "cpu"}).exit_code, 2);
  EXPECT_EQ(run_cli({"remap", fixture("cpu_state_dict.pt"), "-o", out, "--to", "gpu7"}).exit_code,
            2);
  EXPECT_EQ(
      run_cli({"remap", fixture("cpu_state_dict.pt"), "-o", out, "--map", "cuda:1"}).exit_code, 2);
  EXPECT_EQ(
      run_cli({"remap", fixture("cpu_state_dict.pt"), "-o", out, "--to", "cpu", "--map", "a=cpu"})
          .exit_code,
      2);
  EXPECT_EQ(run_cli({"remap", fixture("cpu_state_dict.pt")}).exit_code, 2);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

}  // namespace
}  // namespace devcheck::cli
