// Whether a program gets fake CUDA, decided in one place: the request of the
// command line and the environment (DEVCHECK_FAKE_CUDA=N,
// DEVCHECK_FAKE_CUDA_FORCE), and the refusal to hide a real GPU. `devcheck
// run` reads it before it starts a program, the preload library's start in
// each process of that program (devcheck_fake_cuda_autostart), devcheck's
// doctor and train commands, and devcheck run's sitecustomize through
// torch.ops.devcheck.fake_cuda_request (python/site/sitecustomize.py).

#include <fmt/format.h>
#include <torch/library.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "devcheck/error.h"
#include "devcheck/fake_cuda.h"
#include "fake/backend.h"

namespace devcheck {
namespace {

constexpr const char* kCountVariable = "DEVCHECK_FAKE_CUDA";
constexpr const char* kForceVariable = "DEVCHECK_FAKE_CUDA_FORCE";

// Set, and to anything but "" or "0".
bool is_set(const char* value) {
  return value != nullptr && *value != '\0' && std::string(value) != "0";
}

int count_from_environment() {
  const char* value = std::getenv(kCountVariable);
  if (!is_set(value)) return 0;
  const std::string text(value);
  if (text.size() != 1 || text[0] < '1' || text[0] > '0' + detail::kMaxFakeDevices) {
    throw InvalidArgumentError(
        fmt::format("[devcheck] invalid {}='{}': expected a number of fake CUDA devices from 1 to "
                    "{}, or 0 for none",
                    kCountVariable, text, detail::kMaxFakeDevices));
  }
  return text[0] - '0';
}

// [count, force] of the environment's request, for Python.
std::vector<int64_t> py_request() {
  const FakeCudaRequest request = fake_cuda_request_from_environment();
  return {request.count, request.force ? 1 : 0};
}

TORCH_LIBRARY_FRAGMENT(devcheck, m) { m.def("fake_cuda_request() -> int[]", &py_request); }

}  // namespace

FakeCudaRequest fake_cuda_request_from_environment(const FakeCudaRequest& given) {
  FakeCudaRequest request;
  request.count = given.count > 0 ? given.count : count_from_environment();
  request.force = given.force || is_set(std::getenv(kForceVariable));
  return request;
}

int fake_cuda_count_from_environment() { return fake_cuda_request_from_environment().count; }

void refuse_fake_cuda_over_real_gpus(const FakeCudaRequest& request, const std::string& command) {
  if (request.count == 0 || request.force) return;
  const std::vector<std::string> real = real_cuda_devices();
  if (real.empty()) return;
  const std::string gpus = fmt::format("{} real CUDA device{} ({})", real.size(),
                                       real.size() == 1 ? "" : "s", real.front());
  if (command.empty()) {
    throw DeviceUnavailableError(
        fmt::format("[devcheck] {}={}: this machine has {}, which fake CUDA would hide\nfix: unset "
                    "{}, or set {}=1",
                    kCountVariable, request.count, gpus, kCountVariable, kForceVariable));
  }
  throw DeviceUnavailableError(
      fmt::format("[devcheck] {}: this machine has {}, which fake CUDA would hide from the "
                  "program; it was not started\nfix: run without --fake-cuda (and {}), or add "
                  "--fake-cuda-force",
                  command, gpus, kCountVariable));
}

int start_fake_cuda_from_environment() {
  const FakeCudaRequest request = fake_cuda_request_from_environment();
  if (request.count == 0) return 0;
  refuse_fake_cuda_over_real_gpus(request);
  // The refusal above has decided about real GPUs; the devices the program
  // sees are decided at its first CUDA call (CUDA_VISIBLE_DEVICES).
  return detail::turn_on_fake_cuda(FakeCudaOptions().count(request.count).force(true));
}

}  // namespace devcheck

// The preload library's way in (devcheck run --fake-cuda, which hands its
// request over in the environment): 0 when not asked for, 1 when on, 2 when
// it cannot be (the reason printed).
extern "C" __attribute__((visibility("default"))) int devcheck_fake_cuda_autostart() {
  try {
    const devcheck::FakeCudaRequest request = devcheck::fake_cuda_request_from_environment();
    if (request.count == 0) return 0;
    devcheck::refuse_fake_cuda_over_real_gpus(request, "run");
    devcheck::detail::turn_on_fake_cuda(
        devcheck::FakeCudaOptions().count(request.count).force(true));
    return 1;
  } catch (const devcheck::DeviceUnavailableError& e) {
    std::fprintf(stderr, "%s\n", e.message().c_str());
  } catch (const devcheck::Error& e) {
    std::fprintf(stderr, "%s; stopping the program here (exit status 2)\n", e.message().c_str());
  } catch (const c10::Error& e) {
    std::fprintf(stderr,
                 "[devcheck] run: fake CUDA cannot start: %s; stopping the program here "
                 "(exit status 2)\n",
                 e.what_without_backtrace());
  }
  return 2;
}
