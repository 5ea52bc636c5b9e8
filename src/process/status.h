#pragma once
// A child's wait status (waitpid's) in words and as the shell's exit code.
// Torch-free; thread-safe.

#include <string>

namespace devcheck::detail {

/// "SIGTERM" for a signal this C library names, else "signal 77".
std::string signal_name(int signo);

/// "exited with status 3", or "was killed by SIGKILL".
std::string describe_wait_status(int status);

/// The exit code a shell reports for `status`: the exit status, or 128+N
/// when signal N ended the child.
int exit_code_of(int status);

}  // namespace devcheck::detail
