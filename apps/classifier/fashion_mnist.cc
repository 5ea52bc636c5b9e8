#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join (there from fmt 11 on)
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "classifier/fashion_mnist.h"
#include "devcheck/error.h"

namespace devcheck {
namespace {

constexpr std::size_t kImageSide = 28;
constexpr int64_t kClasses = 10;
constexpr const char* kPackage = "dataset-fashion-mnist";

std::string_view element_type_name(uint8_t type) {
  switch (type) {
    case 0x08:
      return "unsigned byte";
    case 0x09:
      return "signed byte";
    case 0x0B:
      return "int16";
    case 0x0C:
      return "int32";
    case 0x0D:
      return "float32";
    case 0x0E:
      return "float64";
    default:
      return "unknown";
  }
}

[[noreturn]] void idx_error(const std::string& name, const std::string& problem) {
  throw FormatError(fmt::format("[devcheck] {}: {}", name, problem));
}

uint32_t read_be32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

// The file of `split`/`kind` in `dir`: the gzipped name Debian installs, else
// the uncompressed name torchvision's raw folder uses.
std::filesystem::path locate(const std::string& dir, const std::string& stem) {
  const std::filesystem::path gz = std::filesystem::path(dir) / (stem + ".gz");
  std::error_code ec;
  if (!std::filesystem::exists(gz, ec)) {
    const std::filesystem::path raw = std::filesystem::path(dir) / stem;
    if (std::filesystem::exists(raw, ec)) return raw;
  }
  return gz;
}

std::string read_whole_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw IoError(fmt::format(
        "[devcheck] Fashion-MNIST file {}: not found; install Debian's {} (apt-get install {}) "
        "or set TrainOptions::data_dir (FashionMnist's dir) to a folder with the four IDX files",
        path.string(), kPackage, kPackage));
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in) {
    throw IoError(fmt::format(
        "[devcheck] Fashion-MNIST file {}: cannot be read ({}); check its permissions or "
        "reinstall Debian's {}",
        path.string(), std::strerror(errno), kPackage));
  }
  return std::move(bytes).str();
}

// Reads, inflates and parses one file; any format problem becomes one line
// that names the file and the package to reinstall.
IdxArray load_idx(const std::filesystem::path& path, std::size_t expected_dims) {
  const std::string compressed = read_whole_file(path);
  const std::string name = "Fashion-MNIST file " + path.string();
  try {
    IdxArray array = parse_idx(gunzip(compressed, name), name);
    if (array.shape.size() != expected_dims) {
      idx_error(name,
                fmt::format("expected {} dimensions, found {}", expected_dims, array.shape.size()));
    }
    return array;
  } catch (const FormatError& e) {
    throw FormatError(fmt::format(
        "{}; the file is corrupt: reinstall Debian's {} (apt-get install --reinstall {}) or "
        "set TrainOptions::data_dir (FashionMnist's dir) to a folder with good copies",
        e.message(), kPackage, kPackage));
  }
}

}  // namespace

IdxArray parse_idx(std::string_view bytes, const std::string& name) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() < 4) {
    idx_error(name,
              fmt::format("truncated: {} bytes, an IDX header needs at least 4", bytes.size()));
  }
  if (p[0] != 0 || p[1] != 0) {
    idx_error(name, fmt::format("not an IDX file: magic bytes {:02x} {:02x}, expected 00 00", p[0],
                                p[1]));
  }
  const uint8_t type = p[2];
  if (type != 0x08) {
    idx_error(name, fmt::format("element type 0x{:02X} ({}) is not supported; expected 0x08 "
                                "(unsigned byte)",
                                type, element_type_name(type)));
  }
  const std::size_t dims = p[3];
  if (dims == 0) idx_error(name, "an IDX array needs at least one dimension, the header says 0");
  const std::size_t header = 4 + 4 * dims;
  if (bytes.size() < header) {
    idx_error(name, fmt::format("truncated: the header declares {} dimensions ({} bytes) but the "
                                "file has {} bytes",
                                dims, header, bytes.size()));
  }
  IdxArray array;
  array.shape.reserve(dims);
  const std::size_t available = bytes.size() - header;
  std::size_t count = 1;
  bool exceeds = false;  // the declared element count is larger than the file
  for (std::size_t d = 0; d < dims; ++d) {
    const uint32_t size = read_be32(p + 4 + 4 * d);
    array.shape.push_back(static_cast<int64_t>(size));
    if (size != 0 && count > available / size) exceeds = true;
    if (!exceeds) count *= size;
  }
  const bool empty =
      std::any_of(array.shape.begin(), array.shape.end(), [](int64_t s) { return s == 0; });
  if (empty) count = 0, exceeds = false;
  if (exceeds || count > available) {
    idx_error(name, fmt::format("truncated: the header declares shape [{}] but only {} bytes of "
                                "elements follow",
                                fmt::join(array.shape, ", "), available));
  }
  if (count < available) {
    idx_error(name, fmt::format("{} trailing bytes after the {} elements of shape [{}]",
                                available - count, count, fmt::join(array.shape, ", ")));
  }
  array.data.assign(p + header, p + header + count);
  return array;
}

std::string gunzip(std::string_view bytes, const std::string& name, std::size_t max_bytes) {
  const bool gzip = bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
                    static_cast<unsigned char>(bytes[1]) == 0x8b;
  if (!gzip) return std::string(bytes);
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) {
    throw FormatError(fmt::format("[devcheck] {}: zlib could not start inflating", name));
  }
  std::string out;
  std::size_t consumed = 0;
  int rc = Z_OK;
  char chunk[1 << 16];
  while (true) {
    if (zs.avail_in == 0 && consumed < bytes.size()) {
      const std::size_t n =
          std::min<std::size_t>(bytes.size() - consumed, std::numeric_limits<uInt>::max());
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + consumed));
      zs.avail_in = static_cast<uInt>(n);
      consumed += n;
    }
    zs.next_out = reinterpret_cast<Bytef*>(chunk);
    zs.avail_out = sizeof(chunk);
    rc = inflate(&zs, Z_NO_FLUSH);
    const std::size_t produced = sizeof(chunk) - zs.avail_out;
    if (out.size() + produced > max_bytes) {
      inflateEnd(&zs);
      throw FormatError(
          fmt::format("[devcheck] {}: inflates to more than {} bytes", name, max_bytes));
    }
    out.append(chunk, produced);
    if (rc == Z_STREAM_END) {
      const std::size_t left = zs.avail_in + (bytes.size() - consumed);
      if (left == 0) break;
      // Another gzip member may follow (gzip allows concatenation); anything else is garbage.
      const std::size_t at = bytes.size() - left;
      if (left >= 2 && static_cast<unsigned char>(bytes[at]) == 0x1f &&
          static_cast<unsigned char>(bytes[at + 1]) == 0x8b) {
        inflateReset(&zs);
        continue;
      }
      inflateEnd(&zs);
      throw FormatError(
          fmt::format("[devcheck] {}: {} bytes of garbage after the gzip stream", name, left));
    }
    if (rc == Z_BUF_ERROR && zs.avail_in == 0 && consumed == bytes.size()) {
      inflateEnd(&zs);
      throw FormatError(
          fmt::format("[devcheck] {}: truncated gzip stream ({} bytes inflated before it ends)",
                      name, out.size()));
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      const std::string why = zs.msg != nullptr ? zs.msg : "zlib error " + std::to_string(rc);
      inflateEnd(&zs);
      throw FormatError(fmt::format("[devcheck] {}: corrupt gzip data ({})", name, why));
    }
  }
  inflateEnd(&zs);
  return out;
}

FashionMnist::FashionMnist(Split split, const std::string& dir) {
  const std::string prefix = split == Split::kTrain ? "train" : "t10k";
  const std::filesystem::path image_path = locate(dir, prefix + "-images-idx3-ubyte");
  const std::filesystem::path label_path = locate(dir, prefix + "-labels-idx1-ubyte");
  IdxArray images = load_idx(image_path, 3);
  IdxArray labels = load_idx(label_path, 1);
  const auto bad = [](const std::filesystem::path& path, const std::string& problem) {
    return FormatError(fmt::format(
        "[devcheck] Fashion-MNIST file {}: {}; reinstall Debian's {} (apt-get install "
        "--reinstall {}) or set TrainOptions::data_dir (FashionMnist's dir) to a folder with good "
        "copies",
        path.string(), problem, kPackage, kPackage));
  };
  if (images.shape[1] != static_cast<int64_t>(kImageSide) ||
      images.shape[2] != static_cast<int64_t>(kImageSide)) {
    throw bad(image_path,
              fmt::format("expected 28x28 images, found {}x{}", images.shape[1], images.shape[2]));
  }
  if (images.shape[0] != labels.shape[0]) {
    throw bad(label_path, fmt::format("{} labels for {} images in {}", labels.shape[0],
                                      images.shape[0], image_path.filename().string()));
  }
  const auto max_label = std::max_element(labels.data.begin(), labels.data.end());
  if (max_label != labels.data.end() && *max_label >= kClasses) {
    throw bad(label_path, fmt::format("label {} at index {} is outside 0..9", int{*max_label},
                                      max_label - labels.data.begin()));
  }
  const int64_t n = images.shape[0];
  const auto as_bytes = at::TensorOptions().dtype(at::kByte);
  images_ = at::from_blob(images.data.data(), {n, 1, 28, 28}, as_bytes).to(at::kFloat).div_(255.0);
  targets_ = at::from_blob(labels.data.data(), {n}, as_bytes).to(at::kLong);
}

torch::data::Example<> FashionMnist::get(std::size_t index) {
  return {images_[static_cast<int64_t>(index)], targets_[static_cast<int64_t>(index)]};
}

c10::optional<std::size_t> FashionMnist::size() const {
  return static_cast<std::size_t>(images_.size(0));
}

const std::vector<std::string>& FashionMnist::class_names() {
  static const std::vector<std::string> names{"T-shirt/top", "Trouser",   "Pullover", "Dress",
                                              "Coat",        "Sandal",    "Shirt",    "Sneaker",
                                              "Bag",         "Ankle boot"};
  return names;
}

}  // namespace devcheck
