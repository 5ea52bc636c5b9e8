// load_tensors and load_state_dict: storages read straight into tensor memory.
#include <sys/mman.h>

#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <c10/core/CPUAllocator.h>
#include <c10/core/GradMode.h>
#include <fmt/format.h>
#include <torch/nn/module.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <map>

#include "checkpoint/format_bridge.h"
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

// Host memory for a storage of `nbytes`. A large one gets its own mapping,
// aligned to 2 MiB and marked for transparent huge pages: reading a checkpoint
// into fresh memory is dominated by page faults, and a huge page takes one
// fault where 4 KiB pages take 512 (on this project's CI VM, 1 GB read in
// 0.13 s instead of 3.4 s). Where the kernel has no huge pages the mapping is
// still correct, only not faster; where mmap fails, LibTorch's allocator.
constexpr std::size_t kHugePage = std::size_t{2} << 20;

struct HostMapping {
  void* data;
  std::size_t length;
};

void unmap_host(void* ctx) {
  auto* mapping = static_cast<HostMapping*>(ctx);
  ::munmap(mapping->data, mapping->length);
  delete mapping;
}

c10::DataPtr allocate_host(std::size_t nbytes) {
  if (nbytes < kHugePage) return c10::GetCPUAllocator()->allocate(nbytes);
  const std::size_t length = (nbytes + kHugePage - 1) / kHugePage * kHugePage;
  void* raw = ::mmap(nullptr, length + kHugePage, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return c10::GetCPUAllocator()->allocate(nbytes);
  // Keep only the aligned span: unmap the head before it and the tail after it.
  auto* base = static_cast<char*>(raw);
  const auto address = reinterpret_cast<std::uintptr_t>(raw);
  const std::size_t head = (kHugePage - address % kHugePage) % kHugePage;
  char* data = base + head;
  if (head > 0) ::munmap(base, head);
  ::munmap(data + length, kHugePage - head);  // head < kHugePage: a tail is always left
#ifdef MADV_HUGEPAGE
  ::madvise(data, length, MADV_HUGEPAGE);  // advice only: no huge pages is not an error
#endif
  return c10::DataPtr(data, new HostMapping{data, length}, &unmap_host, c10::Device(c10::kCPU));
}

// The bytes of one storage, on `device`.
c10::Storage read_storage(const detail::ParsedCheckpoint& cp, std::size_t s, c10::Device device) {
  const StorageEntry& st = cp.storages[s];
  const detail::StorageSource& src = cp.sources[s];
  if (device.type() == c10::DeviceType::Meta) {
    return at::empty({static_cast<std::int64_t>(st.nbytes)},
                     at::TensorOptions().dtype(c10::kByte).device(device))
        .storage();
  }
  c10::Storage cpu(c10::Storage::use_byte_size_t(), static_cast<std::int64_t>(st.nbytes),
                   allocate_host(st.nbytes), /*allocator=*/nullptr, /*resizable=*/false);
  if (st.nbytes > 0) {
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
        storage = read_storage(*cp, static_cast<std::size_t>(s), device);
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
  auto tensors = load_tensors(path, staging);
  LoadReport report;
  report.path = path;
  if (options.strip_prefix()) {
    report.stripped_prefix = *options.strip_prefix();
  } else if (!tensors.empty() && std::all_of(tensors.begin(), tensors.end(), [](const auto& kv) {
               return kv.first.rfind("module.", 0) == 0;
             })) {
    report.stripped_prefix = "module.";
  }
  const std::string& prefix = report.stripped_prefix;
  std::map<std::string, at::Tensor> targets;
  std::vector<std::string> order;
  for (const auto& item : module.named_parameters(/*recurse=*/true)) {
    targets[item.key()] = item.value();
    order.push_back(item.key());
  }
  for (const auto& item : module.named_buffers(/*recurse=*/true)) {
    if (!item.value().defined()) continue;
    targets[item.key()] = item.value();
    order.push_back(item.key());
  }
  std::map<std::string, const at::Tensor*> found;
  for (const auto& [raw_key, tensor] : tensors) {
    std::string key = raw_key;
    if (!prefix.empty() && key.rfind(prefix, 0) == 0) key = key.substr(prefix.size());
    const auto it = targets.find(key);
    if (it == targets.end()) {
      report.unexpected.push_back(key);
      continue;
    }
    if (it->second.sizes() != tensor.sizes()) {
      report.mismatched.push_back({key, it->second.sizes().vec(), tensor.sizes().vec()});
      continue;
    }
    found[key] = &tensor;
  }
  for (const auto& key : order) {
    const bool mismatched = std::any_of(report.mismatched.begin(), report.mismatched.end(),
                                        [&](const auto& m) { return m.key == key; });
    if (found.count(key) == 0 && !mismatched) report.missing.push_back(key);
  }
  if (options.strict() && !report.ok()) {
    throw InvalidArgumentError(fmt::format(
        "[devcheck] load_state_dict: '{}' does not match the module ({}). Nothing was loaded. "
        "Fix: pass LoadOptions().strict(false) to load the keys that match, or set strip_prefix",
        path, report.to_text().substr(0, report.to_text().size() - 1)));
  }
  c10::AutoGradMode no_grad(false);
  for (const auto& [key, tensor] : found) {
    targets[key].copy_(*tensor);
    ++report.loaded;
  }
  return report;
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
