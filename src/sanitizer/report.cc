#include "sanitizer/report.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "detail/mismatch.h"
#include "detail/names.h"
#include "sanitizer/symbolize.h"

namespace devcheck::sanitizer {
namespace {

std::string direction(c10::Device src, c10::Device dst, bool pinned) {
  return pinned ? src.str() + " -> " + dst.str() + " (pinned)" : src.str() + " -> " + dst.str();
}

// Symbolizes each site once per report.
class SiteNames {
 public:
  const SiteText& get(SiteId id) {
    auto it = cache_.find(id);
    if (it == cache_.end()) it = cache_.emplace(id, describe_site(id)).first;
    return it->second;
  }
  std::string location(SiteId id) {
    const auto& text = get(id);
    if (!text.location.empty()) return text.location;
    return id == kSiteOverflow ? "(site table full)" : "(unknown site)";
  }

 private:
  std::map<SiteId, SiteText> cache_;
};

SanitizerFinding mismatch_finding(const MismatchRecord& r, SiteNames& names) {
  SanitizerFinding f;
  f.kind = FindingKind::kDeviceMismatch;
  f.op = r.op;
  f.site = names.location(r.site);
  f.stack = names.get(r.site).stack;
  f.count = r.count;
  f.expected = r.expected;
  // The table, the strays and the fix: the ones check_same_device() gives.
  detail::DeviceTally counts;
  std::vector<detail::MismatchRow> rows;
  std::string stray_origin;
  for (const auto& a : r.args) {
    SanitizerArgument arg;
    arg.name = a.name;
    arg.device = a.device;
    arg.dtype = detail::dtype_name(a.dtype);
    arg.shape = a.shape;
    arg.stray = a.stray;
    if (a.origin_known) {
      arg.origin_op = a.origin.op != nullptr ? a.origin.op : "";
      arg.origin = a.origin.site == kNoSite ? "" : names.location(a.origin.site);
      arg.derived_from_op = a.origin.from_op != nullptr ? a.origin.from_op : "";
      arg.derived_from = a.origin.from_site == kNoSite ? "" : names.location(a.origin.from_site);
    }
    if (!detail::wrapped_scalar(a.device, a.shape.size())) counts.add(a.device);
    std::string origin =
        "origin unknown (not made by a factory or transfer, nor from one such tensor, while "
        "watched)";
    if (!arg.origin_op.empty()) {
      origin = "made by " + arg.origin_op + (arg.origin.empty() ? "" : " at " + arg.origin);
      if (!arg.derived_from_op.empty()) {
        origin += " from " + arg.derived_from_op +
                  (arg.derived_from.empty() ? "" : " at " + arg.derived_from);
      }
    }
    if (a.stray && stray_origin.empty() && !arg.origin.empty()) {
      stray_origin = arg.origin;
      if (!arg.derived_from.empty() && arg.derived_from != arg.origin) {
        stray_origin += ", from " + arg.derived_from;
      }
    }
    rows.push_back(detail::MismatchRow{a.name, true, a.device, a.dtype, a.shape, origin});
    f.arguments.push_back(std::move(arg));
  }
  const detail::MismatchText text = detail::describe_mismatch(rows, r.expected, stray_origin);
  f.message = fmt::format(
      "[devcheck] device mismatch in {} at {} ({} time{}): expected every tensor on {}, found {}{}",
      r.op, f.site, r.count, r.count == 1 ? "" : "s", r.expected.str(), counts.found_text(),
      text.table);
  f.fix = text.fix;
  f.message += "\nfix: " + f.fix;
  return f;
}

SanitizerFinding copy_finding(const TransferKey& key, const TransferEntry& e, SiteNames& names) {
  SanitizerFinding f;
  f.kind = FindingKind::kSmallCopies;
  f.op = key.op != nullptr ? key.op : "";
  f.site = names.location(key.site);
  f.stack = names.get(key.site).stack;
  f.count = e.count;
  f.bytes = e.bytes;
  f.direction = direction(key.src, key.dst, key.pinned);
  f.expected = key.dst;
  const std::uint64_t each = e.count == 0 ? 0 : e.bytes / e.count;
  f.message = fmt::format(
      "[devcheck] many small copies: {} {} copies of {} each ({} total) from {} ({}), {} of them "
      "pieces of the same tensors within one step",
      e.count, f.direction, format_bytes(each), format_bytes(e.bytes), f.site, f.op, e.flood);
  f.fix = fmt::format(
      "stack them and copy once: collect the samples on the host, then one "
      "torch::stack(samples).to({}) (Python: torch.stack(samples).to(device)) per batch; or "
      "create them on {} in the first place",
      key.dst.str(), key.dst.str());
  f.message += "\nfix: " + f.fix;
  return f;
}

std::vector<std::pair<SanitizerFinding, SiteId>> copy_findings(const Engine& engine,
                                                               SiteNames& names) {
  std::vector<std::pair<SanitizerFinding, SiteId>> out;
  const std::uint64_t min_count = engine.settings().small_copy_count();
  for (const auto& [key, entry] : engine.ledger.transfers()) {
    if (!key.pinned && is_small_copy_finding(entry, min_count)) {
      out.emplace_back(copy_finding(key, entry, names), key.site);
    }
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.first.count > b.first.count; });
  return out;
}

std::string trace_json(const Engine& engine, SiteNames& names, std::uint64_t* dropped) {
  const auto events = engine.ledger.events(dropped);
  if (!engine.settings().trace()) return {};
  const long pid = static_cast<long>(getpid());
  std::string out = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[";
  out += fmt::format(
      "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"tid\":0,\"args\":{{\"name\":"
      "\"devcheck sanitizer (pid {})\"}}}}",
      pid, pid);
  std::map<std::uint64_t, int> tids;
  for (const auto& ev : events) {
    const int tid = tids.emplace(ev.tid, static_cast<int>(tids.size()) + 1).first->second;
    const std::string site = names.location(ev.site);
    std::string escaped;
    for (char c : site) {
      if (c == '"' || c == '\\') escaped += '\\';
      escaped += c;
    }
    out += fmt::format(
        ",{{\"name\":\"{}\",\"cat\":\"{}\",\"ph\":\"X\",\"ts\":{:.3f},\"dur\":{:.3f},\"pid\":{},"
        "\"tid\":{},\"args\":{{\"bytes\":{},\"direction\":\"{}\",\"site\":\"{}\"}}}}",
        ev.name, ev.category, ev.ts_us, std::max(ev.dur_us, 0.001), pid, tid, ev.bytes,
        direction(ev.src, ev.dst, false), escaped);
  }
  out += "]}";
  return out;
}

}  // namespace

SanitizerFinding make_mismatch_finding(const MismatchRecord& record) {
  SiteNames names;
  return mismatch_finding(record, names);
}

std::vector<std::pair<SanitizerFinding, SiteId>> make_copy_findings(const Engine& engine) {
  SiteNames names;
  return copy_findings(engine, names);
}

SanitizerReport build_report(const Engine& engine) {
  flush_op_count();
  SiteNames names;
  SanitizerReport report;
  for (const auto& r : engine.mismatches()) report.findings.push_back(mismatch_finding(r, names));
  for (auto& [finding, site] : copy_findings(engine, names)) {
    report.findings.push_back(std::move(finding));
  }
  // Merge ledger rows that symbolize to the same place (one line, two stacks).
  std::map<std::tuple<std::string, std::string, std::string>, TransferStat> transfers;
  for (const auto& [key, e] : engine.ledger.transfers()) {
    TransferStat s;
    s.op = key.op != nullptr ? key.op : "";
    s.direction = direction(key.src, key.dst, key.pinned);
    s.site = names.location(key.site);
    auto& row = transfers.try_emplace({s.op, s.direction, s.site}, s).first->second;
    row.count += e.count;
    row.bytes += e.bytes;
    row.synchronizing += e.synchronizing;
  }
  for (auto& [k, s] : transfers) report.transfers.push_back(std::move(s));
  std::sort(report.transfers.begin(), report.transfers.end(),
            [](const auto& a, const auto& b) { return a.count > b.count; });
  std::map<std::tuple<std::string, std::string, std::string>, SyncStat> syncs;
  for (const auto& [key, count] : engine.ledger.syncs()) {
    SyncStat s;
    s.op = key.op != nullptr ? key.op : "";
    s.site = names.location(key.site);
    s.device = key.device.str();
    syncs.try_emplace({s.op, s.site, s.device}, s).first->second.count += count;
  }
  for (auto& [k, s] : syncs) report.syncs.push_back(std::move(s));
  std::sort(report.syncs.begin(), report.syncs.end(),
            [](const auto& a, const auto& b) { return a.count > b.count; });
  report.ops_checked = engine.ops_checked.load();
  report.tensors_tracked = engine.provenance.size();
  report.trace_json = trace_json(engine, names, &report.trace_events_dropped);
  return report;
}

}  // namespace devcheck::sanitizer
