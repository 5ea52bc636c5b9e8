// A program that links devcheck. Built twice (tests/sanitizer/module.cmake):
// devcheck_san_linked also links the opt-in process hooks (the preload
// library), so DEVCHECK_SANITIZE=1 turns the sanitizer on without code
// changes; devcheck_san_core_only links libdevcheck alone, where nothing
// starts from the environment. `linked raii-fail` shows a kFail Sanitizer
// turning a mismatch into exit status 1.
//
// `linked segv-own` installs a SIGSEGV handler of its own after the
// sanitizer started (programs/handler.cc; PLANTED_HANDLER says what it does),
// `linked segv-before` installs it first; both start the sanitizer with
// devcheck_sanitizer_autostart() when the hooks did not (core_only: nothing
// interposes sigaction) and then crash with a real SIGSEGV.
//
// `linked claimed` registers a fallback for the sanitizer's dispatch key
// (DeferredInit, as torchdistx does) and then starts the sanitizer: it must
// step aside, say so, and leave the program's fallback working.
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <sys/mman.h>
#include <torch/library.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "devcheck/sanitizer.h"

extern "C" void planted_install_handler();  // programs/handler.cc
extern "C" int devcheck_sanitizer_autostart();

namespace {

void planted_bug() {
  at::Tensor x = at::ones({3}, at::TensorOptions().device(c10::Device("meta")));
  at::Tensor y = at::ones({3});  // MARK:linked_stray
  at::Tensor w = at::ones({3, 2});
  at::Tensor z = at::matmul(x, w.to(c10::Device("meta")));
  at::Tensor bad = at::matmul(y.unsqueeze(0), w.to(c10::Device("meta")));  // MARK:linked_op
  std::printf("linked: ran on %s %s\n", z.device().str().c_str(), bad.device().str().c_str());
}

int g_claimed_ops = 0;

void claimed_fallback(const c10::OperatorHandle& op, c10::DispatchKeySet keys,
                      torch::jit::Stack* stack) {
  ++g_claimed_ops;
  op.redispatchBoxed(
      keys & c10::DispatchKeySet(c10::DispatchKeySet::FULL_AFTER, c10::DispatchKey::DeferredInit),
      stack);
}

void claimed() {
  torch::Library library(torch::Library::IMPL, "_", c10::DispatchKey::DeferredInit, __FILE__,
                         __LINE__);
  library.fallback(torch::CppFunction::makeFromBoxedFunction<&claimed_fallback>());
  std::printf("linked: autostart %d\n", devcheck_sanitizer_autostart());
  const c10::impl::IncludeDispatchKeyGuard on(c10::DispatchKey::DeferredInit);
  at::Tensor x = at::ones({3}) + at::ones({3});
  std::printf("linked: claimed fallback saw %d ops\n", g_claimed_ops);
}

void crash() {
  std::fflush(nullptr);
  // A real fault (not raise()): a write to a page nobody may touch.
  void* page = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  *static_cast<volatile int*>(page) = 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "claimed") == 0) {
    claimed();
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "active") == 0) {
    planted_bug();
    std::printf("linked: sanitizer active %d\n", devcheck::Sanitizer::active() ? 1 : 0);
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "segv-own") == 0) {
    if (!devcheck::Sanitizer::active()) devcheck_sanitizer_autostart();
    planted_install_handler();
    planted_bug();
    crash();
  }
  if (argc > 1 && std::strcmp(argv[1], "segv-before") == 0) {
    planted_install_handler();
    setenv("DEVCHECK_SANITIZE", "1", 1);
    std::printf("linked: autostart %d\n", devcheck_sanitizer_autostart());
    planted_bug();
    crash();
  }
  if (argc > 1 && std::strcmp(argv[1], "raii-fail") == 0) {
    devcheck::Sanitizer sanitizer(
        devcheck::SanitizerOptions().mode(devcheck::SanitizerMode::kFail));
    planted_bug();
    return 0;  // the exit status becomes 1 at exit
  }
  if (argc > 1 && std::strcmp(argv[1], "raii-clean") == 0) {
    devcheck::Sanitizer sanitizer(
        devcheck::SanitizerOptions().mode(devcheck::SanitizerMode::kFail));
    at::Tensor x = at::ones({3}) + at::ones({3});
    std::printf("linked: clean %s\n", x.device().str().c_str());
    return 0;
  }
  planted_bug();
  return 0;
}
