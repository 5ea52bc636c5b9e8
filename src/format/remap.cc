// remap: rewrite storage locations (and optionally keys and TorchScript code)
// in the pickles, copy every storage record unchanged.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <bitset>
#include <map>
#include <set>

#include "devcheck/format/checkpoint.h"
#include "devcheck/format/error.h"
#include "devcheck/format/units.h"
#include "format/file.h"
#include "format/internal_assert.h"
#include "format/output.h"
#include "format/pickle_edit.h"
#include "format/reader.h"
#include "format/zip_writer.h"

namespace devcheck {
namespace {

using detail::Edit;
using format::DeviceMap;
using format::format_bytes;
using format::FormatError;
using format::RemapOptions;

using detail::ParsedCheckpoint;
using detail::PickleSource;

[[noreturn]] void cannot_rewrite(const ParsedCheckpoint& cp, const PickleSource& src,
                                 const std::string& what) {
  throw FormatError(fmt::format(
      "[devcheck] cannot remap '{}': {} in {} is not pushed by a plain string op, so it cannot "
      "be rewritten without running the pickle. Fix: load and re-save it with torch.load("
      "map_location=...) + torch.save in a trusted environment",
      cp.path, what, src.record.empty() ? "the main pickle" : "record '" + src.record + "'"));
}

// Rewrites one pickle: locations through `map`, keys losing `prefix`, and
// (legacy) six-item persistent ids cut to five. The result uses no op the
// input did not use except BINUNICODE (see string_edits), so what
// torch.load(weights_only=True) read still reads.
std::string rewrite_pickle(const ParsedCheckpoint& cp, std::size_t index, const RemapOptions& o,
                           std::size_t* keys_renamed) {
  const PickleSource& src = cp.pickles[index];
  const detail::Pickle& p = src.pickle;
  const std::string where = fmt::format(
      "'{}' {}", cp.path, src.record.empty() ? "main pickle" : "record '" + src.record + "'");
  std::vector<detail::StringChange> changes;
  std::vector<Edit> edits;
  std::set<std::uint64_t> done;  // one change per op, even when a value is reused
  auto add = [&](const detail::Site& site, std::string value) {
    if (done.insert(site.begin).second) changes.push_back({site, std::move(value)});
  };
  const auto& pid_storage = cp.pid_storage[index];
  std::vector<std::string> expected(p.persistent_ids.size());  // locations after the rewrite
  for (std::size_t i = 0; i < p.persistent_ids.size(); ++i) {
    const int s = pid_storage[i];
    if (s < 0) continue;
    const detail::PersistentId& pid = p.persistent_ids[i];
    const std::string& from = cp.storages[static_cast<std::size_t>(s)].location;
    const std::string to = o.map_location().apply(from);
    expected[i] = to;
    if (to != from) {
      if (!pid.location.valid) cannot_rewrite(cp, src, "the location of storage '" + from + "'");
      add(pid.location, to);
    }
    if (cp.format == detail::Format::kLegacy && p.at(pid.tuple).items.size() == 6) {
      // ('storage', type, key, location, numel, None) -> the zip format's five items.
      const detail::Site& view = pid.view_metadata;
      if (p.at(p.at(pid.tuple).items[5]).kind != detail::NodeKind::kNone ||
          view.end != view.begin + 1) {
        cannot_rewrite(cp, src, "a legacy storage view");
      }
      if (done.insert(view.begin).second) edits.push_back({view.begin, view.end, ""});
    }
  }
  const std::string& prefix = o.strip_prefix();
  if (!prefix.empty()) {
    for (const auto& ks : p.key_sites) {
      const std::string& key = p.at(ks.key).text;
      if (key.size() >= prefix.size() && key.compare(0, prefix.size(), prefix) == 0) {
        if (done.count(ks.site.begin) == 0) ++*keys_renamed;
        add(ks.site, key.substr(prefix.size()));
      }
    }
  }
  if (changes.empty() && edits.empty()) return src.bytes;
  auto more = detail::string_edits(p, changes, where);  // drops FRAMEs if it edits
  if (more.empty()) {
    for (const auto& [begin, end] : p.frames) edits.push_back({begin, end, ""});
  }
  edits.insert(edits.end(), more.begin(), more.end());
  std::string out = detail::apply_edits(src.bytes, std::move(edits));
  // Our own edit must leave a pickle that reads back the same way.
  const detail::Pickle check = detail::scan_pickle(out, "the rewritten pickle");
  DEVCHECK_INTERNAL_ASSERT(check.persistent_ids.size() == p.persistent_ids.size(),
                           "remap: rewritten pickle lost persistent ids");
  std::bitset<256> added = check.opcodes & ~p.opcodes;
  added.reset('X');  // BINUNICODE: the changed strs
  DEVCHECK_INTERNAL_ASSERT(added.none(), "remap: rewritten pickle uses an op its input did not");
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (expected[i].empty()) continue;
    const detail::Node& t = check.at(check.persistent_ids[i].tuple);
    DEVCHECK_INTERNAL_ASSERT(t.items.size() >= 4 && check.at(t.items[3]).text == expected[i],
                             "remap: rewritten pickle has the wrong location for a storage");
  }
  return out;
}

std::string rewrite_code(std::string text, const std::vector<detail::CodeLiteral>& literals,
                         const DeviceMap& map, std::vector<std::string>* log) {
  // Right to left, so earlier offsets stay valid.
  for (auto it = literals.rbegin(); it != literals.rend(); ++it) {
    const std::string to = map.apply(it->literal);
    if (to == it->literal) continue;
    text.replace(it->begin, it->literal.size(), to);
    log->push_back(fmt::format("{}:{}: {} -> {}", it->file, it->line, it->literal, to));
  }
  return text;
}

// Writes the remapped archive to `out`. With `trust_local_headers`, records
// are planned as verbatim from the central directory alone and their local
// headers are checked after the copy: cold, reading one small header per
// record before it scatters cached pages through the file, and the kernel
// copy after them ran at half speed (docs/cli.md). Returns false when a
// trusted header then fails its check: `out` is unusable and the caller
// writes again without trusting.
bool write_zip(const ParsedCheckpoint& cp, const RemapOptions& o, detail::ZipWriter& out,
               RemapReport& report, bool trust_local_headers) {
  std::map<std::string, std::string> replaced;  // record -> new bytes
  std::set<std::string> dropped;
  for (std::size_t i = 0; i < cp.pickles.size(); ++i) {
    std::string bytes = rewrite_pickle(cp, i, o, &report.keys_renamed);
    if (bytes != cp.pickles[i].bytes) replaced[cp.pickles[i].record] = std::move(bytes);
  }
  if (o.rewrite_code()) {
    std::map<std::string, std::vector<detail::CodeLiteral>> by_file;
    for (const auto& lit : cp.code_literals) by_file[lit.record].push_back(lit);
    for (const auto& [record, literals] : by_file) {
      const detail::ZipRecord* r = cp.zip->find(record);
      const std::size_t before = report.code_rewrites.size();
      std::string text = rewrite_code(cp.zip->read(*r, std::uint64_t{64} << 20), literals,
                                      o.map_location(), &report.code_rewrites);
      if (report.code_rewrites.size() == before) continue;
      replaced[record] = std::move(text);
      // Its debug info holds offsets into the old text; it is optional, so drop it.
      dropped.insert(record + ".debug_pkl");
    }
  }
  // In file order, every run of records kept as they are is copied with one
  // kernel copy, headers and all (one copy instead of one per record, as cp
  // does; docs/checkpoint.md has the measurements); a rewritten record before a run
  // is padded so that the run keeps its offset within a page.
  const detail::ZipReader& zip = *cp.zip;
  std::vector<const detail::ZipRecord*> order;
  for (const auto& r : zip.records()) order.push_back(&r);
  std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return a->local_header_offset < b->local_header_offset;
  });
  const auto end_of = [&](std::size_t i) { return zip.record_end(*order[i]); };
  // A record is copied as it is when its local header agrees with the
  // central directory and its data ends before the next record begins.
  const auto header_holds = [&](std::size_t i) {
    const detail::ZipRecord& r = *order[i];
    return zip.local_header_matches(r) && zip.data_offset(r) + r.compressed_size <= end_of(i);
  };
  std::vector<bool> verbatim(order.size(), false);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const detail::ZipRecord& r = *order[i];
    verbatim[i] = dropped.count(r.name) == 0 && replaced.count(r.name) == 0 &&
                  (i == 0 || order[i - 1]->local_header_offset < r.local_header_offset) &&
                  (trust_local_headers || header_holds(i));
  }
  constexpr std::uint64_t kLargeSpan = std::uint64_t{64} << 10;
  for (std::size_t i = 0; i < order.size();) {
    const detail::ZipRecord& r = *order[i];
    if (verbatim[i]) {
      std::vector<const detail::ZipRecord*> run;
      while (i < order.size() && verbatim[i]) run.push_back(order[i++]);
      out.add_span(zip, run, end_of(i - 1));
      continue;
    }
    ++i;
    if (dropped.count(r.name) != 0) continue;
    const auto it = replaced.find(r.name);
    if (it == replaced.end()) {
      out.add_copy(r.name, zip, r);
      continue;
    }
    std::size_t last = i;  // the run that follows, if any
    while (last < order.size() && verbatim[last]) ++last;
    if (last > i && end_of(last - 1) - order[i]->local_header_offset >= kLargeSpan) {
      out.add_ending_at(r.name, it->second, order[i]->local_header_offset);
    } else {
      out.add(r.name, it->second);
    }
  }
  if (trust_local_headers) {
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (verbatim[i] && !header_holds(i)) return false;
    }
  }
  return true;
}

void write_legacy_as_zip(const ParsedCheckpoint& cp, const RemapOptions& o, detail::ZipWriter& out,
                         RemapReport& report) {
  const std::string dir = "archive/";
  out.add(dir + "data.pkl", rewrite_pickle(cp, 0, o, &report.keys_renamed));
  out.add(dir + "byteorder", std::string_view("little"));
  std::string buffer;
  for (std::size_t s = 0; s < cp.storages.size(); ++s) {
    const auto& st = cp.storages[s];
    const auto& src = cp.sources[s];
    out.begin_record(dir + "data/" + st.key, st.nbytes, 0);
    std::uint32_t crc = 0;
    std::uint64_t done = 0;
    while (done < st.nbytes) {
      const std::uint64_t chunk = std::min<std::uint64_t>(st.nbytes - done, 8u << 20);
      buffer.resize(chunk);
      detail::read_exact(cp.file.fd(), src.legacy_offset + done, buffer.data(), chunk, cp.path);
      crc = detail::crc32_of(buffer.data(), chunk, crc);
      out.write_data(buffer.data(), chunk);
      done += chunk;
    }
    out.set_last_crc(crc);
  }
  out.add(dir + "version", std::string_view("3\n"));
  report.converted_from_legacy = true;
}

}  // namespace

RemapReport format::remap(const std::string& input, const std::string& output,
                          const RemapOptions& options) {
  const auto cp = detail::parse_checkpoint(input);
  if (cp->has_errors()) {
    std::vector<std::string> errors;
    for (const auto& f : cp->findings) {
      if (f.severity == Severity::kError) errors.push_back(f.code + ": " + f.message);
    }
    throw UnsafeContentError(fmt::format(
        "[devcheck] refusing to remap '{}': {} unsafe or inconsistent finding(s); first: {}. "
        "Fix: see devcheck inspect {}",
        input, errors.size(), errors.front(), input));
  }
  if (output == input || detail::same_file(input, output)) {
    throw IoError(
        fmt::format("[devcheck] refusing to remap '{}' onto itself: the input is never "
                    "modified. Fix: choose another output path",
                    input));
  }
  RemapReport report;
  report.input = input;
  report.output = output;
  for (std::size_t s = 0; s < cp->storages.size(); ++s) {
    const auto& st = cp->storages[s];
    const std::string to = options.map_location().apply(st.location);
    auto it = std::find_if(report.moves.begin(), report.moves.end(),
                           [&](const auto& m) { return m.from == st.location; });
    if (it == report.moves.end()) {
      report.moves.push_back({st.location, to, 0, 0});
      it = report.moves.end() - 1;
    }
    it->storages += 1;
    it->nbytes += st.nbytes;
  }
  detail::AtomicOutput file(output, options.force());
  const RemapReport planned = report;
  for (const bool trust : {true, false}) {
    detail::ZipWriter writer(file.fd(), output);
    if (cp->format == detail::Format::kLegacy) {
      write_legacy_as_zip(*cp, options, writer, report);
    } else if (!write_zip(*cp, options, writer, report, trust)) {
      // A local header disagrees with the central directory: start again,
      // checking every header before planning its record.
      report = planned;
      file.truncate();
      continue;
    }
    writer.finish();
    report.bytes_written = writer.offset();
    break;
  }
  file.commit();
  return report;
}

std::string RemapReport::to_text() const {
  std::string out =
      fmt::format("remapped {} -> {} ({})\n", input, output, format_bytes(bytes_written));
  for (const auto& m : moves) {
    out += fmt::format("  {} -> {}: {} storage(s), {}{}\n", m.from, m.to, m.storages,
                       format_bytes(m.nbytes), m.from == m.to ? " (unchanged)" : "");
  }
  if (keys_renamed > 0) out += fmt::format("  keys renamed: {}\n", keys_renamed);
  for (const auto& c : code_rewrites) out += fmt::format("  code: {}\n", c);
  if (converted_from_legacy) out += "  converted from the legacy format to the zip format\n";
  return out;
}

std::string RemapReport::to_json() const {
  nlohmann::json j;
  j["input"] = input;
  j["output"] = output;
  j["bytes_written"] = bytes_written;
  j["moves"] = nlohmann::json::array();
  for (const auto& m : moves) {
    j["moves"].push_back(
        {{"from", m.from}, {"to", m.to}, {"storages", m.storages}, {"nbytes", m.nbytes}});
  }
  j["keys_renamed"] = keys_renamed;
  j["code_rewrites"] = code_rewrites;
  j["converted_from_legacy"] = converted_from_legacy;
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace devcheck
