#include <gtest/gtest.h>

#include "lint/files.h"
#include "lint_testing_fs.h"

namespace devcheck::lint::detail {
namespace {

TEST(LintFiles, WalksFoldersForPythonAndRespectsGitignore) {
  testing::ScratchDir dir;
  dir.write(".git/HEAD", "ref: refs/heads/main\n");
  dir.write(".gitignore", "build/\n*_pb2.py\n/top_only.py\n!keep_pb2.py\n");
  dir.write("a.py", "");
  dir.write("b.txt", "");
  dir.write("stubs/c.pyi", "");
  dir.write("build/gen.py", "");
  dir.write("x_pb2.py", "");
  dir.write("keep_pb2.py", "");
  dir.write("top_only.py", "");
  dir.write("pkg/top_only.py", "");
  dir.write("pkg/__pycache__/a.py", "");
  dir.write("pkg/.gitignore", "local.py\n");
  dir.write("pkg/local.py", "");
  std::vector<std::string> errors;
  std::vector<std::string> files = collect_files({dir.path()}, true, errors);
  for (std::string& f : files) f = f.substr(dir.path().size() + 1);
  EXPECT_EQ(files,
            (std::vector<std::string>{"a.py", "keep_pb2.py", "pkg/top_only.py", "stubs/c.pyi"}));
  EXPECT_TRUE(errors.empty());
  files = collect_files({dir.path()}, false, errors);
  EXPECT_EQ(files.size(), 8U);
}

TEST(LintFiles, NamesMissingPathsAndKeepsFilesGivenByName) {
  testing::ScratchDir dir;
  const std::string script = dir.write("tool", "#!/usr/bin/env python3\n");
  std::vector<std::string> errors;
  const std::vector<std::string> files =
      collect_files({script, dir.path() + "/missing.py"}, true, errors);
  EXPECT_EQ(files, (std::vector<std::string>{script}));
  ASSERT_EQ(errors.size(), 1U);
  EXPECT_EQ(errors[0], dir.path() + "/missing.py: no such file or folder");
}

TEST(LintFiles, KeepsWholeNamesUnderAFolderGivenWithATrailingSlash) {
  testing::ScratchDir dir;
  dir.write("pkg/model.py", "");
  std::vector<std::string> errors;
  EXPECT_EQ(collect_files({dir.path() + "/"}, true, errors),
            (std::vector<std::string>{dir.path() + "/pkg/model.py"}));
  EXPECT_EQ(collect_files({dir.path() + "/pkg/"}, true, errors),
            (std::vector<std::string>{dir.path() + "/pkg/model.py"}));
  EXPECT_TRUE(errors.empty());
}

TEST(LintFiles, ParsesGitignoreLines) {
  const std::vector<IgnoreRule> rules = parse_gitignore("# c\n\n/a/b\ndir/\n!x\n", "/r");
  ASSERT_EQ(rules.size(), 3U);
  EXPECT_TRUE(rules[0].anchored);
  EXPECT_EQ(rules[0].pattern, "a/b");
  EXPECT_TRUE(rules[1].dir_only);
  EXPECT_TRUE(rules[2].negate);
  EXPECT_TRUE(ignored(rules, "/r/a/b", false));
  EXPECT_FALSE(ignored(rules, "/r/c/a/b", false));
  EXPECT_TRUE(ignored(rules, "/r/q/dir", true));
  EXPECT_FALSE(ignored(rules, "/r/q/dir", false));
}

}  // namespace
}  // namespace devcheck::lint::detail
