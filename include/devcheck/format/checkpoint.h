#pragma once
/// The checkpoint format layer without LibTorch (devcheck::format): read any
/// torch.save checkpoint (zip and legacy formats) or TorchScript archive, show
/// where its tensors were saved, and remap their devices offline, without
/// running pickle code. `devcheck inspect` and `devcheck remap` are built on
/// this alone; devcheck/checkpoint.h adds loading into tensors (LibTorch).
///
/// Errors: format::FormatError (unreadable file), format::UnsafeContentError
/// (refused content), format::IoError (file system), format::InvalidArgumentError
/// (bad option), each naming the file (devcheck/format/error.h).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "devcheck/export.h"
#include "devcheck/format/device_name.h"

namespace devcheck {

namespace detail {
struct ParsedCheckpoint;
}  // namespace detail

/// How bad a finding is. kError findings make inspect exit 1 and remap refuse.
enum class Severity { kInfo, kWarning, kError };

/// "info", "warning", "error".
DEVCHECK_API std::string severity_name(Severity severity);

/// One fact worth reporting about a checkpoint.
struct DEVCHECK_API Finding {
  std::string code;  ///< Stable identifier: "unsafe-global", "device-unavailable", ...
  Severity severity = Severity::kInfo;
  std::string message;  ///< One sentence naming the object, the devices and the fix.
};

/// One tensor of a checkpoint, as saved. Value type.
struct DEVCHECK_API TensorEntry {
  std::string key;    ///< Flattened: "optimizer.state.0.exp_avg" (list indices as numbers).
  std::string dtype;  ///< PyTorch's name: "float32", "bfloat16", "complex64".
  std::int64_t element_size = 0;  ///< In bytes.
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> stride;  ///< In elements.
  std::int64_t storage_offset = 0;   ///< In elements.
  std::string device;  ///< The location it was saved on: "cpu", "cuda:1"; "meta" for data-less.
  std::uint64_t nbytes = 0;  ///< numel × element size, in bytes.
  std::string storage;       ///< Storage key ("0" for record data/0); empty for data-less tensors.
  bool requires_grad = false;
  bool parameter = false;       ///< Saved as an nn.Parameter.
  bool view = false;            ///< Covers only part of its storage, or is not contiguous.
  bool shares_storage = false;  ///< Another entry uses the same storage.
};

/// One storage record. Value type.
struct DEVCHECK_API StorageEntry {
  std::string key;           ///< As in the persistent id ("0"; legacy: a number).
  std::string record;        ///< Zip record name ("archive/data/0"); empty for legacy files.
  std::string storage_type;  ///< "FloatStorage", "UntypedStorage", ...
  std::string location;      ///< "cpu", "cuda:1".
  std::uint64_t numel = 0;   ///< Elements of storage_type (bytes for UntypedStorage).
  std::uint64_t nbytes = 0;  ///< In bytes.
};

/// Totals for one saved location.
struct DEVCHECK_API DeviceTotal {
  std::string device;  ///< The saved location, "cuda:1".
  std::size_t tensors = 0;
  std::size_t storages = 0;
  std::uint64_t nbytes = 0;  ///< Bytes of its storages.
  bool available = false;    ///< This machine has that device.
};

/// Format and version facts.
struct DEVCHECK_API FormatFacts {
  std::string kind;         ///< "zip", "torchscript" or "legacy".
  std::string description;  ///< "torch.save zip archive (PyTorch >= 1.6)", ...
  std::string archive;      ///< The zip's top folder ("model"); empty for legacy.
  std::string version;      ///< The `version` record ("3"); legacy: the protocol version.
  std::string byteorder;    ///< "little" (2.x writes it); empty when absent.
  int pickle_protocol = 0;
  std::size_t records = 0;  ///< Zip records (legacy: storages).
  std::uint64_t file_bytes = 0;
};

/// What remap() did.
struct DEVCHECK_API RemapReport {
  struct Move {
    std::string from, to;
    std::size_t storages = 0;
    std::uint64_t nbytes = 0;
  };
  std::string input, output;
  std::vector<Move> moves;  ///< One per saved location, including unchanged ones.
  std::size_t keys_renamed = 0;
  std::vector<std::string> code_rewrites;  ///< "code/__torch__.py:7: cuda:0 -> cpu"
  bool converted_from_legacy = false;
  std::uint64_t bytes_written = 0;

  std::string to_text() const;
  std::string to_json() const;
};

}  // namespace devcheck

namespace devcheck::format {

/// torch.load's `map_location`, as a value: where each saved storage location
/// goes. The saved locations are text as the file has them ("cuda:1"); the
/// targets are devices. Value type; thread-safe to share once built.
class DEVCHECK_API DeviceMap {
 public:
  /// No remap: every tensor goes where it was saved.
  static DeviceMap keep() { return DeviceMap(); }
  /// Everything to `device` (torch.load(map_location="cpu")).
  static DeviceMap to(Device device);
  /// The map as `devcheck remap` takes it: `to_device` sends every storage to
  /// one device ("cpu", "cuda:0", "auto"; empty: none), and each of `rules`,
  /// "FROM=TO" ("cuda:1=cuda:0"), sends one saved location to a device.
  /// Devices are read as parse_device_request() reads them; a named device
  /// need not exist on this machine (a remap may prepare a file for another),
  /// and "auto" and "gpu" are this machine's choice (auto_device()). Throws
  /// InvalidArgumentError naming the option and the text it refuses:
  /// "[devcheck] remap --map: 'cuda:1' is not FROM=TO (e.g. --map
  /// cuda:1=cuda:0)", "[devcheck] remap --to: invalid device 'tpu:0':
  /// expected one of ...". Thread-safe.
  static DeviceMap parse(const std::string& to_device, const std::vector<std::string>& rules);

  /// Adds an exact remap of the saved location `from` ("cuda:1") to `to`;
  /// unmatched locations pass through (or go to the `to()` device when one
  /// was given). Exact rules win over `to()`.
  DeviceMap& map(std::string from, Device to);

  /// Where a storage saved at `saved_location` ("cuda:1") goes, as LibTorch spells it.
  std::string apply(const std::string& saved_location) const;
  /// True when this map changes nothing.
  bool is_keep() const { return !to_ && rules_.empty(); }
  /// "keep", "to cpu", "cuda:1->cuda:0" (for messages).
  std::string str() const;

 private:
  std::optional<Device> to_;
  std::vector<std::pair<std::string, Device>> rules_;
};

/// A metadata view of a checkpoint file: format, tensors, storages, devices and
/// findings, read without tensor data. Cheap to copy (shared, immutable);
/// thread-safe to read.
class DEVCHECK_API Checkpoint {
 public:
  /// Reads `path`. Throws IoError (cannot open), FormatError (not a checkpoint,
  /// truncated, corrupt), UnsafeContentError (a record name escaping the
  /// archive, nesting past the bound). Unsafe globals and size violations do
  /// not throw: they are kError findings.
  static Checkpoint open(const std::string& path);

  const std::string& path() const;
  const FormatFacts& format() const;
  /// Every tensor, in pickle order (a tensor referenced under two keys appears twice).
  const std::vector<TensorEntry>& entries() const;
  const std::vector<StorageEntry>& storages() const;
  /// Totals per saved location, in first-seen order; `available` as
  /// device_available() answers it.
  std::vector<DeviceTotal> devices() const;
  const std::vector<Finding>& findings() const;
  /// Whether any finding is Severity::kError (unsafe or inconsistent content).
  bool has_errors() const;

  /// Facts, a table of tensors, per-device totals and findings.
  std::string to_text() const { return to_text(devices()); }
  /// {"file", "format", "tensors", "storages", "devices", "findings"}.
  std::string to_json() const { return to_json(devices()); }
  /// As above, with per-device totals computed elsewhere (a process with
  /// LibTorch knows devices that a torch-free one cannot see).
  std::string to_text(const std::vector<DeviceTotal>& devices) const;
  std::string to_json(const std::vector<DeviceTotal>& devices) const;

  /// Internal: the parsed file, for remap and load.
  const detail::ParsedCheckpoint& parsed() const { return *data_; }

 private:
  explicit Checkpoint(std::shared_ptr<const detail::ParsedCheckpoint> data);
  std::shared_ptr<const detail::ParsedCheckpoint> data_;
};

/// Options of remap(). Defaults change nothing but the format (legacy files
/// come out in the zip format). Setters chain, as LibTorch's options do.
class DEVCHECK_API RemapOptions {
 public:
  /// Where storages go. Default: keep.
  RemapOptions& map_location(DeviceMap value) {
    map_location_ = std::move(value);
    return *this;
  }
  const DeviceMap& map_location() const noexcept { return map_location_; }
  /// Removed from the start of every dict key that has it ("module."). Default: none.
  RemapOptions& strip_prefix(std::string value) {
    strip_prefix_ = std::move(value);
    return *this;
  }
  const std::string& strip_prefix() const noexcept { return strip_prefix_; }
  /// Also rewrite device literals in TorchScript code/ ("cuda:0" -> the mapped
  /// device). Default: false.
  RemapOptions& rewrite_code(bool value) {
    rewrite_code_ = value;
    return *this;
  }
  bool rewrite_code() const noexcept { return rewrite_code_; }
  /// Replace an existing output file. Default: false (refuse).
  RemapOptions& force(bool value) {
    force_ = value;
    return *this;
  }
  bool force() const noexcept { return force_; }

 private:
  DeviceMap map_location_;
  std::string strip_prefix_;
  bool rewrite_code_ = false;
  bool force_ = false;
};

/// Writes `output`: `input` with every storage location mapped, keys renamed
/// and (optionally) TorchScript code rewritten; storage records are copied
/// unchanged. Writes a temporary file next to `output` and renames it; a failure
/// leaves no output, and `input` is never modified. Throws UnsafeContentError
/// when the input has kError findings; IoError when `output` exists (without
/// force) or is `input`; FormatError for unreadable input. Thread-safe for
/// distinct outputs.
DEVCHECK_API RemapReport remap(const std::string& input, const std::string& output,
                               const RemapOptions& options = {});

}  // namespace devcheck::format
