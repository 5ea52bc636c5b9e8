#pragma once
// Reads a checkpoint file into a ParsedCheckpoint: the format facts, every
// pickle scanned (never executed), tensors and storages interpreted from the
// scanned values, every size checked, and findings. Shared by Checkpoint,
// remap and load. Immutable once built; thread-safe to read.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "devcheck/export.h"
#include "devcheck/format/checkpoint.h"
#include "format/file.h"
#include "format/pickle_scan.h"
#include "format/zip_reader.h"

namespace devcheck::detail {

enum class Format { kZip, kTorchScript, kLegacy };

// One scanned pickle of the file.
struct PickleSource {
  std::string record;      // zip record name ("m/data.pkl"); empty for legacy
  std::string tensor_dir;  // where its storages live ("m/data/", "m/constants/")
  std::string bytes;       // the pickle's bytes (legacy: the main pickle alone)
  Pickle pickle;
};

// Where the bytes of storages()[i] are.
struct StorageSource {
  int pickle = 0;                     // index into pickles
  const ZipRecord* record = nullptr;  // zip formats; null when missing
  std::uint64_t legacy_offset = 0;    // legacy: first data byte in the file
  std::int64_t element_size = 1;      // of the storage type
  std::string dtype;                  // of the storage type ("uint8" when untyped)
};

// A device literal in TorchScript code/.
struct CodeLiteral {
  std::string record;       // full record name
  std::string file;         // relative to the archive folder: "code/__torch__.py"
  int line = 0;             // 1-based
  std::uint64_t begin = 0;  // offset of the literal's text (inside the quotes)
  std::string literal;      // "cuda:0"
};

struct DEVCHECK_API ParsedCheckpoint {
  std::string path;
  Format format = Format::kZip;
  File file;
  std::uint64_t file_size = 0;
  std::unique_ptr<ZipReader> zip;
  std::string archive_dir;  // "model/" (with the slash); empty for legacy
  FormatFacts facts;
  std::vector<PickleSource> pickles;
  std::vector<TensorEntry> entries;
  std::vector<int> entry_storage;  // parallel to entries: index into storages, -1 when none
  std::vector<StorageEntry> storages;
  std::vector<StorageSource> sources;  // parallel to storages
  // Per pickle, persistent-id index -> storage index (-1 for ids that are not storages).
  std::vector<std::vector<int>> pid_storage;
  std::vector<Finding> findings;
  std::vector<CodeLiteral> code_literals;

  bool has_errors() const;
};

// Adds the storages (from persistent ids) and tensors (from rebuild calls) of
// pickles[pickle] to `cp`, keys prefixed with `key_prefix`; appends findings
// for unsafe globals and malformed tensors. Throws UnsafeContentError when
// nesting passes the bound.
void interpret_pickle(ParsedCheckpoint& cp, int pickle, const std::string& key_prefix);

// Reads and checks `path`. Throws IoError, FormatError, UnsafeContentError.
DEVCHECK_API std::shared_ptr<ParsedCheckpoint> parse_checkpoint(const std::string& path);

// PyTorch's dtype name and element size for a storage type name
// ("FloatStorage" -> float32, 4). False when unknown.
bool storage_type_dtype(std::string_view storage_type, std::string* dtype,
                        std::int64_t* element_size);
// PyTorch's dtype name and element size for a dtype global name ("float" ->
// float32, 4). False when unknown.
bool dtype_from_global(std::string_view name, std::string* dtype, std::int64_t* element_size);

// Finds device literals in one TorchScript source file.
std::vector<CodeLiteral> find_device_literals(const std::string& record, const std::string& file,
                                              std::string_view text);

// Whether `location` names a device this machine has ("cpu", "meta" always).
bool location_available(const std::string& location);

}  // namespace devcheck::detail
