#include "devcheck/device.h"

#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <fmt/format.h>

#include <unistd.h>
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <string_view>

#include "detail/fake_hooks.h"
#include "devcheck/error.h"
#include "devcheck/format/device_name.h"
#include "devcheck/format/error.h"
#include "format/cuda_probe.h"

namespace devcheck {
namespace {

std::string normalize(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c)) == 0) {
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  return out;
}

// Visible CUDA devices as LibTorch sees them. CUDA's guard is registered at
// run time by libtorch_cuda, so a CPU-only LibTorch simply reports none.
int torch_cuda_count() {
  if (!c10::impl::hasDeviceGuardImpl(c10::kCUDA)) return 0;
  return static_cast<int>(c10::impl::getDeviceGuardImpl(c10::kCUDA)->deviceCount());
}

std::string why_no_cuda() {
  if (!c10::impl::hasDeviceGuardImpl(c10::kCUDA)) {
    return "this LibTorch was built without CUDA";
  }
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (visible != nullptr && normalize(visible).empty()) {
    return "CUDA_VISIBLE_DEVICES is empty, which hides every GPU";
  }
  const detail::CudaProbe probe = detail::probe_cuda();
  if (!probe.driver_found) return probe.driver_note;
  return "the CUDA driver reports no usable device";
}

std::string cpu_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(colon + 1);
        name.erase(0, name.find_first_not_of(' '));
        return name;
      }
    }
  }
  return "cpu";
}

// How many of the CUDA devices are devcheck's fake CUDA (devcheck/fake_cuda.h); 0 for real ones.
int fake_cuda_devices() {
  const detail::FakeDeviceHooks hooks = detail::fake_device_hooks();
  return hooks.cuda_count != nullptr ? hooks.cuda_count() : 0;
}

Selection pick_cuda_by_free_memory() {
  const int count = torch_cuda_count();
  if (count == 0) return {c10::Device(c10::kCPU), "cpu: no CUDA device (" + why_no_cuda() + ")"};
  if (fake_cuda_devices() > 0) {
    return {c10::Device(c10::kCUDA, 0),
            fmt::format("cuda:0: first of {} fake CUDA devices (host memory, CPU kernels)", count)};
  }
  if (count == 1) return {c10::Device(c10::kCUDA, 0), "cuda:0: the only visible CUDA device"};
  const detail::CudaProbe probe = detail::probe_cuda();
  int best = -1;
  std::uint64_t best_free = 0;
  for (const auto& d : probe.devices) {
    if (d.ordinal < count && d.free_bytes && (best < 0 || *d.free_bytes > best_free)) {
      best = d.ordinal;
      best_free = *d.free_bytes;
    }
  }
  if (best < 0) {
    return {
        c10::Device(c10::kCUDA, 0),
        fmt::format("cuda:0: first of {} CUDA devices (free memory could not be queried)", count)};
  }
  return {c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(best)),
          fmt::format("cuda:{}: most free memory of {} CUDA devices ({} free)", best, count,
                      format_bytes(best_free))};
}

Selection select_fake(const DeviceSpec& spec) {
  const detail::FakeDeviceHooks hooks = detail::fake_device_hooks();
  if (hooks.device == nullptr) {
    throw DeviceUnavailableError(fmt::format(
        "[devcheck] device '{}' is not available: this program does not link the fake device "
        "(the devcheck::fake_device library)",
        spec.str()));
  }
  const int count = hooks.count();
  const int index = spec.index().value_or(0);
  if (index >= count) {
    throw DeviceUnavailableError(
        fmt::format("[devcheck] device '{}' is not available: this process has {} fake device{} "
                    "(fake:0..fake:{}); DEVCHECK_FAKE_DEVICES sets how many",
                    spec.str(), count, count == 1 ? "" : "s", count - 1));
  }
  return {hooks.device(index), fmt::format("fake:{}: requested (host memory, CPU kernels)", index)};
}

void append_cuda_devices(std::vector<DeviceInfo>& out) {
  const int count = torch_cuda_count();
  if (count == 0) return;
  if (fake_cuda_devices() > 0) {
    for (int i = 0; i < count; ++i) {
      DeviceInfo info;
      info.device = c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(i));
      info.name = fmt::format("devcheck fake CUDA device {} (host memory, CPU kernels)", i);
      out.push_back(std::move(info));
    }
    return;
  }
  const detail::CudaProbe probe = detail::probe_cuda();
  for (int i = 0; i < count; ++i) {
    DeviceInfo info;
    info.device = c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(i));
    info.name = "cuda device " + std::to_string(i);
    for (const auto& d : probe.devices) {
      if (d.ordinal == i) {
        info.name = d.name;
        info.total_bytes = d.total_bytes;
        info.free_bytes = d.free_bytes;
      }
    }
    out.push_back(std::move(info));
  }
}

detail::FakeDeviceHooks& hooks_slot() {
  static detail::FakeDeviceHooks hooks;
  return hooks;
}

}  // namespace

namespace detail {
void set_fake_device_hooks(const FakeDeviceHooks& hooks) noexcept { hooks_slot() = hooks; }
FakeDeviceHooks fake_device_hooks() noexcept { return hooks_slot(); }
}  // namespace detail

DeviceSpec DeviceSpec::parse(const std::string& text) {
  format::DeviceRequest request;
  try {
    request = format::parse_device_request(text);
  } catch (const format::Error& e) {
    throw InvalidArgumentError(e.message());
  }
  DeviceSpec spec;
  switch (request.kind) {
    case format::DeviceRequest::Kind::kAuto:
      return spec;
    case format::DeviceRequest::Kind::kGpu:
      spec.kind_ = Kind::kGpu;
      return spec;
    case format::DeviceRequest::Kind::kDevice:
      break;
  }
  const format::Device& d = request.device;
  if (d.has_index()) spec.index_ = d.index;
  switch (d.type) {
    case format::DeviceType::kCpu:
      spec.kind_ = Kind::kCpu;
      return spec;
    case format::DeviceType::kMeta:
      spec.kind_ = Kind::kMeta;
      return spec;
    case format::DeviceType::kCuda:
      spec.kind_ = Kind::kCuda;
      return spec;
    case format::DeviceType::kFake:
      spec.kind_ = Kind::kFake;
      return spec;
    case format::DeviceType::kMps:
    case format::DeviceType::kXpu:
      break;
  }
  throw InvalidArgumentError(fmt::format(
      "[devcheck] invalid device '{}': devcheck does not run on {} devices; expected one of "
      "auto, gpu, cpu, cuda, cuda:N (N >= 0), meta, fake, fake:N (N >= 0)",
      text, d.str()));
}

DeviceSpec DeviceSpec::from_env(const std::string& program_default) {
  const char* env = std::getenv("DEVCHECK_DEVICE");
  if (env == nullptr || normalize(env).empty()) return parse(program_default);
  try {
    return parse(env);
  } catch (const InvalidArgumentError& e) {
    throw InvalidArgumentError(fmt::format(
        "[devcheck] invalid DEVCHECK_DEVICE='{}': expected one of {}", env, format::kDeviceForms));
  }
}

std::string DeviceSpec::str() const {
  switch (kind_) {
    case Kind::kAuto:
      return "auto";
    case Kind::kGpu:
      return "gpu";
    case Kind::kCpu:
      return "cpu";
    case Kind::kMeta:
      return "meta";
    case Kind::kCuda:
      return index_ ? "cuda:" + std::to_string(*index_) : "cuda";
    case Kind::kFake:
      return index_ ? "fake:" + std::to_string(*index_) : "fake";
  }
  return "auto";
}

std::optional<c10::Device> DeviceSpec::named_device() const {
  const auto index = static_cast<c10::DeviceIndex>(index_.value_or(-1));
  switch (kind_) {
    case Kind::kCpu:
      return c10::Device(c10::kCPU);
    case Kind::kMeta:
      return c10::Device(c10::kMeta);
    case Kind::kCuda:
      return c10::Device(c10::kCUDA, index);
    case Kind::kFake:
      return c10::Device(c10::kPrivateUse1, index);
    case Kind::kAuto:
    case Kind::kGpu:
      break;
  }
  return std::nullopt;
}

int cuda_device_count() { return torch_cuda_count(); }

bool device_available(c10::Device device) {
  const int index = device.has_index() ? device.index() : 0;
  switch (device.type()) {
    case c10::DeviceType::CPU:
    case c10::DeviceType::Meta:
      return true;
    case c10::DeviceType::CUDA:
      return index < torch_cuda_count();
    case c10::DeviceType::PrivateUse1: {
      const detail::FakeDeviceHooks fake = detail::fake_device_hooks();
      if (fake.device == nullptr || index >= fake.count()) return false;
      fake.device(index);
      return true;
    }
    default:
      return false;
  }
}

Selection select_device(const DeviceSpec& spec) {
  switch (spec.kind()) {
    case DeviceSpec::Kind::kCpu:
      return {c10::Device(c10::kCPU), "cpu: requested"};
    case DeviceSpec::Kind::kMeta:
      return {c10::Device(c10::kMeta), "meta: requested (shapes only, no data)"};
    case DeviceSpec::Kind::kFake:
      return select_fake(spec);
    case DeviceSpec::Kind::kAuto:
    case DeviceSpec::Kind::kGpu:
      return pick_cuda_by_free_memory();
    case DeviceSpec::Kind::kCuda: {
      const int count = torch_cuda_count();
      const int index = spec.index().value_or(0);
      if (count == 0) {
        throw DeviceUnavailableError(fmt::format(
            "[devcheck] device '{}' is not available: this machine has 0 CUDA devices ({}); "
            "use DeviceSpec \"auto\" to fall back to the CPU",
            spec.str(), why_no_cuda()));
      }
      if (index >= count) {
        throw DeviceUnavailableError(fmt::format(
            "[devcheck] device '{}' is not available: this machine has {} CUDA device{} "
            "(cuda:0..cuda:{}); check CUDA_VISIBLE_DEVICES",
            spec.str(), count, count == 1 ? "" : "s", count - 1));
      }
      return {c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(index)),
              fmt::format("cuda:{}: requested{}", index,
                          fake_cuda_devices() > 0 ? " (fake CUDA: host memory, CPU kernels)" : "")};
    }
  }
  return {c10::Device(c10::kCPU), "cpu"};
}

Selection select_device(const std::string& spec) { return select_device(DeviceSpec::parse(spec)); }

std::vector<DeviceInfo> list_devices() {
  std::vector<DeviceInfo> out;
  DeviceInfo cpu;
  cpu.name = cpu_name();
  const long pages = sysconf(_SC_PHYS_PAGES);     // NOLINT(google-runtime-int)
  const long avail = sysconf(_SC_AVPHYS_PAGES);   // NOLINT(google-runtime-int)
  const long page_size = sysconf(_SC_PAGE_SIZE);  // NOLINT(google-runtime-int)
  if (pages > 0 && page_size > 0) {
    cpu.total_bytes = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size);
    if (avail >= 0) {
      cpu.free_bytes = static_cast<std::uint64_t>(avail) * static_cast<std::uint64_t>(page_size);
    }
  }
  out.push_back(std::move(cpu));
  append_cuda_devices(out);
  const detail::FakeDeviceHooks fake = detail::fake_device_hooks();
  if (fake.registered != nullptr && fake.registered()) {
    const int count = fake.count();
    for (int i = 0; i < count; ++i) {
      DeviceInfo info;
      info.device = c10::Device(c10::kPrivateUse1, static_cast<c10::DeviceIndex>(i));
      info.name = fmt::format("devcheck fake device {} (host memory, CPU kernels)", i);
      out.push_back(std::move(info));
    }
  }
  return out;
}

}  // namespace devcheck
