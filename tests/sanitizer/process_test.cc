// DEVCHECK_SANITIZE and the exit hooks, in child processes of a program that
// links devcheck and the opt-in process hooks (tests/sanitizer/programs/linked.cc),
// and their absence from libdevcheck itself.
#include "sanitizer/process.h"

#include <signal.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "devcheck/sanitizer.h"
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

TEST(ProcessSanitizer, AProgramLinkedWithLibdevcheckAloneDoesNotStartItFromTheEnvironment) {
  for (const char* value : {"1", "fail"}) {
    const auto r = run_process({sanitizer_program("core_only"), "active"},
                               {std::string("DEVCHECK_SANITIZE=") + value});
    EXPECT_EQ(r.exit_code, 0) << value << ": " << r.output;
    EXPECT_THAT(r.output, HasSubstr("linked: sanitizer active 0"));
    EXPECT_THAT(r.output, Not(HasSubstr("[devcheck]")));
  }
  // The same program with the hooks linked in does start it.
  const auto hooked = run_process({sanitizer_program("linked"), "active"}, {"DEVCHECK_SANITIZE=1"});
  EXPECT_THAT(hooked.output, HasSubstr("linked: sanitizer active 1"));
}

TEST(ProcessSanitizer, WhenTheProgramHasClaimedTheWatchKeyItStepsAsideAndSaysSo) {
  const auto r = run_process({sanitizer_program("core_only"), "claimed"}, {"DEVCHECK_SANITIZE=1"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("linked: autostart 0"));
  EXPECT_THAT(r.output,
              HasSubstr("dispatch key DeferredInit's fallback to be free, found it taken"));
  EXPECT_THAT(r.output, HasSubstr("the program runs unwatched"));
  // Its fallback sees the same ops as without DEVCHECK_SANITIZE.
  const auto plain = run_process({sanitizer_program("core_only"), "claimed"});
  const auto seen = [](const std::string& out) {
    const auto at = out.find("linked: claimed fallback saw ");
    return at == std::string::npos ? std::string("none") : out.substr(at, out.find('\n', at) - at);
  };
  EXPECT_THAT(seen(plain.output), Not(HasSubstr("saw 0 ops")));
  EXPECT_EQ(seen(r.output), seen(plain.output));
  EXPECT_NE(seen(plain.output), "none") << plain.output;
}

// The symbols `file` defines (nm -D --defined-only), one a line.
std::string defined_symbols(const std::string& file) {
  const auto r = run_process({"nm", "-D", "--defined-only", file});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return r.output;
}

TEST(ProcessSanitizer, LibdevcheckInterposesNoPthreadCreateAndThePreloadLibraryDoes) {
  const std::string sanitizer = defined_symbols(shared_library("sanitizer"));
  EXPECT_THAT(sanitizer, HasSubstr("devcheck_sanitizer_autostart"));
  for (const char* part : {"core", "sanitizer"}) {
    const std::string symbols = defined_symbols(shared_library(part));
    EXPECT_THAT(symbols, Not(HasSubstr(" pthread_create"))) << part;
    EXPECT_THAT(symbols, Not(HasSubstr(" dlopen"))) << part;
  }
  EXPECT_THAT(defined_symbols(devcheck::sanitizer_preload_library()),
              HasSubstr(" T pthread_create"));
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
  EXPECT_THAT(r.output, HasSubstr("DEVCHECK_SANITIZE='loudly' is not understood"));
  EXPECT_THAT(r.output, HasSubstr("report, warn or fail"));
  EXPECT_THAT(r.output, HasSubstr("the program runs unwatched"));
  const auto p = run_process({sanitizer_program("linked")},
                             {"DEVCHECK_SANITIZE=1", "DEVCHECK_SANITIZE_PROVENANCE=sometimes"});
  EXPECT_EQ(p.exit_code, 0);
  EXPECT_THAT(p.output, HasSubstr("DEVCHECK_SANITIZE_PROVENANCE='sometimes' is not understood"));
}

TEST(ProcessSanitizer, OffWordsLeaveItOffAndOnWordsTurnItOnInAnyCase) {
  for (const char* value : {"0", "off", "FALSE", "no"}) {
    const auto r = run_process({sanitizer_program("linked"), "active"},
                               {std::string("DEVCHECK_SANITIZE=") + value});
    EXPECT_THAT(r.output, HasSubstr("linked: sanitizer active 0")) << value;
    EXPECT_THAT(r.output, Not(HasSubstr("[devcheck]"))) << value;
  }
  for (const char* value : {"1", "on", "True", "YES"}) {
    const auto r = run_process(
        {sanitizer_program("linked"), "active"},
        {std::string("DEVCHECK_SANITIZE=") + value, "DEVCHECK_SANITIZE_PROVENANCE=Off"});
    EXPECT_THAT(r.output, HasSubstr("linked: sanitizer active 1")) << value << ": " << r.output;
  }
}

// `linked <mode>` with a SIGSEGV handler of its own that does `style`
// (programs/handler.cc), its marker line written into `marker`. The program
// starts the sanitizer itself, without the preload library: nothing
// interposes sigaction (the preload's case is in run_test.cc).
ProcessResult run_linked_with_handler(const std::string& mode, const std::string& style,
                                      const std::string& marker) {
  return run_process({sanitizer_program("core_only"), mode},
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
