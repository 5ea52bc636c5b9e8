// A report written in a fatal signal's handler never hangs the process
// (src/sanitizer/signal_report.cc): a signal from outside waits for a system
// call, and a report that stops moving is given up.
#include "sanitizer/signal_report.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "support/support.h"

namespace devcheck::sanitizer {
namespace {

#if defined(__x86_64__) || defined(__aarch64__)
#define DEVCHECK_KNOWN_ARCH 1
#else
#define DEVCHECK_KNOWN_ARCH 0
#endif

// Code-like bytes on a page of their own, and a context whose program
// counter points into them.
struct FakeCode {
  alignas(4096) unsigned char page[4096] = {};
  ucontext_t context{};

  // The program counter at page[at]; the system call instruction at
  // page[call]; `result` in the result register, `number` in the number
  // register (x86-64 has one register for both: `result` unless it is 0).
  FakeCode(std::size_t at, std::size_t call, long result = -EINTR, long number = SYS_read) {
#if defined(__x86_64__)
    page[call] = 0x0f;
    page[call + 1] = 0x05;
    context.uc_mcontext.gregs[REG_RIP] =
        static_cast<greg_t>(reinterpret_cast<std::uintptr_t>(&page[at]));
    context.uc_mcontext.gregs[REG_RAX] = result != 0 ? result : number;
#elif defined(__aarch64__)
    const std::uint32_t svc = 0xd4000001U;
    std::memcpy(&page[call], &svc, sizeof svc);
    context.uc_mcontext.pc = reinterpret_cast<std::uintptr_t>(&page[at]);
    context.uc_mcontext.regs[0] = static_cast<std::uint64_t>(result);
    context.uc_mcontext.regs[8] = static_cast<std::uint64_t>(number);
#else
    static_cast<void>(at);
    static_cast<void>(call);
    static_cast<void>(result);
    static_cast<void>(number);
#endif
  }
};

#if defined(__x86_64__)
constexpr std::size_t kCallSize = 2;
#else
constexpr std::size_t kCallSize = 4;
#endif

TEST(AtSystemCall, IsAWaitBrokenOffOrToBeRestartedNotACallThatJustReturned) {
  if (!DEVCHECK_KNOWN_ARCH) GTEST_SKIP() << "neither x86-64 nor AArch64: nothing is put off";
  const FakeCode after(100 + kCallSize, 100);  // -EINTR
  EXPECT_TRUE(at_system_call(&after.context));
  const FakeCode on(100, 100, 0, SYS_futex);  // to be restarted
  EXPECT_TRUE(at_system_call(&on.context));
  const FakeCode restart(100, 100, 0, SYS_restart_syscall);
  EXPECT_TRUE(at_system_call(&restart.context));
  // brk just returned (inside malloc, which holds its lock), or about to run
  const FakeCode returned(100 + kCallSize, 100, 0x5000000, SYS_brk);
  EXPECT_FALSE(at_system_call(&returned.context));
  const FakeCode about_to_brk(100, 100, 0, SYS_brk);
  EXPECT_FALSE(at_system_call(&about_to_brk.context));
  const FakeCode elsewhere(200, 100);
  EXPECT_FALSE(at_system_call(&elsewhere.context));
  const FakeCode page_start(0, 100);  // nothing before it is read
  EXPECT_FALSE(at_system_call(&page_start.context));
  EXPECT_TRUE(at_system_call(nullptr));
}

siginfo_t info_of(int code, pid_t pid) {
  siginfo_t info{};
  info.si_code = code;
  info.si_pid = pid;
  return info;
}

TEST(PutOff, OnlyASignalFromAnotherProcessOutsideASystemCallIsPutOff) {
  if (!DEVCHECK_KNOWN_ARCH) GTEST_SKIP() << "neither x86-64 nor AArch64: nothing is put off";
  const FakeCode running(200, 100);
  const FakeCode waiting(100 + kCallSize, 100);
  const siginfo_t own_kill = info_of(SI_USER, ::getpid());
  const siginfo_t own_raise = info_of(SI_TKILL, ::getpid());
  siginfo_t fault = info_of(SEGV_MAPERR, 0);
  EXPECT_FALSE(put_off(SIGTERM, &own_kill, &running.context));
  EXPECT_FALSE(put_off(SIGTERM, &own_raise, &running.context));
  EXPECT_FALSE(put_off(SIGSEGV, &fault, &running.context));
  const siginfo_t outside = info_of(SI_USER, ::getpid() + 1);
  EXPECT_FALSE(put_off(SIGTERM, &outside, &waiting.context));
  EXPECT_FALSE(put_off(SIGTERM, nullptr, &running.context));
  EXPECT_FALSE(put_off(0, &outside, &running.context));
}

// The child's handler of SIGUSR1 puts it off while it can, as the
// sanitizer's does, and counts the deliveries.
std::atomic<int> g_deliveries{0};
std::atomic<bool> g_handled{false};
const FakeCode* g_running = nullptr;

void put_off_while_it_can(int sig, siginfo_t* info, void* /*context*/) {
  g_deliveries.fetch_add(1);
  if (!put_off(sig, info, &g_running->context)) g_handled.store(true);
}

// Runs `body` in a forked child with its stderr in `err`; the wait status.
template <typename Body>
int in_child(Body body, std::string* err = nullptr) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "stderr").string();
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fd, STDERR_FILENO);
    body();
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (err != nullptr) *err = testing::read_file(path);
  return status;
}

TEST(PutOff, ASignalFromOutsideComesAgainUntilASecondHasPassedThenIsHandled) {
  if (!DEVCHECK_KNOWN_ARCH) GTEST_SKIP() << "neither x86-64 nor AArch64: nothing is put off";
  const int status = in_child([] {
    static const FakeCode running(200, 100);
    g_running = &running;
    struct sigaction a {};
    a.sa_sigaction = put_off_while_it_can;
    a.sa_flags = SA_SIGINFO;
    sigemptyset(&a.sa_mask);
    ::sigaction(SIGUSR1, &a, nullptr);
    const auto start = std::chrono::steady_clock::now();
    siginfo_t outside = info_of(SI_USER, ::getppid());
    put_off_while_it_can(SIGUSR1, &outside, nullptr);  // as if kill() from the parent
    while (!g_handled.load() &&
           std::chrono::steady_clock::now() - start < std::chrono::seconds(30)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    const auto took = std::chrono::steady_clock::now() - start;
    // Handled, after more than one delivery, no sooner than the second.
    const bool ok = g_handled.load() && g_deliveries.load() > 2 && took >= std::chrono::seconds(1);
    ::_exit(ok ? 0 : 10 + std::min(g_deliveries.load(), 100));
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10 + the deliveries, when it was not handled after a while";
}

void end_by_sigterm(int sig) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigaction(sig, &dfl, nullptr);
  ::kill(::getpid(), sig);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  ::pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
}

// Sleeps `total` across the deadline's ticks (they cut a sleep short).
void sleep_through(std::chrono::milliseconds total, bool moving) {
  const auto end = std::chrono::steady_clock::now() + total;
  while (std::chrono::steady_clock::now() < end) {
    if (moving) note_report_progress();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

TEST(ReportDeadline, AReportThatStopsMovingIsGivenUpAndTheSignalEndsTheProcess) {
  std::string err;
  const int status = in_child(
      [] {
        // In the handler of SIGTERM, as the sanitizer's report is.
        sigset_t term;
        sigemptyset(&term);
        sigaddset(&term, SIGTERM);
        ::pthread_sigmask(SIG_BLOCK, &term, nullptr);
        const ReportDeadline deadline(SIGTERM, end_by_sigterm, 2);
        sleep_through(std::chrono::seconds(60), false);  // a lock that never comes
      },
      &err);
  ASSERT_TRUE(WIFSIGNALED(status)) << err;
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_EQ(err,
            "[devcheck] sanitizer: the report at signal SIGTERM is not written: it made no "
            "progress for 2 s (the signal stopped the program where it held a lock the report "
            "needs); the process ends by the signal\n");
}

TEST(ReportDeadline, AReportThatMovesIsNeverCutShortAndNothingIsLeftArmedAfterIt) {
  std::string err;
  const int status = in_child(
      [] {
        {
          const ReportDeadline deadline(SIGTERM, end_by_sigterm, 3);
          sleep_through(std::chrono::milliseconds(7000), true);  // slower than the limit, moving
        }
        sleep_through(std::chrono::milliseconds(4500), false);
        ::_exit(0);
      },
      &err);
  ASSERT_TRUE(WIFEXITED(status)) << err;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(err, "");
}

TEST(ReportDeadline, TheTimersSignalIsTheProgramsAgainAfterwards) {
  struct sigaction before {};
  ::sigaction(SIGRTMAX - 1, nullptr, &before);
  { const ReportDeadline deadline(SIGTERM, end_by_sigterm); }
  struct sigaction after {};
  ::sigaction(SIGRTMAX - 1, nullptr, &after);
  EXPECT_EQ(after.sa_handler, before.sa_handler);
  EXPECT_EQ(after.sa_flags & SA_SIGINFO, before.sa_flags & SA_SIGINFO);
}

}  // namespace
}  // namespace devcheck::sanitizer
