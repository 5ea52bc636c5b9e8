#pragma once
/// Fashion-MNIST from Debian's dataset-fashion-mnist, read with zlib into a
/// torch::data dataset, and the IDX format it is stored in.

#include <ATen/core/Tensor.h>
#include <c10/util/Optional.h>
#include <torch/data/datasets/base.h>
#include <torch/data/example.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace devcheck {

/// Where Debian's dataset-fashion-mnist installs the four gzipped IDX files.
inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

/// One decoded IDX array (unsigned bytes only, the only type Fashion-MNIST uses).
struct IdxArray {
  std::vector<int64_t> shape;  ///< One entry per dimension, e.g. {60000, 28, 28}.
  std::vector<uint8_t> data;   ///< Row-major elements; size() == product of shape.
};

/// Parses IDX bytes (big-endian header: two zero bytes, type 0x08, the number
/// of dimensions, then one 32-bit size per dimension, then the elements).
/// Every size is checked against the bytes present before anything is read.
/// Throws FormatError naming `name` and what is wrong (bad magic, unsupported
/// element type, truncated, trailing bytes). Thread-safe.
IdxArray parse_idx(std::string_view bytes, const std::string& name);

/// Inflates gzip (or zlib) bytes; bytes that are not compressed are returned
/// unchanged. Refuses output larger than `max_bytes`. Throws FormatError
/// naming `name` for a corrupt or truncated stream. Thread-safe.
std::string gunzip(std::string_view bytes, const std::string& name,
                   std::size_t max_bytes = std::size_t{1} << 30);

/// Fashion-MNIST as a map-style torch::data dataset. Images are float32 in
/// [0, 1] with shape [1, 28, 28]; targets are int64 class indices 0..9.
/// Everything is decoded once, in the constructor. get() is thread-safe.
class FashionMnist : public torch::data::datasets::Dataset<FashionMnist> {
 public:
  enum class Split { kTrain, kTest };

  /// Reads `split` from `dir` ("train-images-idx3-ubyte.gz" and
  /// "train-labels-idx1-ubyte.gz", or "t10k-..." for the test split; the
  /// uncompressed names are accepted too). Throws IoError for a missing or
  /// unreadable file and FormatError for a corrupt one; either message is one
  /// line naming the file, the problem and the package that provides it.
  explicit FashionMnist(Split split, const std::string& dir = kFashionMnistDir);

  /// Sample `index`: data [1, 28, 28] float32 (a view, no copy), target int64 scalar.
  torch::data::Example<> get(std::size_t index) override;
  /// Number of samples (60000 for kTrain, 10000 for kTest with Debian's files).
  c10::optional<std::size_t> size() const override;

  /// All images, [N, 1, 28, 28] float32 in [0, 1].
  const at::Tensor& images() const noexcept { return images_; }
  /// All targets, [N] int64.
  const at::Tensor& targets() const noexcept { return targets_; }
  /// The ten class names, index = target ("T-shirt/top", ..., "Ankle boot").
  static const std::vector<std::string>& class_names();

 private:
  at::Tensor images_;
  at::Tensor targets_;
};

}  // namespace devcheck
