// The zip reader: archives that Python's zipfile or devcheck's writer made,
// and the reader's bounds, name and CRC checks.
#include "format/zip_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "devcheck/format/error.h"
#include "format/file.h"
#include "format/zip_test_files.h"
#include "support/support.h"

using ::testing::HasSubstr;

namespace devcheck::detail {
namespace {

using devcheck::testing::read_file;
using devcheck::testing::run_python;
using devcheck::testing::TempDir;
using devcheck::testing::write_file;

TEST(ZipReader, ReadsAZipThatPythonWroteCompressed) {
  TempDir dir;
  const std::string path = (dir / "d.zip").string();
  const auto r = run_python(
      "import sys, zipfile\n"
      "with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n"
      "    z.writestr('a/data.pkl', b'x' * 1000)\n",
      {path});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  File f = File::open_read(path);
  ZipReader reader(f.fd(), f.size(path), path);
  EXPECT_EQ(reader.find("a/data.pkl")->method, 8);
  EXPECT_EQ(reader.read(*reader.find("a/data.pkl"), 2000), std::string(1000, 'x'));
}

TEST(ZipReader, TruncatedArchiveIsAFormatErrorNamingTheFile) {
  TempDir dir;
  const std::string path = (dir / "t.zip").string();
  write_zip(path, false);
  const std::string bytes = read_file(path);
  write_file(path, bytes.substr(0, bytes.size() - 30));
  File f = File::open_read(path);
  try {
    ZipReader reader(f.fd(), f.size(path), path);
    FAIL() << "expected format::FormatError";
  } catch (const format::FormatError& e) {
    EXPECT_THAT(e.message(), HasSubstr(path));
    EXPECT_THAT(e.message(), HasSubstr("[devcheck]"));
  }
}

TEST(ZipReader, CorruptDataFailsItsCrcCheck) {
  TempDir dir;
  const std::string path = (dir / "c.zip").string();
  write_zip(path, false);
  std::string bytes = read_file(path);
  const auto at = bytes.find("0123456789abcdef");
  bytes[at] = 'X';
  write_file(path, bytes);
  File f = File::open_read(path);
  ZipReader reader(f.fd(), f.size(path), path);
  try {
    reader.read(*reader.find("archive/data/0"), 100);
    FAIL() << "expected format::FormatError";
  } catch (const format::FormatError& e) {
    EXPECT_THAT(e.message(), HasSubstr("CRC-32"));
    EXPECT_THAT(e.message(), HasSubstr("archive/data/0"));
  }
}

TEST(ZipReader, RecordLargerThanAllowedIsRefused) {
  TempDir dir;
  const std::string path = (dir / "a.zip").string();
  write_zip(path, false);
  File f = File::open_read(path);
  ZipReader reader(f.fd(), f.size(path), path);
  EXPECT_THROW(reader.read(*reader.find("archive/data/0"), 4), format::FormatError);
}

TEST(ZipReader, EmptyAndTinyFilesAreFormatErrors) {
  TempDir dir;
  const std::string path = (dir / "e.zip").string();
  write_file(path, "");
  File f = File::open_read(path);
  EXPECT_THROW(ZipReader(f.fd(), 0, path), format::FormatError);
  write_file(path, "PK\x03\x04");
  File g = File::open_read(path);
  EXPECT_THROW(ZipReader(g.fd(), 4, path), format::FormatError);
}

TEST(ZipReader, RecordNameEscapingTheArchiveIsUnsafe) {
  TempDir dir;
  const std::string path = (dir / "e.zip").string();
  const auto r = run_python(
      "import sys, zipfile\n"
      "with zipfile.ZipFile(sys.argv[1], 'w') as z:\n"
      "    z.writestr('archive/data.pkl', b'.')\n"
      "    z.writestr('../../etc/x', b'x')\n",
      {path});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  File f = File::open_read(path);
  try {
    ZipReader reader(f.fd(), f.size(path), path);
    FAIL() << "expected format::UnsafeContentError";
  } catch (const format::UnsafeContentError& e) {
    EXPECT_THAT(e.message(), HasSubstr("../../etc/x"));
  }
}

TEST(RecordName, SafeNamesStayInsideTheArchive) {
  EXPECT_TRUE(is_safe_record_name("archive/data/0"));
  EXPECT_TRUE(is_safe_record_name("archive/code/__torch__/m.py"));
  EXPECT_TRUE(is_safe_record_name("archive/"));
  EXPECT_FALSE(is_safe_record_name(""));
  EXPECT_FALSE(is_safe_record_name("/etc/passwd"));
  EXPECT_FALSE(is_safe_record_name("a/../../b"));
  EXPECT_FALSE(is_safe_record_name("a/./b"));
  EXPECT_FALSE(is_safe_record_name("a//b"));
  EXPECT_FALSE(is_safe_record_name("a\\b"));
  EXPECT_FALSE(is_safe_record_name(std::string("a\0b", 3)));
}

TEST(ZipReader, LocalHeaderThatDisagreesWithTheDirectoryIsNotCopiedAsItIs) {
  TempDir dir;
  const std::string src = (dir / "src.zip").string();
  write_zip(src, false);
  std::string bytes = read_file(src);
  File in = File::open_read(src);
  ZipReader reader(in.fd(), in.size(src), src);
  const ZipRecord& r = *reader.find("archive/data/0");
  EXPECT_TRUE(reader.local_header_matches(r));
  bytes[r.local_header_offset + 30] = 'X';  // the name in the local header only
  const std::string bad = (dir / "bad.zip").string();
  write_file(bad, bytes);
  File in2 = File::open_read(bad);
  ZipReader bad_reader(in2.fd(), in2.size(bad), bad);
  EXPECT_FALSE(bad_reader.local_header_matches(*bad_reader.find("archive/data/0")));
}

TEST(ZipReader, ARecordEndsAtTheNextLocalHeaderOrTheCentralDirectory) {
  TempDir dir;
  const std::string src = (dir / "src.zip").string();
  write_zip(src, false);
  {
    File in = File::open_read(src);
    ZipReader reader(in.fd(), in.size(src), src);
    const ZipRecord& pkl = *reader.find("archive/data.pkl");
    const ZipRecord& data = *reader.find("archive/data/0");
    const ZipRecord& version = *reader.find("archive/version");
    EXPECT_EQ(reader.record_end(pkl), data.local_header_offset);
    EXPECT_EQ(reader.record_end(data), version.local_header_offset);
    EXPECT_EQ(reader.record_end(version), reader.central_directory_offset());
  }
  // Two directory entries naming one local header (version's entry points
  // at data/0's): both end where the next greater offset is, here the
  // central directory, never at the shared offset itself.
  std::string bytes = read_file(src);
  File in = File::open_read(src);
  ZipReader reader(in.fd(), in.size(src), src);
  const std::uint64_t data_header = reader.find("archive/data/0")->local_header_offset;
  const std::size_t name = bytes.find("archive/version", reader.central_directory_offset());
  ASSERT_NE(name, std::string::npos);
  for (int b = 0; b < 4; ++b) {
    bytes[name - 46 + 42 + b] = static_cast<char>((data_header >> (8 * b)) & 0xff);
  }
  const std::string shared = (dir / "shared.zip").string();
  write_file(shared, bytes);
  File in2 = File::open_read(shared);
  ZipReader twice(in2.fd(), in2.size(shared), shared);
  ASSERT_EQ(twice.find("archive/version")->local_header_offset, data_header);
  EXPECT_EQ(twice.record_end(*twice.find("archive/data/0")), twice.central_directory_offset());
  EXPECT_EQ(twice.record_end(*twice.find("archive/version")), twice.central_directory_offset());
  EXPECT_EQ(twice.record_end(*twice.find("archive/data.pkl")), data_header);
}

}  // namespace
}  // namespace devcheck::detail
