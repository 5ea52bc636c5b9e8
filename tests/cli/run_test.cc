// devcheck run, in-process (the command itself runs as a child process).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/run_cli.h"
#include "sanitizer/helpers.h"

using ::testing::HasSubstr;

namespace devcheck::cli {
namespace {

using devcheck::testing::marked_site;
using devcheck::testing::sanitizer_program;

TEST(RunCommand, ReportsThePlantedMismatchOnStderrAndKeepsTheExitStatus) {
  const CliResult r = run_cli({"run", "--", sanitizer_program("planted"), "mismatch"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("device mismatch in aten::add at " +
                               marked_site("programs/planted.cc", "op")));
  EXPECT_THAT(r.err,
              HasSubstr("made by aten::ones at " + marked_site("programs/planted.cc", "stray")));
}

TEST(RunCommand, FailModeExitsOneOnAMismatchAndZeroWhenClean) {
  EXPECT_EQ(
      run_cli({"run", "--mode", "fail", "--", sanitizer_program("planted"), "matmul"}).exit_code,
      1);
  EXPECT_EQ(run_cli({"run", "--mode=fail", "--", sanitizer_program("planted"), "clean"}).exit_code,
            0);
}

TEST(RunCommand, WorksWithoutTheDoubleDash) {
  // the planted copies go to cuda:0 under fake CUDA (to meta nothing moves)
  const CliResult r = run_cli({"run", "--mode", "report", "--fake-cuda", "env",
                               "PLANTED_DEVICE=cuda:0", sanitizer_program("planted"), "copies"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("many small copies: 200 cpu -> cuda:0 copies"));
}

TEST(RunCommand, PythonProgramReportNamesThePythonLines) {
  const std::string script = devcheck::testing::sanitizer_source("python/planted_bug.py");
  const CliResult r = run_cli({"run", "--", DEVCHECK_PYTHON, script});
  EXPECT_EQ(r.exit_code, 1);  // Python raised, as it would without devcheck
  EXPECT_THAT(r.err, HasSubstr("device mismatch in aten::add at " + script + ":"));
  EXPECT_THAT(r.err, HasSubstr("made by aten::lift_fresh at " + script + ":"));  // torch.tensor()
}

TEST(RunCommand, WritesJsonAndTrace) {
  devcheck::testing::TempDir dir;
  const auto json = (dir / "r.json").string();
  const auto trace = (dir / "t.json").string();
  const CliResult r = run_cli({"run", "--json", json, "--trace", trace, "--fake-cuda", "--", "env",
                               "PLANTED_DEVICE=cuda:0", sanitizer_program("planted"), "copies"});
  EXPECT_EQ(r.exit_code, 0);
  const auto j = nlohmann::json::parse(devcheck::testing::read_file(json));
  EXPECT_EQ(j["processes"][0]["summary"]["copies"], 200);
  EXPECT_TRUE(nlohmann::json::parse(devcheck::testing::read_file(trace))["traceEvents"].is_array());
}

TEST(RunCommand, ReportOnFatalSignalAndTheSignalIsTheExitStatus) {
  const CliResult r = run_cli({"run", "--", sanitizer_program("planted"), "segv"});
  EXPECT_EQ(r.exit_code, 128 + 11);
  EXPECT_THAT(r.err, HasSubstr("written at signal SIGSEGV"));
  EXPECT_THAT(r.err, HasSubstr("ended by signal 11"));
}

TEST(RunCommand, AProgramsOwnHandlerRunsAfterTheReportAndItsExitCodeIsTheExitStatus) {
  devcheck::testing::TempDir dir;
  const auto marker = (dir / "marker").string();
  const CliResult r =
      run_cli({"run", "--", "/usr/bin/env", "PLANTED_HANDLER=exit", "PLANTED_HANDLER_AT=start",
               "PLANTED_MARKER=" + marker, sanitizer_program("handled"), "start"});
  EXPECT_EQ(r.exit_code, 42);  // the handler's _exit(42)
  EXPECT_THAT(r.err, HasSubstr("written at signal SIGSEGV"));
  EXPECT_THAT(r.err, HasSubstr("device mismatch in aten::add at " +
                               marked_site("programs/handled.cc", "handled_op")));
  EXPECT_EQ(devcheck::testing::read_file(marker), "planted handler: signal 11\n");
}

TEST(RunCommand, ALibraryLoadedLaterWithItsOwnHandlerStillGetsTheReportAndTheSignalEndsIt) {
  devcheck::testing::TempDir dir;
  const auto marker = (dir / "marker").string();
  const CliResult r =
      run_cli({"run", "--", "/usr/bin/env", "PLANTED_HANDLER=reraise", "PLANTED_HANDLER_AT=dlopen",
               "PLANTED_MARKER=" + marker, sanitizer_program("handled"), "lazy"});
  EXPECT_EQ(r.exit_code, 128 + 11);
  EXPECT_THAT(r.err, HasSubstr("written at signal SIGSEGV"));
  EXPECT_THAT(r.err, HasSubstr("ended by signal 11"));
  EXPECT_EQ(devcheck::testing::read_file(marker), "planted handler: signal 11\n");
}

TEST(RunCommand, SaysSoWhenTheCommandNeverLoadsLibTorch) {
  const CliResult r = run_cli({"run", "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("never loaded LibTorch"));
}

TEST(RunCommand, UsageErrorsExitTwo) {
  EXPECT_EQ(run_cli({"run"}).exit_code, 2);
  const CliResult bad_mode = run_cli({"run", "--mode", "loud", "--", "/bin/true"});
  EXPECT_EQ(bad_mode.exit_code, 2);
  EXPECT_THAT(bad_mode.err, HasSubstr("loud"));
  const CliResult missing = run_cli({"run", "--", "/nonexistent/cmd"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("/nonexistent/cmd"));
}

}  // namespace
}  // namespace devcheck::cli
