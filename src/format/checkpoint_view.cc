// The Checkpoint metadata view with its text and JSON reports.
#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join (there from fmt 11 on)
#include <nlohmann/json.hpp>

#include <algorithm>

#include "devcheck/format/checkpoint.h"
#include "devcheck/format/units.h"
#include "format/reader.h"

namespace devcheck {

std::string severity_name(Severity severity) {
  switch (severity) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kError:
      return "error";
  }
  return "?";
}

namespace format {

Checkpoint::Checkpoint(std::shared_ptr<const detail::ParsedCheckpoint> data)
    : data_(std::move(data)) {}

Checkpoint Checkpoint::open(const std::string& path) {
  return Checkpoint(detail::parse_checkpoint(path));
}

const std::string& Checkpoint::path() const { return data_->path; }
const FormatFacts& Checkpoint::format() const { return data_->facts; }
const std::vector<TensorEntry>& Checkpoint::entries() const { return data_->entries; }
const std::vector<StorageEntry>& Checkpoint::storages() const { return data_->storages; }
const std::vector<Finding>& Checkpoint::findings() const { return data_->findings; }
bool Checkpoint::has_errors() const { return data_->has_errors(); }

std::vector<DeviceTotal> Checkpoint::devices() const {
  std::vector<DeviceTotal> out;
  auto slot = [&](const std::string& device) -> DeviceTotal& {
    for (auto& d : out) {
      if (d.device == device) return d;
    }
    DeviceTotal d;
    d.device = device;
    d.available = detail::location_available(device);
    out.push_back(d);
    return out.back();
  };
  for (const auto& st : data_->storages) {
    DeviceTotal& d = slot(st.location);
    d.storages += 1;
    d.nbytes += st.nbytes;
  }
  for (const auto& t : data_->entries) slot(t.device).tensors += 1;
  return out;
}

std::string Checkpoint::to_text(const std::vector<DeviceTotal>& devices) const {
  const FormatFacts& f = data_->facts;
  std::string out = fmt::format("{}\n", data_->path);
  out += fmt::format("format:   {}\n", f.description);
  std::vector<std::string> facts;
  if (!f.archive.empty()) facts.push_back(fmt::format("archive '{}'", f.archive));
  if (!f.version.empty()) facts.push_back("version " + f.version);
  facts.push_back(fmt::format("pickle protocol {}", f.pickle_protocol));
  if (!f.byteorder.empty()) facts.push_back(f.byteorder + "-endian");
  facts.push_back(fmt::format("{} records", f.records));
  facts.push_back(format_bytes(f.file_bytes));
  out += fmt::format("          {}\n", fmt::join(facts, ", "));
  out +=
      fmt::format("tensors:  {} in {} storages\n", data_->entries.size(), data_->storages.size());
  if (!data_->entries.empty()) {
    std::size_t key_w = 3, dtype_w = 5, shape_w = 5, dev_w = 6;
    std::vector<std::string> shapes;
    for (const auto& t : data_->entries) {
      shapes.push_back(shape_text(t.shape));
      key_w = std::max(key_w, t.key.size());
      dtype_w = std::max(dtype_w, t.dtype.size());
      shape_w = std::max(shape_w, shapes.back().size());
      dev_w = std::max(dev_w, t.device.size());
    }
    key_w = std::min<std::size_t>(key_w, 60);
    out +=
        fmt::format("  {:<{}}  {:<{}}  {:<{}}  {:<{}}  {:>10}  {:<8}  {}\n", "KEY", key_w, "DTYPE",
                    dtype_w, "SHAPE", shape_w, "DEVICE", dev_w, "BYTES", "STORAGE", "NOTE");
    for (std::size_t i = 0; i < data_->entries.size(); ++i) {
      const auto& t = data_->entries[i];
      std::vector<std::string> notes;
      if (t.parameter) notes.emplace_back("parameter");
      if (t.view) notes.emplace_back("view");
      if (t.shares_storage) notes.emplace_back("shared");
      out +=
          fmt::format("  {:<{}}  {:<{}}  {:<{}}  {:<{}}  {:>10}  {:<8}  {}\n", t.key, key_w,
                      t.dtype, dtype_w, shapes[i], shape_w, t.device, dev_w, format_bytes(t.nbytes),
                      t.storage.empty() ? "-" : t.storage, fmt::join(notes, ","));
    }
  }
  out += "devices:\n";
  if (devices.empty()) out += "  (no tensors)\n";
  for (const auto& d : devices) {
    out += fmt::format("  {:<10} {} tensors, {} storages, {}{}\n", d.device, d.tensors, d.storages,
                       format_bytes(d.nbytes), d.available ? "" : "  (not on this machine)");
  }
  out += "findings:\n";
  if (data_->findings.empty()) out += "  none\n";
  for (const auto& finding : data_->findings) {
    out += fmt::format("  [{}] {}: {}\n", severity_name(finding.severity), finding.code,
                       finding.message);
  }
  return out;
}

std::string Checkpoint::to_json(const std::vector<DeviceTotal>& devices) const {
  const FormatFacts& f = data_->facts;
  nlohmann::json j;
  j["file"] = data_->path;
  j["format"] = {{"kind", f.kind},           {"description", f.description},
                 {"archive", f.archive},     {"version", f.version},
                 {"byteorder", f.byteorder}, {"pickle_protocol", f.pickle_protocol},
                 {"records", f.records},     {"file_bytes", f.file_bytes}};
  j["tensors"] = nlohmann::json::array();
  for (const auto& t : data_->entries) {
    j["tensors"].push_back(
        {{"key", t.key},
         {"dtype", t.dtype},
         {"shape", t.shape},
         {"stride", t.stride},
         {"storage_offset", t.storage_offset},
         {"device", t.device},
         {"nbytes", t.nbytes},
         {"storage", t.storage.empty() ? nlohmann::json(nullptr) : nlohmann::json(t.storage)},
         {"requires_grad", t.requires_grad},
         {"parameter", t.parameter},
         {"view", t.view},
         {"shares_storage", t.shares_storage}});
  }
  j["storages"] = nlohmann::json::array();
  for (const auto& s : data_->storages) {
    j["storages"].push_back({{"key", s.key},
                             {"record", s.record},
                             {"storage_type", s.storage_type},
                             {"location", s.location},
                             {"numel", s.numel},
                             {"nbytes", s.nbytes}});
  }
  j["devices"] = nlohmann::json::object();
  for (const auto& d : devices) {
    j["devices"][d.device] = {{"tensors", d.tensors},
                              {"storages", d.storages},
                              {"nbytes", d.nbytes},
                              {"available", d.available}};
  }
  j["findings"] = nlohmann::json::array();
  for (const auto& finding : data_->findings) {
    j["findings"].push_back({{"code", finding.code},
                             {"severity", severity_name(finding.severity)},
                             {"message", finding.message}});
  }
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace format
}  // namespace devcheck
