#include "devcheck/doctor.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <torch/version.h>
#include <nlohmann/json.hpp>

#include <cstdlib>

#include "detail/fake_hooks.h"
#include "detail/torch_cuda_version.h"
#include "devcheck/version.h"
#include "format/cuda_probe.h"

namespace devcheck {

EnvironmentReport environment_report() {
  EnvironmentReport r;
  r.torch_version = TORCH_VERSION;
  r.devcheck_version = DEVCHECK_VERSION;
  // at::hasCUDA() also needs a device; a CUDA build without one is still a CUDA build.
  r.cuda_version = detail::torch_cuda_version();
  r.cuda_built = !r.cuda_version.empty();
  const detail::FakeDeviceHooks fake = detail::fake_device_hooks();
  r.fake_cuda = fake.cuda_count != nullptr ? fake.cuda_count() : 0;
  if (r.cuda_built && r.fake_cuda == 0 && cuda_device_count() == 0) {
    const detail::CudaProbe probe = detail::probe_cuda();
    r.cuda_note =
        probe.driver_found ? "the CUDA driver reports no usable device" : probe.driver_note;
  }
  // cuDNN's version is asked of the library, which needs a device to be worth asking.
  r.cudnn = r.cuda_built && r.fake_cuda == 0 && at::Context::hasCuDNN();
  r.cudnn_version = r.cudnn && r.cuda_note.empty() ? at::Context::versionCuDNN() : 0;
  r.threads = at::get_num_threads();
  r.interop_threads = at::get_num_interop_threads();
  r.devices = list_devices();
  r.auto_choice = select_device(DeviceSpec());
  if (const char* env = std::getenv("DEVCHECK_DEVICE")) r.env_device = env;
  return r;
}

std::string EnvironmentReport::to_text() const {
  std::string out;
  out += fmt::format("devcheck {} on LibTorch {}\n", devcheck_version, torch_version);
  if (fake_cuda > 0) {
    out += fmt::format(
        "CUDA:      fake: {} devcheck fake CUDA device{} (host memory, CPU kernels; no GPU)\n",
        fake_cuda, fake_cuda == 1 ? "" : "s");
  } else if (!cuda_built) {
    out += "CUDA:      no (this LibTorch was built without CUDA)\n";
  } else if (!cuda_note.empty()) {
    out += fmt::format("CUDA:      CUDA {} build, no device ({})\n", cuda_version, cuda_note);
  } else {
    out += fmt::format("CUDA:      CUDA {} build\n", cuda_version);
  }
  std::string cudnn_text = "no";
  if (cudnn)
    cudnn_text = cudnn_version > 0 ? fmt::format("yes ({})", cudnn_version)
                                   : "built in (its library is not asked without a device)";
  out += fmt::format("cuDNN:     {}\n", cudnn_text);
  out += fmt::format("threads:   {} intra-op, {} inter-op\n", threads, interop_threads);
  out += "devices:\n";
  for (const auto& d : devices) {
    std::string memory;
    if (d.total_bytes) memory = format_bytes(*d.total_bytes) + " total";
    if (d.free_bytes)
      memory += (memory.empty() ? "" : ", ") + format_bytes(*d.free_bytes) + " free";
    out += fmt::format("  {:<8} {}{}\n", d.device.str(), d.name,
                       memory.empty() ? "" : " (" + memory + ")");
  }
  out += fmt::format("auto:      {}\n", auto_choice.reason);  // the reason starts with the device
  if (!env_device.empty()) out += fmt::format("DEVCHECK_DEVICE={}\n", env_device);
  return out;
}

std::string EnvironmentReport::to_json() const {
  nlohmann::json j;
  j["devcheck_version"] = devcheck_version;
  j["torch_version"] = torch_version;
  j["cuda"] = cuda_built;
  j["cuda_version"] = cuda_version.empty() ? nlohmann::json(nullptr) : nlohmann::json(cuda_version);
  j["cuda_note"] = cuda_note.empty() ? nlohmann::json(nullptr) : nlohmann::json(cuda_note);
  j["fake_cuda"] = fake_cuda;
  j["cudnn"] = cudnn;
  j["cudnn_version"] = cudnn_version;
  j["threads"] = threads;
  j["interop_threads"] = interop_threads;
  j["devices"] = nlohmann::json::array();
  for (const auto& d : devices) {
    nlohmann::json dj{{"device", d.device.str()}, {"name", d.name}};
    dj["total_bytes"] = d.total_bytes ? nlohmann::json(*d.total_bytes) : nlohmann::json(nullptr);
    dj["free_bytes"] = d.free_bytes ? nlohmann::json(*d.free_bytes) : nlohmann::json(nullptr);
    j["devices"].push_back(dj);
  }
  j["auto"] = {{"device", auto_choice.device.str()}, {"reason", auto_choice.reason}};
  j["env_device"] = env_device.empty() ? nlohmann::json(nullptr) : nlohmann::json(env_device);
  return j.dump(2);
}

}  // namespace devcheck
