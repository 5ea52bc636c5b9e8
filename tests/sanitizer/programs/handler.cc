// A library with its own SIGSEGV handler, as UCX has, for the sanitizer's
// fatal-signal tests. Built twice: linked into devcheck_san_handled and
// devcheck_san_linked (its handler is there before the sanitizer starts), and
// as a module that devcheck_san_handled dlopens (installed after it started).
//
// PLANTED_HANDLER_AT=start|dlopen installs it when this copy is loaded (at
// process start, or at dlopen), past any sigaction interposer as UCX does
// (dlsym(RTLD_NEXT)); planted_install_handler() installs it through the
// ordinary sigaction. PLANTED_HANDLER says what the handler does:
//   exit      writes the marker, then _exit(42)
//   reraise   writes the marker, restores the action it replaced, raises the
//             signal again (UCX's way)
//   chain     writes the marker, calls the handler it replaced (or restores
//             SIG_DFL and raises when there was none)
// The marker is a line "planted handler: signal N" appended to $PLANTED_MARKER.
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifndef PLANTED_AT
#define PLANTED_AT "start"
#endif

namespace {

using SigactionFn = int (*)(int, const struct sigaction*, struct sigaction*);

SigactionFn g_sigaction = nullptr;  // the sigaction the handler was installed with
struct sigaction g_previous {};
char g_style[16] = "exit";
char g_marker[4096] = "";

void write_marker(int sig) {
  if (g_marker[0] == '\0') return;
  const int fd = open(g_marker, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) return;
  char line[64];
  const int n = std::snprintf(line, sizeof line, "planted handler: signal %d\n", sig);
  if (n > 0) static_cast<void>(write(fd, line, static_cast<size_t>(n)));
  close(fd);
}

void on_signal(int sig, siginfo_t* info, void* context) {
  write_marker(sig);
  if (std::strcmp(g_style, "exit") == 0) _exit(42);
  const bool handler = g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN;
  if (std::strcmp(g_style, "chain") == 0 && handler) {
    if ((g_previous.sa_flags & SA_SIGINFO) != 0) {
      g_previous.sa_sigaction(sig, info, context);
    } else {
      g_previous.sa_handler(sig);
    }
    return;
  }
  g_sigaction(sig, &g_previous, nullptr);
  raise(sig);
}

void install(const char* style, SigactionFn with) {
  std::snprintf(g_style, sizeof g_style, "%s", style != nullptr ? style : "exit");
  const char* marker = std::getenv("PLANTED_MARKER");
  std::snprintf(g_marker, sizeof g_marker, "%s", marker != nullptr ? marker : "");
  g_sigaction = with;
  struct sigaction sa {};
  sa.sa_sigaction = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_SIGINFO;
  g_sigaction(SIGSEGV, &sa, &g_previous);
}

__attribute__((constructor)) void install_at_load() {
  const char* at = std::getenv("PLANTED_HANDLER_AT");
  if (at == nullptr || std::strcmp(at, PLANTED_AT) != 0) return;
  install(std::getenv("PLANTED_HANDLER"),
          reinterpret_cast<SigactionFn>(dlsym(RTLD_NEXT, "sigaction")));
}

}  // namespace

// Installs the handler ($PLANTED_HANDLER says what it does) through the
// ordinary sigaction, as a program does.
extern "C" __attribute__((visibility("default"))) void planted_install_handler() {
  install(std::getenv("PLANTED_HANDLER"), &sigaction);
}
