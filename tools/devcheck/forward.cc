// In the `devcheck` program, which never loads LibTorch: the commands that
// need it (torch_commands.h) are run by the helper program devcheck-torch,
// found beside this one as git finds its helpers, with the same command line.
// `train --nproc N` with N >= 2 starts N of them instead (devcheck/launch.h).
#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "command.h"
#include "devcheck/launch.h"
#include "process/child.h"
#include "torch_commands.h"

namespace devcheck::cli {
namespace {

// The folder of this program (/proc/self/exe), "" when unknown.
std::string own_folder() {
  std::vector<char> buffer(PATH_MAX + 1, '\0');
  const ssize_t n = ::readlink("/proc/self/exe", buffer.data(), PATH_MAX);
  if (n <= 0) return "";
  const std::string exe(buffer.data(), static_cast<std::size_t>(n));
  return exe.substr(0, exe.rfind('/'));
}

// Where devcheck-torch may be: $DEVCHECK_TORCH_HELPER when set, else
// <prefix>/libexec/devcheck/devcheck-torch beside <prefix>/bin/devcheck once
// installed (DEVCHECK_HELPER_FROM_BIN, from the install directories), or
// libexec/devcheck/devcheck-torch under the build folder.
std::vector<std::string> helper_candidates() {
  if (const char* env = std::getenv("DEVCHECK_TORCH_HELPER"); env != nullptr && *env != '\0') {
    return {env};
  }
  const std::string dir = own_folder();
  if (dir.empty()) return {};
  return {dir + "/" DEVCHECK_HELPER_FROM_BIN, dir + "/libexec/devcheck/devcheck-torch"};
}

// N of `train ... --nproc N` (or --nproc=N), 0 when absent or not a number
// (then the helper itself reports the bad value) and with --help (printed once).
int nproc_of(int argc, const char* const* argv) {
  int nproc = 0;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") return 0;
    std::string value;
    if (arg == "--nproc" && i + 1 < argc) {
      value = argv[++i];
    } else if (arg.rfind("--nproc=", 0) == 0) {
      value = arg.substr(std::strlen("--nproc="));
    } else {
      continue;
    }
    char* end = nullptr;
    errno = 0;
    const long n = std::strtol(value.c_str(), &end, 10);
    const bool whole = !value.empty() && *end == '\0' && errno == 0;
    nproc = whole && n > 0 && n <= LaunchOptions::kMaxProcesses ? static_cast<int>(n) : 0;
  }
  return nproc;
}

// `devcheck train --nproc N` (N >= 2): N ranks of the helper's train, with
// the same arguments, started as `devcheck launch -n N` starts them. Rank 0
// alone prints the summary, so stdout passes through unprefixed (one clean
// --json document); stderr keeps the [rankK] prefix.
int launch_helper(const std::string& helper, int nproc, int argc, const char* const* argv,
                  Streams& io) {
  LaunchOptions options;
  options.nproc = nproc;
  options.command.assign(argv, argv + argc);
  options.command.front() = helper;
  options.prefix_stdout = false;
  options.prefix_stderr = true;
  options.name = std::string("devcheck ") + argv[1];
  return launch(options, io.out, io.err);
}

int forward_to_helper(int argc, const char* const* argv, Streams& io) {
  const std::vector<std::string> candidates = helper_candidates();
  const int nproc =
      argc > 1 && std::strcmp(argv[1], kTrainCommand.name) == 0 ? nproc_of(argc, argv) : 0;
  std::string tried;
  for (const auto& path : candidates) {
    if (::access(path.c_str(), X_OK) != 0) {
      tried += (tried.empty() ? "" : ", ") + path;
      continue;
    }
    if (nproc >= 2) return launch_helper(path, nproc, argc, argv, io);
    io.out.flush();
    io.err.flush();
    std::cout.flush();
    std::cerr.flush();
    const int error = detail::exec_program(path, std::vector<std::string>(argv, argv + argc));
    io.err << "devcheck: cannot run " << path << ": " << std::strerror(error) << "\n";
    return kExitBadInput;
  }
  io.err << "devcheck: '" << (argc > 1 ? argv[1] : "") << "' needs LibTorch, which devcheck runs "
         << "through its helper program devcheck-torch, and that was not found (looked for "
         << (tried.empty() ? std::string("it beside this program") : tried)
         << "). Fix: reinstall devcheck, or set DEVCHECK_TORCH_HELPER to its path\n";
  return kExitBadInput;
}

const ForwardRegistrar kDoctor(kDoctorCommand.name, kDoctorCommand.description,
                               kDoctorCommand.order, forward_to_helper);
const ForwardRegistrar kRun(kRunCommand.name, kRunCommand.description, kRunCommand.order,
                            forward_to_helper);
const ForwardRegistrar kTrain(kTrainCommand.name, kTrainCommand.description, kTrainCommand.order,
                              forward_to_helper);

}  // namespace
}  // namespace devcheck::cli
