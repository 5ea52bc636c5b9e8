#include "sanitizer/process.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>

#include "devcheck/error.h"
#include "devcheck/sanitizer.h"
#include "sanitizer/engine.h"
#include "sanitizer/report.h"

namespace devcheck::sanitizer {
namespace {

struct ProcessSanitizer {
  Sanitizer* sanitizer = nullptr;  // leaked: lives until the process ends
  std::string report_dir;          // set by `devcheck run`
  bool exit_status = true;         // kFail may change the exit status
};

ProcessSanitizer& process() {
  static auto* p = new ProcessSanitizer();
  return *p;
}

std::atomic<bool> g_finished{false};
std::terminate_handler g_previous_terminate = nullptr;

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM};

void on_fatal_signal(int sig) {
  const char* name = sigabbrev_np(sig);
  finish_process_report(std::string("signal SIG") + (name != nullptr ? name : "?"));
  signal(sig, SIG_DFL);
  raise(sig);
}

void on_terminate() {
  std::string reason = "std::terminate";
  if (auto e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& ex) {
      reason += std::string(" (uncaught exception: ") + ex.what() + ")";
    } catch (...) {
      reason += " (uncaught exception)";
    }
  }
  finish_process_report(reason);
  if (g_previous_terminate != nullptr) g_previous_terminate();
  std::abort();
}

void fail_status_at_exit() {
  if (Engine::get().fail_requested.load()) {
    std::fflush(nullptr);
    _exit(1);
  }
}

void on_exit() {
  finish_process_report("exit");
  if (process().exit_status) fail_status_at_exit();
}

void install_hooks() {
  std::atexit(on_exit);
  g_previous_terminate = std::set_terminate(on_terminate);
  for (int sig : kFatalSignals) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) != 0) continue;
    // Only where nobody else handles the signal (Python, the program itself).
    if ((old.sa_flags & SA_SIGINFO) == 0 && old.sa_handler == SIG_DFL) {
      struct sigaction sa {};
      sa.sa_handler = on_fatal_signal;
      sigemptyset(&sa.sa_mask);
      sa.sa_flags = SA_RESETHAND | SA_NODEFER;
      sigaction(sig, &sa, nullptr);
    }
  }
}

}  // namespace

std::string report_file(const std::string& dir, long pid, const char* suffix) {
  return dir + "/report-" + std::to_string(pid) + suffix;
}

void arm_fail_exit_status() {
  static std::atomic<bool> armed{false};
  if (!armed.exchange(true)) std::atexit(fail_status_at_exit);
}

bool autostart_from_env() {
  ProcessSanitizer& p = process();
  if (p.sanitizer != nullptr || Engine::get().active()) return false;
  const char* flag = std::getenv("DEVCHECK_SANITIZE");
  if (flag == nullptr || *flag == '\0' || std::strcmp(flag, "0") == 0) return false;
  try {
    SanitizerOptions options = SanitizerOptions::from_env();
    options.print_summary(false);  // the exit hook reports instead
    if (const char* dir = std::getenv("DEVCHECK_SANITIZE_REPORT_DIR")) {
      p.report_dir = dir;
      p.exit_status = false;  // `devcheck run` decides the exit status
      // ... so fail mode here only prints as warn does; the exit status stays the command's.
      if (options.mode() == SanitizerMode::kFail) options.mode(SanitizerMode::kWarn);
    }
    p.sanitizer = new Sanitizer(options);
  } catch (const Error& e) {
    Engine::warn(e.message());
    return false;
  } catch (const std::exception& e) {
    Engine::warn(std::string(e.what()));
    return false;
  }
  install_hooks();
  return true;
}

void finish_process_report(const std::string& reason) {
  ProcessSanitizer& p = process();
  if (p.sanitizer == nullptr || g_finished.exchange(true)) return;
  Engine& engine = Engine::get();
  try {
    const SanitizerReport report = build_report(engine);
    std::string text = report.to_text();
    if (reason != "exit") text = "[devcheck] sanitizer report written at " + reason + "\n" + text;
    const SanitizerOptions& o = p.sanitizer->options();
    if (!p.report_dir.empty()) {
      const long pid = static_cast<long>(getpid());
      write_file_atomically(report_file(p.report_dir, pid, ".json"), report.to_json(),
                            "sanitizer report");
      if (!report.trace_json.empty()) {
        write_file_atomically(report_file(p.report_dir, pid, ".trace.json"), report.trace_json,
                              "sanitizer trace");
      }
      write_file_atomically(report_file(p.report_dir, pid, ".txt"), text, "sanitizer report");
    } else {
      Engine::warn(text);
      if (!o.json_path().empty()) {
        write_file_atomically(o.json_path(), report.to_json(), "sanitizer report");
      }
      if (!o.trace_path().empty()) report.write_trace(o.trace_path());
    }
  } catch (const std::exception& e) {
    Engine::warn(std::string("[devcheck] sanitizer: could not write the report: ") + e.what());
  }
}

}  // namespace devcheck::sanitizer

extern "C" int devcheck_sanitizer_autostart() {
  return devcheck::sanitizer::autostart_from_env() ? 1 : 0;
}

namespace {
std::mutex g_c_api_mutex;
devcheck::Sanitizer* g_c_api_sanitizer = nullptr;
}  // namespace

extern "C" int devcheck_sanitizer_start(int provenance) {
  std::lock_guard<std::mutex> lock(g_c_api_mutex);
  if (g_c_api_sanitizer != nullptr) return -1;
  try {
    g_c_api_sanitizer = new devcheck::Sanitizer(
        devcheck::SanitizerOptions().provenance(provenance != 0).print_summary(false));
  } catch (const std::exception&) {
    return -1;
  }
  return 0;
}

extern "C" int devcheck_sanitizer_stop() {
  std::lock_guard<std::mutex> lock(g_c_api_mutex);
  if (g_c_api_sanitizer == nullptr) return -1;
  const int findings = static_cast<int>(g_c_api_sanitizer->report().findings.size());
  delete g_c_api_sanitizer;
  g_c_api_sanitizer = nullptr;
  return findings;
}

namespace {
// A program that links devcheck turns the sanitizer on with DEVCHECK_SANITIZE=1.
// Everything it touches is created on first use, so static-init order is moot.
const bool kAutostarted = devcheck::sanitizer::autostart_from_env();
}  // namespace
