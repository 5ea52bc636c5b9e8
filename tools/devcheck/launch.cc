// devcheck launch -n N [--master-port P] [--grace SECONDS] -- COMMAND ARGS...
//
// One single-threaded poll loop owns every rank: a pipe per rank and stream,
// a self-pipe for SIGCHLD and the signals it passes on, and a 100 ms tick
// for the SIGKILL deadline. Only this loop writes to stdout and stderr, a
// whole line at a time, so two ranks' text never meets on one line.
#include "launch.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
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
#include <fstream>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "detail/cores.h"

extern char** environ;  // NOLINT(readability-redundant-declaration)

namespace devcheck::cli {
namespace {

using Clock = std::chrono::steady_clock;

// The write end of the self-pipe; the handler is async-signal-safe.
int g_signal_pipe = -1;

// What the handler sends through the self-pipe: one write of 8 bytes, which
// a pipe keeps whole. For SIGCHLD, `pid` is the child that changed state:
// when two ranks die close together the kernel merges their SIGCHLDs, and
// the one delivered names the first, so the first failure is named right.
struct SignalRecord {
  std::int32_t signo;
  std::int32_t pid;
};

void on_signal(int signo, siginfo_t* info, void* /*context*/) {
  const int saved = errno;
  const SignalRecord record{signo, info != nullptr ? info->si_pid : 0};
  [[maybe_unused]] const ssize_t n = ::write(g_signal_pipe, &record, sizeof(record));
  errno = saved;
}

// Installs the handlers for the launch's lifetime and restores the old ones.
class SignalPipe {
 public:
  SignalPipe() {
    if (::pipe2(fds_, O_CLOEXEC | O_NONBLOCK) != 0) {
      throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
    }
    g_signal_pipe = fds_[1];
    struct sigaction action {};
    action.sa_sigaction = on_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART | SA_NOCLDSTOP | SA_SIGINFO;
    for (std::size_t i = 0; i < std::size(kSignals); ++i) {
      ::sigaction(kSignals[i], &action, &previous_[i]);
    }
  }
  ~SignalPipe() {
    for (std::size_t i = 0; i < std::size(kSignals); ++i) {
      ::sigaction(kSignals[i], &previous_[i], nullptr);
    }
    g_signal_pipe = -1;
    ::close(fds_[0]);
    ::close(fds_[1]);
  }
  SignalPipe(const SignalPipe&) = delete;
  SignalPipe& operator=(const SignalPipe&) = delete;
  int read_end() const { return fds_[0]; }

  // SIGCHLD, and what the launcher passes on to the ranks (as torchrun 2.x).
  static constexpr int kSignals[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT};

 private:
  int fds_[2] = {-1, -1};
  struct sigaction previous_[std::size(kSignals)]{};
};

std::string signal_name(int signo) {
  const char* abbrev = ::sigabbrev_np(signo);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(signo);
}

// "exited with status 3" / "was killed by SIGKILL", and the shell's code.
std::string describe(int status) {
  if (WIFSIGNALED(status)) return "was killed by " + signal_name(WTERMSIG(status));
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

int exit_code_of(int status) {
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

// Splits one rank's stream into whole lines, each written with the prefix.
class LineRelay {
 public:
  void feed(const char* data, std::size_t size, const std::string& prefix, std::string& sink) {
    while (size > 0) {
      const char* newline = static_cast<const char*>(std::memchr(data, '\n', size));
      const std::size_t take = newline != nullptr ? static_cast<std::size_t>(newline - data) : size;
      const std::size_t room = kMaxLineBytes - pending_.size();
      if (take > room) {  // a line this long is cut where the cap falls
        pending_.append(data, room);
        emit(prefix, sink);
        data += room;
        size -= room;
        continue;
      }
      pending_.append(data, take);
      if (newline == nullptr) return;
      emit(prefix, sink);
      data += take + 1;
      size -= take + 1;
    }
  }
  // A last line without '\n' is ended with one.
  void finish(const std::string& prefix, std::string& sink) {
    if (!pending_.empty()) emit(prefix, sink);
  }

 private:
  void emit(const std::string& prefix, std::string& sink) {
    sink += prefix;
    sink += pending_;
    sink += '\n';
    pending_.clear();
  }
  std::string pending_;
};

struct Rank {
  int index = 0;
  pid_t pid = -1;
  int fd[2] = {-1, -1};  // read ends: stdout, stderr
  LineRelay relay[2];
  bool running = true;
  int status = 0;
};

// The program a name means, as execvp would find it; "" when none.
std::string resolve(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  const std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    std::string candidate = dir;
    candidate += '/';
    candidate += name;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    start = end + 1;
  }
  return "";
}

// A TCP port of 127.0.0.1 that nobody listens on now (bound to 0, then
// released for rank 0's store: the same small race torchrun accepts).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  const int error = errno;
  ::close(fd);
  errno = error;
  return port;
}

// torchrun --standalone names its run with a fresh uuid4; so do we.
std::string run_id() {
  unsigned char bytes[16] = {};
  std::ifstream random("/dev/urandom", std::ios::binary);
  random.read(reinterpret_cast<char*>(bytes), sizeof(bytes));
  bytes[6] = static_cast<unsigned char>((bytes[6] & 0x0f) | 0x40);
  bytes[8] = static_cast<unsigned char>((bytes[8] & 0x3f) | 0x80);
  static const char kHex[] = "0123456789abcdef";
  std::string id;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) id += '-';
    id += kHex[bytes[i] >> 4];
    id += kHex[bytes[i] & 0x0f];
  }
  return id;
}

// This process's environment with `set` ("K=V") replacing the same keys.
std::vector<std::string> environment_with(const std::vector<std::string>& set) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string key = entry.substr(0, entry.find('=') + 1);
    const bool replaced = std::any_of(set.begin(), set.end(), [&](const std::string& s) {
      return s.compare(0, key.size(), key) == 0;
    });
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), set.begin(), set.end());
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Only async-signal-safe calls after fork: the launcher may have threads
// (the in-process tests do), and everything was prepared before.
[[noreturn]] void become_rank(pid_t launcher, const int out[2], const int err[2], char* const* argv,
                              char* const* envp, const std::string& exec_failed) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The launcher may have died before prctl: then nobody would kill us.
  if (::getppid() != launcher) ::_exit(137);
  ::dup2(out[1], STDOUT_FILENO);
  ::dup2(err[1], STDERR_FILENO);
  const int null = ::open("/dev/null", O_RDONLY);
  if (null >= 0) ::dup2(null, STDIN_FILENO);
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  for (const int signo : SignalPipe::kSignals) ::sigaction(signo, &fallback, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execve(argv[0], argv, envp);
  const int error = errno;
  [[maybe_unused]] ssize_t n = ::write(STDERR_FILENO, exec_failed.data(), exec_failed.size());
  const char* reason = ::strerrordesc_np(error);  // glibc's table; no allocation
  n = ::write(STDERR_FILENO, reason, std::strlen(reason));
  n = ::write(STDERR_FILENO, "\n", 1);
  ::_exit(127);
}

class Launch {
 public:
  Launch(const LaunchOptions& options, Streams& io) : options_(options), io_(io) {}

  int run(const std::string& program) {
    const SignalPipe signals;
    const bool started = start(program);
    if (!started) stop(SIGTERM, "");
    loop(signals.read_end());
    if (!started) return kExitBadInput;
    if (received_signal_ != 0) return 128 + received_signal_;
    if (first_failure_ != nullptr) return exit_code_of(first_failure_->status);
    return kExitOk;
  }

 private:
  std::string prefix(const Rank& rank) const {
    return "[rank" + std::to_string(rank.index) + "]: ";
  }

  bool start(const std::string& program) {
    const int port = options_.master_port != 0 ? options_.master_port : free_port();
    if (port == 0) {
      io_.err << options_.name << ": cannot find a free port on 127.0.0.1 (" << std::strerror(errno)
              << "); choose one with --master-port\n";
      return false;
    }
    const std::string id = run_id();
    const std::string n = std::to_string(options_.nproc);
    std::vector<std::string> common = {
        "WORLD_SIZE=" + n,
        "LOCAL_WORLD_SIZE=" + n,
        "ROLE_WORLD_SIZE=" + n,
        "GROUP_RANK=0",
        "GROUP_WORLD_SIZE=1",
        "ROLE_NAME=default",
        "MASTER_ADDR=127.0.0.1",
        "MASTER_PORT=" + std::to_string(port),
        "TORCHELASTIC_RUN_ID=" + id,
        "TORCHELASTIC_RESTART_COUNT=0",
        "TORCHELASTIC_MAX_RESTARTS=0",
        // Rank 0 hosts the TCPStore itself: there is no agent store here.
        "TORCHELASTIC_USE_AGENT_STORE=False",
    };
    if (std::getenv("OMP_NUM_THREADS") == nullptr) {
      const int cores = devcheck::detail::usable_cores();
      const int threads = std::max(1, cores / options_.nproc);
      common.push_back("OMP_NUM_THREADS=" + std::to_string(threads));
      io_.err << options_.name << ": set OMP_NUM_THREADS=" << threads << " for each rank (" << cores
              << " CPUs / " << options_.nproc << " ranks); set OMP_NUM_THREADS to choose another\n";
      io_.err.flush();
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
    std::vector<std::string> argv = options_.command;
    argv.front() = program;
    std::vector<char*> cargv = pointers(argv);
    const std::string exec_failed = options_.name + ": cannot run " + program + ": ";
    const pid_t launcher = ::getpid();
    ranks_.reserve(static_cast<std::size_t>(options_.nproc));
    for (int k = 0; k < options_.nproc; ++k) {
      std::vector<std::string> set = common;
      set.push_back("RANK=" + std::to_string(k));
      set.push_back("LOCAL_RANK=" + std::to_string(k));
      set.push_back("ROLE_RANK=" + std::to_string(k));
      std::vector<std::string> env = environment_with(set);
      std::vector<char*> cenv = pointers(env);
      int out[2] = {-1, -1};
      int err[2] = {-1, -1};
      if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
        io_.err << options_.name << ": cannot create a pipe for rank " << k << ": "
                << std::strerror(errno) << "\n";
        close_pair(out);
        return false;
      }
      const pid_t pid = ::fork();
      if (pid == 0) become_rank(launcher, out, err, cargv.data(), cenv.data(), exec_failed);
      ::close(out[1]);
      ::close(err[1]);
      if (pid < 0) {
        io_.err << options_.name << ": cannot start rank " << k << ": " << std::strerror(errno)
                << "\n";
        ::close(out[0]);
        ::close(err[0]);
        return false;
      }
      ::setpgid(pid, pid);  // also here, so a kill of the group cannot come first
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
        io_.err << options_.name << ": poll failed: " << std::strerror(errno) << "\n";
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
      io_.out.write(sink[0].data(), static_cast<std::streamsize>(sink[0].size()));
      io_.out.flush();
    }
    if (!sink[1].empty()) {
      io_.err.write(sink[1].data(), static_cast<std::streamsize>(sink[1].size()));
      io_.err.flush();
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
          stop(signo, signal_name(signo) + " received; passing it to the ranks");
        } else if (!killed_) {
          // Asked again while stopping: the user does not want to wait for the grace period.
          kill_remaining(signal_name(signo) + " received while stopping");
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
                          ") " + describe(status) + (others ? "; stopping the other ranks" : ""));
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
      io_.err << options_.name << ": " << message << "\n";
      io_.err.flush();
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
      io_.err << options_.name << ": rank " << rank.index << " (pid " << rank.pid << ") " << why
              << "; sending SIGKILL\n";
      ::kill(-rank.pid, SIGKILL);
      ::kill(rank.pid, SIGKILL);
    }
    io_.err.flush();
    killed_ = true;
  }

  std::string grace_text() const {
    std::ostringstream text;
    text << options_.grace_seconds << " s";
    return text.str();
  }

  const LaunchOptions& options_;
  Streams& io_;
  std::vector<Rank> ranks_;
  const Rank* first_failure_ = nullptr;
  int received_signal_ = 0;
  bool stopping_ = false;
  bool killed_ = false;
  std::optional<Clock::time_point> kill_at_;
};

}  // namespace

int launch(const LaunchOptions& options, Streams& io) {
  const std::string& name = options.name;
  if (options.nproc < 1 || options.nproc > kMaxProcesses) {
    io.err << name << ": the number of processes must be 1 to " << kMaxProcesses << ", got "
           << options.nproc << "\n";
    return kExitBadInput;
  }
  if (options.command.empty() || options.command.front().empty()) {
    io.err << name << ": no command given (usage: devcheck launch -n N -- COMMAND ARGS...)\n";
    return kExitBadInput;
  }
  if (options.master_port < 0 || options.master_port > 65535) {
    io.err << name << ": --master-port must be 1 to 65535 (0 or absent: a free port), got "
           << options.master_port << "\n";
    return kExitBadInput;
  }
  if (!(options.grace_seconds >= 0) || !std::isfinite(options.grace_seconds)) {
    io.err << name << ": --grace must be a number of seconds >= 0, got " << options.grace_seconds
           << "\n";
    return kExitBadInput;
  }
  const std::string& command = options.command.front();
  const std::string program = resolve(command);
  if (program.empty()) {
    io.err << name << ": command not found: '" << command << "' (not in PATH)\n";
    return kExitBadInput;
  }
  struct stat st {};
  std::string unusable;
  const bool found = ::stat(program.c_str(), &st) == 0;
  if (found && S_ISDIR(st.st_mode)) {
    unusable = "it is a directory";
  } else if (found && !S_ISREG(st.st_mode)) {
    unusable = "not a regular file";
  } else if (!found || ::access(program.c_str(), X_OK) != 0) {
    unusable = std::strerror(errno);
  }
  if (!unusable.empty()) {
    io.err << name << ": cannot run '" << command << "': " << unusable << "\n";
    return kExitBadInput;
  }
  io.out.flush();
  io.err.flush();
  Launch run(options, io);
  return run.run(program);
}

namespace {

Runner setup_launch(CLI::App& sub, Streams& io) {
  auto options = std::make_shared<LaunchOptions>();
  sub.add_option("-n,--nproc,--nproc-per-node", options->nproc,
                 "How many processes (ranks) to start")
      ->required()
      ->check(CLI::Range(1, kMaxProcesses));
  sub.add_option("--master-port", options->master_port,
                 "MASTER_PORT for the ranks (default: a free port)")
      ->check(CLI::Range(1, 65535));
  sub.add_option("--grace", options->grace_seconds,
                 "Seconds between SIGTERM and SIGKILL when ranks are stopped (default 30)")
      ->check(CLI::NonNegativeNumber);
  sub.add_option("command", options->command, "COMMAND ARGS...: what every rank runs")->required();
  // From COMMAND on, every argument is COMMAND's ("--" before it is optional).
  sub.positionals_at_end();
  sub.footer(
      "Sets torchrun's variables (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT, ...);\n"
      "prefixes each output line with [rankK]; when a rank fails, stops the others (SIGTERM, then\n"
      "SIGKILL after --grace) and exits with its status.\n"
      "Exit status: 0 all ranks succeeded; the first failed rank's status (128+N for signal N);\n"
      "128+N when the launcher got signal N (INT, TERM, HUP, QUIT: passed on to the ranks);\n"
      "2 bad usage or a command not found.\n"
      "Example: devcheck launch -n 2 -- python3 train_ddp.py --epochs 1");
  return [options, &io]() { return launch(*options, io); };
}

const CommandRegistrar kLaunch("launch",
                               "Start N local ranks like torchrun --standalone: torchrun's "
                               "environment, [rankK] lines, no orphans",
                               70, setup_launch);

}  // namespace
}  // namespace devcheck::cli
