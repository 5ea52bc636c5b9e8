// A plain LibTorch program that claims the dispatch keys LibTorch reserves
// for tests, as LibTorch's own backend_fallback_test does: it registers boxed
// fallbacks for TESTING_ONLY_GenericMode and TESTING_ONLY_GenericWrapper at
// run time, turns the mode on and records every op its fallback sees. It must
// behave the same with and without the sanitizer.
//
//   fallbacks OUT_FILE    writes the ops the mode saw, one a line; exit 0
//                         when it saw the ops it called (3 otherwise)
//
// Inside the mode it also plants a cpu x meta matmul (LibTorch 1.13 does not
// raise), which the sanitizer must still find.
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <torch/library.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> g_seen;

void generic_mode(const c10::OperatorHandle& op, c10::DispatchKeySet keys,
                  torch::jit::Stack* stack) {
  g_seen.push_back(op.schema().name());
  op.redispatchBoxed(keys & c10::DispatchKeySet(c10::DispatchKeySet::FULL_AFTER,
                                                c10::DispatchKey::TESTING_ONLY_GenericMode),
                     stack);
}

void generic_wrapper(const c10::OperatorHandle& op, c10::DispatchKeySet keys,
                     torch::jit::Stack* stack) {
  op.redispatchBoxed(keys & c10::DispatchKeySet(c10::DispatchKeySet::FULL_AFTER,
                                                c10::DispatchKey::TESTING_ONLY_GenericWrapper),
                     stack);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fallbacks OUT_FILE\n");
    return 2;
  }
  {
    // Registered after the process started, as backend_fallback_test does in
    // each test (a sanitizer started by `devcheck run` is in by then).
    torch::Library mode(torch::Library::IMPL, "_", c10::DispatchKey::TESTING_ONLY_GenericMode,
                        __FILE__, __LINE__);
    mode.fallback(torch::CppFunction::makeFromBoxedFunction<&generic_mode>());
    torch::Library wrapper(torch::Library::IMPL, "_", c10::DispatchKey::TESTING_ONLY_GenericWrapper,
                           __FILE__, __LINE__);
    wrapper.fallback(torch::CppFunction::makeFromBoxedFunction<&generic_wrapper>());

    const c10::impl::IncludeDispatchKeyGuard on(c10::DispatchKey::TESTING_ONLY_GenericMode);
    at::Tensor a = at::ones({2, 3});
    at::Tensor b = at::add(a, a);
    at::Tensor w = at::ones({3, 2}, at::TensorOptions().device(c10::Device("meta")));
    at::Tensor y = at::matmul(b, w);  // MARK:fallbacks_op
    std::printf("fallbacks: %s\n", y.device().str().c_str());
  }
  std::ofstream out(argv[1]);
  for (const auto& name : g_seen) out << name << "\n";
  const bool saw_add = std::find(g_seen.begin(), g_seen.end(), "aten::add") != g_seen.end();
  return saw_add ? 0 : 3;
}
