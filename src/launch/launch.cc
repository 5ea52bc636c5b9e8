// devcheck::launch: one single-threaded poll loop owns every rank: a pipe per
// rank and stream, a self-pipe for SIGCHLD and the signals it passes on
// (relay.h), and a 100 ms tick for the SIGKILL deadline. Only this loop
// writes to `out` and `err`, a whole line at a time, so two ranks' text
// never meets on one line.
#include "devcheck/launch.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "launch/relay.h"
#include "launch/rendezvous.h"
#include "process/child.h"
#include "process/cores.h"
#include "process/environment.h"
#include "process/status.h"

namespace devcheck {
namespace {

using Clock = std::chrono::steady_clock;
using detail::LineRelay;
using detail::SignalPipe;
using detail::SignalRecord;

// Bad options or a command that cannot run: nothing was started.
constexpr int kBadInput = 2;

struct Rank {
  int index = 0;
  pid_t pid = -1;
  int fd[2] = {-1, -1};  // read ends: stdout, stderr
  LineRelay relay[2] = {LineRelay(LaunchOptions::kMaxLineBytes),
                        LineRelay(LaunchOptions::kMaxLineBytes)};
  bool running = true;
  int status = 0;
};

class Launch {
 public:
  Launch(const LaunchOptions& options, std::ostream& out, std::ostream& err)
      : options_(options), out_(out), err_(err) {}

  int run(const std::string& program) {
    const SignalPipe signals;
    const bool started = start(program);
    if (!started) stop(SIGTERM, "");
    loop(signals.read_end());
    if (!started) return kBadInput;
    if (received_signal_ != 0) return 128 + received_signal_;
    if (first_failure_ != nullptr) return detail::exit_code_of(first_failure_->status);
    return 0;
  }

 private:
  std::string prefix(const Rank& rank) const {
    return "[rank" + std::to_string(rank.index) + "]: ";
  }

  // What every rank gets besides torchrun's variables, each only where this
  // process does not set it already.
  void add_defaults(std::vector<std::string>& common) {
    if (std::getenv("OMP_NUM_THREADS") == nullptr) {
      const int cores = detail::usable_cores();
      const int threads = std::max(1, cores / options_.nproc);
      common.push_back("OMP_NUM_THREADS=" + std::to_string(threads));
      err_ << options_.name << ": set OMP_NUM_THREADS=" << threads << " for each rank (" << cores
           << " CPUs / " << options_.nproc << " ranks); set OMP_NUM_THREADS to choose another\n";
      err_.flush();
    }
    if (std::getenv("NCCL_ASYNC_ERROR_HANDLING") == nullptr) {
      common.emplace_back("NCCL_ASYNC_ERROR_HANDLING=1");
    }
    // PyTorch 2.4+ asks for TCPStore's libuv backend by default, and a build
    // without libuv (Debian's) then fails init_process_group("env://") with
    // "use_libuv was requested but PyTorch was build without libuv support".
    // The classic backend is in every build and serves a local run's ranks.
    if (std::getenv("USE_LIBUV") == nullptr) {
      common.emplace_back("USE_LIBUV=0");
    }
  }

  bool start(const std::string& program) {
    const int port = options_.master_port != 0 ? options_.master_port : detail::free_port();
    if (port == 0) {
      err_ << options_.name << ": cannot find a free port on 127.0.0.1 (" << std::strerror(errno)
           << "); choose one with --master-port\n";
      return false;
    }
    std::vector<std::string> common =
        detail::torchrun_variables(options_.nproc, port, detail::run_id());
    add_defaults(common);
    detail::ChildSpec child;
    child.argv = options_.command;
    child.argv.front() = program;
    child.default_signals.assign(std::begin(SignalPipe::kSignals), std::end(SignalPipe::kSignals));
    child.exec_failed = options_.name + ": cannot run " + program + ": ";
    ranks_.reserve(static_cast<std::size_t>(options_.nproc));
    for (int k = 0; k < options_.nproc; ++k) {
      std::vector<std::string> set = common;
      for (std::string& variable : detail::rank_variables(k)) set.push_back(std::move(variable));
      child.env = detail::environment_with(set);
      int out[2] = {-1, -1};
      int err[2] = {-1, -1};
      if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
        err_ << options_.name << ": cannot create a pipe for rank " << k << ": "
             << std::strerror(errno) << "\n";
        close_pair(out);
        return false;
      }
      child.stdout_fd = out[1];
      child.stderr_fd = err[1];
      const pid_t pid = detail::fork_exec(child);
      const int error = errno;
      ::close(out[1]);
      ::close(err[1]);
      if (pid < 0) {
        err_ << options_.name << ": cannot start rank " << k << ": " << std::strerror(error)
             << "\n";
        ::close(out[0]);
        ::close(err[0]);
        return false;
      }
      Rank& rank = ranks_.emplace_back();
      rank.index = k;
      rank.pid = pid;
      rank.fd[0] = out[0];
      rank.fd[1] = err[0];
      for (const int fd : rank.fd) ::fcntl(fd, F_SETFL, O_NONBLOCK);
    }
    return true;
  }

  static void close_pair(int fds[2]) {
    for (int i = 0; i < 2; ++i) {
      if (fds[i] >= 0) ::close(fds[i]);
    }
  }

  void loop(int signal_fd) {
    std::vector<pollfd> polled;
    std::vector<std::pair<Rank*, int>> owners;
    while (std::any_of(ranks_.begin(), ranks_.end(), [](const Rank& r) { return r.running; })) {
      polled.assign(1, pollfd{signal_fd, POLLIN, 0});
      owners.assign(1, {nullptr, 0});
      for (auto& rank : ranks_) {
        for (int s = 0; s < 2; ++s) {
          if (rank.fd[s] >= 0) {
            polled.push_back(pollfd{rank.fd[s], POLLIN, 0});
            owners.emplace_back(&rank, s);
          }
        }
      }
      int timeout_ms = 100;
      if (kill_at_ && !killed_) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(*kill_at_ - Clock::now());
        timeout_ms = static_cast<int>(std::clamp<std::int64_t>(left.count() + 1, 0, 100));
      }
      const int ready = ::poll(polled.data(), polled.size(), timeout_ms);
      if (ready < 0 && errno != EINTR) {
        err_ << options_.name << ": poll failed: " << std::strerror(errno) << "\n";
        stop(SIGKILL, "");
      }
      std::string sink[2];
      if (ready > 0) {
        for (std::size_t i = 1; i < polled.size(); ++i) {
          if (polled[i].revents != 0) read_some(*owners[i].first, owners[i].second, sink);
        }
      }
      write_out(sink);
      reap(handle_signals(signal_fd));
      if (kill_at_ && !killed_ && Clock::now() >= *kill_at_) {
        kill_remaining(std::string("still running ") + grace_text() +
                       " after it was asked to stop");
      }
    }
  }

  // One read per ready stream and turn, so a chatty rank cannot starve the
  // others. Returns whether to read again: data came, or a signal cut in.
  bool read_some(Rank& rank, int stream, std::string sink[2]) {
    char buffer[65536];
    const ssize_t n = ::read(rank.fd[stream], buffer, sizeof(buffer));
    if (n > 0) {
      rank.relay[stream].feed(buffer, static_cast<std::size_t>(n), prefix_for(rank, stream),
                              sink[stream]);
      return true;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return errno == EINTR;
    close_stream(rank, stream, sink);  // end of file, or the pipe is broken
    return false;
  }

  std::string prefix_for(const Rank& rank, int stream) const {
    const bool wanted = stream == 0 ? options_.prefix_stdout : options_.prefix_stderr;
    return wanted ? prefix(rank) : "";
  }

  void close_stream(Rank& rank, int stream, std::string sink[2]) {
    rank.relay[stream].finish(prefix_for(rank, stream), sink[stream]);
    ::close(rank.fd[stream]);
    rank.fd[stream] = -1;
  }

  // Whatever an exited rank left in its pipes; a child it left behind that
  // still holds them is not waited for.
  void drain(Rank& rank, std::string sink[2]) {
    for (int s = 0; s < 2; ++s) {
      while (rank.fd[s] >= 0 && read_some(rank, s, sink)) {
      }
      if (rank.fd[s] >= 0) close_stream(rank, s, sink);
    }
  }

  // Each stream is flushed on its own, so where stdout and stderr are one
  // file their lines alternate whole.
  void write_out(std::string sink[2]) {
    if (!sink[0].empty()) {
      out_.write(sink[0].data(), static_cast<std::streamsize>(sink[0].size()));
      out_.flush();
    }
    if (!sink[1].empty()) {
      err_.write(sink[1].data(), static_cast<std::streamsize>(sink[1].size()));
      err_.flush();
    }
  }

  // Returns the pids SIGCHLD named, in the order the signals came.
  std::vector<pid_t> handle_signals(int signal_fd) {
    std::vector<pid_t> ended;
    SignalRecord got[64];
    ssize_t n = 0;
    while ((n = ::read(signal_fd, got, sizeof(got))) > 0) {
      for (std::size_t i = 0; i < static_cast<std::size_t>(n) / sizeof(SignalRecord); ++i) {
        const int signo = got[i].signo;
        if (signo == SIGCHLD) {
          ended.push_back(got[i].pid);
          continue;
        }
        if (!stopping_) {
          received_signal_ = signo;
          stop(signo, detail::signal_name(signo) + " received; passing it to the ranks");
        } else if (!killed_) {
          // Asked again while stopping: the user does not want to wait for the grace period.
          kill_remaining(detail::signal_name(signo) + " received while stopping");
        }
      }
    }
    return ended;
  }

  // The ranks SIGCHLD named first, in that order, then every other.
  void reap(const std::vector<pid_t>& ended) {
    std::vector<Rank*> order;
    for (const pid_t pid : ended) {
      for (auto& rank : ranks_) {
        if (rank.pid == pid && std::find(order.begin(), order.end(), &rank) == order.end()) {
          order.push_back(&rank);
        }
      }
    }
    for (auto& rank : ranks_) {
      if (std::find(order.begin(), order.end(), &rank) == order.end()) order.push_back(&rank);
    }
    for (Rank* next : order) {
      Rank& rank = *next;
      if (!rank.running) continue;
      int status = 0;
      const pid_t done = ::waitpid(rank.pid, &status, WNOHANG);
      if (done != rank.pid) continue;
      rank.running = false;
      rank.status = status;
      std::string sink[2];
      drain(rank, sink);
      write_out(sink);
      const bool failed = WIFSIGNALED(status) || WEXITSTATUS(status) != 0;
      if (failed && !stopping_) {
        first_failure_ = &rank;
        const bool others =
            std::any_of(ranks_.begin(), ranks_.end(), [](const Rank& r) { return r.running; });
        stop(SIGTERM, "rank " + std::to_string(rank.index) + " (pid " + std::to_string(rank.pid) +
                          ") " + detail::describe_wait_status(status) +
                          (others ? "; stopping the other ranks" : ""));
      }
    }
    if (stopping_ &&
        std::none_of(ranks_.begin(), ranks_.end(), [](const Rank& r) { return r.running; })) {
      // What the ranks started in their groups goes with them.
      for (const auto& rank : ranks_) ::kill(-rank.pid, SIGKILL);
    }
  }

  // Sends `signo` to every running rank's group and starts the grace period.
  void stop(int signo, const std::string& message) {
    if (!message.empty()) {
      err_ << options_.name << ": " << message << "\n";
      err_.flush();
    }
    stopping_ = true;
    for (const auto& rank : ranks_) {
      if (!rank.running) continue;
      ::kill(-rank.pid, signo);
      ::kill(rank.pid, signo);
    }
    if (!kill_at_) {
      kill_at_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(options_.grace_seconds));
    }
  }

  void kill_remaining(const std::string& why) {
    for (const auto& rank : ranks_) {
      if (!rank.running) continue;
      err_ << options_.name << ": rank " << rank.index << " (pid " << rank.pid << ") " << why
           << "; sending SIGKILL\n";
      ::kill(-rank.pid, SIGKILL);
      ::kill(rank.pid, SIGKILL);
    }
    err_.flush();
    killed_ = true;
  }

  std::string grace_text() const {
    std::ostringstream text;
    text << options_.grace_seconds << " s";
    return text.str();
  }

  const LaunchOptions& options_;
  std::ostream& out_;
  std::ostream& err_;
  std::vector<Rank> ranks_;
  const Rank* first_failure_ = nullptr;
  int received_signal_ = 0;
  bool stopping_ = false;
  bool killed_ = false;
  std::optional<Clock::time_point> kill_at_;
};

// Why `program` cannot be run; "" when it can.
std::string unusable(const std::string& program) {
  struct stat st {};
  const bool found = ::stat(program.c_str(), &st) == 0;
  if (found && S_ISDIR(st.st_mode)) return "it is a directory";
  if (found && !S_ISREG(st.st_mode)) return "not a regular file";
  if (!found || ::access(program.c_str(), X_OK) != 0) return std::strerror(errno);
  return "";
}

}  // namespace

int launch(const LaunchOptions& options, std::ostream& out, std::ostream& err) {
  const std::string& name = options.name;
  if (options.nproc < 1 || options.nproc > LaunchOptions::kMaxProcesses) {
    err << name << ": the number of processes must be 1 to " << LaunchOptions::kMaxProcesses
        << ", got " << options.nproc << "\n";
    return kBadInput;
  }
  if (options.command.empty() || options.command.front().empty()) {
    err << name << ": no command given (usage: devcheck launch -n N -- COMMAND ARGS...)\n";
    return kBadInput;
  }
  if (options.master_port < 0 || options.master_port > 65535) {
    err << name << ": --master-port must be 1 to 65535 (0 or absent: a free port), got "
        << options.master_port << "\n";
    return kBadInput;
  }
  if (!(options.grace_seconds >= 0) || !std::isfinite(options.grace_seconds)) {
    err << name << ": --grace must be a number of seconds >= 0, got " << options.grace_seconds
        << "\n";
    return kBadInput;
  }
  const std::string& command = options.command.front();
  const std::string program = detail::resolve_program(command);
  if (program.empty()) {
    err << name << ": command not found: '" << command << "' (not in PATH)\n";
    return kBadInput;
  }
  if (const std::string why = unusable(program); !why.empty()) {
    err << name << ": cannot run '" << command << "': " << why << "\n";
    return kBadInput;
  }
  out.flush();
  err.flush();
  Launch run(options, out, err);
  return run.run(program);
}

}  // namespace devcheck
