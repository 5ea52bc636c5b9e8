// In the `devcheck` program, which never loads LibTorch: the commands that
// need it (torch_commands.h) are run by the helper program devcheck-torch,
// found beside this one as git finds its helpers, with the same command line.
#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "command.h"
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
// installed, or libexec/devcheck/devcheck-torch under the build folder.
std::vector<std::string> helper_candidates() {
  if (const char* env = std::getenv("DEVCHECK_TORCH_HELPER"); env != nullptr && *env != '\0') {
    return {env};
  }
  const std::string dir = own_folder();
  if (dir.empty()) return {};
  return {dir + "/../libexec/devcheck/devcheck-torch", dir + "/libexec/devcheck/devcheck-torch"};
}

int forward_to_helper(int argc, const char* const* argv, Streams& io) {
  const std::vector<std::string> candidates = helper_candidates();
  std::string tried;
  for (const auto& path : candidates) {
    if (::access(path.c_str(), X_OK) != 0) {
      tried += (tried.empty() ? "" : ", ") + path;
      continue;
    }
    io.out.flush();
    io.err.flush();
    std::cout.flush();
    std::cerr.flush();
    std::vector<char*> args;
    for (int i = 0; i < argc; ++i) args.push_back(const_cast<char*>(argv[i]));
    args.push_back(nullptr);
    ::execv(path.c_str(), args.data());
    io.err << "devcheck: cannot run " << path << ": " << std::strerror(errno) << "\n";
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
