// A program that links devcheck: DEVCHECK_SANITIZE=1 turns the sanitizer on
// without code changes, and `linked raii-fail` shows a kFail Sanitizer
// turning a mismatch into exit status 1.
#include <ATen/ATen.h>

#include <cstdio>
#include <cstring>

#include "devcheck/sanitizer.h"

namespace {

void planted_bug() {
  at::Tensor x = at::ones({3}, at::TensorOptions().device(c10::Device("meta")));
  at::Tensor y = at::ones({3});  // MARK:linked_stray
  at::Tensor w = at::ones({3, 2});
  at::Tensor z = at::matmul(x, w.to(c10::Device("meta")));
  at::Tensor bad = at::matmul(y.unsqueeze(0), w.to(c10::Device("meta")));  // MARK:linked_op
  std::printf("linked: ran on %s %s\n", z.device().str().c_str(), bad.device().str().c_str());
}

}  // namespace

int main(int argc, char** argv) {
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
