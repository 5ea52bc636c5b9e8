#pragma once
// Starts N local processes the way `torchrun --standalone --nproc-per-node N`
// does, relays their output line by line and stops them all when one fails:
// what `devcheck launch` and `devcheck train --nproc N` run. Torch-free
// (devcheck::launch loads no LibTorch). docs/launch.md has the whole
// contract: each rank's environment, the output, failures, signals.

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "devcheck/export.h"

namespace devcheck {

/// What launch() starts, and how.
struct LaunchOptions {
  /// The most ranks one launch starts.
  static constexpr int kMaxProcesses = 1024;
  /// A rank's line longer than this many bytes is relayed in pieces of this
  /// size, each its own line, so one rank's output never holds more memory.
  static constexpr std::size_t kMaxLineBytes = std::size_t{64} * 1024;

  /// How many processes (ranks) to start. Default 1; 1 to kMaxProcesses.
  int nproc = 1;
  /// The program every rank runs and its arguments; a name without '/' is
  /// looked up in PATH. Required.
  std::vector<std::string> command;
  /// MASTER_PORT for the ranks; 0 picks a free port of 127.0.0.1. Default 0.
  int master_port = 0;
  /// Seconds between SIGTERM and SIGKILL when ranks are stopped. Default 30.
  double grace_seconds = 30;
  /// Prefix each stdout line with "[rankK]: ". Default true.
  bool prefix_stdout = true;
  /// Prefix each stderr line with "[rankK]: ". Default true.
  bool prefix_stderr = true;
  /// How the launcher's own messages start. Default "devcheck launch".
  std::string name = "devcheck launch";
};

/// Runs `options.command` as ranks 0..nproc-1 with torchrun's environment and
/// waits for them. Rank output goes to `out`/`err` in whole lines; the
/// launcher's messages go to `err`. Returns 0 when every rank exited 0;
/// the first failed rank's exit status (128+N for signal N); 128+N when the
/// launcher itself got SIGINT, SIGTERM, SIGHUP or SIGQUIT (N) and handed it
/// to the ranks; 2 when the options are invalid or the command cannot be
/// found (nothing is started then). Throws std::runtime_error when the
/// pipe for its signals cannot be made (nothing is started then).
/// Installs its own handlers for those signals and SIGCHLD while it runs and
/// restores the previous ones; not thread-safe (one launch per process at a
/// time, from the thread that should own the ranks: they get SIGKILL when
/// that thread exits).
DEVCHECK_API int launch(const LaunchOptions& options, std::ostream& out, std::ostream& err);

}  // namespace devcheck
