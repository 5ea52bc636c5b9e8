// devcheck::launch: in-process where only the output matters, and the test
// launcher (programs/launcher.cc) as a process where signals and process
// lifetimes are the point. The ranks are programs/*.py run by Debian's
// python3 (DEVCHECK_PYTHON).
#include "devcheck/launch.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "process/scratch.h"

extern char** environ;  // NOLINT(readability-redundant-declaration)

namespace devcheck {
namespace {

using devcheck::testing::ScratchDir;
using devcheck::testing::slurp;
using devcheck::testing::wait_for_file;
using devcheck::testing::write_text;
using ::testing::HasSubstr;
using ::testing::Not;
using Clock = std::chrono::steady_clock;

std::string program(const std::string& name) {
  return std::string(DEVCHECK_SOURCE_DIR) + "/tests/launch/programs/" + name;
}

std::vector<std::string> rank_tool(std::vector<std::string> args) {
  args.insert(args.begin(), {DEVCHECK_PYTHON, program("rank_tool.py")});
  return args;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

struct Launched {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// devcheck::launch in this process.
Launched run_launch(const LaunchOptions& options) {
  std::ostringstream out;
  std::ostringstream err;
  Launched r;
  r.exit_code = launch(options, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

Launched run_launch(int nproc, const std::vector<std::string>& command) {
  LaunchOptions options;
  options.nproc = nproc;
  options.command = command;
  return run_launch(options);
}

// The test launcher as a child, stdout and stderr each to a file.
class Launcher {
 public:
  Launcher(int nproc, double grace_seconds, const std::vector<std::string>& command,
           const std::filesystem::path& dir)
      : out_(dir / "launcher.out"), err_(dir / "launcher.err") {
    std::ostringstream grace;
    grace << grace_seconds;
    std::vector<std::string> argv{DEVCHECK_TEST_LAUNCHER, std::to_string(nproc), grace.str()};
    argv.insert(argv.end(), command.begin(), command.end());
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    started_ = Clock::now();
    const int rc = posix_spawn(&pid_, cargv[0], &actions, nullptr, cargv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) pid_ = -1;
  }
  ~Launcher() {
    if (pid_ > 0 && !status_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  Launcher(const Launcher&) = delete;
  Launcher& operator=(const Launcher&) = delete;

  pid_t pid() const { return pid_; }
  // The exit code as a shell reports it (128+N for signal N); nullopt when
  // still running after `timeout`.
  std::optional<int> wait(std::chrono::duration<double> timeout) {
    const auto until = Clock::now() + timeout;
    while (!status_) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        ended_ = Clock::now();
      } else if (Clock::now() >= until) {
        return std::nullopt;
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    return status_;
  }
  double seconds() const { return std::chrono::duration<double>(ended_ - started_).count(); }
  std::string out() const { return slurp(out_); }
  std::string err() const { return slurp(err_); }

 private:
  std::filesystem::path out_;
  std::filesystem::path err_;
  pid_t pid_ = -1;
  std::optional<int> status_;
  Clock::time_point started_;
  Clock::time_point ended_;
};

// Whether `pid` is a live process (a zombie has ended: it only awaits its parent).
bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

// Whether every pid has ended within `seconds`.
bool all_end_within(const std::vector<pid_t>& pids, double seconds) {
  const auto until = Clock::now() + std::chrono::duration<double>(seconds);
  do {
    if (std::none_of(pids.begin(), pids.end(), alive)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  } while (Clock::now() < until);
  return false;
}

// "SIGTERM 1700000000.123" -> {"SIGTERM", 1700000000.123}
std::pair<std::string, double> signal_record(const std::string& text) {
  std::istringstream in(text);
  std::pair<std::string, double> record;
  in >> record.first >> record.second;
  return record;
}

// KEY=VALUE lines of each rank, from "[rankK]: KEY=VALUE".
std::map<int, std::map<std::string, std::string>> rank_env(const std::string& out) {
  std::map<int, std::map<std::string, std::string>> env;
  const std::regex line(R"(\[rank(\d+)\]: ([A-Za-z_]+)=(.*))");
  for (const auto& text : lines_of(out)) {
    std::smatch m;
    if (std::regex_match(text, m, line)) env[std::stoi(m[1])][m[2]] = m[3];
  }
  return env;
}

// Sets (or, with nullopt, unsets) a variable for one scope and puts it back.
class VariableScope {
 public:
  VariableScope(std::string name, const std::optional<std::string>& value)
      : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    if (value) {
      ::setenv(name_.c_str(), value->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ~VariableScope() {
    if (old_) {
      ::setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  VariableScope(const VariableScope&) = delete;
  VariableScope& operator=(const VariableScope&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

TEST(Launch, RanksSeeTorchrunsEnvironment) {
  const Launched r = run_launch(3, rank_tool({"env"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto env = rank_env(r.out);
  ASSERT_EQ(env.size(), 3U) << r.out;
  const std::string port = env.at(0).at("MASTER_PORT");
  EXPECT_GT(std::stoi(port), 0);
  for (int k = 0; k < 3; ++k) {
    const auto& e = env.at(k);
    const std::string rank = std::to_string(k);
    EXPECT_EQ(e.at("RANK"), rank);
    EXPECT_EQ(e.at("LOCAL_RANK"), rank);
    EXPECT_EQ(e.at("ROLE_RANK"), rank);
    EXPECT_EQ(e.at("WORLD_SIZE"), "3");
    EXPECT_EQ(e.at("LOCAL_WORLD_SIZE"), "3");
    EXPECT_EQ(e.at("ROLE_WORLD_SIZE"), "3");
    EXPECT_EQ(e.at("GROUP_RANK"), "0");
    EXPECT_EQ(e.at("GROUP_WORLD_SIZE"), "1");
    EXPECT_EQ(e.at("ROLE_NAME"), "default");
    EXPECT_EQ(e.at("MASTER_ADDR"), "127.0.0.1");
    EXPECT_EQ(e.at("MASTER_PORT"), port);
    EXPECT_EQ(e.at("TORCHELASTIC_RESTART_COUNT"), "0");
    EXPECT_EQ(e.at("TORCHELASTIC_MAX_RESTARTS"), "0");
    EXPECT_EQ(e.at("TORCHELASTIC_USE_AGENT_STORE"), "False");
    EXPECT_EQ(e.at("USE_LIBUV"), "0");  // PyTorch 2.x without libuv (Debian's) needs it
    EXPECT_TRUE(std::regex_match(e.at("TORCHELASTIC_RUN_ID"),
                                 std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-"
                                            "[0-9a-f]{12}")))
        << e.at("TORCHELASTIC_RUN_ID");
    EXPECT_EQ(e.at("TORCHELASTIC_RUN_ID"), env.at(0).at("TORCHELASTIC_RUN_ID"));
  }
  // Ranks read nothing from the launcher's stdin.
  EXPECT_THAT(r.out, HasSubstr("[rank0]: stdin=b''"));
}

TEST(Launch, AMasterPortGivenReachesEveryRank) {
  LaunchOptions options;
  options.nproc = 2;
  options.master_port = 29517;
  options.command = rank_tool({"env"});
  const Launched r = run_launch(options);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto env = rank_env(r.out);
  EXPECT_EQ(env.at(0).at("MASTER_PORT"), "29517");
  EXPECT_EQ(env.at(1).at("MASTER_PORT"), "29517");
}

TEST(Launch, SetsOmpNumThreadsToCoresPerRankUnlessSet) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(::sched_getaffinity(0, sizeof(set), &set), 0);
  const int cores = CPU_COUNT(&set);
  {
    const VariableScope unset("OMP_NUM_THREADS", std::nullopt);
    const Launched r = run_launch(2, rank_tool({"env"}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string expected = std::to_string(std::max(1, cores / 2));
    EXPECT_EQ(rank_env(r.out).at(1).at("OMP_NUM_THREADS"), expected) << r.out;
    EXPECT_THAT(r.err, HasSubstr("devcheck launch: set OMP_NUM_THREADS=" + expected +
                                 " for each rank (" + std::to_string(cores) + " CPUs / 2 ranks)"));
  }
  const VariableScope seven("OMP_NUM_THREADS", "7");
  const Launched kept = run_launch(2, rank_tool({"env"}));
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_EQ(rank_env(kept.out).at(0).at("OMP_NUM_THREADS"), "7");
  EXPECT_THAT(kept.err, Not(HasSubstr("OMP_NUM_THREADS")));
}

// Each line is one rank's: its own token, repeated, never mixed with another's.
void expect_whole_lines(const std::string& text, char tag, int ranks, int lines_per_rank) {
  const std::regex line(R"(\[rank(\d)\]: ((?:([a-j])\3\3)[oe])+)");
  std::map<int, int> count;
  for (const auto& l : lines_of(text)) {
    if (l.rfind("devcheck launch: set OMP_NUM_THREADS=", 0) == 0) continue;  // where unset
    std::smatch m;
    ASSERT_TRUE(std::regex_match(l, m, line)) << "a broken or mixed line: " << l.substr(0, 200);
    const int rank = std::stoi(m[1]);
    const std::string body = l.substr(l.find(": ") + 2);
    const std::string unit = std::string(3, static_cast<char>('a' + rank)) + tag;
    ASSERT_EQ(body.size() % unit.size(), 0U) << l.substr(0, 200);
    for (std::size_t at = 0; at < body.size(); at += unit.size()) {
      ASSERT_EQ(body.compare(at, unit.size(), unit), 0)
          << "rank " << rank << ": " << l.substr(0, 200);
    }
    ++count[rank];
  }
  ASSERT_EQ(count.size(), static_cast<std::size_t>(ranks));
  for (const auto& [rank, n] : count) EXPECT_EQ(n, lines_per_rank) << "rank " << rank;
}

TEST(LaunchProcess, LinesStayWholeAndPrefixedUnderHeavyOutputFromThreeRanks) {
  ScratchDir dir;
  Launcher run(3, 30, rank_tool({"chatter", "3000"}), dir.path());
  ASSERT_EQ(run.wait(std::chrono::seconds(120)), 0) << run.err().substr(0, 2000);
  expect_whole_lines(run.out(), 'o', 3, 3000);
  expect_whole_lines(run.err(), 'e', 3, 3000);
}

TEST(Launch, ALongLineIsRelayedInCappedPiecesAndTheLastOneEnded) {
  const std::size_t cap = LaunchOptions::kMaxLineBytes;
  const Launched r = run_launch(1, rank_tool({"long", std::to_string(2 * cap + 10)}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 3U);
  EXPECT_EQ(lines[0], "[rank0]: " + std::string(cap, 'x'));
  EXPECT_EQ(lines[1], "[rank0]: " + std::string(cap, 'x'));
  EXPECT_EQ(lines[2], "[rank0]: " + std::string(10, 'x'));
  EXPECT_EQ(r.out.back(), '\n');
}

TEST(Launch, RejectsOptionsItCannotRunWithOneMessageAndTwoStartingNothing) {
  LaunchOptions none;
  none.nproc = 2;
  LaunchOptions too_many = none;
  too_many.command = {"true"};
  too_many.nproc = LaunchOptions::kMaxProcesses + 1;
  LaunchOptions zero = too_many;
  zero.nproc = 0;
  LaunchOptions port = none;
  port.command = {"true"};
  port.master_port = 70000;
  LaunchOptions grace = none;
  grace.command = {"true"};
  grace.grace_seconds = -1;
  const std::vector<std::pair<LaunchOptions, std::string>> cases = {
      {none, "devcheck launch: no command given (usage: devcheck launch -n N -- COMMAND ARGS...)"},
      {too_many, "devcheck launch: the number of processes must be 1 to 1024, got 1025"},
      {zero, "devcheck launch: the number of processes must be 1 to 1024, got 0"},
      {port,
       "devcheck launch: --master-port must be 1 to 65535 (0 or absent: a free port), got "
       "70000"},
      {grace, "devcheck launch: --grace must be a number of seconds >= 0, got -1"},
  };
  for (const auto& [options, message] : cases) {
    const Launched r = run_launch(options);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err, message + "\n");
    EXPECT_EQ(r.out, "");
  }
}

TEST(Launch, ACommandNotFoundOrNotRunnableIsOneMessageAndTwo) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"no-such-program-xyz",
       "devcheck launch: command not found: 'no-such-program-xyz' (not in PATH)"},
      {"/nonexistent/prog",
       "devcheck launch: cannot run '/nonexistent/prog': No such file or directory"},
      {"/tmp", "devcheck launch: cannot run '/tmp': it is a directory"},
      {"/dev/null", "devcheck launch: cannot run '/dev/null': not a regular file"},
  };
  for (const auto& [command, message] : cases) {
    const Launched r = run_launch(2, {command});
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.err;
    EXPECT_EQ(r.err, message + "\n");
    EXPECT_EQ(r.out, "");
  }
}

TEST(Launch, AProgramThatCannotBeExecutedFailsItsRankWith127) {
  // Found and executable, so the check before starting passes; execve refuses it.
  ScratchDir dir;
  const std::string bad = (dir / "not-a-program").string();
  write_text(bad, std::string("\x01\x02\x03garbage", 10));
  std::filesystem::permissions(bad, std::filesystem::perms::owner_all);
  const Launched r = run_launch(1, {bad});
  EXPECT_EQ(r.exit_code, 127) << r.err;
  EXPECT_THAT(r.err,
              HasSubstr("[rank0]: devcheck launch: cannot run " + bad + ": Exec format error\n"));
  EXPECT_THAT(r.err, HasSubstr(") exited with status 127\n"));
}

TEST(Launch, StdoutCanPassThroughUnprefixedWhileStderrKeepsThePrefix) {
  // As `devcheck train --nproc N` runs its ranks: rank 0 alone prints the
  // JSON summary; every rank logs on stderr.
  LaunchOptions options;
  options.nproc = 2;
  options.command = {DEVCHECK_PYTHON, "-c",
                     "import os, sys\n"
                     "r = os.environ['RANK']\n"
                     "print('{\"rank\": ' + r + ', \"loss\": 0.5}') if r == '0' else None\n"
                     "print('log of ' + r, file=sys.stderr)\n"};
  options.prefix_stdout = false;
  options.name = "devcheck train";
  const Launched r = run_launch(options);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "{\"rank\": 0, \"loss\": 0.5}\n");
  EXPECT_THAT(r.err, HasSubstr("[rank0]: log of 0\n"));
  EXPECT_THAT(r.err, HasSubstr("[rank1]: log of 1\n"));
}

TEST(Launch, TheNameGivenStartsTheLaunchersOwnMessages) {
  LaunchOptions options;
  options.nproc = 1;
  options.command = {"sh", "-c", "exit 5"};
  options.name = "devcheck train";
  const Launched r = run_launch(options);
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_THAT(r.err, HasSubstr("devcheck train: rank 0 (pid "));
  EXPECT_THAT(r.err, HasSubstr(") exited with status 5\n"));
  EXPECT_THAT(r.err, Not(HasSubstr("devcheck launch")));
}

TEST(Launch, ARankThatSucceedsEarlyLeavesTheOthersRunning) {
  const Launched r = run_launch(2, {DEVCHECK_PYTHON, "-c",
                                    "import os, time\n"
                                    "if os.environ['RANK'] == '1':\n"
                                    "    time.sleep(0.5)\n"
                                    "print('rank', os.environ['RANK'], 'done')\n"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "[rank0]: rank 0 done\n[rank1]: rank 1 done\n");
  EXPECT_THAT(r.err, Not(HasSubstr("stopping")));
}

TEST(LaunchProcess, ARankKilledMidRunStopsTheOtherWithinASecondAndExits137) {
  ScratchDir dir;
  Launcher run(2, 30,
               rank_tool({"behave", dir.path().string(), "--fail-rank", "1", "--how", "kill9",
                          "--after", "0.5"}),
               dir.path());
  const auto code = run.wait(std::chrono::seconds(30));
  ASSERT_TRUE(code.has_value()) << "the launcher did not stop after a rank was killed";
  EXPECT_EQ(*code, 137) << run.err();
  const std::string pid1 = slurp(dir / "rank1.pid");
  EXPECT_THAT(run.err(), HasSubstr("devcheck launch: rank 1 (pid " + pid1 +
                                   ") was killed by SIGKILL; stopping the other ranks"));
  EXPECT_THAT(run.out(), HasSubstr("[rank0]: rank 0 sleeps\n"));
  EXPECT_THAT(run.out(), HasSubstr("[rank1]: rank 1 fails now (kill9)\n"));
  // The survivor got SIGTERM soon after the death (1 s, plus slack for a loaded machine).
  const auto [name, at] = signal_record(slurp(dir / "rank0.signal"));
  EXPECT_EQ(name, "SIGTERM");
  const double died = std::stod(slurp(dir / "rank1.failed"));
  EXPECT_LT(at - died, 5.0);
  EXPECT_LT(run.seconds(), 20.0);
  EXPECT_FALSE(alive(std::stoi(slurp(dir / "rank0.pid"))));
}

TEST(LaunchProcess, ARankThatIgnoresSigtermGetsSigkillAfterTheGracePeriod) {
  ScratchDir dir;
  Launcher run(2, 1,
               rank_tool({"behave", dir.path().string(), "--fail-rank", "1", "--how", "exit1",
                          "--after", "0.3", "--ignore"}),
               dir.path());
  const auto code = run.wait(std::chrono::seconds(30));
  ASSERT_TRUE(code.has_value()) << "a rank that ignores SIGTERM kept the launcher waiting";
  EXPECT_EQ(*code, 1) << run.err();
  const std::string pid0 = slurp(dir / "rank0.pid");
  const std::string pid1 = slurp(dir / "rank1.pid");
  EXPECT_THAT(run.err(), HasSubstr("devcheck launch: rank 1 (pid " + pid1 +
                                   ") exited with status 1; stopping the other ranks"));
  EXPECT_THAT(run.err(),
              HasSubstr("devcheck launch: rank 0 (pid " + pid0 +
                        ") still running 1 s after it was asked to stop; sending SIGKILL"));
  const auto [name, at] = signal_record(slurp(dir / "rank0.signal"));
  EXPECT_EQ(name, "SIGTERM");
  const double failed = std::stod(slurp(dir / "rank1.failed"));
  EXPECT_GE(run.seconds(), 1.0);
  EXPECT_LT(run.seconds(), 20.0);
  EXPECT_LT(at - failed, 5.0);
  EXPECT_FALSE(alive(std::stoi(pid0)));
}

TEST(LaunchProcess, ASecondSigtermWhileStoppingSendsSigkillAtOnce) {
  ScratchDir dir;
  Launcher run(2, 60, rank_tool({"behave", dir.path().string(), "--ignore"}), dir.path());
  ASSERT_FALSE(wait_for_file(dir / "rank0.pid").empty()) << run.err();
  ASSERT_FALSE(wait_for_file(dir / "rank1.pid").empty()) << run.err();
  ::kill(run.pid(), SIGTERM);
  ASSERT_FALSE(wait_for_file(dir / "rank0.signal").empty()) << run.err();
  ASSERT_FALSE(wait_for_file(dir / "rank1.signal").empty()) << run.err();
  EXPECT_FALSE(run.wait(std::chrono::milliseconds(300)).has_value())
      << "the ranks ignore SIGTERM, so the launcher should still wait for them: " << run.err();
  ::kill(run.pid(), SIGTERM);
  const auto code = run.wait(std::chrono::seconds(10));
  ASSERT_TRUE(code.has_value()) << "a second SIGTERM did not end the ranks";
  EXPECT_EQ(*code, 128 + SIGTERM);
  EXPECT_THAT(run.err(), HasSubstr("(pid " + slurp(dir / "rank1.pid") +
                                   ") SIGTERM received while stopping; sending SIGKILL"));
  EXPECT_LT(run.seconds(), 30.0);
}

TEST(LaunchProcess, WhatARankStartedIsStoppedWithIt) {
  // Each rank is a process group: the shell's background sleep gets the
  // SIGTERM too, though only the shell is the launcher's child.
  ScratchDir dir;
  const std::string script =
      "sleep 60 & echo $! > " + dir.path().string() + "/child$RANK.pid; wait";
  Launcher run(2, 30, {"sh", "-c", script}, dir.path());
  std::vector<pid_t> children;
  for (int k = 0; k < 2; ++k) {
    const std::string pid = wait_for_file(dir / ("child" + std::to_string(k) + ".pid"));
    ASSERT_FALSE(pid.empty()) << run.err();
    children.push_back(std::stoi(pid));
  }
  ::kill(run.pid(), SIGTERM);
  ASSERT_EQ(run.wait(std::chrono::seconds(30)), 128 + SIGTERM) << run.err();
  EXPECT_TRUE(all_end_within(children, 1.0)) << children[0] << " " << children[1];
}

TEST(LaunchProcess, NoRankOutlivesTheLauncherKilledWithSigkill) {
  ScratchDir dir;
  Launcher run(2, 30, rank_tool({"behave", dir.path().string()}), dir.path());
  std::vector<pid_t> ranks;
  for (int k = 0; k < 2; ++k) {
    const std::string pid = wait_for_file(dir / ("rank" + std::to_string(k) + ".pid"));
    ASSERT_FALSE(pid.empty()) << "rank " << k << " never started: " << run.err();
    ranks.push_back(std::stoi(pid));
  }
  ASSERT_TRUE(alive(ranks[0]) && alive(ranks[1]));
  ::kill(run.pid(), SIGKILL);
  ASSERT_EQ(run.wait(std::chrono::seconds(10)), 128 + SIGKILL);
  EXPECT_TRUE(all_end_within(ranks, 1.0))
      << "a rank outlived the launcher by more than a second: " << ranks[0] << " " << ranks[1];
}

TEST(LaunchProcess, SigtermSigintAndSighupToTheLauncherReachEveryRank) {
  for (const int signo : {SIGTERM, SIGINT, SIGHUP}) {
    const std::string name = std::string("SIG") + ::sigabbrev_np(signo);
    ScratchDir dir;
    Launcher run(2, 30, rank_tool({"behave", dir.path().string()}), dir.path());
    ASSERT_FALSE(wait_for_file(dir / "rank0.pid").empty()) << run.err();
    ASSERT_FALSE(wait_for_file(dir / "rank1.pid").empty()) << run.err();
    ::kill(run.pid(), signo);
    const auto code = run.wait(std::chrono::seconds(30));
    ASSERT_TRUE(code.has_value()) << name << " did not stop the launcher";
    EXPECT_EQ(*code, 128 + signo) << run.err();
    EXPECT_THAT(run.err(),
                HasSubstr("devcheck launch: " + name + " received; passing it to the ranks"));
    for (int k = 0; k < 2; ++k) {
      const std::string prefix = "rank" + std::to_string(k);
      EXPECT_EQ(signal_record(wait_for_file(dir / (prefix + ".signal"), 1)).first, name) << prefix;
      EXPECT_FALSE(alive(std::stoi(slurp(dir / (prefix + ".pid"))))) << prefix;
    }
  }
}

// The same with real PyTorch: an unchanged torchrun-style DDP script.
TEST(LaunchPython, DdpOnGlooKeepsBothRanksParametersEqual) {
  const Launched r = run_launch(2, {DEVCHECK_PYTHON, program("ddp_tiny.py"), "--steps", "5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::regex line(R"(\[rank(\d)\]: world 2 rank (\d) checksum (\S+))");
  std::map<int, std::string> checksums;
  for (const auto& text : lines_of(r.out)) {
    std::smatch m;
    if (std::regex_match(text, m, line)) {
      EXPECT_EQ(m[1], m[2]);
      checksums[std::stoi(m[1])] = m[3];
    }
  }
  ASSERT_EQ(checksums.size(), 2U) << r.out;
  EXPECT_EQ(checksums[0], checksums[1]);
}

TEST(LaunchPython, ADdpRankThatFailsMidTrainingIsNamedAndItsStatusReturned) {
  for (const std::string how : {"exit3", "kill9"}) {
    ScratchDir dir;
    Launcher run(2, 30,
                 {DEVCHECK_PYTHON, program("ddp_tiny.py"), "--steps", "50", "--fail-rank", "1",
                  "--fail-step", "3", "--how", how, "--dir", dir.path().string()},
                 dir.path());
    const auto code = run.wait(std::chrono::seconds(120));
    ASSERT_TRUE(code.has_value()) << how << ": the launcher did not stop";
    const std::string pid1 = slurp(dir / "rank1.pid");
    const std::string pid0 = slurp(dir / "rank0.pid");
    ASSERT_FALSE(pid0.empty() || pid1.empty()) << run.err();
    if (how == "exit3") {
      EXPECT_EQ(*code, 3) << run.err();
      EXPECT_THAT(run.err(),
                  HasSubstr("devcheck launch: rank 1 (pid " + pid1 + ") exited with status 3"));
    } else {
      EXPECT_EQ(*code, 137) << run.err();
      EXPECT_THAT(run.err(),
                  HasSubstr("devcheck launch: rank 1 (pid " + pid1 + ") was killed by SIGKILL"));
    }
    EXPECT_THAT(run.out(), HasSubstr("[rank1]: rank 1 fails at step 3 (" + how + ")"));
    EXPECT_LT(run.seconds(), 60.0);
    EXPECT_FALSE(alive(std::stoi(pid0)));
  }
}

}  // namespace
}  // namespace devcheck
