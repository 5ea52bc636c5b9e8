// load_tensors and load_state_dict: a large uncompressed record becomes its
// file's own pages (mapped copy-on-write); any other storage is read straight
// into tensor memory.
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <c10/core/GradMode.h>
#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join (there from fmt 11 on)
#include <torch/nn/module.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <utility>

#include "checkpoint/format_bridge.h"
#include "checkpoint/load_tuning.h"
#include "checkpoint/mapped_file.h"
#include "detail/compat.h"
#include "detail/names.h"
#include "devcheck/checkpoint.h"
#include "devcheck/device.h"
#include "devcheck/error.h"
#include "format/reader.h"

namespace devcheck {
namespace {

std::optional<c10::ScalarType> scalar_type_of(const std::string& dtype) {
  // Quantized tensors need their scales, which load_tensors does not rebuild.
  const std::optional<c10::ScalarType> type = detail::scalar_type_of(dtype);
  if (type && c10::isQIntType(*type)) return std::nullopt;
  return type;
}

std::string shape_text(c10::IntArrayRef shape) { return detail::shape_str(shape); }

// Records at least this large are mapped rather than copied. Smaller ones are
// copied: a mapping takes whole pages and one of the process's limited count
// of mappings (vm.max_map_count) per storage.
std::atomic<std::uint64_t> map_min{std::uint64_t{1} << 20};
// torch.save starts every record's data at a multiple of 64 bytes; a mapped
// storage keeps that alignment, so any dtype's kernels may use it.
constexpr std::uint64_t kRecordAlignment = 64;
// Mapped records that follow one another in the file are read as one run of
// at most this many bytes: one populate instead of one per record. Large,
// because storages are used in key order, which is not file order (torch.save
// writes records sorted as strings: "0", "1", "10", ...), so small runs are
// read in jumps (docs/checkpoint.md); bounded, because a run is mapped ahead
// of the storages that use it, which matters when they are copied on to a
// device one by one.
constexpr std::uint64_t kRunMax = std::uint64_t{1} << 30;
// Two mapped records stay in one run when at most this many bytes of other
// records lie between them (read along with the run, through the page cache
// that their own reads then hit).
constexpr std::uint64_t kRunGap = std::uint64_t{1} << 20;

// Whether storage `s`'s record can be the storage's memory: stored as it is,
// and large.
bool mappable(const detail::ParsedCheckpoint& cp, std::size_t s) {
  const std::uint64_t nbytes = cp.storages[s].nbytes;
  const detail::ZipRecord* record = cp.sources[s].record;
  return nbytes >= map_min.load(std::memory_order_relaxed) &&
         cp.format != detail::Format::kLegacy && record != nullptr && record->method == 0 &&
         record->compressed_size == nbytes && record->size == nbytes;
}

// The file's own pages for storage `s` when its record is mappable and its
// data 64-byte aligned, with a mapping of its own; else an empty DataPtr (the
// caller copies).
c10::DataPtr map_record(const detail::ParsedCheckpoint& cp, std::size_t s) {
  if (!mappable(cp, s)) return c10::DataPtr(nullptr, c10::Device(c10::kCPU));
  const std::uint64_t start = cp.zip->data_offset(*cp.sources[s].record);
  if (start % kRecordAlignment != 0) return c10::DataPtr(nullptr, c10::Device(c10::kCPU));
  return detail::map_file_range(cp.file.fd(), start, cp.storages[s].nbytes);
}

// The mappable storages of a zip checkpoint, in runs of records that follow
// one another in the file. The first time one storage of a run is needed, the
// run is mapped and read in with one call and every storage of it is cut from
// that mapping. Runs are planned from the central directory alone (a record
// ends where the next one's local header starts), so no header is read before
// the run is: scattered small reads ahead of a long sequential one slow it on
// a cold cache. Anything a run cannot serve (a header that disagrees, data
// outside the run) is left to map_record and its checks.
class MappedRuns {
 public:
  explicit MappedRuns(const detail::ParsedCheckpoint& cp) : cp_(cp) {
    ready_.reserve(cp.storages.size());
    for (std::size_t s = 0; s < cp.storages.size(); ++s) {
      ready_.emplace_back(nullptr, c10::Device(c10::kCPU));
    }
    run_of_.assign(cp.storages.size(), -1);
    if (cp.format == detail::Format::kLegacy || cp.zip == nullptr) return;
    std::vector<std::size_t> order;
    for (std::size_t s = 0; s < cp.storages.size(); ++s) {
      if (mappable(cp, s)) order.push_back(s);
    }
    const auto header_of = [&](std::size_t s) { return cp.sources[s].record->local_header_offset; };
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return header_of(a) < header_of(b); });
    for (const std::size_t s : order) {
      const std::uint64_t begin = header_of(s);
      const std::uint64_t end = cp.zip->record_end(*cp.sources[s].record);
      if (end <= begin) continue;  // no room for it: map_record refuses it
      if (runs_.empty() || begin < runs_.back().end || begin - runs_.back().end > kRunGap ||
          end - runs_.back().begin > kRunMax) {
        runs_.push_back(Run{begin, end, {}, false});
      }
      Run& run = runs_.back();
      run.end = std::max(run.end, end);
      run.storages.push_back(s);
      run_of_[s] = static_cast<int>(runs_.size() - 1);
    }
  }

  // Storage `s`'s bytes cut from its run's mapping; an empty DataPtr when
  // it has no run, the run could not be mapped, or it was taken already.
  c10::DataPtr take(std::size_t s) {
    c10::DataPtr out(nullptr, c10::Device(c10::kCPU));
    if (run_of_[s] < 0) return out;
    Run& run = runs_[static_cast<std::size_t>(run_of_[s])];
    if (!run.mapped) map(run);
    std::swap(out, ready_[s]);
    return out;
  }

 private:
  struct Run {
    std::uint64_t begin;  // the first record's local header
    std::uint64_t end;    // where the record after the last one starts
    std::vector<std::size_t> storages;
    bool mapped;
  };

  void map(Run& run) {
    run.mapped = true;
    const std::shared_ptr<detail::MappedSpan> span =
        detail::MappedSpan::map(cp_.file.fd(), run.begin, run.end - run.begin);
    if (span == nullptr) return;
    for (const std::size_t s : run.storages) {
      std::uint64_t start = 0;
      try {
        start = cp_.zip->data_offset(*cp_.sources[s].record);  // its header is in memory now
      } catch (const std::exception&) {
        continue;  // map_record reads it again and reports it
      }
      if (start % kRecordAlignment != 0) continue;
      ready_[s] = span->slice(start, cp_.storages[s].nbytes);
    }
    span->seal();
  }

  const detail::ParsedCheckpoint& cp_;
  std::vector<Run> runs_;
  std::vector<int> run_of_;          // per storage: its run, -1 when none
  std::vector<c10::DataPtr> ready_;  // per storage: its slice, until taken
};

// The bytes of one storage, on `device`. On another device than the CPU, the
// host bytes are only staging for the copy there.
c10::Storage read_storage(const detail::ParsedCheckpoint& cp, MappedRuns& runs, std::size_t s,
                          c10::Device device) {
  const StorageEntry& st = cp.storages[s];
  const detail::StorageSource& src = cp.sources[s];
  if (device.type() == c10::DeviceType::Meta) {
    return at::empty({static_cast<std::int64_t>(st.nbytes)},
                     at::TensorOptions().dtype(c10::kByte).device(device))
        .storage();
  }
  c10::DataPtr data = runs.take(s);
  if (data.get() == nullptr) data = detail::with_devcheck_errors([&] { return map_record(cp, s); });
  const bool mapped = data.get() != nullptr;
  if (!mapped) data = detail::allocate_host(st.nbytes);
  c10::Storage cpu(c10::Storage::use_byte_size_t(), static_cast<std::int64_t>(st.nbytes),
                   std::move(data), /*allocator=*/nullptr, /*resizable=*/false);
  if (!mapped && st.nbytes > 0) {
    if (cp.format == detail::Format::kLegacy) {
      detail::with_devcheck_errors([&] {
        detail::read_exact(cp.file.fd(), src.legacy_offset, DEVCHECK_STORAGE_MUTABLE_DATA(cpu),
                           st.nbytes, cp.path);
      });
    } else {
      TORCH_INTERNAL_ASSERT(src.record != nullptr, "load: storage without a checked record");
      // Like torch.load (its miniz is built without CRC-32 checks on read), storage data
      // is not CRC-checked: that would double the cost of a load. Sizes and bounds are.
      detail::with_devcheck_errors([&] {
        cp.zip->read_into(*src.record, DEVCHECK_STORAGE_MUTABLE_DATA(cpu), /*check_crc=*/false);
      });
    }
  }
  if (device.is_cpu()) return cpu;
  at::Tensor bytes = at::empty({0}, at::TensorOptions().dtype(c10::kByte));
  bytes.set_(cpu, 0, {static_cast<std::int64_t>(st.nbytes)}, {1});
  return bytes.to(device).storage();
}

}  // namespace

namespace detail {
std::uint64_t map_min_bytes() { return map_min.load(std::memory_order_relaxed); }
void set_map_min_bytes(std::uint64_t bytes) { map_min.store(bytes, std::memory_order_relaxed); }
}  // namespace detail

std::vector<std::pair<std::string, at::Tensor>> load_tensors(const std::string& path,
                                                             const MapLocation& map_location) {
  const auto cp = detail::with_devcheck_errors([&] { return detail::parse_checkpoint(path); });
  for (const auto& f : cp->findings) {
    if (f.severity == Severity::kError) {
      throw UnsafeContentError(
          fmt::format("[devcheck] refusing to load '{}': {}: {}", path, f.code, f.message));
    }
  }
  if (!cp->facts.byteorder.empty() && cp->facts.byteorder != "little") {
    throw FormatError(
        fmt::format("[devcheck] cannot load '{}': its tensors are stored {}-endian; "
                    "devcheck loads little-endian data only",
                    path, cp->facts.byteorder));
  }
  std::vector<std::optional<c10::Storage>> storages(cp->storages.size());
  MappedRuns runs(*cp);
  bool advised = false;
  std::vector<std::pair<std::string, at::Tensor>> out;
  out.reserve(cp->entries.size());
  for (std::size_t i = 0; i < cp->entries.size(); ++i) {
    const TensorEntry& t = cp->entries[i];
    const std::optional<c10::ScalarType> type = scalar_type_of(t.dtype);
    if (!type) {
      throw FormatError(
          fmt::format("[devcheck] cannot load '{}' from '{}': dtype {} is not "
                      "supported by load_tensors (quantized or too new for this "
                      "LibTorch). Fix: convert it in Python (tensor.float())",
                      t.key, path, t.dtype));
    }
    const int s = cp->entry_storage[i];
    const std::string target = map_location.apply(t.device);
    if (!detail::location_available_in_process(target)) {
      throw DeviceUnavailableError(fmt::format(
          "[devcheck] cannot load '{}' from '{}': it was saved on {} and would be created on {}, "
          "which this machine does not have ({} CUDA device(s)). Fix: pass "
          "MapLocation::to(torch::kCPU) (or .map(\"{}\", \"cpu\")), or run devcheck remap {} -o "
          "OUT --to cpu",
          t.key, path, t.device, target, cuda_device_count(), t.device, path));
    }
    const c10::Device device(target);
    const auto options = at::TensorOptions().dtype(*type).device(device);
    at::Tensor tensor;
    if (s < 0 || device.type() == c10::DeviceType::Meta) {
      tensor = at::empty_strided(t.shape, t.stride, options);
    } else {
      auto& storage = storages[static_cast<std::size_t>(s)];
      if (!storage || storage->device() != device) {
        if (!advised) {
          // The records are read front to back (a run of them with one
          // populate, a small one with one pread): a sequential reader, which
          // this advice tells the kernel, doubling the read-ahead window of
          // this open file. POSIX_FADV_WILLNEED would not read the whole
          // file ahead: the kernel caps that advice at one window.
          ::posix_fadvise(cp->file.fd(), 0, 0, POSIX_FADV_SEQUENTIAL);
          advised = true;
        }
        storage = read_storage(*cp, runs, static_cast<std::size_t>(s), device);
      }
      tensor = at::empty({0}, options);
      tensor.set_(*storage, t.storage_offset, t.shape, t.stride);
    }
    if (t.requires_grad && (at::isFloatingType(*type) || at::isComplexType(*type))) {
      tensor.set_requires_grad(true);
    }
    out.emplace_back(t.key, std::move(tensor));
  }
  return out;
}

LoadReport load_state_dict(torch::nn::Module& module, const std::string& path,
                           const LoadOptions& options) {
  const MapLocation staging = options.map_location().is_keep()
                                  ? MapLocation::to(c10::Device(c10::kCPU))
                                  : options.map_location();
  // Matching, the all-or-nothing check and the copy: one implementation
  // (state_dict.cc), shared with the trainer's resume.
  return load_state_dict(module, load_tensors(path, staging), options, path);
}

std::string LoadReport::to_text() const {
  std::string out = fmt::format("{}: {} loaded", path, loaded);
  if (!stripped_prefix.empty()) out += fmt::format(", prefix '{}' stripped", stripped_prefix);
  auto list = [](const std::vector<std::string>& keys) {
    const std::size_t shown = std::min<std::size_t>(keys.size(), 10);
    std::string s = fmt::format(
        "{}", fmt::join(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(shown), ", "));
    if (keys.size() > shown) s += fmt::format(", ... {} more", keys.size() - shown);
    return s;
  };
  if (!missing.empty()) out += fmt::format("; {} missing: {}", missing.size(), list(missing));
  if (!unexpected.empty()) {
    out += fmt::format("; {} unexpected: {}", unexpected.size(), list(unexpected));
  }
  for (const auto& m : mismatched) {
    out += fmt::format("; shape mismatch for '{}': module {}, file {}", m.key,
                       shape_text(m.module_shape), shape_text(m.file_shape));
  }
  return out + "\n";
}

std::string LoadReport::to_json() const {
  nlohmann::json j;
  j["path"] = path;
  j["stripped_prefix"] = stripped_prefix;
  j["loaded"] = loaded;
  j["missing"] = missing;
  j["unexpected"] = unexpected;
  j["mismatched"] = nlohmann::json::array();
  for (const auto& m : mismatched) {
    j["mismatched"].push_back(
        {{"key", m.key}, {"module_shape", m.module_shape}, {"file_shape", m.file_shape}});
  }
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace devcheck
