// DEVCHECK_FAKE_CUDA for the commands that run LibTorch in this program.
#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "devcheck/error.h"
#include "devcheck/fake_cuda.h"
#include "torch_commands.h"

namespace devcheck::cli {

void start_fake_cuda_from_environment() {
  const int count = fake_cuda_count_from_environment();
  if (count == 0) return;
  const char* force = std::getenv("DEVCHECK_FAKE_CUDA_FORCE");
  const bool forced = force != nullptr && *force != '\0' && std::string(force) != "0";
  try {
    fake_cuda(FakeCudaOptions().count(count).force(forced));
  } catch (const DeviceUnavailableError& e) {
    throw DeviceUnavailableError(fmt::format(
        "[devcheck] DEVCHECK_FAKE_CUDA={}: this machine has real CUDA devices ({}), which fake "
        "CUDA would hide\nfix: unset DEVCHECK_FAKE_CUDA, or set DEVCHECK_FAKE_CUDA_FORCE=1",
        count, real_cuda_devices().front()));
  }
}

}  // namespace devcheck::cli
