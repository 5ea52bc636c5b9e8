// run_sanitized(): runs a command with the preload library and gathers the
// report each of its LibTorch processes wrote at exit.
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "devcheck/error.h"
#include "devcheck/sanitizer.h"
#include "process/child.h"
#include "process/environment.h"
#include "process/status.h"
#include "sanitizer/config.h"
#include "sanitizer/process.h"
#include "sanitizer/python_run.h"
#include "sanitizer/report.h"

namespace devcheck {
namespace {

namespace fs = std::filesystem;

// While it lives, orphaned descendants of the program become this process's
// children (PR_SET_CHILD_SUBREAPER), so the run can wait for the ones that
// outlive the program by a moment and write their reports as they exit:
// multiprocessing's forkserver (Python 3.14's default start method) leaves
// only once it sees its parent gone. The earlier setting comes back after.
class Subreaper {
 public:
  Subreaper() {
    if (prctl(PR_GET_CHILD_SUBREAPER, &was_) != 0) was_ = 0;
    if (was_ == 0) prctl(PR_SET_CHILD_SUBREAPER, 1);
  }
  Subreaper(const Subreaper&) = delete;
  Subreaper& operator=(const Subreaper&) = delete;
  ~Subreaper() {
    if (was_ == 0) prctl(PR_SET_CHILD_SUBREAPER, 0);
  }

  // Reaps the descendants that were left to this process, for at most
  // `grace`; a daemon that stays longer is left running (its report is then
  // not in the run's).
  static void reap_orphans(std::chrono::milliseconds grace) {
    const auto deadline = std::chrono::steady_clock::now() + grace;
    for (;;) {
      int status = 0;
      const pid_t reaped = waitpid(-1, &status, WNOHANG);
      if (reaped > 0) continue;
      if (reaped < 0 && errno == EINTR) continue;
      if (reaped < 0 || std::chrono::steady_clock::now() >= deadline) return;  // none left
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

 private:
  int was_ = 0;
};

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A scratch folder for the children's reports, removed when done.
class ReportDir {
 public:
  ReportDir() {
    std::string tmpl = (fs::temp_directory_path() / "devcheck-run-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) {
      throw IoError(
          fmt::format("[devcheck] cannot create a folder for the sanitizer reports in "
                      "{}: {}",
                      fs::temp_directory_path().string(), std::strerror(errno)));
    }
    path_ = tmpl;
  }
  ~ReportDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

}  // namespace

std::string sanitizer_preload_library() {
  if (const char* override_path = std::getenv("DEVCHECK_PRELOAD")) {
    if (*override_path != '\0') {
      if (!fs::exists(override_path)) {
        throw IoError(
            fmt::format("[devcheck] DEVCHECK_PRELOAD={} does not exist\nfix: point it "
                        "at libdevcheck_preload.so, or unset it",
                        override_path));
      }
      return override_path;
    }
  }
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&sanitizer_preload_library), &info) == 0 ||
      info.dli_fname == nullptr) {
    throw IoError(
        "[devcheck] cannot locate libdevcheck to find libdevcheck_preload.so\nfix: set "
        "DEVCHECK_PRELOAD to its path");
  }
  const fs::path path =
      fs::absolute(fs::path(info.dli_fname)).parent_path() / "libdevcheck_preload.so";
  if (!fs::exists(path)) {
    throw IoError(fmt::format(
        "[devcheck] the preload library {} is missing: expected it next to libdevcheck\nfix: "
        "build the devcheck_preload target (or install devcheck), or set DEVCHECK_PRELOAD",
        path.string()));
  }
  return path.string();
}

int SanitizedRun::status_for(SanitizerMode mode) const {
  if (exit_status != 0 || mode != SanitizerMode::kFail) return exit_status;
  for (const auto& p : processes) {
    if (p.mismatches > 0) return 1;
  }
  return 0;
}

SanitizedRun run_sanitized(const std::vector<std::string>& command,
                           const SanitizedRunOptions& options) {
  if (command.empty()) {
    throw InvalidArgumentError(
        "[devcheck] run: expected a command after --, found none\nfix: devcheck run -- python3 "
        "train.py");
  }
  ReportDir dir;
  const SanitizerOptions& so = options.sanitizer;
  // Ours win: the user's DEVCHECK_SANITIZE*, DEVCHECK_FAKE_CUDA*, LD_PRELOAD
  // and PYTHONPATH are replaced (the last two kept after ours).
  std::vector<std::string> env = detail::environment_without(
      {"DEVCHECK_SANITIZE", "DEVCHECK_FAKE_CUDA", "LD_PRELOAD=", "PYTHONPATH="});
  const char* pythonpath_set = std::getenv("PYTHONPATH");
  const std::string user_pythonpath = pythonpath_set != nullptr ? pythonpath_set : "";
  if (options.fake_cuda < 0 || options.fake_cuda > 8) {
    throw InvalidArgumentError(
        fmt::format("[devcheck] run: expected a number of fake CUDA devices from 1 to 8, got {}",
                    options.fake_cuda));
  }
  const char* user_preload = std::getenv("LD_PRELOAD");
  const bool has_user_preload = user_preload != nullptr && *user_preload != '\0';
  std::vector<std::string> argv_store = command;
  // A Python program: through its devcheck package, the preload library, or
  // not at all (throws before anything runs).
  std::vector<std::string> python_env = env;
  if (has_user_preload) python_env.push_back(std::string("LD_PRELOAD=") + user_preload);
  if (!user_pythonpath.empty()) python_env.push_back("PYTHONPATH=" + user_pythonpath);
  sanitizer::PythonRunPlan plan = sanitizer::plan_python_run(
      command, python_env, so, dir.path().string(), options.fake_cuda, options.fake_cuda_force);
  if (plan.through_package) {
    argv_store = std::move(plan.argv);
    env = std::move(python_env);
    if (options.on_notice) options.on_notice(plan.notice);
  } else {
    // Python programs the preload library watches get devcheck's
    // sitecustomize (python/site/): fake CUDA's torch.cuda once torch is
    // imported, or, without it, a note when the program asks for CUDA.
    const std::string helpers = sanitizer::python_helpers_dir();
    std::string pythonpath = helpers.empty() ? std::string() : helpers + "/site";
    if (!user_pythonpath.empty()) {
      pythonpath += (pythonpath.empty() ? "" : ":") + user_pythonpath;
    }
    if (!pythonpath.empty()) env.push_back("PYTHONPATH=" + pythonpath);
    if (options.fake_cuda > 0) {
      if (helpers.empty()) {
        throw IoError(
            "[devcheck] run: devcheck's Python helpers for fake CUDA (share/devcheck/python) are "
            "missing next to libdevcheck\nfix: reinstall devcheck, or set DEVCHECK_PYTHON_DIR to "
            "the folder with devcheck_fake_cuda/");
      }
      env.push_back("DEVCHECK_FAKE_CUDA=" + std::to_string(options.fake_cuda));
      if (options.fake_cuda_force) env.emplace_back("DEVCHECK_FAKE_CUDA_FORCE=1");
    }
    const std::string preload =
        options.preload_library.empty() ? sanitizer_preload_library() : options.preload_library;
    env.push_back("LD_PRELOAD=" + preload +
                  (has_user_preload ? std::string(":") + user_preload : std::string()));
    sanitizer::ProcessConfig child;
    child.enabled = true;
    child.role = sanitizer::Role::kRunChild;
    child.report_dir = dir.path().string();
    child.options.mode(so.mode()).provenance(so.provenance());
    // Turns tracing on in the children; they write into the report folder.
    if (!so.trace_path().empty()) child.options.trace_path((dir.path() / "trace.json").string());
    for (std::string& kv : sanitizer::process_config_environment(child)) {
      env.push_back(std::move(kv));
    }
  }

  pid_t pid = 0;
  Subreaper subreaper;
  const int rc = detail::spawn(argv_store, env, pid);
  if (rc != 0) {
    throw IoError(
        fmt::format("[devcheck] run: cannot run '{}': {}\nfix: check the command "
                    "name and PATH",
                    command[0], std::strerror(rc)));
  }
  const int status = detail::wait_for(pid);
  Subreaper::reap_orphans(std::chrono::seconds(5));
  SanitizedRun run;
  run.through_python_package = plan.through_package;
  run.exit_status = detail::exit_code_of(status);
  if (WIFSIGNALED(status)) run.term_signal = WTERMSIG(status);

  std::vector<fs::path> reports;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("cuda-asked-", 0) == 0) run.asked_for_cuda = true;
    if (name.rfind("report-", 0) == 0 && entry.path().extension() == ".json" &&
        name.find(".trace.") == std::string::npos) {
      reports.push_back(entry.path());
    }
  }
  std::sort(reports.begin(), reports.end());
  nlohmann::json all = {{"command", command},
                        {"exit_status", run.exit_status},
                        {"processes", nlohmann::json::array()}};
  nlohmann::json trace_events = nlohmann::json::array();
  for (const auto& path : reports) {
    SanitizedProcess p;
    const std::string stem = path.stem().string();  // report-<pid>
    p.pid = std::strtol(stem.c_str() + 7, nullptr, 10);
    p.json = slurp(path);
    p.text = slurp(sanitizer::report_file(dir.path().string(), p.pid, ".txt"));
    try {
      auto j = nlohmann::json::parse(p.json);
      p.findings = j["summary"]["findings"].get<std::size_t>();
      p.mismatches = j["summary"]["mismatches"].get<std::size_t>();
      j["pid"] = p.pid;
      all["processes"].push_back(std::move(j));
    } catch (const std::exception&) {
      continue;  // a process killed mid-write leaves no valid report
    }
    const fs::path trace = sanitizer::report_file(dir.path().string(), p.pid, ".trace.json");
    if (fs::exists(trace)) {
      try {
        nlohmann::json events = nlohmann::json::parse(slurp(trace));
        for (auto& ev : events["traceEvents"]) trace_events.push_back(std::move(ev));
      } catch (const std::exception&) {
      }
    }
    run.processes.push_back(std::move(p));
  }
  if (!so.json_path().empty()) {
    sanitizer::write_file_atomically(so.json_path(), all.dump(2), "sanitizer report");
  }
  if (!so.trace_path().empty()) {
    nlohmann::json trace = {{"displayTimeUnit", "ms"}, {"traceEvents", trace_events}};
    sanitizer::write_file_atomically(so.trace_path(), trace.dump(), "sanitizer trace");
  }
  return run;
}

}  // namespace devcheck
