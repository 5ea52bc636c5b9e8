#pragma once
// Starting programs: found as execvp finds them, spawned and waited for,
// spawned with their stdout captured, or forked for a supervisor (a child in
// its own process group that dies with the thread that started it). Every
// place in devcheck that starts a process does it here. POSIX only,
// torch-free.

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

namespace devcheck::detail {

/// The program `name` means, as execvp would find it: `name` itself when it
/// holds a '/', else the first regular, executable `DIR/name` of PATH
/// ("/usr/local/bin:/usr/bin:/bin" when PATH is unset; an empty entry is
/// "."); "" when there is none. Thread-safe.
std::string resolve_program(const std::string& name);

/// argv/envp for exec and posix_spawn: pointers into `strings`, then
/// nullptr. Valid while `strings` lives unchanged.
std::vector<char*> c_string_array(const std::vector<std::string>& strings);

/// Starts `argv` (argv[0] searched on PATH) with the environment `env`
/// ("NAME=value" each), sharing this process's stdin, stdout and stderr.
/// Returns 0 and sets `pid`, or the error number when it cannot start.
/// Thread-safe.
int spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env, pid_t& pid);

/// Waits for the child `pid` to end (waitpid, again after EINTR) and returns
/// its wait status; 0 when it cannot be waited for. Thread-safe.
int wait_for(pid_t pid);

struct Captured {
  bool started = false;  // false when the program could not be started
  int status = 0;        // its wait status (waitpid's)
  std::string out;       // what it wrote on stdout; its stderr goes to /dev/null
};

/// Runs `argv` (argv[0] searched on PATH) with the environment `env` and
/// waits for it, reading what it prints. Thread-safe.
Captured run_capturing_stdout(const std::vector<std::string>& argv,
                              const std::vector<std::string>& env);

/// Replaces this process with the program at `path` (no PATH search), run
/// with `argv` and this process's environment. Returns only when it cannot:
/// the error number.
int exec_program(const std::string& path, const std::vector<std::string>& argv);

/// A child fork_exec starts: what it runs and what it gets first.
struct ChildSpec {
  /// The program's path (execve's: no PATH search, see resolve_program) and
  /// its arguments, argv[0] included. Required.
  std::vector<std::string> argv;
  /// Its whole environment, "NAME=value" each (environment_with makes one).
  std::vector<std::string> env;
  /// Descriptors that become its stdout and stderr. Required (both >= 0).
  int stdout_fd = -1;
  int stderr_fd = -1;
  /// Signals it starts with SIG_DFL for, whatever this process's handlers
  /// are: a handler of this process must not run in the child before exec.
  std::vector<int> default_signals;
  /// Written on its stderr before the reason when execve fails (the child
  /// then exits 127).
  std::string exec_failed;
};

/// Forks a child that runs `spec`: in its own process group, with stdin on
/// /dev/null, no signal blocked, and SIGKILL as its death signal
/// (PR_SET_PDEATHSIG), so it ends when the thread that called fork_exec
/// ends (the process's main thread: when the process does), even by
/// SIGKILL. Exits 137 at once when this process died before the child
/// could ask for that. Only async-signal-safe calls run after fork, so a
/// process with threads may call it. Returns the child's pid, or -1 with
/// errno set.
pid_t fork_exec(const ChildSpec& spec);

/// A program kept running to answer one request after another (addr2line
/// reading addresses from stdin): its stdin and stdout are one end of a
/// socket pair, so a write to a program that died fails instead of raising
/// SIGPIPE; its stderr is /dev/null. Not thread-safe: one user at a time.
class Coprocess {
 public:
  Coprocess() = default;
  /// Closes this end (the program sees the end of its input) and, in the
  /// process that started it, waits for the program.
  ~Coprocess();
  Coprocess(const Coprocess&) = delete;
  Coprocess& operator=(const Coprocess&) = delete;

  /// Starts `argv` (argv[0] searched on PATH) with the environment `env`.
  /// false when it cannot start.
  bool start(const std::vector<std::string>& argv, const std::vector<std::string>& env);
  /// Started, not stopped, and owned by this process (a forked child's copy
  /// is not: the program answers its parent).
  bool usable() const;
  /// Writes all of `text`; false when the program is gone.
  bool write(std::string_view text);
  /// Reads one line of its output, without the newline. false at the end
  /// of its output, on an error, or when no line comes within `timeout_ms`
  /// (from the call, however often a signal breaks the wait). `waiting`,
  /// when given, is called about once a second while it waits.
  bool read_line(std::string& line, int timeout_ms, void (*waiting)() = nullptr);
  /// Ends the program (SIGKILL) and forgets it.
  void stop();

 private:
  int fd_ = -1;
  pid_t pid_ = 0;
  pid_t owner_ = 0;
  std::string buffer_;
};

}  // namespace devcheck::detail
