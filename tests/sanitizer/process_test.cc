// DEVCHECK_SANITIZE and the exit hooks, in child processes of a program that
// links devcheck (tests/sanitizer/programs/linked.cc).
#include "sanitizer/process.h"

#include <signal.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sanitizer/helpers.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace devcheck::testing {
namespace {

TEST(ProcessSanitizer, DevcheckSanitizeTurnsItOnInALinkedProgramAndReportsAtExit) {
  const auto r = run_process({sanitizer_program("linked")}, {"DEVCHECK_SANITIZE=1"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("[devcheck] sanitizer: 1 finding"));
  EXPECT_THAT(r.output, HasSubstr("device mismatch in aten::matmul at " +
                                  marked_site("programs/linked.cc", "linked_op")));
  EXPECT_THAT(r.output, HasSubstr("made by aten::ones at " +
                                  marked_site("programs/linked.cc", "linked_stray")));
}

TEST(ProcessSanitizer, WithoutTheVariableNothingIsWatched) {
  const auto r = run_process({sanitizer_program("linked")}, {"DEVCHECK_SANITIZE="});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.output, Not(HasSubstr("[devcheck]")));
}

TEST(ProcessSanitizer, FailModeMakesTheExitStatusOne) {
  EXPECT_EQ(run_process({sanitizer_program("linked")}, {"DEVCHECK_SANITIZE=fail"}).exit_code, 1);
  EXPECT_EQ(run_process({sanitizer_program("linked")}, {"DEVCHECK_SANITIZE=warn"}).exit_code, 0);
}

TEST(ProcessSanitizer, RaiiSanitizerInFailModeMakesTheExitStatusOneOnlyOnAMismatch) {
  EXPECT_EQ(run_process({sanitizer_program("linked"), "raii-fail"}).exit_code, 1);
  EXPECT_EQ(run_process({sanitizer_program("linked"), "raii-clean"}).exit_code, 0);
}

TEST(ProcessSanitizer, WritesJsonWhereAsked) {
  TempDir dir;
  const auto path = (dir / "r.json").string();
  const auto r = run_process({sanitizer_program("linked")},
                             {"DEVCHECK_SANITIZE=1", "DEVCHECK_SANITIZE_JSON=" + path});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(read_file(path));
  EXPECT_EQ(j["summary"]["mismatches"], 1);
}

TEST(ProcessSanitizer, AMalformedVariableIsReportedAndIgnored) {
  const auto r = run_process({sanitizer_program("linked")}, {"DEVCHECK_SANITIZE=loudly"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("DEVCHECK_SANITIZE='loudly'"));
}

// `linked <mode>` with a SIGSEGV handler of its own that does `style`
// (programs/handler.cc), its marker line written into `marker`.
ProcessResult run_linked_with_handler(const std::string& mode, const std::string& style,
                                      const std::string& marker) {
  return run_process({sanitizer_program("linked"), mode},
                     {std::string("DEVCHECK_SANITIZE=") + (mode == "segv-before" ? "" : "1"),
                      "PLANTED_HANDLER=" + style, "PLANTED_MARKER=" + marker});
}

void expect_report_at_sigsegv(const ProcessResult& r) {
  EXPECT_THAT(r.output, HasSubstr("[devcheck] sanitizer report written at signal SIGSEGV"));
  EXPECT_THAT(r.output, HasSubstr("device mismatch in aten::matmul at " +
                                  marked_site("programs/linked.cc", "linked_op")));
}

const char* const kHandlerRanOnce = "planted handler: signal 11\n";

TEST(ProcessSanitizer, TheProgramsHandlerFromBeforeTheStartRunsAfterTheReportAndSetsTheStatus) {
  TempDir dir;
  const auto marker = (dir / "marker").string();
  const auto r = run_linked_with_handler("segv-before", "exit", marker);
  EXPECT_EQ(r.exit_code, 42) << r.output;  // the handler's _exit(42)
  EXPECT_THAT(r.output, HasSubstr("linked: autostart 1"));
  expect_report_at_sigsegv(r);
  EXPECT_EQ(read_file(marker), kHandlerRanOnce);
}

TEST(ProcessSanitizer, TheProgramsHandlerFromBeforeThatRaisesAgainEndsItByTheSignal) {
  TempDir dir;
  const auto marker = (dir / "marker").string();
  const auto r = run_linked_with_handler("segv-before", "reraise", marker);
  EXPECT_EQ(r.exit_code, 128 + SIGSEGV) << r.output;
  expect_report_at_sigsegv(r);
  EXPECT_EQ(read_file(marker), kHandlerRanOnce);
}

TEST(ProcessSanitizer, AHandlerInstalledAfterTheStartThatChainsToItsPreviousGetsTheReport) {
  TempDir dir;
  const auto marker = (dir / "marker").string();
  const auto r = run_linked_with_handler("segv-own", "chain", marker);
  EXPECT_EQ(r.exit_code, 128 + SIGSEGV) << r.output;
  expect_report_at_sigsegv(r);
  EXPECT_EQ(read_file(marker), kHandlerRanOnce);
}

TEST(ProcessSanitizer,
     AHandlerInstalledAfterTheStartThatRestoresItsPreviousAndRaisesGetsTheReport) {
  TempDir dir;
  const auto marker = (dir / "marker").string();
  const auto r = run_linked_with_handler("segv-own", "reraise", marker);
  EXPECT_EQ(r.exit_code, 128 + SIGSEGV) << r.output;
  expect_report_at_sigsegv(r);
  EXPECT_EQ(read_file(marker), kHandlerRanOnce);
}

TEST(ProcessSanitizer, ReportFilesAreNamedByPid) {
  EXPECT_EQ(sanitizer::report_file("/tmp/x", 42, ".json"), "/tmp/x/report-42.json");
}

}  // namespace
}  // namespace devcheck::testing
