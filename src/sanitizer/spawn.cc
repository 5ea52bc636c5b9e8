#include "sanitizer/spawn.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

extern char** environ;  // NOLINT(readability-redundant-declaration)

namespace devcheck::sanitizer {

std::vector<char*> c_string_array(const std::vector<std::string>& strings) {
  std::vector<char*> array;
  array.reserve(strings.size() + 1);
  for (const auto& s : strings) array.push_back(const_cast<char*>(s.c_str()));
  array.push_back(nullptr);
  return array;
}

Captured run_capturing_stdout(const std::vector<std::string>& argv,
                              const std::vector<std::string>& env) {
  Captured result;
  if (argv.empty()) return result;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return result;
  std::vector<char*> args = c_string_array(argv);
  std::vector<char*> envp = c_string_array(env);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc == 0) {
    result.started = true;
    char chunk[4096];
    ssize_t n = 0;
    while ((n = read(fds[0], chunk, sizeof chunk)) > 0 || (n < 0 && errno == EINTR)) {
      if (n > 0) result.out.append(chunk, static_cast<size_t>(n));
    }
    while (waitpid(pid, &result.status, 0) < 0 && errno == EINTR) {
    }
  }
  close(fds[0]);
  return result;
}

std::vector<std::string> environment_without_preload() {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::string(*e).rfind("LD_PRELOAD=", 0) != 0) env.emplace_back(*e);
  }
  return env;
}

}  // namespace devcheck::sanitizer
