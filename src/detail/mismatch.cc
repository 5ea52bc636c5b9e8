#include "detail/mismatch.h"

#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join (there from fmt 11 on)

#include <algorithm>

#include "detail/names.h"

namespace devcheck::detail {

void DeviceTally::add(c10::Device device, std::size_t tensors) {
  auto it = std::find_if(counts_.begin(), counts_.end(),
                         [&](const auto& c) { return c.first == device; });
  if (it == counts_.end()) {
    counts_.emplace_back(device, tensors);
  } else {
    it->second += tensors;
  }
}

std::optional<c10::Device> DeviceTally::expected() const {
  if (counts_.empty()) return std::nullopt;
  auto best = counts_.begin();
  for (auto it = counts_.begin() + 1; it != counts_.end(); ++it) {
    if (it->second > best->second ||
        (it->second == best->second && best->first.is_cpu() && !it->first.is_cpu())) {
      best = it;
    }
  }
  return best->first;
}

std::string DeviceTally::found_text() const {
  auto sorted = counts_;
  const std::optional<c10::Device> first = expected();
  std::stable_sort(sorted.begin(), sorted.end(), [&](const auto& a, const auto& b) {
    if ((a.first == first) != (b.first == first)) return a.first == first;
    return a.second > b.second;
  });
  std::vector<std::string> parts;
  parts.reserve(sorted.size());
  for (const auto& [device, n] : sorted) {
    parts.push_back(fmt::format("{} ({} tensor{})", device.str(), n, n == 1 ? "" : "s"));
  }
  return fmt::format("{}", fmt::join(parts, " and "));
}

bool is_stray(c10::Device device, std::size_t dim, c10::Device expected) {
  return !wrapped_scalar(device, dim) && !device_matches(expected, device);
}

MismatchText describe_mismatch(const std::vector<MismatchRow>& rows, c10::Device expected,
                               const std::string& stray_origin) {
  MismatchText out;
  std::size_t name_width = 4;
  // "privateuseone:0" is longer than "cuda:0": the dtype and shape columns stay aligned.
  std::size_t device_width = 6;
  bool notes = false;
  for (const auto& row : rows) {
    name_width = std::max(name_width, row.name.size());
    if (row.defined) device_width = std::max(device_width, row.device.str().size());
    notes = notes || !row.note.empty();
  }
  const std::string marker = "   <- not on " + expected.str();
  for (const auto& row : rows) {
    if (!row.defined) {
      out.table += fmt::format("\n  {:<{}}  (undefined, skipped)", row.name, name_width);
      continue;
    }
    const bool stray = is_stray(row.device, row.shape.size(), expected);
    const std::string shape = shape_str(row.shape);
    out.table += fmt::format("\n  {:<{}}  {:<{}} {:<9} ", row.name, name_width, row.device.str(),
                             device_width, dtype_name(row.dtype));
    out.table += notes ? fmt::format("{:<12} {}", shape, row.note) : shape;
    if (stray) {
      out.table += marker;
      out.strays.push_back(row.name);
    }
  }
  const bool one = out.strays.size() == 1;
  const std::string who = out.strays.empty() ? std::string("the stray tensor")
                                             : fmt::format("{}", fmt::join(out.strays, ", "));
  out.fix = fmt::format(
      "move {} to {} once, where {} made{}: create {} there (device= in Python, "
      "devcheck::options() inside a devcheck::DeviceScope in C++), or move {} with .to({}) / "
      "devcheck::to_device(x, {}) before the loop",
      who, expected.str(), one ? "it is" : "they are",
      stray_origin.empty() ? "" : " (" + stray_origin + ")", one ? "it" : "them",
      one ? "it" : "them", expected.str(), expected.str());
  return out;
}

}  // namespace devcheck::detail
