// A plain LibTorch program (it does not link devcheck) that crashes with a
// real SIGSEGV after a planted mismatch, while a handler of its own or of a
// library it uses holds SIGSEGV (programs/handler.cc says which and how).
//
//   handled start   the linked library's handler (PLANTED_HANDLER_AT=start)
//   handled own     the program's handler, installed in main()
//   handled lazy    a library dlopened in main() installs it (PLANTED_HANDLER_AT=dlopen)
//   handled plain   no handler
//   handled ignore-term   ignores SIGTERM, raises it, then the mismatch; exits 0
//   handled survive-term  a SIGTERM handler that returns; raises it, then the
//                         mismatch; exits 0
//   handled stuck-term    the mismatch; a thread stops in a library's
//                         initializer holding the loader's lock (programs/
//                         stuck.cc), then it raises SIGTERM: the report needs
//                         that lock (dladdr) and never gets it
//   handled stuck-handled-term  as stuck-term, with a SIGTERM handler of its
//                         own, and SIGTERM sent by a child it forks: the
//                         handler runs (no report first); it then _exit(0)s
//   handled outside-term  the mismatch; a child it forks sends it SIGTERM
//                         while it allocates and frees for 300 ms (inside
//                         malloc, mostly, holding the allocator's lock); then
//                         it waits in pause()
#include <ATen/ATen.h>
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

extern "C" void planted_install_handler();

namespace {

void mismatch() {
  at::Tensor x = at::ones({3}, at::TensorOptions().device(c10::Device("meta")));
  at::Tensor y = at::ones({3});  // MARK:handled_stray
  try {
    at::Tensor z = at::add(x, y);  // MARK:handled_op
  } catch (const c10::Error&) {
    std::puts("handled: LibTorch raised");
  }
}

void crash() {
  std::fflush(nullptr);
  // A real fault (not raise()): a write to a page nobody may touch.
  void* page = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  *static_cast<volatile int*>(page) = 1;
}

// The loader's lock taken for good by another thread, then SIGTERM.
int stuck_term() {
  int fds[2];
  if (::pipe(fds) != 0) return 3;
  ::setenv("PLANTED_STUCK_FD", std::to_string(fds[1]).c_str(), 1);
  std::thread([] { dlopen(PLANTED_STUCK_LIBRARY, RTLD_NOW); }).detach();
  char byte = 0;
  if (::read(fds[0], &byte, 1) != 1) return 3;
  std::raise(SIGTERM);
  std::puts("handled: carried on after SIGTERM");
  return 0;
}

volatile std::sig_atomic_t g_handled_terms = 0;

void count_term(int) { g_handled_terms = g_handled_terms + 1; }

// The loader's lock taken for good, then SIGTERM from a child to a program
// with a SIGTERM handler of its own.
int stuck_handled_term() {
  std::signal(SIGTERM, count_term);
  int fds[2];
  if (::pipe(fds) != 0) return 3;
  ::setenv("PLANTED_STUCK_FD", std::to_string(fds[1]).c_str(), 1);
  std::thread([] { dlopen(PLANTED_STUCK_LIBRARY, RTLD_NOW); }).detach();
  char byte = 0;
  if (::read(fds[0], &byte, 1) != 1) return 3;
  const pid_t parent = ::getpid();
  if (::fork() == 0) {
    ::kill(parent, SIGTERM);
    ::_exit(0);
  }
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (g_handled_terms == 0 && std::chrono::steady_clock::now() < end) {
    const timespec wait{0, 10L * 1000 * 1000};
    ::nanosleep(&wait, nullptr);
  }
  std::printf("handled: %d SIGTERM at the program's handler\n", static_cast<int>(g_handled_terms));
  std::fflush(stdout);
  ::_exit(g_handled_terms > 0 ? 0 : 4);  // no exit hooks: the loader's lock stays taken
}

// SIGTERM from another process while this one is in the allocator.
int outside_term() {
  const pid_t parent = ::getpid();
  int fds[2];
  if (::pipe(fds) != 0) return 3;
  if (::fork() == 0) {  // sends SIGTERM once the parent is in the loop below
    char byte = 0;
    if (::read(fds[0], &byte, 1) == 1) ::kill(parent, SIGTERM);
    ::_exit(0);
  }
  // Past tcache's sizes (1032 bytes) each call takes the arena's lock, once
  // the process has had a second thread (glibc locks nothing before).
  std::thread([] {}).join();
  std::vector<void*> held(16, nullptr);
  std::size_t i = 0;
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  const char go = 'g';
  if (::write(fds[1], &go, 1) != 1) return 3;
  while (std::chrono::steady_clock::now() < end) {
    for (int k = 0; k < 64; ++k, ++i) {
      std::free(held[i % held.size()]);
      held[i % held.size()] = std::malloc(2048 + (i * 131) % 4096);
    }
  }
  for (;;) ::pause();
}

volatile std::sig_atomic_t g_terms = 0;

void on_term(int) { g_terms = g_terms + 1; }

}  // namespace

int main(int argc, char** argv) {
  const char* what = argc > 1 ? argv[1] : "plain";
  if (std::strcmp(what, "own") == 0) planted_install_handler();
  if (std::strcmp(what, "lazy") == 0 && dlopen(PLANTED_LAZY_LIBRARY, RTLD_NOW) == nullptr) {
    std::printf("handled: cannot load %s: %s\n", PLANTED_LAZY_LIBRARY, dlerror());
    return 3;
  }
  if (std::strcmp(what, "ignore-term") == 0 || std::strcmp(what, "survive-term") == 0) {
    std::signal(SIGTERM, std::strcmp(what, "ignore-term") == 0 ? SIG_IGN : on_term);
    std::raise(SIGTERM);
    mismatch();
    std::printf("handled: carried on after SIGTERM (%d caught)\n", static_cast<int>(g_terms));
    return 0;
  }
  if (std::strcmp(what, "stuck-term") == 0 || std::strcmp(what, "outside-term") == 0 ||
      std::strcmp(what, "stuck-handled-term") == 0) {
    mismatch();
    if (std::strcmp(what, "stuck-handled-term") == 0) return stuck_handled_term();
    return std::strcmp(what, "stuck-term") == 0 ? stuck_term() : outside_term();
  }
  mismatch();
  crash();
  return 0;
}
