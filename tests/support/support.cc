#include "support/support.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "devcheck/device.h"
#include "process/child.h"
#include "process/environment.h"

extern char** environ;  // NOLINT(readability-redundant-declaration)

namespace devcheck::testing {
namespace {

// The test programs link devcheck's objects, not libdevcheck_sanitizer.so,
// so the sanitizer cannot find libdevcheck_preload.so beside itself (as it
// does in devcheck-torch and installed programs): name the built one.
[[maybe_unused]] const bool preload_named = [] {
  setenv("DEVCHECK_PRELOAD", DEVCHECK_PRELOAD_LIBRARY, /*overwrite=*/0);
  return true;
}();

}  // namespace

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  path_ = std::filesystem::path(DEVCHECK_BINARY_DIR) / "test-tmp" /
          (std::to_string(getpid()) + "-" + std::to_string(counter++));
  std::filesystem::remove_all(path_);
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

ProcessResult run_process(const std::vector<std::string>& argv,
                          const std::vector<std::string>& env) {
  TempDir dir;
  const std::string out_path = (dir / "output").string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  std::vector<std::string> envs;
  for (char** e = environ; *e != nullptr; ++e) envs.emplace_back(*e);
  for (const auto& kv : env) {
    const std::string key = kv.substr(0, kv.find('=') + 1);
    envs.erase(std::remove_if(envs.begin(), envs.end(),
                              [&](const std::string& s) { return s.rfind(key, 0) == 0; }),
               envs.end());
    envs.push_back(kv);
  }
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  std::vector<char*> cenv;
  for (const auto& e : envs) cenv.push_back(const_cast<char*>(e.c_str()));
  cenv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, cargv[0], &actions, nullptr, cargv.data(), cenv.data());
  posix_spawn_file_actions_destroy(&actions);
  ProcessResult result;
  if (rc != 0) {
    result.output = "spawn failed: " + argv[0];
    return result;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.output = read_file(out_path);
  return result;
}

ProcessResult run_python(const std::string& code, const std::vector<std::string>& args,
                         const std::vector<std::string>& env) {
  std::vector<std::string> argv{DEVCHECK_PYTHON, "-c", code};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, env);
}

ProcessResult run_torch_script(const std::string& script, const std::vector<std::string>& args) {
  static std::mutex mutex;
  static auto* server = new detail::Coprocess;  // never destroyed: the program's end closes it
  constexpr int kTimeoutSeconds = 600;
  std::lock_guard<std::mutex> lock(mutex);
  if (!server->usable() &&
      !server->start({DEVCHECK_PYTHON, source_dir() + "/tests/support/fork_server.py"},
                     detail::environment_without({}))) {
    std::vector<std::string> argv{DEVCHECK_PYTHON, script};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv);
  }
  TempDir dir;
  const std::string out = (dir / "output").string();
  const nlohmann::json request = {{"prog", script},
                                  {"args", args},
                                  {"cwd", dir.path().string()},
                                  {"out", out},
                                  {"err", out},
                                  {"timeout", kTimeoutSeconds},
                                  {"start_method", nullptr}};
  std::string answer;
  if (!server->write(request.dump() + "\n") ||
      !server->read_line(answer, (kTimeoutSeconds + 60) * 1000)) {
    server->stop();
    ProcessResult failed;
    failed.output = "tests/support/fork_server.py did not answer for " + script;
    return failed;
  }
  const nlohmann::json reply = nlohmann::json::parse(answer);
  ProcessResult result;
  result.output = read_file(out);
  if (reply.at("timed_out").get<bool>()) {
    result.output += "\n[timed out after " + std::to_string(kTimeoutSeconds) + " s]";
    return result;
  }
  const int rc = reply.at("rc").get<int>();
  result.exit_code = rc >= 0 ? rc : 128 - rc;  // as run_process: 128 + the signal
  return result;
}

bool python_torch_available() {
  static const bool available = run_python("import torch").exit_code == 0;
  return available;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::string source_dir() { return DEVCHECK_SOURCE_DIR; }

std::vector<std::pair<std::string, std::string>> shared_libraries() {
  std::vector<std::pair<std::string, std::string>> out;
  std::stringstream list(DEVCHECK_SHARED_LIBRARIES);  // "part=path|part=path"
  std::string item;
  while (std::getline(list, item, '|')) {
    const auto eq = item.find('=');
    out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
  }
  return out;
}

std::string shared_library(const std::string& part) {
  for (const auto& [name, path] : shared_libraries()) {
    if (name == part) return path;
  }
  throw std::invalid_argument("no shared library devcheck::" + part);
}
std::string binary_dir() { return DEVCHECK_BINARY_DIR; }

}  // namespace devcheck::testing
