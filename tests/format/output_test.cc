// Outputs appear whole or not at all, and never replace a file by surprise.
#include "format/output.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "devcheck/format/error.h"
#include "support/support.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace devcheck::detail {
namespace {

using devcheck::testing::read_file;
using devcheck::testing::TempDir;
using devcheck::testing::write_file;

std::size_t files_in(const std::filesystem::path& dir) {
  return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(dir), {}));
}

TEST(AtomicOutput, NothingAppearsUntilCommit) {
  TempDir dir;
  const std::string path = (dir / "out.pt").string();
  {
    AtomicOutput out(path, false);
    ASSERT_EQ(::write(out.fd(), "abc", 3), 3);
    EXPECT_FALSE(std::filesystem::exists(path));
    out.commit();
  }
  EXPECT_EQ(read_file(path), "abc");
  EXPECT_EQ(files_in(dir.path()), 1u);
}

TEST(AtomicOutput, AbandonedOutputLeavesNoFile) {
  TempDir dir;
  {
    AtomicOutput out((dir / "out.pt").string(), false);
    ASSERT_EQ(::write(out.fd(), "abc", 3), 3);
  }
  EXPECT_EQ(files_in(dir.path()), 0u);
}

TEST(AtomicOutput, RefusesAnExistingFileUnlessOverwriting) {
  TempDir dir;
  const std::string path = (dir / "out.pt").string();
  write_file(path, "old");
  try {
    AtomicOutput out(path, false);
    FAIL() << "expected format::IoError";
  } catch (const format::IoError& e) {
    EXPECT_THAT(e.message(), HasSubstr(path));
    EXPECT_THAT(e.message(), HasSubstr("RemapOptions::force"));
    EXPECT_THAT(e.message(), Not(HasSubstr("--force")));
  }
  AtomicOutput out(path, true);
  ASSERT_EQ(::write(out.fd(), "new", 3), 3);
  out.commit();
  EXPECT_EQ(read_file(path), "new");
}

TEST(AtomicOutput, MissingFolderIsAnIoErrorNamingThePath) {
  TempDir dir;
  const std::string path = (dir / "no" / "such" / "out.pt").string();
  try {
    AtomicOutput out(path, false);
    FAIL() << "expected format::IoError";
  } catch (const format::IoError& e) {
    EXPECT_THAT(e.message(), HasSubstr(path));
  }
}

TEST(SameFile, ComparesInodesNotSpellings) {
  TempDir dir;
  write_file(dir / "a", "x");
  EXPECT_TRUE(same_file((dir / "a").string(), (dir.path() / "." / "a").string()));
  EXPECT_FALSE(same_file((dir / "a").string(), (dir / "b").string()));
}

}  // namespace
}  // namespace devcheck::detail
