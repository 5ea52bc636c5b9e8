#pragma once
// What the launcher's poll loop reads besides the ranks' pipes, and how it
// turns their bytes into lines: the signal self-pipe and the line relay.
// Torch-free.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>

#include <signal.h>

namespace devcheck::detail {

/// What the signal handler sends through the self-pipe: one write of 8
/// bytes, which a pipe keeps whole. For SIGCHLD, `pid` is the child that
/// changed state: when two ranks die close together the kernel merges their
/// SIGCHLDs, and the one delivered names the first, so the first failure is
/// named right.
struct SignalRecord {
  std::int32_t signo;
  std::int32_t pid;
};

/// Installs handlers for kSignals that write a SignalRecord to a pipe
/// (async-signal-safe), and restores the previous handlers when it dies.
/// One at a time per process: the handler writes to the newest one's pipe.
/// Not thread-safe.
class SignalPipe {
 public:
  /// Throws std::runtime_error when the pipe cannot be made.
  SignalPipe();
  ~SignalPipe();
  SignalPipe(const SignalPipe&) = delete;
  SignalPipe& operator=(const SignalPipe&) = delete;

  /// Non-blocking; SignalRecords, one per signal received.
  int read_end() const { return fds_[0]; }

  /// SIGCHLD, and what the launcher passes on to the ranks (as torchrun 2.x).
  static constexpr int kSignals[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT};

 private:
  int fds_[2] = {-1, -1};
  struct sigaction previous_[std::size(kSignals)]{};
};

/// Splits one rank's stream into whole lines, each written to a sink after
/// a prefix. A line longer than `max_line_bytes` is cut where the cap falls,
/// each piece its own line, so one rank's output never holds more memory.
/// Not thread-safe.
class LineRelay {
 public:
  explicit LineRelay(std::size_t max_line_bytes);

  /// Appends the whole lines `data` completes to `sink`.
  void feed(const char* data, std::size_t size, const std::string& prefix, std::string& sink);
  /// Appends a last line without '\n', ended with one.
  void finish(const std::string& prefix, std::string& sink);

 private:
  void emit(const std::string& prefix, std::string& sink);

  std::size_t max_line_bytes_;
  std::string pending_;
};

}  // namespace devcheck::detail
