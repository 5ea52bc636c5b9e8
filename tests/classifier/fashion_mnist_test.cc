// Fashion-MNIST from Debian's files, and the IDX parser under it.
#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "classifier/fashion_mnist.h"
#include "devcheck/error.h"
#include "support/support.h"

using ::testing::HasSubstr;

namespace devcheck {
namespace {

namespace fs = std::filesystem;

std::string be32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

// An IDX file of unsigned bytes with `shape`, elements 0, 1, 2, ...
std::string idx_bytes(const std::vector<uint32_t>& shape, size_t count) {
  std::string out{'\0', '\0', '\x08', static_cast<char>(shape.size())};
  for (uint32_t s : shape) out += be32(s);
  for (size_t i = 0; i < count; ++i) out += static_cast<char>(i % 10);
  return out;
}

void gzip_file(const fs::path& in, const fs::path& out) {
  const auto r =
      testing::run_process({"sh", "-c", "gzip -c '" + in.string() + "' > '" + out.string() + "'"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
}

TEST(Idx, ParsesHeaderAndElements) {
  const IdxArray a = parse_idx(idx_bytes({2, 3}, 6), "x");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.data, (std::vector<uint8_t>{0, 1, 2, 3, 4, 5}));
}

TEST(Idx, RejectsBadMagicNamingTheFile) {
  std::string bytes = idx_bytes({2}, 2);
  bytes[0] = 'P';
  try {
    parse_idx(bytes, "labels.idx");
    FAIL() << "expected FormatError";
  } catch (const FormatError& e) {
    EXPECT_THAT(e.message(), HasSubstr("labels.idx"));
    EXPECT_THAT(e.message(), HasSubstr("magic"));
  }
}

TEST(Idx, RejectsTruncatedElements) {
  try {
    parse_idx(idx_bytes({10, 28, 28}, 100), "images");
    FAIL() << "expected FormatError";
  } catch (const FormatError& e) {
    EXPECT_THAT(e.message(), HasSubstr("truncated"));
    EXPECT_THAT(e.message(), HasSubstr("[10, 28, 28]"));
  }
}

TEST(Idx, RejectsTrailingBytes) { EXPECT_THROW(parse_idx(idx_bytes({2}, 5), "x"), FormatError); }

TEST(Idx, RejectsUnsupportedElementType) {
  std::string bytes = idx_bytes({1}, 4);
  bytes[2] = 0x0D;
  try {
    parse_idx(bytes, "x");
    FAIL() << "expected FormatError";
  } catch (const FormatError& e) {
    EXPECT_THAT(e.message(), HasSubstr("0x0D (float32)"));
  }
}

TEST(Idx, HugeDeclaredShapeIsTruncatedNotOverflow) {
  // 0xFFFFFFFF^4 overflows 64 bits; the parser must say "truncated", not wrap around.
  EXPECT_THROW(parse_idx(idx_bytes({0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu}, 0), "x"),
               FormatError);
  EXPECT_THROW(parse_idx(std::string("\0\0\x08\x03", 4), "x"), FormatError);
}

TEST(Idx, GunzipPassesPlainBytesAndRejectsGarbage) {
  EXPECT_EQ(gunzip("plain", "x"), "plain");
  const std::string bad("\x1f\x8b\x08\x00garbage-not-deflate", 22);
  EXPECT_THROW(gunzip(bad, "x"), FormatError);
}

TEST(FashionMnist, TrainSplitIsSixtyThousandImagesInUnitRange) {
  FashionMnist train(FashionMnist::Split::kTrain);
  ASSERT_EQ(*train.size(), 60000u);
  const auto sample = train.get(0);
  EXPECT_EQ(sample.data.sizes(), (std::vector<int64_t>{1, 28, 28}));
  EXPECT_EQ(sample.data.scalar_type(), at::kFloat);
  EXPECT_GE(train.images().min().item<float>(), 0.0f);
  EXPECT_LE(train.images().max().item<float>(), 1.0f);
  EXPECT_GT(train.images().max().item<float>(), 0.99f);
  EXPECT_EQ(train.targets().min().item<int64_t>(), 0);
  EXPECT_EQ(train.targets().max().item<int64_t>(), 9);
  // Debian's files: the first training image is an ankle boot (class 9).
  EXPECT_EQ(sample.target.item<int64_t>(), 9);
  EXPECT_EQ(FashionMnist::class_names()[9], "Ankle boot");
}

TEST(FashionMnist, TestSplitIsTenThousand) {
  FashionMnist test(FashionMnist::Split::kTest);
  EXPECT_EQ(*test.size(), 10000u);
  // Balanced: 1000 of each class.
  EXPECT_EQ(at::bincount(test.targets()).min().item<int64_t>(), 1000);
}

TEST(FashionMnist, MissingFileIsOneLineNamingFileAndPackage) {
  testing::TempDir dir;
  try {
    FashionMnist data(FashionMnist::Split::kTrain, dir.path().string());
    FAIL() << "expected IoError";
  } catch (const IoError& e) {
    EXPECT_THAT(e.message(), HasSubstr((dir / "train-images-idx3-ubyte.gz").string()));
    EXPECT_THAT(e.message(), HasSubstr("not found"));
    EXPECT_THAT(e.message(), HasSubstr("dataset-fashion-mnist"));
    EXPECT_THAT(e.message(), HasSubstr("TrainOptions::data_dir"));
    EXPECT_EQ(e.message().find('\n'), std::string::npos);
  }
}

TEST(FashionMnist, TruncatedGzipIsOneLineNamingFileAndPackage) {
  testing::TempDir dir;
  const std::string full =
      testing::read_file(fs::path(kFashionMnistDir) / "t10k-images-idx3-ubyte.gz");
  testing::write_file(dir / "t10k-images-idx3-ubyte.gz", full.substr(0, full.size() / 2));
  fs::copy_file(fs::path(kFashionMnistDir) / "t10k-labels-idx1-ubyte.gz",
                dir / "t10k-labels-idx1-ubyte.gz");
  try {
    FashionMnist data(FashionMnist::Split::kTest, dir.path().string());
    FAIL() << "expected FormatError";
  } catch (const FormatError& e) {
    EXPECT_THAT(e.message(), HasSubstr((dir / "t10k-images-idx3-ubyte.gz").string()));
    EXPECT_THAT(e.message(), HasSubstr("truncated gzip"));
    EXPECT_THAT(e.message(), HasSubstr("dataset-fashion-mnist"));
    EXPECT_EQ(e.message().find('\n'), std::string::npos);
  }
}

TEST(FashionMnist, ReadsSmallFilesFromDataDirGzippedOrNot) {
  testing::TempDir dir;
  testing::write_file(dir / "t10k-images-idx3-ubyte", idx_bytes({3, 28, 28}, 3 * 28 * 28));
  testing::write_file(dir / "labels.raw", idx_bytes({3}, 3));
  gzip_file(dir / "labels.raw", dir / "t10k-labels-idx1-ubyte.gz");
  FashionMnist data(FashionMnist::Split::kTest, dir.path().string());
  ASSERT_EQ(*data.size(), 3u);
  EXPECT_EQ(data.targets()[2].item<int64_t>(), 2);
  EXPECT_FLOAT_EQ(data.get(0).data[0][0][1].item<float>(), 1.0f / 255.0f);
}

TEST(FashionMnist, LabelOutsideTenClassesIsFormatError) {
  testing::TempDir dir;
  testing::write_file(dir / "t10k-images-idx3-ubyte", idx_bytes({1, 28, 28}, 28 * 28));
  std::string labels = idx_bytes({1}, 1);
  labels.back() = 12;
  testing::write_file(dir / "t10k-labels-idx1-ubyte", labels);
  try {
    FashionMnist data(FashionMnist::Split::kTest, dir.path().string());
    FAIL() << "expected FormatError";
  } catch (const FormatError& e) {
    EXPECT_THAT(e.message(), HasSubstr("label 12"));
  }
}

}  // namespace
}  // namespace devcheck
