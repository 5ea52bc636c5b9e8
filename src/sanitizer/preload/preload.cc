// libdevcheck_preload.so: the sanitizer's process hooks, and the only place
// they live. `devcheck run` puts it in LD_PRELOAD; a program that wants
// DEVCHECK_SANITIZE* without `devcheck run` links it (the opt-in part;
// libdevcheck alone interposes nothing and reads no environment at start-up).
//
// It links nothing but libc, so a process that never loads LibTorch (a
// shell, addr2line, a data-prep script) pays nothing. When LibTorch is in the
// process -- at start for a C++ program, or when Python imports torch -- it
// loads libdevcheck next to itself and calls devcheck_sanitizer_autostart(),
// which installs the sanitizer from DEVCHECK_SANITIZE* and hooks the report
// at exit, std::terminate and fatal signals. Its sigaction() and signal()
// keep the sanitizer's handler first for those signals (see
// src/sanitizer/process.cc); its pthread_create() has each new thread join
// the session before its first op.
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "sanitizer/preload/torch_version.h"

#ifndef DEVCHECK_LIBRARY_FILE
#define DEVCHECK_LIBRARY_FILE "libdevcheck_sanitizer.so"
#endif
#ifndef DEVCHECK_FAKE_DEVICE_LIBRARY_FILE
#define DEVCHECK_FAKE_DEVICE_LIBRARY_FILE "libdevcheck_fake_device.so"
#endif

namespace {

using devcheck::sanitizer::major_minor;
using devcheck::sanitizer::torch_version_at;

using DlopenFn = void* (*)(const char*, int);

DlopenFn real_dlopen() {
  static DlopenFn fn = reinterpret_cast<DlopenFn>(dlsym(RTLD_NEXT, "dlopen"));
  return fn;
}

std::atomic<int> g_state{0};  // 0: LibTorch not seen yet; 1: libdevcheck loaded (or tried)

// libdevcheck's devcheck_sanitizer_join_thread once it is loaded: every
// thread created afterwards calls it first (see pthread_create below).
using JoinFn = void (*)();
std::atomic<JoinFn> g_join_thread{nullptr};

// libdevcheck's devcheck_sanitizer_sigaction and _reassert_signals, once it
// is loaded (see sigaction below).
using SigactionFn = int (*)(int, const struct sigaction*, struct sigaction*);
using ReassertFn = void (*)();
std::atomic<SigactionFn> g_sigaction_hook{nullptr};
std::atomic<ReassertFn> g_reassert_signals{nullptr};

void reassert_signals() {
  if (const ReassertFn reassert = g_reassert_signals.load()) reassert();
}

#ifndef DEVCHECK_TORCH_VERSION
#define DEVCHECK_TORCH_VERSION ""
#endif

// The path of the libtorch_cpu in this process ("" when none).
int find_torch(struct dl_phdr_info* info, size_t, void* found) {
  if (info->dlpi_name != nullptr && std::strstr(info->dlpi_name, "libtorch_cpu.so") != nullptr) {
    *static_cast<std::string*>(found) = info->dlpi_name;
    return 1;
  }
  return 0;
}

std::string loaded_torch() {
  std::string found;
  dl_iterate_phdr(find_torch, &found);
  return found;
}

bool torch_loaded() { return !loaded_torch().empty(); }

// Whether this process asked for the sanitizer (devcheck run sets
// DEVCHECK_SANITIZE; a program that links this library may not).
bool sanitizer_requested() {
  const char* v = std::getenv("DEVCHECK_SANITIZE");
  if (v == nullptr || *v == '\0') return false;
  std::string t = v;
  for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return t != "off" && t != "0" && t != "false" && t != "no";
}

// The program must not run unwatched when it asked to be watched: say why,
// and end it before its first op (exit status 2, as for bad input).
void refuse(const std::string& reason, const std::string& fix) {
  if (!sanitizer_requested()) {
    std::fprintf(stderr, "[devcheck] %s; this process is not watched\nfix: %s\n", reason.c_str(),
                 fix.c_str());
    return;
  }
  std::fprintf(stderr,
               "[devcheck] run: %s; stopping the program here (exit status 2) rather than run it "
               "unwatched\nfix: %s\n",
               reason.c_str(), fix.c_str());
  std::fflush(stderr);
  _exit(2);
}

// DEVCHECK_FAKE_CUDA=N (devcheck run --fake-cuda): turns fake CUDA on in
// this process before the program's first CUDA call, from the fake device
// library next to this one. Only whether the variable is set is looked at
// here, to load that library at all; the library reads the request and
// decides (src/fake/cuda/request.cc). A process that asked for it and cannot
// have it stops here (exit status 2), as one that cannot be watched does.
void start_fake_cuda(const std::string& dir) {
  const char* count = std::getenv("DEVCHECK_FAKE_CUDA");
  if (count == nullptr || *count == '\0' || std::strcmp(count, "0") == 0) return;
  const std::string path = dir + "/" + DEVCHECK_FAKE_DEVICE_LIBRARY_FILE;
  DlopenFn open = real_dlopen();
  void* handle = open != nullptr ? open(path.c_str(), RTLD_NOW | RTLD_GLOBAL) : nullptr;
  if (handle == nullptr) {
    const char* why = dlerror();
    std::fprintf(stderr,
                 "[devcheck] run: cannot load %s for fake CUDA: %s; stopping the program here "
                 "(exit status 2)\n",
                 path.c_str(), why != nullptr ? why : "unknown error");
    std::fflush(stderr);
    _exit(2);
  }
  using StartFn = int (*)();
  auto start = reinterpret_cast<StartFn>(dlsym(handle, "devcheck_fake_cuda_autostart"));
  // The library prints why it could not start (a real GPU, a bad count).
  if (start == nullptr || start() == 2) {
    std::fflush(stderr);
    _exit(2);
  }
}

void load_devcheck() {
  if (g_state.exchange(1) != 0) return;
  // libdevcheck is built for one LibTorch: loading it next to another would
  // put two LibTorch builds into this process.
  const std::string torch_path = loaded_torch();
  const std::string loaded = torch_version_at(torch_path);
  const std::string built = DEVCHECK_TORCH_VERSION;
  if (!loaded.empty() && !built.empty() && major_minor(loaded) != major_minor(built)) {
    refuse("this program loaded LibTorch " + loaded + " (" + torch_path +
               "), but this devcheck was built for LibTorch " + built +
               ", whose sanitizer cannot watch it",
           "use a devcheck built for torch " + loaded +
               ": in the program's Python, pip install --no-build-isolation --no-deps <devcheck "
               "checkout>, then python -m devcheck run script.py (or build devcheck against "
               "LibTorch " +
               loaded + "); or run the program with a torch " + built);
    return;
  }
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&load_devcheck), &info) == 0 || info.dli_fname == nullptr) {
    refuse("cannot locate the preload library itself", "set LD_PRELOAD to its absolute path");
    return;
  }
  std::string path = info.dli_fname;
  const auto slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? std::string(".") : path.substr(0, slash);
  path = dir + "/" + DEVCHECK_LIBRARY_FILE;
  DlopenFn open = real_dlopen();
  void* handle = open != nullptr ? open(path.c_str(), RTLD_NOW | RTLD_GLOBAL) : nullptr;
  if (handle == nullptr) {
    const char* why = dlerror();
    refuse("cannot load " + path + ": " + (why != nullptr ? why : "unknown error") +
               " (the program's LibTorch: " + (loaded.empty() ? torch_path : loaded) +
               "; devcheck's: " + built + ")",
           "install devcheck's libraries beside the preload library, built for the program's "
           "LibTorch");
    return;
  }
  start_fake_cuda(dir);
  g_join_thread.store(reinterpret_cast<JoinFn>(dlsym(handle, "devcheck_sanitizer_join_thread")));
  g_sigaction_hook.store(
      reinterpret_cast<SigactionFn>(dlsym(handle, "devcheck_sanitizer_sigaction")));
  g_reassert_signals.store(
      reinterpret_cast<ReassertFn>(dlsym(handle, "devcheck_sanitizer_reassert_signals")));
  using StartFn = int (*)();
  if (auto start = reinterpret_cast<StartFn>(dlsym(handle, "devcheck_sanitizer_autostart"))) {
    start();
  }
}

// Libraries' initializers may call dlopen while the process starts (before
// LibTorch's own initializers ran); loading libdevcheck then would run them
// re-entrantly. Our initializer runs after those of every library the program
// links (they sort before us), so wait for it.
std::atomic<bool> g_started{false};

void maybe_load() {
  if (g_started.load(std::memory_order_relaxed) && g_state.load(std::memory_order_relaxed) == 0 &&
      torch_loaded()) {
    load_devcheck();
  }
}

__attribute__((constructor)) void preload_init() {
  g_started.store(true);
  maybe_load();
}

}  // namespace

// Python imports torch with dlopen(<absolute path of torch/_C...so>): look for
// LibTorch right after it returns. Initializers of the libraries it pulls in
// may call dlopen themselves (libGLdispatch does) while LibTorch is mapped but
// not yet initialized: nested calls (depth > 0) never load. A name without
// '/' is searched with the caller's RUNPATH, which glibc finds from the
// return address, so that call must be a tail call (its check runs before).
// A library's initializer may install a signal handler past our sigaction
// (UCX does): each outermost dlopen lets the sanitizer take its signals back.
namespace {
thread_local int t_depth = 0;
}  // namespace

extern "C" __attribute__((visibility("default"))) void* dlopen(const char* file, int mode) {
  DlopenFn open = real_dlopen();
  if (file == nullptr || std::strchr(file, '/') == nullptr) {
    if (t_depth == 0) {
      maybe_load();
      reassert_signals();
    }
    return open(file, mode);
  }
  ++t_depth;
  void* handle = open(file, mode);
  --t_depth;
  if (t_depth == 0) {
    maybe_load();
    reassert_signals();
  }
  return handle;
}

// A handler the program or a library installs for a fatal signal after the
// sanitizer's becomes the one the sanitizer hands that signal on to, after
// its report; they read back what they set. Other signals, and every signal
// before libdevcheck is loaded, go straight to libc.
extern "C" __attribute__((visibility("default"))) int sigaction(int sig,
                                                                const struct sigaction* act,
                                                                struct sigaction* old) noexcept {
  static const auto next = reinterpret_cast<SigactionFn>(dlsym(RTLD_NEXT, "sigaction"));
  if (const SigactionFn hook = g_sigaction_hook.load()) {
    if (hook(sig, act, old) != 0) return 0;
  }
  if (next == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  return next(sig, act, old);
}

// glibc's signal() calls its internal sigaction, not ours: the same here.
extern "C" __attribute__((visibility("default"))) sighandler_t signal(
    int sig, sighandler_t handler) noexcept {
  using SignalFn = sighandler_t (*)(int, sighandler_t);
  static const auto next = reinterpret_cast<SignalFn>(dlsym(RTLD_NEXT, "signal"));
  if (const SigactionFn hook = g_sigaction_hook.load()) {
    struct sigaction act {};
    act.sa_handler = handler;  // BSD semantics, as glibc's signal()
    sigemptyset(&act.sa_mask);
    sigaddset(&act.sa_mask, sig);
    act.sa_flags = SA_RESTART;
    struct sigaction old {};
    if (handler != SIG_ERR && hook(sig, &act, &old) != 0) return old.sa_handler;
  }
  if (next == nullptr) {
    errno = ENOSYS;
    return SIG_ERR;
  }
  return next(sig, handler);
}

// Threads the program creates after libdevcheck is in join the sanitizer's
// session from their first op (a thread is watched while a thread-local
// dispatch key is set; see src/sanitizer/engine.h).
namespace {

using CreateFn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

struct Boot {
  void* (*start)(void*);
  void* arg;
  JoinFn join;
};

// Freed when `start` returns (or by the unwinding of pthread_exit), not
// before: nothing intercepted may run ahead of a sanitizer runtime's own
// thread set-up when it wraps pthread_create after us.
void* boot(void* p) {
  const std::unique_ptr<Boot> b(static_cast<Boot*>(p));
  b->join();
  return b->start(b->arg);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int pthread_create(pthread_t* thread,
                                                                     const pthread_attr_t* attr,
                                                                     void* (*start)(void*),
                                                                     void* arg) {
  static const auto create = reinterpret_cast<CreateFn>(dlsym(RTLD_NEXT, "pthread_create"));
  if (create == nullptr) return EAGAIN;
  const JoinFn join = g_join_thread.load();
  if (join == nullptr) return create(thread, attr, start, arg);
  auto* b = new (std::nothrow) Boot{start, arg, join};
  if (b == nullptr) return create(thread, attr, start, arg);
  const int rc = create(thread, attr, &boot, b);
  if (rc != 0) delete b;
  return rc;
}

// A child of `devcheck run` that asks LibTorch whether CUDA is there
// (torch::cuda::is_available(), torch::cuda::device_count()) leaves a mark
// in the report folder: without fake CUDA on a machine without a GPU, its
// CUDA paths did not run, and devcheck run says so. The program's calls
// resolve here first; the real functions answer.
namespace {

void note_cuda_asked() {
  static std::atomic<bool> noted{false};
  if (noted.exchange(true)) return;
  const char* dir = std::getenv("DEVCHECK_SANITIZE_REPORT_DIR");
  if (dir == nullptr || *dir == '\0') return;
  char path[4096];
  const int n = std::snprintf(path, sizeof(path), "%s/cuda-asked-%ld", dir,
                              static_cast<long>(getpid()));  // NOLINT(google-runtime-int)
  if (n <= 0 || static_cast<size_t>(n) >= sizeof(path)) return;
  FILE* f = std::fopen(path, "w");
  if (f != nullptr) std::fclose(f);
}

template <typename Fn>
Fn next_symbol(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

}  // namespace

// torch::cuda::is_available(), by its mangled name.
// NOLINTNEXTLINE(bugprone-reserved-identifier): the symbol LibTorch exports
extern "C" __attribute__((visibility("default"))) bool _ZN5torch4cuda12is_availableEv() {
  note_cuda_asked();
  static const auto real = next_symbol<bool (*)()>("_ZN5torch4cuda12is_availableEv");
  return real != nullptr && real();
}

// torch::cuda::device_count(): size_t in 1.13, c10::DeviceIndex in 2.x; the
// return register passes through unchanged, so either caller reads its own type.
// NOLINTNEXTLINE(bugprone-reserved-identifier): the symbol LibTorch exports
extern "C" __attribute__((visibility("default"))) std::size_t _ZN5torch4cuda12device_countEv() {
  note_cuda_asked();
  static const auto real = next_symbol<std::size_t (*)()>("_ZN5torch4cuda12device_countEv");
  return real != nullptr ? real() : 0;
}
