// Format detection, the zip and legacy layouts, record checks and findings.
#include "format/reader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join (there from fmt 11 on)

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "devcheck/format/device_name.h"
#include "devcheck/format/error.h"

namespace devcheck::detail {
namespace {

constexpr std::uint64_t kMaxPickleBytes = std::uint64_t{1} << 31;
constexpr std::uint64_t kMaxCodeBytes = std::uint64_t{64} << 20;
// The first pickle of a legacy file: torch.serialization's MAGIC_NUMBER.
constexpr const char* kLegacyMagicHex = "1950a86a20f9469cfc6c";

[[noreturn]] void not_a_checkpoint(const std::string& path, const std::string& problem) {
  throw format::FormatError(fmt::format(
      "[devcheck] cannot read '{}': {}; expected a torch.save checkpoint or TorchScript archive. "
      "Fix: check the path, or that the file was written by torch.save / torch.jit.save",
      path, problem));
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

Pickle scan_record_pickle(const std::string& path, const std::string& record,
                          const std::string& bytes) {
  try {
    return scan_pickle(bytes, fmt::format("'{}' record '{}'", path, record));
  } catch (const PickleTruncated& t) {
    not_a_checkpoint(
        path, fmt::format("record '{}' ends inside its pickle (at byte {})", record, t.offset));
  }
}

void parse_zip(ParsedCheckpoint& cp) {
  cp.zip = std::make_unique<ZipReader>(cp.file.fd(), cp.file_size, cp.path);
  const ZipReader& zip = *cp.zip;
  if (zip.records().empty()) not_a_checkpoint(cp.path, "the zip archive is empty");
  const std::string& first = zip.records().front().name;
  const std::size_t slash = first.find('/');
  if (slash == std::string::npos) {
    not_a_checkpoint(cp.path,
                     fmt::format("zip record '{}' is not inside an archive folder", first));
  }
  cp.archive_dir = first.substr(0, slash + 1);
  const std::string& dir = cp.archive_dir;
  const ZipRecord* data = zip.find(dir + "data.pkl");
  if (data == nullptr) {
    not_a_checkpoint(cp.path, fmt::format("it is a zip archive without '{}data.pkl'", dir));
  }
  const ZipRecord* constants = zip.find(dir + "constants.pkl");
  bool has_code = false;
  for (const auto& r : zip.records()) {
    if (r.name.rfind(dir + "code/", 0) == 0) has_code = true;
  }
  cp.format = (constants != nullptr || has_code) ? Format::kTorchScript : Format::kZip;
  cp.facts.kind = cp.format == Format::kZip ? "zip" : "torchscript";
  cp.facts.description = cp.format == Format::kZip ? "torch.save zip archive (PyTorch >= 1.6)"
                                                   : "TorchScript archive (torch.jit.save)";
  cp.facts.archive = dir.substr(0, dir.size() - 1);
  cp.facts.records = zip.records().size();
  for (const char* name : {"version", ".data/version"}) {
    if (const ZipRecord* v = zip.find(dir + name)) {
      cp.facts.version = trim(zip.read(*v, 64));
      break;
    }
  }
  if (cp.facts.version.empty()) {
    cp.findings.push_back({"missing-version", Severity::kWarning,
                           fmt::format("'{}' has no '{}version' record; torch.load will refuse "
                                       "it. Fix: devcheck remap writes one",
                                       cp.path, dir)});
  }
  if (const ZipRecord* b = zip.find(dir + "byteorder")) {
    cp.facts.byteorder = trim(zip.read(*b, 64));
    if (cp.facts.byteorder != "little") {
      cp.findings.push_back({"byteorder", Severity::kWarning,
                             fmt::format("'{}' stores tensors {}-endian; devcheck loads only "
                                         "little-endian data (remap still copies it unchanged)",
                                         cp.path, cp.facts.byteorder)});
    }
  }
  PickleSource main;
  main.record = data->name;
  main.tensor_dir = dir + "data/";
  main.bytes = zip.read(*data, kMaxPickleBytes);
  main.pickle = scan_record_pickle(cp.path, main.record, main.bytes);
  cp.facts.pickle_protocol = main.pickle.protocol;
  cp.pickles.push_back(std::move(main));
  if (constants != nullptr) {
    PickleSource c;
    c.record = constants->name;
    c.tensor_dir = dir + "constants/";
    c.bytes = zip.read(*constants, kMaxPickleBytes);
    c.pickle = scan_record_pickle(cp.path, c.record, c.bytes);
    cp.pickles.push_back(std::move(c));
  }
  interpret_pickle(cp, 0, "");
  if (cp.pickles.size() > 1) interpret_pickle(cp, 1, "constants");
  for (std::size_t s = 0; s < cp.storages.size(); ++s) {
    StorageEntry& st = cp.storages[s];
    const ZipRecord* r = zip.find(st.record);
    if (r == nullptr) {
      cp.findings.push_back(
          {"missing-record", Severity::kError,
           fmt::format("'{}': storage '{}' ({} on {}) has no record '{}'; "
                       "torch.load would fail. Fix: the file is incomplete; "
                       "re-save it",
                       cp.path, st.key, st.storage_type, st.location, st.record)});
      continue;
    }
    if (r->size != st.nbytes) {
      cp.findings.push_back(
          {"size-mismatch", Severity::kError,
           fmt::format("'{}': storage '{}' declares {} elements ({}, {} bytes) but record '{}' "
                       "holds {} bytes; loading it would read past the record (torch before "
                       "2.10 did not check this: CVE-2026-24747). Fix: the file is corrupt or "
                       "crafted; do not load it",
                       cp.path, st.key, st.numel, st.storage_type, st.nbytes, r->name, r->size)});
      continue;
    }
    cp.sources[s].record = r;
  }
  for (const auto& r : zip.records()) {
    if (r.name.rfind(dir + "code/", 0) != 0 || r.name.size() < 3 ||
        r.name.compare(r.name.size() - 3, 3, ".py") != 0) {
      continue;
    }
    const std::string text = zip.read(r, kMaxCodeBytes);
    auto found = find_device_literals(r.name, r.name.substr(dir.size()), text);
    cp.code_literals.insert(cp.code_literals.end(), found.begin(), found.end());
  }
}

void parse_legacy(ParsedCheckpoint& cp) {
  cp.format = Format::kLegacy;
  cp.facts.kind = "legacy";
  cp.facts.description =
      "legacy torch.save file (PyTorch < 1.6, or _use_new_zipfile_serialization=False)";
  std::uint64_t window = std::min<std::uint64_t>(cp.file_size, 1 << 20);
  for (;;) {
    std::string bytes(window, '\0');
    read_exact(cp.file.fd(), 0, bytes.data(), window, cp.path);
    const std::string where = fmt::format("'{}'", cp.path);
    try {
      const Pickle magic = scan_pickle(bytes, where, 0);
      const Node& m = magic.at(magic.root);
      if (m.kind != NodeKind::kBigInt || m.text != kLegacyMagicHex) {
        not_a_checkpoint(cp.path,
                         "it is a pickle without torch.save's magic number (a plain "
                         "pickle, not a torch.save file)");
      }
      const Pickle protocol = scan_pickle(bytes, where, magic.end);
      const Node& pv = protocol.at(protocol.root);
      if (pv.kind != NodeKind::kInt || pv.integer != 1001) {
        not_a_checkpoint(cp.path, "its legacy protocol version is not 1001");
      }
      cp.facts.version = "1001";
      const Pickle sys_info = scan_pickle(bytes, where, protocol.end);
      const Pickle main = scan_pickle(bytes, where, sys_info.end);
      const Pickle keys = scan_pickle(bytes, where, main.end);
      const Node& info = sys_info.at(sys_info.root);
      for (const auto& [k, v] : info.pairs) {
        if (sys_info.at(k).text == "little_endian" && sys_info.at(v).kind == NodeKind::kBool &&
            !sys_info.at(v).boolean) {
          cp.facts.byteorder = "big";
        }
      }
      if (cp.facts.byteorder.empty()) cp.facts.byteorder = "little";
      PickleSource src;
      src.bytes = bytes.substr(sys_info.end, main.end - sys_info.end);
      src.pickle = scan_pickle(src.bytes, where, 0);
      cp.facts.pickle_protocol = src.pickle.protocol;
      cp.pickles.push_back(std::move(src));
      interpret_pickle(cp, 0, "");
      // Storage data follows the key list, in its order: an int64 count, then the bytes.
      const Node& list = keys.at(keys.root);
      if (list.kind != NodeKind::kList)
        not_a_checkpoint(cp.path, "its storage key list is missing");
      std::uint64_t offset = keys.end;
      std::map<std::string, std::size_t> index;
      for (std::size_t s = 0; s < cp.storages.size(); ++s) index[cp.storages[s].key] = s;
      std::set<std::string> seen;
      for (const std::uint32_t item : list.items) {
        const Node& key = keys.at(item);
        if (key.kind != NodeKind::kString)
          not_a_checkpoint(cp.path, "a storage key is not a string");
        unsigned char count_bytes[8];
        read_exact(cp.file.fd(), offset, count_bytes, 8, cp.path);
        std::uint64_t count = 0;
        for (int i = 7; i >= 0; --i) count = (count << 8) | count_bytes[i];
        offset += 8;
        const auto it = index.find(key.text);
        if (it == index.end() || !seen.insert(key.text).second) {
          not_a_checkpoint(cp.path, fmt::format("storage '{}' is stored but never used", key.text));
        }
        StorageEntry& st = cp.storages[it->second];
        StorageSource& source = cp.sources[it->second];
        std::uint64_t nbytes = 0;
        if (__builtin_mul_overflow(count, static_cast<std::uint64_t>(source.element_size),
                                   &nbytes) ||
            nbytes > cp.file_size || offset > cp.file_size - nbytes) {
          not_a_checkpoint(cp.path, fmt::format("storage '{}' ({} elements) runs past the end "
                                                "of the file (truncated?)",
                                                key.text, count));
        }
        if (count != st.numel) {
          cp.findings.push_back(
              {"size-mismatch", Severity::kError,
               fmt::format("'{}': storage '{}' declares {} elements but its data holds {}; "
                           "loading it would read past the data. Fix: the file is corrupt or "
                           "crafted; do not load it",
                           cp.path, st.key, st.numel, count)});
        }
        source.legacy_offset = offset;
        offset += nbytes;
      }
      for (const auto& st : cp.storages) {
        if (seen.count(st.key) == 0) {
          cp.findings.push_back(
              {"missing-record", Severity::kError,
               fmt::format("'{}': storage '{}' has no data in the file", cp.path, st.key)});
        }
      }
      cp.facts.records = seen.size();
      for (const auto& pid : cp.pickles[0].pickle.persistent_ids) {
        const Node& t = cp.pickles[0].pickle.at(pid.tuple);
        if (t.kind == NodeKind::kTuple && t.items.size() == 6 &&
            cp.pickles[0].pickle.at(t.items[5]).kind != NodeKind::kNone) {
          cp.findings.push_back({"legacy-storage-view", Severity::kError,
                                 fmt::format("'{}' uses a storage view (PyTorch < 0.4); devcheck "
                                             "does not read those",
                                             cp.path)});
          break;
        }
      }
      return;
    } catch (const PickleTruncated&) {
      if (window == cp.file_size)
        not_a_checkpoint(cp.path, "the file ends inside a pickle (truncated)");
      window = std::min<std::uint64_t>(cp.file_size, window * 4);
    }
  }
}

std::string remap_hint(const std::string& path, const std::string& target) {
  const std::filesystem::path p(path);
  std::string tag = target;
  std::replace(tag.begin(), tag.end(), ':', '_');
  const std::filesystem::path out =
      p.parent_path() / (p.stem().string() + "-" + tag + p.extension().string());
  return fmt::format("devcheck remap {} -o {} --to {}", path, out.string(), target);
}

void add_summary_findings(ParsedCheckpoint& cp) {
  std::map<int, std::size_t> per_storage;
  for (const int s : cp.entry_storage) {
    if (s >= 0) ++per_storage[s];
  }
  for (std::size_t i = 0; i < cp.entries.size(); ++i) {
    TensorEntry& t = cp.entries[i];
    const int s = cp.entry_storage[i];
    if (s < 0) continue;
    t.shares_storage = per_storage[s] > 1;
    bool contiguous = true;
    std::int64_t expected = 1;
    for (std::size_t d = t.shape.size(); d > 0; --d) {
      if (t.shape[d - 1] != 1 && t.stride[d - 1] != expected) contiguous = false;
      expected *= t.shape[d - 1];
    }
    t.view = t.storage_offset != 0 || !contiguous ||
             t.nbytes != cp.storages[static_cast<std::size_t>(s)].nbytes;
  }
  std::vector<std::string> locations;
  for (const auto& st : cp.storages) {
    if (std::find(locations.begin(), locations.end(), st.location) == locations.end()) {
      locations.push_back(st.location);
    }
  }
  const int cuda_devices = format::driver_cuda_device_count();
  const std::string target = cuda_devices > 0 ? "cuda:0" : "cpu";
  for (const auto& loc : locations) {
    if (location_available(loc)) continue;
    std::size_t n = 0;
    for (const auto& st : cp.storages) n += st.location == loc ? 1 : 0;
    cp.findings.push_back(
        {"device-unavailable", Severity::kWarning,
         fmt::format("{} storage(s) were saved on {}, which this machine does not have ({} CUDA "
                     "device(s)); torch.load without map_location fails here. Fix: {}",
                     n, loc, cuda_devices, remap_hint(cp.path, target))});
  }
  if (locations.size() > 1) {
    cp.findings.push_back({"mixed-devices", Severity::kWarning,
                           fmt::format("tensors were saved on {} devices ({}); a module loaded "
                                       "as is would have parameters on different devices. Fix: "
                                       "remap --to one device",
                                       locations.size(), fmt::join(locations, ", "))});
  }
  const bool all_prefixed =
      !cp.entries.empty() && std::all_of(cp.entries.begin(), cp.entries.end(), [](const auto& t) {
        return t.key.rfind("module.", 0) == 0;
      });
  if (all_prefixed) {
    cp.findings.push_back({"module-prefix", Severity::kInfo,
                           fmt::format("every key starts with 'module.' (saved from "
                                       "DataParallel / DistributedDataParallel); a plain module "
                                       "will not match. Fix: devcheck remap {} -o OUT "
                                       "--strip-prefix module. (load_state_dict strips it "
                                       "automatically)",
                                       cp.path)});
  }
  for (const auto& lit : cp.code_literals) {
    const bool here = location_available(lit.literal);
    cp.findings.push_back(
        {"code-device-literal", here ? Severity::kInfo : Severity::kWarning,
         fmt::format("{}:{}: device literal \"{}\" is baked into the TorchScript code{}. Fix: "
                     "devcheck remap {} -o OUT --to {} --rewrite-code",
                     lit.file, lit.line, lit.literal,
                     here ? "" : " and this machine does not have that device", cp.path, target)});
  }
  if (cp.format == Format::kLegacy) {
    cp.findings.push_back({"legacy-format", Severity::kInfo,
                           fmt::format("'{}' uses the legacy pre-1.6 format; devcheck reads it, "
                                       "and remap writes the zip format",
                                       cp.path)});
  }
}

}  // namespace

std::shared_ptr<ParsedCheckpoint> parse_checkpoint(const std::string& path) {
  auto cp = std::make_shared<ParsedCheckpoint>();
  cp->path = path;
  cp->file = File::open_read(path);
  cp->file_size = cp->file.size(path);
  cp->facts.file_bytes = cp->file_size;
  if (cp->file_size == 0) not_a_checkpoint(path, "the file is empty");
  unsigned char head[8] = {0};
  read_exact(cp->file.fd(), 0, head, std::min<std::uint64_t>(8, cp->file_size), path);
  if (ZipReader::looks_like_zip(cp->file.fd(), cp->file_size)) {
    parse_zip(*cp);
  } else if (head[0] == 0x80 && cp->file_size >= 2 && head[1] <= 5) {
    parse_legacy(*cp);
  } else {
    if (cp->file_size > 262) {
      char magic[6] = {0};
      read_exact(cp->file.fd(), 257, magic, 5, path);
      if (std::string(magic) == "ustar") {
        not_a_checkpoint(path,
                         "it is a tar file (the PyTorch < 0.4 format), which devcheck "
                         "does not read");
      }
    }
    not_a_checkpoint(path, fmt::format("it starts with bytes {:02x} {:02x} {:02x} {:02x}, "
                                       "neither a zip archive nor a pickle",
                                       head[0], head[1], head[2], head[3]));
  }
  add_summary_findings(*cp);
  return cp;
}

}  // namespace devcheck::detail

namespace devcheck::detail {

bool ParsedCheckpoint::has_errors() const {
  return std::any_of(findings.begin(), findings.end(),
                     [](const Finding& f) { return f.severity == Severity::kError; });
}

}  // namespace devcheck::detail
