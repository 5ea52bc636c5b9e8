// The CLI's plumbing: help, version, usage errors and exit codes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli/run_cli.h"
#include "command.h"
#include "devcheck/version.h"

using ::testing::HasSubstr;

namespace devcheck::cli {
namespace {

TEST(Cli, HelpListsSubcommandsAndExits0) {
  const CliResult r = run_cli({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("doctor"));
}

TEST(Cli, SubcommandHelpExits0) {
  const CliResult r = run_cli({"doctor", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("--json"));
}

TEST(Cli, VersionPrintsTheVersion) {
  const CliResult r = run_cli({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr(DEVCHECK_VERSION));
}

TEST(Cli, NoSubcommandIsAUsageError) {
  const CliResult r = run_cli({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("devcheck --help"));
}

TEST(Cli, UnknownSubcommandIsAUsageError) {
  const CliResult r = run_cli({"frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("unknown command 'frobnicate'"));
  EXPECT_THAT(r.err, HasSubstr("doctor"));
}

TEST(Cli, TheInstalledProgramHasTheSameExitCodes) {
  const auto ok = testing::run_process({testing::binary_dir() + "/devcheck", "doctor"});
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  const auto bad = testing::run_process({testing::binary_dir() + "/devcheck", "nope"});
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
}

}  // namespace
}  // namespace devcheck::cli

TEST(CliTerms, LibraryOptionNamesBecomeTheFlagsTheUserTyped) {
  EXPECT_EQ(devcheck::cli::in_cli_terms("set TrainOptions::epochs >= 1; TrainOptions::out 'x'"),
            "set --epochs >= 1; --out 'x'");
  EXPECT_EQ(devcheck::cli::in_cli_terms("allow it with RemapOptions::force"),
            "allow it with --force");
  EXPECT_EQ(devcheck::cli::in_cli_terms("TrainOptions::learning_rate > 0, found -1"),
            "--lr > 0, found -1");
  EXPECT_EQ(devcheck::cli::in_cli_terms("no option named here"), "no option named here");
}
