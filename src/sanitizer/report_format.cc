// SanitizerReport's text, JSON and Chrome trace forms.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "devcheck/error.h"
#include "devcheck/format/error.h"
#include "devcheck/sanitizer.h"
#include "format/file.h"
#include "format/output.h"
#include "sanitizer/report.h"

namespace devcheck {
namespace {

const char* kind_name(FindingKind kind) {
  return kind == FindingKind::kDeviceMismatch ? "device_mismatch" : "small_copies";
}

std::uint64_t total_syncs(const SanitizerReport& r) {
  std::uint64_t n = 0;
  for (const auto& s : r.syncs) n += s.count;
  return n;
}

}  // namespace

std::size_t SanitizerReport::mismatch_count() const {
  return static_cast<std::size_t>(
      std::count_if(findings.begin(), findings.end(),
                    [](const auto& f) { return f.kind == FindingKind::kDeviceMismatch; }));
}

std::string SanitizerReport::to_text() const {
  std::uint64_t copies = 0;
  std::uint64_t bytes = 0;
  for (const auto& t : transfers) {
    copies += t.count;
    bytes += t.bytes;
  }
  const std::size_t mismatches = mismatch_count();
  std::string out = fmt::format(
      "[devcheck] sanitizer: {} finding{} ({} device mismatch{}, {} many-small-copies) in {} ops "
      "checked; {} cross-device cop{} ({}) from {} site{}; {} synchronizing op{}\n",
      findings.size(), findings.size() == 1 ? "" : "s", mismatches, mismatches == 1 ? "" : "es",
      findings.size() - mismatches, ops_checked, copies, copies == 1 ? "y" : "ies",
      sanitizer::format_bytes(bytes), transfers.size(), transfers.size() == 1 ? "" : "s",
      total_syncs(*this), total_syncs(*this) == 1 ? "" : "s");
  for (const auto& f : findings) {
    out += "\n" + f.message + "\n";
    if (f.stack.size() > 1) {
      out += "  stack:\n";
      for (const auto& frame : f.stack) out += "    " + frame + "\n";
    }
  }
  constexpr std::size_t kRows = 10;
  if (!transfers.empty()) {
    out += "\ntransfers (count, bytes, direction, site):\n";
    for (std::size_t i = 0; i < transfers.size() && i < kRows; ++i) {
      const auto& t = transfers[i];
      out += fmt::format("  {:>8}  {:>10}  {:<22} {} ({}{})\n", t.count,
                         sanitizer::format_bytes(t.bytes), t.direction, t.site, t.op,
                         t.synchronizing > 0 ? fmt::format(", {} blocking", t.synchronizing) : "");
    }
    if (transfers.size() > kRows) out += fmt::format("  ... {} more\n", transfers.size() - kRows);
  }
  if (!syncs.empty()) {
    out += "\nsynchronizing ops (count, op, device, site):\n";
    for (std::size_t i = 0; i < syncs.size() && i < kRows; ++i) {
      const auto& s = syncs[i];
      out += fmt::format("  {:>8}  {:<26} {:<8} {}\n", s.count, s.op, s.device, s.site);
    }
    if (syncs.size() > kRows) out += fmt::format("  ... {} more\n", syncs.size() - kRows);
  }
  return out;
}

std::string SanitizerReport::to_json() const {
  using nlohmann::json;
  json j;
  std::uint64_t copies = 0;
  std::uint64_t bytes = 0;
  for (const auto& t : transfers) {
    copies += t.count;
    bytes += t.bytes;
  }
  j["summary"] = {{"findings", findings.size()},
                  {"mismatches", mismatch_count()},
                  {"ops_checked", ops_checked},
                  {"copies", copies},
                  {"copy_bytes", bytes},
                  {"syncs", total_syncs(*this)},
                  {"tensors_tracked", tensors_tracked},
                  {"trace_events_dropped", trace_events_dropped}};
  j["findings"] = json::array();
  for (const auto& f : findings) {
    json jf = {
        {"kind", kind_name(f.kind)}, {"op", f.op},           {"site", f.site}, {"stack", f.stack},
        {"count", f.count},          {"message", f.message}, {"fix", f.fix}};
    if (f.kind == FindingKind::kDeviceMismatch) {
      jf["expected"] = f.expected.str();
      jf["arguments"] = json::array();
      for (const auto& a : f.arguments) {
        jf["arguments"].push_back({{"name", a.name},
                                   {"device", a.device.str()},
                                   {"dtype", a.dtype},
                                   {"shape", a.shape},
                                   {"stray", a.stray},
                                   {"origin_op", a.origin_op},
                                   {"origin", a.origin},
                                   {"derived_from_op", a.derived_from_op},
                                   {"derived_from", a.derived_from}});
      }
    } else {
      jf["direction"] = f.direction;
      jf["bytes"] = f.bytes;
    }
    j["findings"].push_back(std::move(jf));
  }
  j["transfers"] = json::array();
  for (const auto& t : transfers) {
    j["transfers"].push_back({{"op", t.op},
                              {"direction", t.direction},
                              {"site", t.site},
                              {"count", t.count},
                              {"bytes", t.bytes},
                              {"synchronizing", t.synchronizing}});
  }
  j["syncs"] = json::array();
  for (const auto& s : syncs) {
    j["syncs"].push_back(
        {{"op", s.op}, {"site", s.site}, {"device", s.device}, {"count", s.count}});
  }
  return j.dump(2);
}

void SanitizerReport::write_trace(const std::string& path) const {
  sanitizer::write_file_atomically(
      path,
      trace_json.empty() ? std::string("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[]}")
                         : trace_json,
      "sanitizer trace");
}

namespace sanitizer {

void write_file_atomically(const std::string& path, const std::string& body, const char* what) {
  try {
    detail::AtomicOutput out(path, /*overwrite=*/true);
    detail::write_all(out.fd(), body.data(), body.size(), path);
    out.commit();
  } catch (const format::Error&) {
    throw IoError(fmt::format(
        "[devcheck] cannot write the {} {}: expected a writable path\nfix: choose a path in an "
        "existing, writable folder",
        what, path));
  }
}

}  // namespace sanitizer

}  // namespace devcheck
