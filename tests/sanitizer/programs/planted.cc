// A plain LibTorch program (it does not link devcheck) with planted device
// bugs, run by the sanitizer tests under `devcheck run` / DEVCHECK_SANITIZE.
// Lines marked "// MARK:<name>" are found by the tests by their marker.
//
//   planted mismatch    meta + cpu add (LibTorch raises; caught)
//   planted matmul      cpu x meta matmul (LibTorch 1.13 does not raise)
//   planted copies      200 per-sample copies to the device (on meta: nothing moves)
//   planted clean       the same work without bugs
//   planted thread      the matmul as the first op of a new thread
//   planted throw       the mismatch, then an uncaught exception
//   planted terminate   the mismatch, then std::terminate()
//   planted segv        the mismatch, then SIGSEGV
//
// The second device is meta, or $PLANTED_DEVICE (cuda: scripts/gpu/sanitizer.sh,
// and the copies test under fake CUDA; privateuseone:0, devcheck's fake
// device, in the tests that load it from
// $PLANTED_FAKE_LIBRARY the way any LibTorch program can: dlopen, then its
// registration op through the dispatcher).
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <dlfcn.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

const char* device_name() {
  const char* name = std::getenv("PLANTED_DEVICE");
  return name != nullptr && *name != '\0' ? name : "meta";
}
const c10::Device kMeta(device_name());

void mismatch() {
  at::Tensor x = at::ones({3}, at::TensorOptions().device(kMeta));
  at::Tensor y = at::ones({3});  // MARK:stray
  try {
    at::Tensor z = at::add(x, y);  // MARK:op
  } catch (const c10::Error&) {
    std::puts("planted: LibTorch raised");
  }
}

void matmul() {
  at::Tensor w = at::ones({4, 3}, at::TensorOptions().device(kMeta));
  at::Tensor x = at::rand({2, 4});  // MARK:matmul_stray
  at::Tensor y = at::matmul(x, w);  // MARK:matmul_op
  std::printf("planted: matmul ran on %s\n", y.device().str().c_str());
}

void copies() {
  at::Tensor data = at::rand({200, 3});
  std::vector<at::Tensor> on_device;
  for (int64_t i = 0; i < data.size(0); ++i) {
    on_device.push_back(data[i].to(kMeta));  // MARK:copy
  }
  std::printf("planted: %zu copies\n", on_device.size());
}

void clean() {
  at::Tensor w = at::ones({4, 3}, at::TensorOptions().device(kMeta));
  at::Tensor data = at::rand({200, 4});
  at::Tensor batch = data.to(kMeta);  // one copy per batch
  at::Tensor y = at::matmul(batch, w) * 2.0;
  at::Tensor s = at::ones({8}) * 2.0 + at::scalar_tensor(1.0);
  std::printf("planted: clean %s %s\n", y.device().str().c_str(), s.device().str().c_str());
}

// The thread's very first op is the bug: under `devcheck run` the preload
// library's pthread_create has it watched from birth.
void thread_matmul() {
  at::Tensor w = at::ones({4, 3}, at::TensorOptions().device(kMeta));
  at::Tensor x = at::rand({2, 4});
  std::thread worker([&] {
    at::Tensor y = at::matmul(x, w);  // MARK:thread_op
    std::printf("planted: thread matmul ran on %s\n", y.device().str().c_str());
  });
  worker.join();
}

}  // namespace

void load_fake_device() {
  const char* library = std::getenv("PLANTED_FAKE_LIBRARY");
  if (library == nullptr || *library == '\0') return;
  if (dlopen(library, RTLD_NOW | RTLD_GLOBAL) == nullptr) {
    std::fprintf(stderr, "planted: cannot load %s: %s\n", library, dlerror());
    std::exit(3);
  }
  c10::Dispatcher::singleton()
      .findSchemaOrThrow("devcheck::register_fake_device", "")
      .typed<int64_t()>()
      .call();
}

int main(int argc, char** argv) {
  load_fake_device();
  const char* what = argc > 1 ? argv[1] : "mismatch";
  if (std::strcmp(what, "matmul") == 0) {
    matmul();
  } else if (std::strcmp(what, "copies") == 0) {
    copies();
  } else if (std::strcmp(what, "clean") == 0) {
    clean();
  } else if (std::strcmp(what, "thread") == 0) {
    thread_matmul();
  } else {
    mismatch();
    if (std::strcmp(what, "throw") == 0) throw std::runtime_error("planted uncaught exception");
    if (std::strcmp(what, "terminate") == 0) std::terminate();
    if (std::strcmp(what, "segv") == 0) std::raise(SIGSEGV);
  }
  return 0;
}
