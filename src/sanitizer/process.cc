#include "sanitizer/process.h"

#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fmt/format.h>
#include <torch/library.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <mutex>

#include "devcheck/error.h"
#include "devcheck/sanitizer.h"
#include "sanitizer/config.h"
#include "sanitizer/engine.h"
#include "sanitizer/report.h"
#include "sanitizer/signal_report.h"

namespace devcheck::sanitizer {
namespace {

struct ProcessSanitizer {
  Sanitizer* sanitizer = nullptr;  // leaked: lives until the process ends
  ProcessConfig config;            // what it was started with
};

ProcessSanitizer& process() {
  static auto* p = new ProcessSanitizer();
  return *p;
}

std::atomic<bool> g_finished{false};
std::atomic<bool> g_hooks_installed{false};
std::terminate_handler g_previous_terminate = nullptr;

// ---- Fatal signals -------------------------------------------------------
//
// devcheck's handler goes in whatever was there before, and keeps what it
// replaced: after the report it hands the signal on to it, as the kernel
// would have (a handler is called with the same arguments, under its own
// flags' mask; SIG_DFL ends the process by the signal; SIG_IGN ignores it
// unless a fault raised it). Under `devcheck run`, a handler asked for later
// through the preload library's sigaction()/signal() goes in front of that
// chain and ours stays first; one installed past any interposer (UCX does,
// with dlsym(RTLD_NEXT)) is taken back at the preload's next dlopen and
// handed the signal first. In a program that calls
// devcheck_sanitizer_autostart() itself, without the preload library, nothing
// interposes: a later handler owns the signal, and the report is written if it hands the signal
// on to the one it replaced (ours), as UCX and Python's faulthandler do.

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM};

bool is_fatal(int sig) {
  for (int s : kFatalSignals) {
    if (s == sig) return true;
  }
  return false;
}

constexpr int kChainDepth = 4;

// The actions devcheck hands a signal on to, first one first. More than one
// when a library took the signal behind our back and we took it back: the
// library may hand it on to us (its previous), and then the one before it runs.
struct Chain {
  std::atomic_flag lock = ATOMIC_FLAG_INIT;
  bool owned = false;  // devcheck's handler is installed
  int depth = 0;
  struct sigaction actions[kChainDepth] = {};
  std::atomic<long> chaining_thread{0};  // the thread handing the signal on now
};

Chain g_chains[NSIG];
std::atomic<bool> g_signal_reported{false};

// Guards a Chain; blocks every signal meanwhile, so a handler on this thread
// never waits for a lock its own thread holds.
class ChainLock {
 public:
  explicit ChainLock(Chain& chain) : chain_(chain) {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &saved_);
    while (chain_.lock.test_and_set(std::memory_order_acquire)) {
    }
  }
  ~ChainLock() {
    chain_.lock.clear(std::memory_order_release);
    pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
  }
  ChainLock(const ChainLock&) = delete;
  ChainLock& operator=(const ChainLock&) = delete;

 private:
  Chain& chain_;
  sigset_t saved_;
};

struct sigaction default_action() {
  struct sigaction a {};
  a.sa_handler = SIG_DFL;
  sigemptyset(&a.sa_mask);
  return a;
}

// The first action of the chain (SIG_DFL when it is empty).
struct sigaction front(const Chain& c) {
  return c.depth > 0 ? c.actions[0] : default_action();
}

void set_front(Chain& c, const struct sigaction& a) {
  if (c.depth == 0) c.depth = 1;
  c.actions[0] = a;
}

void pop_front(Chain& c) {
  if (c.depth == 0) return;
  for (int i = 1; i < c.depth; ++i) c.actions[i - 1] = c.actions[i];
  --c.depth;
}

void push_front(Chain& c, const struct sigaction& a) {
  const int n = c.depth < kChainDepth ? c.depth : kChainDepth - 1;  // the oldest falls off
  for (int i = n; i > 0; --i) c.actions[i] = c.actions[i - 1];
  c.actions[0] = a;
  c.depth = n + 1;
}

bool is_handler(const struct sigaction& a) {
  return a.sa_handler != SIG_DFL && a.sa_handler != SIG_IGN;  // sa_sigaction shares the slot
}

bool same_action(const struct sigaction& a, const struct sigaction& b) {
  return a.sa_handler == b.sa_handler && (a.sa_flags & SA_SIGINFO) == (b.sa_flags & SA_SIGINFO);
}

void on_fatal_signal(int sig, siginfo_t* info, void* context);

bool is_ours(const struct sigaction& a) {
  return (a.sa_flags & SA_SIGINFO) != 0 && a.sa_sigaction == on_fatal_signal;
}

// Ours, restarting calls as the action we hand on to would. It runs on the
// thread's own stack, never on an alternate stack: libraries set up small
// ones for their own handlers (UCX, loaded by LibTorch 2.6's CUDA build,
// does), with no room for the report. The handler we hand on to then runs
// on that stack too.
struct sigaction our_action(const struct sigaction& next) {
  struct sigaction a {};
  a.sa_sigaction = on_fatal_signal;
  sigemptyset(&a.sa_mask);
  a.sa_flags = SA_SIGINFO | (next.sa_flags & SA_RESTART);
  return a;
}

// Installs ours in front of what is installed now, unless ours is there.
void take_signal(int sig) {
  struct sigaction current {};
  if (libc_sigaction()(sig, nullptr, &current) != 0 || is_ours(current)) return;
  Chain& c = g_chains[sig];
  const ChainLock lock(c);
  push_front(c, current);
  c.owned = true;
  const struct sigaction ours = our_action(current);
  libc_sigaction()(sig, &ours, nullptr);
}

long this_thread() { return static_cast<long>(syscall(SYS_gettid)); }

bool is_pending(int sig) {
  sigset_t pending;
  sigemptyset(&pending);
  return sigpending(&pending) == 0 && sigismember(&pending, sig) == 1;
}

// A fault the kernel raised (not kill/raise): ignoring it is impossible.
bool raised_by_fault(int sig, const siginfo_t* info) {
  return (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL) && info != nullptr &&
         info->si_code > 0;
}

// SIG_DFL, and the signal again: the process ends by it, as without devcheck.
void end_by_default(int sig) {
  const struct sigaction dfl = default_action();
  {
    Chain& c = g_chains[sig];
    const ChainLock lock(c);
    c.owned = false;
    c.depth = 0;
    libc_sigaction()(sig, &dfl, nullptr);
  }
  raise(sig);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
}

// Calls a handler as the kernel would have: its mask (and the signal itself
// unless SA_NODEFER) blocked while it runs.
void call_handler(int sig, siginfo_t* info, void* context, const struct sigaction& next) {
  sigset_t block = next.sa_mask;
  if ((next.sa_flags & SA_NODEFER) == 0) sigaddset(&block, sig);
  sigset_t saved;
  pthread_sigmask(SIG_BLOCK, &block, &saved);
  if ((next.sa_flags & SA_NODEFER) != 0) {
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
  }
  if ((next.sa_flags & SA_SIGINFO) != 0) {
    next.sa_sigaction(sig, info, context);
  } else {
    next.sa_handler(sig);
  }
  pthread_sigmask(SIG_SETMASK, &saved, nullptr);
}

// `handed_back`: a handler we called handed the signal on to us, its previous.
void hand_on(int sig, siginfo_t* info, void* context, bool handed_back) {
  Chain& c = g_chains[sig];
  for (int hop = 0; hop < 2 * kChainDepth; ++hop) {
    struct sigaction next {};
    {
      const ChainLock lock(c);
      if (handed_back) pop_front(c);
      handed_back = false;
      next = front(c);
      // One-shot: the kernel would have reset it to SIG_DFL on delivery.
      if (is_handler(next) && (next.sa_flags & SA_RESETHAND) != 0) set_front(c, default_action());
    }
    if (next.sa_handler == SIG_IGN) {
      if (!raised_by_fault(sig, info)) return;  // ignored, as asked
      next.sa_handler = SIG_DFL;
    }
    if (next.sa_handler == SIG_DFL) {
      end_by_default(sig);
      return;
    }
    long none = 0;
    const bool mark = c.chaining_thread.compare_exchange_strong(none, this_thread());
    call_handler(sig, info, context, next);
    if (mark) c.chaining_thread.store(0);
    struct sigaction now {};
    libc_sigaction()(sig, nullptr, &now);
    // It installed something else past us: a pending signal goes there.
    if (!is_ours(now)) return;
    if (!is_pending(sig)) {
      // The program carries on: the report is written again, complete, at exit.
      g_finished.store(false);
      return;
    }
    // It raised the signal again for the action after it: through our
    // sigaction it changed the front; past it, it restored ours (we are its
    // previous) and the one after it in our chain runs.
    const ChainLock lock(c);
    handed_back = same_action(front(c), next);
  }
  end_by_default(sig);
}

// An alternate signal stack smaller than this has no room for the report
// (it formats, allocates and runs addr2line); the signal is handed on without it.
constexpr std::size_t kReportStackBytes = std::size_t{256} * 1024;

bool room_for_report() {
  stack_t ss{};
  if (sigaltstack(nullptr, &ss) != 0) return true;
  return (ss.ss_flags & SS_ONSTACK) == 0 || ss.ss_size >= kReportStackBytes;
}

// What the signal is handed on to after the report.
struct sigaction next_action(int sig) {
  Chain& c = g_chains[sig];
  const ChainLock lock(c);
  return front(c);
}

void on_fatal_signal(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  const bool handed_back = g_chains[sig].chaining_thread.load() == this_thread();
  if (!handed_back && !g_signal_reported.load() && room_for_report()) {
    const struct sigaction next = next_action(sig);
    // An ignored signal (kill -TERM to a program that ignores SIGTERM) ends nothing.
    const bool ignored = next.sa_handler == SIG_IGN && !raised_by_fault(sig, info);
    // Where the signal ends the process, one from outside waits for a safe
    // place to write the report in (signal_report.h). Where a handler of the
    // program's is next, a signal sent by kill() goes to it with no report
    // first: the interrupted code may hold a lock the report needs, and the
    // program decides (carried on or exited, its report is written at exit).
    const bool sent = info != nullptr && (info->si_code == SI_USER || info->si_code == SI_QUEUE);
    if (!ignored && next.sa_handler == SIG_DFL && put_off(sig, info, context)) {
      errno = saved_errno;
      return;
    }
    if (!ignored && !(sent && next.sa_handler != SIG_DFL) && !g_signal_reported.exchange(true)) {
      const char* name = sigabbrev_np(sig);
      const ReportDeadline deadline(sig, end_by_default);
      finish_process_report(std::string("signal SIG") + (name != nullptr ? name : "?"));
    }
  }
  hand_on(sig, info, context, handed_back);
  errno = saved_errno;
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

void exit_for_fail_mode() {
  if (Engine::get().fail_requested.load() && process_config().owns_exit_status()) {
    std::fflush(nullptr);
    _exit(1);
  }
}

void on_exit() { finish_process_report("exit"); }

void install_hooks() {
  std::atexit(on_exit);
  g_previous_terminate = std::set_terminate(on_terminate);
  for (int sig : kFatalSignals) take_signal(sig);
  g_hooks_installed.store(true);
}

}  // namespace

std::string report_file(const std::string& dir, long pid, const char* suffix) {
  return dir + "/report-" + std::to_string(pid) + suffix;
}

void arm_fail_exit() {
  static std::atomic<bool> armed{false};
  if (!armed.exchange(true)) std::atexit(exit_for_fail_mode);
}

bool autostart_from_env() {
  ProcessSanitizer& p = process();
  if (p.sanitizer != nullptr || Engine::get().active()) return false;
  try {
    ProcessConfig config = read_process_config();
    if (!config.enabled) return false;
    config.options.print_summary(false);  // the exit hook reports instead
    p.config = config;                    // read by the report hooks only once p.sanitizer is set
    p.sanitizer = new Sanitizer(config.options);
    set_process_config(config);
  } catch (const Error& e) {
    Engine::warn(e.message() +
                 "\n[devcheck] the sanitizer is not started; the program runs unwatched");
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
    note_report_progress();
    std::string text = report.to_text();
    note_report_progress();
    if (reason != "exit") text = "[devcheck] sanitizer report written at " + reason + "\n" + text;
    const SanitizerOptions& o = p.config.options;
    if (p.config.role == Role::kRunChild) {
      const std::string& dir = p.config.report_dir;
      const long pid = static_cast<long>(getpid());
      write_file_atomically(report_file(dir, pid, ".json"), report.to_json(), "sanitizer report");
      note_report_progress();
      if (!report.trace_json.empty()) {
        write_file_atomically(report_file(dir, pid, ".trace.json"), report.trace_json,
                              "sanitizer trace");
      }
      write_file_atomically(report_file(dir, pid, ".txt"), text, "sanitizer report");
    } else {
      Engine::warn(text);
      if (!o.json_path().empty()) {
        write_file_atomically(o.json_path(), report.to_json(), "sanitizer report");
      }
      if (!o.trace_path().empty()) report.write_trace(o.trace_path());
    }
  } catch (const c10::Error& e) {
    if (p.config.role == Role::kRunChild && !std::filesystem::is_directory(p.config.report_dir)) {
      // devcheck run has finished and taken its folder away: a daemon
      // descendant that outlived the run by more than its grace.
      Engine::warn(fmt::format(
          "[devcheck] sanitizer: process {} outlived `devcheck run`; its report is not in the "
          "run's",
          static_cast<long>(getpid())));
    } else {
      Engine::warn(std::string("[devcheck] sanitizer: could not write the report: ") +
                   e.what_without_backtrace());
    }
  } catch (const std::exception& e) {
    Engine::warn(std::string("[devcheck] sanitizer: could not write the report: ") + e.what());
  }
}

namespace {

// torch.ops.devcheck.sanitizer_exit_report(status): the report, written now
// as at exit, by a process about to end by os._exit(status), which runs no
// atexit handler (python/site/sitecustomize.py wraps os._exit: multiprocessing's
// fork and forkserver children end so). A forked child may find a lock the
// report needs taken for good (held by a thread of its parent at the fork):
// after kStallSeconds without progress it gives up and exits with `status`.
// Nothing when no process sanitizer runs; once written, the exit hook writes
// nothing more.
std::atomic<int> g_exit_status{0};

void exit_with_status(int /*sig*/) { _exit(g_exit_status.load()); }

void exit_report(int64_t status) {
  g_exit_status.store(static_cast<int>(status));
  const ReportDeadline deadline(0, exit_with_status);
  finish_process_report("exit");
}

TORCH_LIBRARY_FRAGMENT(devcheck, m) {
  m.def("sanitizer_exit_report(int status) -> ()", &exit_report);
}

}  // namespace

}  // namespace devcheck::sanitizer

extern "C" int devcheck_sanitizer_autostart() {
  return devcheck::sanitizer::autostart_from_env() ? 1 : 0;
}

extern "C" int devcheck_sanitizer_sigaction(int sig, const struct sigaction* act,
                                            struct sigaction* old) {
  using namespace devcheck::sanitizer;  // NOLINT(google-build-using-namespace)
  if (sig <= 0 || sig >= NSIG || !is_fatal(sig)) return 0;
  Chain& c = g_chains[sig];
  const ChainLock lock(c);
  if (!c.owned) return 0;
  if (old != nullptr) *old = front(c);
  if (act != nullptr) {
    set_front(c, *act);
    const struct sigaction ours = our_action(*act);  // its SA_ONSTACK and SA_RESTART
    libc_sigaction()(sig, &ours, nullptr);
  }
  return 1;
}

extern "C" void devcheck_sanitizer_reassert_signals() {
  using namespace devcheck::sanitizer;  // NOLINT(google-build-using-namespace)
  if (!g_hooks_installed.load()) return;
  for (int sig : kFatalSignals) {
    bool owned = false;
    {
      const ChainLock lock(g_chains[sig]);
      owned = g_chains[sig].owned;
    }
    if (owned) take_signal(sig);  // not after the process began to end by it
  }
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
