#include "process/child.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

namespace devcheck::detail {
namespace {

// Only async-signal-safe calls: the parent may have threads, and everything
// was prepared before fork.
[[noreturn]] void become_child(pid_t parent, const ChildSpec& spec, char* const* argv,
                               char* const* envp, const int* default_signals,
                               std::size_t default_signal_count) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The parent may have died before prctl: then nobody would kill us.
  if (::getppid() != parent) ::_exit(137);
  ::dup2(spec.stdout_fd, STDOUT_FILENO);
  ::dup2(spec.stderr_fd, STDERR_FILENO);
  const int null = ::open("/dev/null", O_RDONLY);
  if (null >= 0) {
    ::dup2(null, STDIN_FILENO);
    if (null != STDIN_FILENO) ::close(null);
  }
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  for (std::size_t i = 0; i < default_signal_count; ++i) {
    ::sigaction(default_signals[i], &fallback, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execve(argv[0], argv, envp);
  const int error = errno;
  const std::string& failed = spec.exec_failed;
  [[maybe_unused]] ssize_t n = ::write(STDERR_FILENO, failed.data(), failed.size());
  const char* reason = ::strerrordesc_np(error);  // glibc's table; no allocation
  n = ::write(STDERR_FILENO, reason, std::strlen(reason));
  n = ::write(STDERR_FILENO, "\n", 1);
  ::_exit(127);
}

// Starts `argv` (PATH searched) with `fd` as its stdout (and its stdin when
// `also_stdin`), its stderr on /dev/null; closes `fd` here. posix_spawnp's
// result: 0 and `pid` set, or the error number.
int spawn_on(const std::vector<std::string>& argv, const std::vector<std::string>& env, int fd,
             bool also_stdin, pid_t& pid) {
  std::vector<char*> args = c_string_array(argv);
  std::vector<char*> envp = c_string_array(env);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (also_stdin) posix_spawn_file_actions_adddup2(&actions, fd, 0);
  posix_spawn_file_actions_adddup2(&actions, fd, 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(fd);
  return rc;
}

}  // namespace

std::string resolve_program(const std::string& name) {
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

std::vector<char*> c_string_array(const std::vector<std::string>& strings) {
  std::vector<char*> array;
  array.reserve(strings.size() + 1);
  for (const auto& s : strings) array.push_back(const_cast<char*>(s.c_str()));
  array.push_back(nullptr);
  return array;
}

int spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env, pid_t& pid) {
  if (argv.empty()) return EINVAL;
  std::vector<char*> args = c_string_array(argv);
  std::vector<char*> envp = c_string_array(env);
  return ::posix_spawnp(&pid, args[0], nullptr, nullptr, args.data(), envp.data());
}

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) break;
  }
  return status;
}

Captured run_capturing_stdout(const std::vector<std::string>& argv,
                              const std::vector<std::string>& env) {
  Captured result;
  if (argv.empty()) return result;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return result;
  pid_t pid = 0;
  const int rc = spawn_on(argv, env, fds[1], /*also_stdin=*/false, pid);
  if (rc == 0) {
    result.started = true;
    char chunk[4096];
    ssize_t n = 0;
    while ((n = ::read(fds[0], chunk, sizeof chunk)) > 0 || (n < 0 && errno == EINTR)) {
      if (n > 0) result.out.append(chunk, static_cast<size_t>(n));
    }
    result.status = wait_for(pid);
  }
  ::close(fds[0]);
  return result;
}

int exec_program(const std::string& path, const std::vector<std::string>& argv) {
  std::vector<char*> args = c_string_array(argv);
  ::execv(path.c_str(), args.data());
  return errno;
}

pid_t fork_exec(const ChildSpec& spec) {
  if (spec.argv.empty() || spec.stdout_fd < 0 || spec.stderr_fd < 0) {
    errno = EINVAL;
    return -1;
  }
  std::vector<char*> argv = c_string_array(spec.argv);
  std::vector<char*> envp = c_string_array(spec.env);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    become_child(parent, spec, argv.data(), envp.data(), spec.default_signals.data(),
                 spec.default_signals.size());
  }
  if (pid > 0) ::setpgid(pid, pid);  // also here, so a kill of the group cannot come first
  return pid;
}

Coprocess::~Coprocess() {
  if (fd_ < 0) return;
  ::close(fd_);
  if (owner_ == ::getpid()) wait_for(pid_);
}

bool Coprocess::start(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  stop();
  if (argv.empty()) return false;
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return false;
  pid_t pid = 0;
  const int rc = spawn_on(argv, env, fds[1], /*also_stdin=*/true, pid);
  if (rc != 0) {
    ::close(fds[0]);
    return false;
  }
  fd_ = fds[0];
  pid_ = pid;
  owner_ = ::getpid();
  buffer_.clear();
  return true;
}

bool Coprocess::usable() const { return fd_ >= 0 && owner_ == ::getpid(); }

bool Coprocess::write(std::string_view text) {
  if (!usable()) return false;
  while (!text.empty()) {
    const ssize_t n = ::send(fd_, text.data(), text.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool Coprocess::read_line(std::string& line, int timeout_ms, void (*waiting)()) {
  if (!usable()) return false;
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  constexpr long kSliceMs = 1000;  // how often `waiting` is called
  for (;;) {
    const auto newline = buffer_.find('\n');
    if (newline != std::string::npos) {
      line.assign(buffer_, 0, newline);
      buffer_.erase(0, newline + 1);
      return true;
    }
    const long left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min(left, kSliceMs)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return false;
    if (ready == 0) {
      if (waiting != nullptr) waiting();
      continue;
    }
    char chunk[4096];
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

void Coprocess::stop() {
  if (fd_ < 0) return;
  if (owner_ == ::getpid()) {
    ::kill(pid_, SIGKILL);
    ::close(fd_);
    wait_for(pid_);
  } else {
    ::close(fd_);
  }
  fd_ = -1;
  pid_ = 0;
  buffer_.clear();
}

}  // namespace devcheck::detail
