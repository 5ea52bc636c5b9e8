// The LibTorch-side checkpoint API over the format library: MapLocation with
// c10 devices, Checkpoint and remap() throwing devcheck::Error.
#include <fmt/format.h>

#include "checkpoint/format_bridge.h"
#include "devcheck/checkpoint.h"
#include "devcheck/device.h"
#include "devcheck/error.h"

namespace devcheck {
namespace detail {

void throw_as_devcheck_error(const format::Error& e) {
  switch (e.code()) {
    case ErrorCode::kInvalidArgument:
      throw InvalidArgumentError(e.message());
    case ErrorCode::kDeviceMismatch:
      throw DeviceMismatchError(e.message());
    case ErrorCode::kDeviceUnavailable:
      throw DeviceUnavailableError(e.message());
    case ErrorCode::kFormat:
      throw FormatError(e.message());
    case ErrorCode::kUnsafe:
      throw UnsafeContentError(e.message());
    case ErrorCode::kIo:
      throw IoError(e.message());
  }
  throw Error(e.code(), e.message());
}

c10::Device to_c10_device(const format::Device& device) {
  const auto index = static_cast<c10::DeviceIndex>(device.index);
  switch (device.type) {
    case format::DeviceType::kCpu:
      return c10::Device(c10::kCPU, index);
    case format::DeviceType::kCuda:
      return c10::Device(c10::kCUDA, index);
    case format::DeviceType::kMeta:
      return c10::Device(c10::kMeta, index);
    case format::DeviceType::kFake:
      return c10::Device(c10::kPrivateUse1, index);
    case format::DeviceType::kMps:
      return c10::Device(c10::kMPS, index);
    case format::DeviceType::kXpu:
      return c10::Device(c10::kXPU, index);
  }
  return c10::Device(c10::kCPU);
}

void sync_privateuse1_name() {
  format::set_privateuse1_name(c10::DeviceTypeName(c10::kPrivateUse1, /*lower_case=*/true));
}

format::Device to_format_device(c10::Device device) {
  if (device.type() == c10::kPrivateUse1) sync_privateuse1_name();
  try {
    return format::parse_device(device.str());
  } catch (const format::Error&) {
    throw InvalidArgumentError(fmt::format(
        "[devcheck] map_location: device '{}' is not one devcheck maps to; expected one of {}",
        device.str(), format::kDeviceForms));
  }
}

bool location_available_in_process(const std::string& location) {
  try {
    const format::Device device = format::parse_device(location);
    if (device.type == format::DeviceType::kFake) sync_privateuse1_name();
    return device.str() == location && device_available(to_c10_device(device));
  } catch (const format::Error&) {
    return false;
  }
}

}  // namespace detail

MapLocation MapLocation::keep() { return MapLocation(); }

MapLocation MapLocation::to(c10::Device device) {
  MapLocation m;
  m.map_ = format::DeviceMap::to(detail::to_format_device(device));
  return m;
}

MapLocation& MapLocation::map(std::string from, std::string to) {
  format::Device device;
  try {
    device = format::parse_device(to);
  } catch (const format::Error&) {
    throw InvalidArgumentError(fmt::format(
        "[devcheck] map_location: '{}' (the target of '{}') is not a device; expected a device "
        "string such as cpu, cuda, cuda:1 or meta",
        to, from));
  }
  if (device.type == format::DeviceType::kFake) detail::sync_privateuse1_name();
  map_.map(std::move(from), device);
  return *this;
}

Checkpoint Checkpoint::open(const std::string& path) {
  return Checkpoint(
      detail::with_devcheck_errors([&] { return ::devcheck::format::Checkpoint::open(path); }));
}

std::vector<DeviceTotal> Checkpoint::devices() const {
  // This process may have devices a torch-free one cannot see (the fake device).
  std::vector<DeviceTotal> totals = ::devcheck::format::Checkpoint::devices();
  for (DeviceTotal& d : totals) d.available = detail::location_available_in_process(d.device);
  return totals;
}

std::string Checkpoint::to_text() const {
  return ::devcheck::format::Checkpoint::to_text(devices());
}
std::string Checkpoint::to_json() const {
  return ::devcheck::format::Checkpoint::to_json(devices());
}

RemapReport remap(const std::string& input, const std::string& output,
                  const RemapOptions& options) {
  format::RemapOptions o;
  o.map_location(options.map_location().device_map())
      .strip_prefix(options.strip_prefix())
      .rewrite_code(options.rewrite_code())
      .force(options.force());
  return detail::with_devcheck_errors([&] { return format::remap(input, output, o); });
}

}  // namespace devcheck
