// Starting programs (src/process/child.cc): found as execvp finds them,
// spawned, captured, and forked for a supervisor.
#include "process/child.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "process/environment.h"
#include "process/scratch.h"

namespace devcheck::detail {
namespace {

using devcheck::testing::ScratchDir;
using devcheck::testing::write_text;
using ::testing::HasSubstr;

// Sets PATH for one test and puts the old one back.
class PathScope {
 public:
  explicit PathScope(const std::string& path) {
    const char* old = std::getenv("PATH");
    had_ = old != nullptr;
    if (had_) old_ = old;
    ::setenv("PATH", path.c_str(), 1);
  }
  ~PathScope() {
    if (had_) {
      ::setenv("PATH", old_.c_str(), 1);
    } else {
      ::unsetenv("PATH");
    }
  }
  PathScope(const PathScope&) = delete;
  PathScope& operator=(const PathScope&) = delete;

 private:
  bool had_ = false;
  std::string old_;
};

void make_program(const std::filesystem::path& path, std::filesystem::perms perms) {
  write_text(path, "#!/bin/sh\nexit 0\n");
  std::filesystem::permissions(path, perms);
}

// Everything a descriptor yields until its end.
std::string read_all(int fd) {
  std::string text;
  char chunk[4096];
  ssize_t n = 0;
  while ((n = ::read(fd, chunk, sizeof chunk)) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0) text.append(chunk, static_cast<std::size_t>(n));
  }
  return text;
}

TEST(ResolveProgram, FindsTheFirstExecutableFileOfThatNameInPath) {
  ScratchDir a;
  ScratchDir b;
  ScratchDir c;
  make_program(a / "tool", std::filesystem::perms::owner_read);  // not executable
  std::filesystem::create_directory(b / "tool");                 // a folder
  make_program(c / "tool", std::filesystem::perms::owner_all);
  const PathScope path(a.path().string() + ":" + b.path().string() + ":" + c.path().string());
  EXPECT_EQ(resolve_program("tool"), (c / "tool").string());
  EXPECT_EQ(resolve_program("no-such-tool-xyz"), "");
}

TEST(ResolveProgram, TakesANameWithASlashAsGivenWithoutLookingAtIt) {
  EXPECT_EQ(resolve_program("./tool"), "./tool");
  EXPECT_EQ(resolve_program("/nonexistent/prog"), "/nonexistent/prog");
}

TEST(ResolveProgram, SearchesTheDefaultFoldersWhenPathIsUnset) {
  const char* old = std::getenv("PATH");
  const std::string saved = old != nullptr ? old : "";
  ::unsetenv("PATH");
  const std::string found = resolve_program("sh");
  if (old != nullptr) ::setenv("PATH", saved.c_str(), 1);
  EXPECT_TRUE(found == "/usr/bin/sh" || found == "/bin/sh") << found;
}

TEST(CStringArray, PointsIntoTheStringsAndEndsWithNull) {
  const std::vector<std::string> strings{"a", "bc"};
  const std::vector<char*> array = c_string_array(strings);
  ASSERT_EQ(array.size(), 3U);
  EXPECT_EQ(array[0], strings[0].c_str());
  EXPECT_EQ(array[1], strings[1].c_str());
  EXPECT_EQ(array[2], nullptr);
}

TEST(Spawn, RunsAProgramFromPathWithTheEnvironmentGivenAndWaitForReturnsItsStatus) {
  pid_t pid = 0;
  ASSERT_EQ(spawn({"sh", "-c", "test \"$ONLY\" = yes && exit 3"},
                  {"ONLY=yes", "PATH=/usr/bin:/bin"}, pid),
            0);
  const int status = wait_for(pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
}

TEST(Spawn, AMissingProgramIsItsErrorNumber) {
  pid_t pid = 0;
  EXPECT_EQ(spawn({"no-such-program-xyz"}, environment_without({}), pid), ENOENT);
  EXPECT_EQ(spawn({}, {}, pid), EINVAL);
}

TEST(RunCapturingStdout, ReadsStdoutAndDropsStderr) {
  const Captured run =
      run_capturing_stdout({"sh", "-c", "echo out; echo err >&2; exit 4"}, environment_without({}));
  EXPECT_TRUE(run.started);
  EXPECT_EQ(run.out, "out\n");
  ASSERT_TRUE(WIFEXITED(run.status));
  EXPECT_EQ(WEXITSTATUS(run.status), 4);
}

TEST(RunCapturingStdout, AProgramThatCannotStartIsNotStarted) {
  const Captured run = run_capturing_stdout({"no-such-program-xyz"}, environment_without({}));
  EXPECT_FALSE(run.started);
  EXPECT_EQ(run.out, "");
  EXPECT_FALSE(run_capturing_stdout({}, {}).started);
}

TEST(Coprocess, AnswersOneRequestAfterAnotherFromOneProgram) {
  Coprocess cat;
  ASSERT_TRUE(cat.start(
      {"sh", "-c", "echo started $$ >&2; while read -r line; do echo \"got $line\"; done"},
      environment_without({})));
  EXPECT_TRUE(cat.usable());
  std::string line;
  for (const char* request : {"one", "two", "three"}) {
    ASSERT_TRUE(cat.write(std::string(request) + "\n"));
    ASSERT_TRUE(cat.read_line(line, 10000)) << request;
    EXPECT_EQ(line, std::string("got ") + request);  // its stderr went to /dev/null
  }
  ASSERT_TRUE(cat.write("a\nb\n"));
  ASSERT_TRUE(cat.read_line(line, 10000));
  EXPECT_EQ(line, "got a");
  ASSERT_TRUE(cat.read_line(line, 10000));
  EXPECT_EQ(line, "got b");
}

TEST(Coprocess, AProgramThatEndedFailsWritesAndReadsWithoutASignal) {
  Coprocess done;
  ASSERT_TRUE(done.start({"sh", "-c", "echo last; exit 0"}, environment_without({})));
  std::string line;
  ASSERT_TRUE(done.read_line(line, 10000));
  EXPECT_EQ(line, "last");
  EXPECT_FALSE(done.read_line(line, 10000));  // its output ended
  // Writing to a program that is gone: false, and no SIGPIPE ends this test.
  bool wrote = true;
  for (int i = 0; i < 100 && wrote; ++i) wrote = done.write(std::string(4096, 'x'));
  EXPECT_FALSE(wrote);
  done.stop();
  EXPECT_FALSE(done.usable());
  EXPECT_FALSE(done.write("x\n"));
}

TEST(Coprocess, ReadingGivesUpAfterItsTimeoutAndAMissingProgramDoesNotStart) {
  Coprocess quiet;
  ASSERT_TRUE(quiet.start({"sleep", "30"}, environment_without({})));
  std::string line;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(quiet.read_line(line, 200));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  quiet.stop();  // SIGKILL: does not wait the 30 s

  Coprocess missing;
  EXPECT_FALSE(missing.start({"no-such-program-xyz"}, environment_without({})));
  EXPECT_FALSE(missing.usable());
  EXPECT_FALSE(missing.start({}, {}));
}

TEST(Coprocess, AForkedChildsCopyIsNotUsableThere) {
  Coprocess cat;
  ASSERT_TRUE(cat.start({"cat"}, environment_without({})));
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) ::_exit(cat.usable() ? 1 : 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child could use its parent's program";
  EXPECT_TRUE(cat.usable());
  std::string line;
  ASSERT_TRUE(cat.write("still mine\n"));
  ASSERT_TRUE(cat.read_line(line, 10000));
  EXPECT_EQ(line, "still mine");
}

TEST(ExecProgram, ReturnsTheErrorNumberWhenItCannotReplaceThisProcess) {
  EXPECT_EQ(exec_program("/nonexistent/prog", {"prog"}), ENOENT);
}

// A child of fork_exec with its stdout and stderr on one pipe; `pid` is -1
// when it did not start.
struct Forked {
  pid_t pid = -1;
  std::string output;
  int status = 0;
};

Forked run_forked(ChildSpec spec) {
  int fds[2];
  EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  spec.stdout_fd = fds[1];
  spec.stderr_fd = fds[1];
  Forked child;
  child.pid = fork_exec(spec);
  ::close(fds[1]);
  child.output = read_all(fds[0]);
  ::close(fds[0]);
  if (child.pid > 0) ::waitpid(child.pid, &child.status, 0);
  return child;
}

TEST(ForkExec, RunsTheProgramInItsOwnGroupWithStdinOnDevNullAndOnlyTheEnvironmentGiven) {
  ChildSpec spec;
  spec.argv = {"/bin/sh", "-c",
               "set -- $(cat /proc/$$/stat); echo \"pgid $5 pid $$\"; "
               "echo \"stdin [$(cat)]\"; echo \"only $ONLY home [$HOME]\"; echo err >&2"};
  spec.env = {"ONLY=yes", "PATH=/usr/bin:/bin"};
  const Forked child = run_forked(spec);
  ASSERT_GT(child.pid, 0);
  EXPECT_THAT(child.output, HasSubstr("pgid " + std::to_string(child.pid) + " pid " +
                                      std::to_string(child.pid) + "\n"));
  EXPECT_THAT(child.output, HasSubstr("stdin []\n"));
  EXPECT_THAT(child.output, HasSubstr("only yes home []\n"));
  EXPECT_THAT(child.output, HasSubstr("err\n"));
  ASSERT_TRUE(WIFEXITED(child.status));
  EXPECT_EQ(WEXITSTATUS(child.status), 0);
}

TEST(ForkExec, AProgramExecveRefusesWritesTheMessageAndTheReasonAndExits127) {
  ScratchDir dir;
  const std::string bad = (dir / "not-a-program").string();
  write_text(bad, std::string("\x01\x02\x03garbage", 10));
  std::filesystem::permissions(bad, std::filesystem::perms::owner_all);
  ChildSpec spec;
  spec.argv = {bad};
  spec.exec_failed = "launcher: cannot run " + bad + ": ";
  const Forked child = run_forked(spec);
  ASSERT_GT(child.pid, 0);
  EXPECT_EQ(child.output, "launcher: cannot run " + bad + ": Exec format error\n");
  ASSERT_TRUE(WIFEXITED(child.status));
  EXPECT_EQ(WEXITSTATUS(child.status), 127);
}

TEST(ForkExec, TheDefaultSignalsStartWithTheirDefaultActionWhereThisProcessIgnoresThem) {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  struct sigaction previous {};
  ASSERT_EQ(::sigaction(SIGUSR1, &ignore, &previous), 0);
  ChildSpec spec;
  spec.argv = {"/bin/sh", "-c", "kill -USR1 $$; echo survived"};
  spec.env = {"PATH=/usr/bin:/bin"};
  const Forked ignoring = run_forked(spec);
  spec.default_signals = {SIGUSR1};
  const Forked defaulted = run_forked(spec);
  ::sigaction(SIGUSR1, &previous, nullptr);
  EXPECT_EQ(ignoring.output, "survived\n");
  ASSERT_TRUE(WIFSIGNALED(defaulted.status)) << defaulted.output;
  EXPECT_EQ(WTERMSIG(defaulted.status), SIGUSR1);
}

TEST(ForkExec, TheChildGetsSigkillWhenTheThreadThatStartedItEnds) {
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  ChildSpec spec;
  spec.argv = {"/bin/sh", "-c", "echo started; exec sleep 60"};
  spec.env = {"PATH=/usr/bin:/bin"};
  spec.stdout_fd = fds[1];
  spec.stderr_fd = fds[1];
  pid_t pid = -1;
  std::string started;
  // The thread ends once the child runs its program: the death signal was
  // asked for before exec, so it cannot come too late.
  std::thread starter([&] {
    pid = fork_exec(spec);
    ::close(fds[1]);
    char c = 0;
    while (pid > 0 && ::read(fds[0], &c, 1) == 1 && c != '\n') started += c;
  });
  starter.join();
  ASSERT_GT(pid, 0);
  EXPECT_EQ(started, "started");
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  int status = 0;
  pid_t done = 0;
  while ((done = ::waitpid(pid, &status, WNOHANG)) == 0 &&
         std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::close(fds[0]);
  if (done == 0) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    FAIL() << "the child outlived the thread that started it by 10 s";
  }
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
}

TEST(ForkExec, RefusesASpecWithoutAProgramOrDescriptors) {
  ChildSpec spec;
  errno = 0;
  EXPECT_EQ(fork_exec(spec), -1);
  EXPECT_EQ(errno, EINVAL);
  spec.argv = {"/bin/true"};
  EXPECT_EQ(fork_exec(spec), -1);
  EXPECT_EQ(errno, EINVAL);
}

}  // namespace
}  // namespace devcheck::detail
