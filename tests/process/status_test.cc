// Wait statuses in words and as the shell's exit code (src/process/status.cc).
#include "process/status.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace devcheck::detail {
namespace {

// The wait status of a child that ends as `end` says.
template <typename End>
int status_of(End end) {
  const pid_t pid = ::fork();
  if (pid == 0) end();
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

TEST(SignalName, IsTheCLibrarysAbbreviationOrTheNumber) {
  EXPECT_EQ(signal_name(SIGTERM), "SIGTERM");
  EXPECT_EQ(signal_name(SIGKILL), "SIGKILL");
  EXPECT_EQ(signal_name(200), "signal 200");
}

TEST(WaitStatus, AnExitIsItsStatusInWordsAndAsTheExitCode) {
  const int status = status_of([] { ::_exit(3); });
  EXPECT_EQ(describe_wait_status(status), "exited with status 3");
  EXPECT_EQ(exit_code_of(status), 3);
  EXPECT_EQ(exit_code_of(status_of([] { ::_exit(0); })), 0);
}

TEST(WaitStatus, ASignalIsNamedAndIsOneHundredTwentyEightPlusItsNumber) {
  const int status = status_of([] {
    ::kill(::getpid(), SIGKILL);
    ::_exit(0);
  });
  EXPECT_EQ(describe_wait_status(status), "was killed by SIGKILL");
  EXPECT_EQ(exit_code_of(status), 128 + SIGKILL);
}

}  // namespace
}  // namespace devcheck::detail
