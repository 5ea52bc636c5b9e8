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
#include <ATen/ATen.h>
#include <dlfcn.h>
#include <sys/mman.h>

#include <csignal>
#include <cstdio>
#include <cstring>

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
  mismatch();
  crash();
  return 0;
}
