// The zip writer: Python's zipfile and devcheck's reader read what it
// writes, aligned as PyTorch aligns it, and copied records keep their bytes.
#include "format/zip_writer.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "format/file.h"
#include "format/zip_reader.h"
#include "format/zip_test_files.h"
#include "support/support.h"

namespace devcheck::detail {
namespace {

using devcheck::testing::run_python;
using devcheck::testing::TempDir;

TEST(ZipWriter, PythonZipfileReadsItAndDataIsAlignedTo64Bytes) {
  for (const bool zip64 : {false, true}) {
    TempDir dir;
    const std::string path = (dir / "a.zip").string();
    write_zip(path, zip64);
    const auto r = run_python(
        "import sys, zipfile\n"
        "z = zipfile.ZipFile(sys.argv[1])\n"
        "assert z.testzip() is None\n"
        "assert z.read('archive/data/0') == b'0123456789abcdef'\n"
        "print(sorted(z.namelist()))\n",
        {path});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    File f = File::open_read(path);
    ZipReader reader(f.fd(), f.size(path), path);
    ASSERT_EQ(reader.records().size(), 3u);
    for (const auto& rec : reader.records()) EXPECT_EQ(reader.data_offset(rec) % 64, 0u);
    EXPECT_EQ(reader.read(*reader.find("archive/data/0"), 100), "0123456789abcdef");
  }
}

TEST(ZipWriter, CopiedRecordKeepsItsBytesAndCrc) {
  TempDir dir;
  const std::string src = (dir / "src.zip").string();
  const std::string dst = (dir / "dst.zip").string();
  write_zip(src, false);
  File in = File::open_read(src);
  ZipReader reader(in.fd(), in.size(src), src);
  const int fd = ::open(dst.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
  ZipWriter w(fd, dst);
  for (const auto& r : reader.records()) w.add_copy(r.name, reader, r);
  w.finish();
  ::close(fd);
  File out = File::open_read(dst);
  ZipReader copy(out.fd(), out.size(dst), dst);
  ASSERT_EQ(copy.records().size(), 3u);
  EXPECT_EQ(copy.find("archive/data/0")->crc32, reader.find("archive/data/0")->crc32);
  EXPECT_EQ(copy.read(*copy.find("archive/data/0"), 100), "0123456789abcdef");
}

// A large copied record lands at its source's offset within a page (and so on
// a 64-byte boundary), however much the records before it grew or shrank.
TEST(ZipWriter, LargeCopiedRecordKeepsItsPageOffset) {
  TempDir dir;
  const std::string src = (dir / "src.zip").string();
  const std::string dst = (dir / "dst.zip").string();
  const std::string big(200000, 'x');
  write_records(src, {{"archive/data.pkl", std::string(100, 'p')}, {"archive/data/0", big}});
  File in = File::open_read(src);
  ZipReader reader(in.fd(), in.size(src), src);
  const ZipRecord& record = *reader.find("archive/data/0");
  for (std::size_t first : {1u, 77u, 5000u}) {
    const int fd = ::open(dst.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
    ZipWriter w(fd, dst);
    w.add("archive/data.pkl", std::string(first, 'q'));
    w.add_copy("archive/data/0", reader, record);
    w.finish();
    ::close(fd);
    File out = File::open_read(dst);
    ZipReader copy(out.fd(), out.size(dst), dst);
    const ZipRecord& copied = *copy.find("archive/data/0");
    EXPECT_EQ(copy.data_offset(copied) % 4096, reader.data_offset(record) % 4096) << first;
    EXPECT_EQ(copy.data_offset(copied) % 64, 0U) << first;
    EXPECT_EQ(copy.read(copied, 1 << 20), big) << first;
  }
}

// A span is copied as it is, headers included; its records keep their bytes,
// CRCs and flags at shifted offsets, Python's zipfile reads the result, and a
// record written before it can end where the span keeps its page offset.
TEST(ZipWriter, SpanCopiesRecordsAsTheyAreAtShiftedOffsets) {
  TempDir dir;
  const std::string src = (dir / "src.zip").string();
  const std::string dst = (dir / "dst.zip").string();
  const std::string big(200000, 'x');
  write_records(src, {{"archive/data.pkl", std::string(100, 'p')},
                      {"archive/data/0", big},
                      {"archive/version", "3\n"}});
  File in = File::open_read(src);
  ZipReader reader(in.fd(), in.size(src), src);
  const std::vector<const ZipRecord*> run{reader.find("archive/data/0"),
                                          reader.find("archive/version")};
  for (const ZipRecord* r : run) EXPECT_TRUE(reader.local_header_matches(*r)) << r->name;
  for (std::size_t first : {1u, 5000u}) {
    const int fd = ::open(dst.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
    ZipWriter w(fd, dst);
    w.add_ending_at("archive/data.pkl", std::string(first, 'q'), run[0]->local_header_offset);
    w.add_span(reader, run, reader.central_directory_offset());
    w.finish();
    ::close(fd);
    File out = File::open_read(dst);
    ZipReader copy(out.fd(), out.size(dst), dst);
    ASSERT_EQ(copy.records().size(), 3U);
    const ZipRecord& data = *copy.find("archive/data/0");
    EXPECT_EQ(data.local_header_offset % 4096, run[0]->local_header_offset % 4096) << first;
    EXPECT_EQ(copy.data_offset(data) % 64, 0U) << first;
    EXPECT_EQ(copy.read(data, 1 << 20), big) << first;
    EXPECT_EQ(copy.read(*copy.find("archive/version"), 10), "3\n");
    EXPECT_EQ(copy.read(*copy.find("archive/data.pkl"), 1 << 20), std::string(first, 'q'));
    for (const auto& r : copy.records()) EXPECT_TRUE(copy.local_header_matches(r)) << r.name;
    const auto py = run_python(
        "import sys, zipfile\n"
        "z = zipfile.ZipFile(sys.argv[1])\n"
        "assert z.testzip() is None\n"
        "assert z.read('archive/data/0') == b'x' * 200000\n"
        "print('OK')",
        {dst});
    EXPECT_EQ(py.exit_code, 0) << py.output;
  }
}

}  // namespace
}  // namespace devcheck::detail
