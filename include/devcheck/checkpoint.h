#pragma once
/// Deploy: read any torch.save checkpoint (zip format of PyTorch >= 1.6 and the
/// legacy pre-1.6 format) or TorchScript archive from C++, show where its
/// tensors were saved, remap their devices offline, and load them into a
/// LibTorch module, without running pickle code.
///
/// Safety: pickles are read by a scanner that never imports or calls anything.
/// Globals outside an allowlist (torch.load(weights_only=True)'s, plus
/// TorchScript's own) are findings, never executed; every size and offset is
/// checked against the record that backs it.
///
/// Errors: FormatError (unreadable file), UnsafeContentError (refused content),
/// IoError (file system), InvalidArgumentError (bad option), each naming the file.

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <torch/arg.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace torch::nn {
class Module;
}  // namespace torch::nn

#include "devcheck/export.h"
#include "devcheck/format/checkpoint.h"

namespace devcheck {

/// torch.load's `map_location`, as a value: where each saved storage location
/// goes. Value type; thread-safe to share once built.
class DEVCHECK_API MapLocation {
 public:
  /// No remap: every tensor goes where it was saved.
  static MapLocation keep();
  /// Everything to `device` (torch.load(map_location="cpu")). Throws
  /// InvalidArgumentError for a device type devcheck does not name
  /// (format::DeviceType).
  static MapLocation to(c10::Device device);

  /// Adds an exact tag remap ("cuda:1" -> "cuda:0"); unmatched tags pass through
  /// (or go to the `to()` device when one was given). Exact rules win over `to()`.
  /// Throws InvalidArgumentError when `to` is not a device string (parsed as
  /// format::parse_device parses it: "cpu", "CUDA:1", "fake:0"; not "auto").
  MapLocation& map(std::string from, std::string to);

  /// Where a storage saved at `saved_location` ("cuda:1") goes.
  std::string apply(const std::string& saved_location) const { return map_.apply(saved_location); }
  /// True when this map changes nothing.
  bool is_keep() const { return map_.is_keep(); }
  /// "keep", "to cpu", "cuda:1->cuda:0" (for messages).
  std::string str() const { return map_.str(); }
  /// The same map for the torch-free format library.
  const format::DeviceMap& device_map() const { return map_; }

 private:
  format::DeviceMap map_;
};

/// A metadata view of a checkpoint file (format::Checkpoint) whose errors are
/// devcheck::Error and whose device totals know this process's devices (the
/// fake device, CUDA as LibTorch sees it). Cheap to copy; thread-safe to read.
class DEVCHECK_API Checkpoint : public ::devcheck::format::Checkpoint {
 public:
  /// Reads `path`. Throws IoError (cannot open), FormatError (not a checkpoint,
  /// truncated, corrupt), UnsafeContentError (a record name escaping the
  /// archive, nesting past the bound). Unsafe globals and size violations do
  /// not throw: they are kError findings.
  static Checkpoint open(const std::string& path);

  /// Totals per saved location, in first-seen order; `available` as
  /// devcheck::device_available() answers it in this process.
  std::vector<DeviceTotal> devices() const;
  /// Facts, a table of tensors, per-device totals and findings.
  std::string to_text() const;
  /// {"file", "format", "tensors", "storages", "devices", "findings"}.
  std::string to_json() const;

 private:
  explicit Checkpoint(::devcheck::format::Checkpoint view)
      : ::devcheck::format::Checkpoint(std::move(view)) {}
};

/// Options of remap(). Defaults change nothing but the format (legacy files
/// come out in the zip format).
struct DEVCHECK_API RemapOptions {
  /// Where storages go. Default: keep.
  TORCH_ARG(MapLocation, map_location) = MapLocation::keep();
  /// Removed from the start of every dict key that has it ("module."). Default: none.
  TORCH_ARG(std::string, strip_prefix);
  /// Also rewrite device literals in TorchScript code/ ("cuda:0" -> the mapped
  /// device). Default: false.
  TORCH_ARG(bool, rewrite_code) = false;
  /// Replace an existing output file. Default: false (refuse).
  TORCH_ARG(bool, force) = false;
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

/// Every tensor of `path` as (flattened key, tensor), in pickle order, created
/// directly on the device `map_location` gives. Tensors that share a storage in
/// the file share it in memory. On the CPU, a storage of 1 MiB or more stored
/// uncompressed (as torch.save writes) is the file's own pages, mapped
/// copy-on-write and read in before the call returns: writes to it never reach
/// the file, and it stays valid when the file is deleted or renamed over, but
/// changing the file in place while the tensor lives (truncating or writing
/// into it, as torch.save to the same path does) changes its unwritten pages,
/// or makes reading them raise SIGBUS after a truncation. Other storages are
/// read into fresh memory. Throws DeviceUnavailableError naming the key and
/// both devices when a tensor would land on a device this machine lacks;
/// UnsafeContentError for kError findings; FormatError / IoError as
/// Checkpoint::open.
DEVCHECK_API std::vector<std::pair<std::string, at::Tensor>> load_tensors(
    const std::string& path, const MapLocation& map_location = MapLocation::keep());

/// Options of load_state_dict().
struct DEVCHECK_API LoadOptions {
  /// Throw (before changing the module) when keys are missing or unexpected or a
  /// shape differs. Default: true.
  TORCH_ARG(bool, strict) = true;
  /// Prefix removed from file keys. Default (empty optional): "module." when every
  /// key has it (DataParallel / DDP checkpoints); "" disables stripping.
  TORCH_ARG(std::optional<std::string>, strip_prefix);
  /// Where tensors are staged before being copied into the module. Default:
  /// keep(), which here means straight onto each parameter's own device.
  TORCH_ARG(MapLocation, map_location) = MapLocation::keep();
};

/// What load_state_dict() matched.
struct DEVCHECK_API LoadReport {
  struct ShapeMismatch {
    std::string key;
    std::vector<std::int64_t> module_shape, file_shape;
  };
  std::string path;
  std::string stripped_prefix;          ///< The prefix removed, empty when none.
  std::size_t loaded = 0;               ///< Parameters and buffers filled.
  std::vector<std::string> missing;     ///< In the module, not in the file.
  std::vector<std::string> unexpected;  ///< In the file, not in the module.
  std::vector<ShapeMismatch> mismatched;

  /// True when nothing is missing, unexpected or mismatched.
  bool ok() const { return missing.empty() && unexpected.empty() && mismatched.empty(); }
  std::string to_text() const;
  std::string to_json() const;
};

/// Loads a state dict file (Python's model.state_dict(), or any checkpoint whose
/// flattened keys name the module's parameters and buffers) into `module`,
/// copying each tensor onto the device its parameter lives on. In strict mode
/// throws InvalidArgumentError with the report's facts before changing anything.
/// Not thread-safe with other users of `module`.
DEVCHECK_API LoadReport load_state_dict(torch::nn::Module& module, const std::string& path,
                                        const LoadOptions& options = {});

/// As above, from tensors already in memory (load_tensors()'s result, or a
/// part of it): the same matching of keys and shapes, the same check of
/// everything before anything changes. `options.map_location()` is not used
/// (each tensor is copied onto its parameter's device); `source` names the
/// tensors in the report and in messages (a path). Not thread-safe with other
/// users of `module`.
DEVCHECK_API LoadReport load_state_dict(
    torch::nn::Module& module, const std::vector<std::pair<std::string, at::Tensor>>& tensors,
    const LoadOptions& options = {}, const std::string& source = "the given tensors");

/// Writes `module`'s parameters and buffers as an OrderedDict of CPU tensors
/// (Python's state_dict key order), in torch.save's zip format: Python's
/// torch.load (1.13 and 2.x, weights_only too) reads it. Atomic (temporary file
/// and rename). Throws IoError.
DEVCHECK_API void save_state_dict(const torch::nn::Module& module, const std::string& path);

/// Writes `tensors` as an OrderedDict with the keys as given, CPU tensors, in
/// torch.save's zip format. Tensors sharing a storage share it in the file.
/// Atomic. Throws IoError; InvalidArgumentError for a dtype torch.save cannot
/// name or a duplicate key.
DEVCHECK_API void save_tensors(const std::string& path,
                               const std::vector<std::pair<std::string, at::Tensor>>& tensors);

}  // namespace devcheck
