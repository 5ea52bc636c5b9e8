// DeviceMap: torch.load's map_location as a value, and as a user types it.
#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join (there from fmt 11 on)

#include "devcheck/format/checkpoint.h"
#include "devcheck/format/device_name.h"
#include "devcheck/format/error.h"

namespace devcheck::format {
namespace {

// A target device as remap's options take it, `option` ("--to") naming it in
// messages. A named device need not exist here: a remap may prepare a file
// for another machine.
Device parse_target(const std::string& text, const char* option) {
  DeviceRequest request;
  try {
    request = parse_device_request(text);
  } catch (const InvalidArgumentError& e) {
    const std::string message = e.message();
    throw InvalidArgumentError(
        fmt::format("[devcheck] remap {}: {}", option, message.substr(message.find(' ') + 1)));
  }
  if (request.kind == DeviceRequest::Kind::kDevice) return request.device;
  return auto_device();
}

}  // namespace

DeviceMap DeviceMap::to(Device device) {
  DeviceMap m;
  m.to_ = device;
  return m;
}

DeviceMap DeviceMap::parse(const std::string& to_device, const std::vector<std::string>& rules) {
  DeviceMap m = to_device.empty() ? keep() : to(parse_target(to_device, "--to"));
  for (const auto& rule : rules) {
    const auto eq = rule.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == rule.size()) {
      throw InvalidArgumentError(fmt::format(
          "[devcheck] remap --map: '{}' is not FROM=TO (e.g. --map cuda:1=cuda:0)", rule));
    }
    m.map(rule.substr(0, eq), parse_target(rule.substr(eq + 1), "--map"));
  }
  return m;
}

DeviceMap& DeviceMap::map(std::string from, Device to) {
  rules_.emplace_back(std::move(from), to);
  return *this;
}

std::string DeviceMap::apply(const std::string& saved_location) const {
  for (const auto& [from, to] : rules_) {
    if (from == saved_location) return to.str();
  }
  return to_ ? to_->str() : saved_location;
}

std::string DeviceMap::str() const {
  if (is_keep()) return "keep";
  std::vector<std::string> parts;
  for (const auto& [from, to] : rules_) parts.push_back(from + "->" + to.str());
  if (to_) parts.push_back("to " + to_->str());
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace devcheck::format
