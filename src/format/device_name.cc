#include "devcheck/format/device_name.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <mutex>
#include <optional>

#include "devcheck/format/error.h"
#include "devcheck/format/units.h"
#include "format/cuda_probe.h"

namespace devcheck::format {

const char* const kDeviceForms =
    "auto, gpu, cpu, cuda, cuda:N (N >= 0), meta, fake, fake:N (N >= 0), mps, xpu, xpu:N";

namespace {

constexpr int kMaxIndex = 127;

std::string normalize(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c)) == 0) {
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  return out;
}

// The N of "<prefix>N" (1 to 3 digits), or nothing when `t` is not of that form.
std::optional<int> indexed(const std::string& t, std::string_view prefix) {
  if (t.size() <= prefix.size() || t.size() > prefix.size() + 3 || t.rfind(prefix, 0) != 0) {
    return std::nullopt;
  }
  if (!std::all_of(t.begin() + static_cast<std::ptrdiff_t>(prefix.size()), t.end(),
                   [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return std::stoi(t.substr(prefix.size()));
}

struct Spelling {
  const char* name;
  DeviceType type;
  bool indexed;
  const char* what;  // for the index-range message
};

// Every spelling a device may have; the first of each type is how it prints
// (the PrivateUse1 device prints as privateuse1_name()).
constexpr Spelling kSpellings[] = {
    {"cpu", DeviceType::kCpu, false, "cpu"},
    {"cuda", DeviceType::kCuda, true, "CUDA"},
    {"meta", DeviceType::kMeta, false, "meta"},
    {"privateuseone", DeviceType::kFake, true, "fake device"},
    {"fake", DeviceType::kFake, true, "fake device"},
    {"mps", DeviceType::kMps, false, "mps"},
    {"xpu", DeviceType::kXpu, true, "XPU"},
};

// Never destroyed: threads still running at exit may print a device.
std::mutex& name_mutex() {
  static auto* const m = new std::mutex;
  return *m;
}
std::string& name_slot() {
  static auto* const name = new std::string("fake");
  return *name;
}

[[noreturn]] void invalid(std::string_view text) {
  throw InvalidArgumentError(
      fmt::format("[devcheck] invalid device '{}': expected one of {}", text, kDeviceForms));
}

}  // namespace

std::string Device::str() const {
  std::string name;
  if (type == DeviceType::kFake) {
    name = privateuse1_name();
  } else {
    for (const Spelling& s : kSpellings) {
      if (s.type == type) {
        name = s.name;
        break;
      }
    }
  }
  return has_index() ? name + ":" + std::to_string(index) : name;
}

DeviceRequest parse_device_request(std::string_view text) {
  const std::string t = normalize(text);
  DeviceRequest request;
  if (t == "auto") return request;
  if (t == "gpu") {
    request.kind = DeviceRequest::Kind::kGpu;
    return request;
  }
  request.kind = DeviceRequest::Kind::kDevice;
  for (const Spelling& s : kSpellings) {
    if (t == s.name) {
      request.device.type = s.type;
      return request;
    }
    if (!s.indexed) continue;
    if (const auto index = indexed(t, std::string(s.name) + ":")) {
      if (*index > kMaxIndex) {
        throw InvalidArgumentError(
            fmt::format("[devcheck] invalid device '{}': {} index {} is out of range (0..{})", text,
                        s.what, *index, kMaxIndex));
      }
      request.device = {s.type, *index};
      return request;
    }
  }
  invalid(text);
}

Device parse_device(std::string_view text) {
  const DeviceRequest request = parse_device_request(text);
  if (request.kind != DeviceRequest::Kind::kDevice) {
    throw InvalidArgumentError(fmt::format(
        "[devcheck] invalid device '{}': a device is needed here, not a keyword that "
        "depends on the machine; expected one of {}",
        text, std::string(kDeviceForms).substr(std::string_view("auto, gpu, ").size())));
  }
  return request.device;
}

std::string privateuse1_name() {
  const std::lock_guard<std::mutex> lock(name_mutex());
  return name_slot();
}

void set_privateuse1_name(const std::string& name) {
  const std::lock_guard<std::mutex> lock(name_mutex());
  name_slot() = name;
}

int driver_cuda_device_count() { return static_cast<int>(detail::probe_cuda().devices.size()); }

bool device_available(const Device& device) {
  switch (device.type) {
    case DeviceType::kCpu:
    case DeviceType::kMeta:
      return true;
    case DeviceType::kCuda:
      return std::max(device.index, 0) < driver_cuda_device_count();
    case DeviceType::kFake:
    case DeviceType::kMps:
    case DeviceType::kXpu:
      return false;
  }
  return false;
}

Device auto_device(std::string* reason) {
  const detail::CudaProbe probe = detail::probe_cuda();
  const detail::CudaDeviceFacts* best = nullptr;
  for (const auto& d : probe.devices) {
    if (best == nullptr ||
        (d.free_bytes && (!best->free_bytes || *d.free_bytes > *best->free_bytes))) {
      best = &d;
    }
  }
  if (best == nullptr) {
    if (reason != nullptr) {
      *reason = "cpu: no CUDA device (" +
                (probe.driver_found ? std::string("the CUDA driver reports no usable device")
                                    : probe.driver_note) +
                ")";
    }
    return {DeviceType::kCpu, -1};
  }
  if (reason != nullptr) {
    *reason = probe.devices.size() == 1
                  ? fmt::format("cuda:{}: the only visible CUDA device", best->ordinal)
                  : fmt::format("cuda:{}: most free memory of {} CUDA devices{}", best->ordinal,
                                probe.devices.size(),
                                best->free_bytes ? " (" + format_bytes(*best->free_bytes) + " free)"
                                                 : std::string());
  }
  return {DeviceType::kCuda, best->ordinal};
}

}  // namespace devcheck::format
