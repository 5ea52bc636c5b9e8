#include "process/status.h"

#include <string.h>
#include <sys/wait.h>

namespace devcheck::detail {

std::string signal_name(int signo) {
  const char* abbrev = ::sigabbrev_np(signo);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(signo);
}

std::string describe_wait_status(int status) {
  if (WIFSIGNALED(status)) return "was killed by " + signal_name(WTERMSIG(status));
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

int exit_code_of(int status) {
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

}  // namespace devcheck::detail
