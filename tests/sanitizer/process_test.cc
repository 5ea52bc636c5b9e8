// DEVCHECK_SANITIZE and the exit hooks, in child processes of a program that
// links devcheck (tests/sanitizer/programs/linked.cc).
#include "sanitizer/process.h"

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

TEST(ProcessSanitizer, ReportFilesAreNamedByPid) {
  EXPECT_EQ(sanitizer::report_file("/tmp/x", 42, ".json"), "/tmp/x/report-42.json");
}

}  // namespace
}  // namespace devcheck::testing
