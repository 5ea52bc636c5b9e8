#include <gtest/gtest.h>
#include <sys/stat.h>

#include "devcheck/lint.h"
#include "lint_testing_fs.h"

namespace devcheck::lint {
namespace {
using testing::ScratchDir;

const char* const kBad =
    "import torch\n"
    "x = torch.zeros(3)\n"
    "x.cuda()\n"
    "scaler = torch.cuda.amp.GradScaler()\n"
    "state = torch.load('m.pt')\n";

TEST(LintPaths, LintsFoldersInParallelWithTheSameResult) {
  ScratchDir dir;
  for (int i = 0; i < 20; ++i) dir.write("pkg/m" + std::to_string(i) + ".py", kBad);
  LintOptions one;
  one.jobs = 1;
  LintOptions four;
  four.jobs = 4;
  const LintReport a = lint_paths({dir.path()}, one);
  const LintReport b = lint_paths({dir.path()}, four);
  EXPECT_EQ(a.files_checked(), 20U);
  EXPECT_EQ(a.findings().size(), 60U);
  EXPECT_EQ(a.to_text(), b.to_text());
}

TEST(LintPaths, NamesUnreadableInputs) {
  ScratchDir dir;
  const std::string locked = dir.write("locked.py", "x = 1\n");
  ::chmod(locked.c_str(), 0);
  const LintReport report = lint_paths({locked, dir.path() + "/nope"});
  ASSERT_EQ(report.errors().size(), ::geteuid() == 0 ? 1U : 2U);
  EXPECT_EQ(report.errors().back(), dir.path() + "/nope: no such file or folder");
}

TEST(LintFixPaths, RewritesFilesAtomicallyAndTheResultLintsClean) {
  ScratchDir dir;
  const std::string file = dir.write("train.py", kBad);
  ::chmod(file.c_str(), 0755);
  const FixResult preview = fix_paths({file}, {}, /*write=*/false);
  EXPECT_EQ(preview.changed, (std::vector<std::string>{file}));
  EXPECT_NE(preview.diff.find("+x = x.cuda()\n"), std::string::npos) << preview.diff;
  EXPECT_EQ(ScratchDir::read(file), kBad);  // --diff changes nothing

  const FixResult fixed = fix_paths({file}, {}, /*write=*/true);
  EXPECT_EQ(fixed.changed, (std::vector<std::string>{file}));
  EXPECT_EQ(ScratchDir::read(file),
            "import torch\n"
            "x = torch.zeros(3)\n"
            "x = x.cuda()\n"
            "scaler = torch.amp.GradScaler(\"cuda\")\n"
            "state = torch.load('m.pt')\n");
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755U);
  // Only DC105 (no safe fix) remains, and the fixed file parses.
  ASSERT_EQ(fixed.remaining.findings().size(), 1U);
  EXPECT_EQ(fixed.remaining.findings()[0].rule, "DC105");
  EXPECT_TRUE(fix_paths({file}, {}, true).changed.empty());
}

TEST(LintFixPaths, FixesOnlySelectedRules) {
  ScratchDir dir;
  const std::string file = dir.write("t.py", kBad);
  LintOptions only_amp;
  only_amp.select = {"DC109"};
  fix_paths({file}, only_amp, true);
  const std::string text = ScratchDir::read(file);
  EXPECT_NE(text.find("\nx.cuda()\n"), std::string::npos);
  EXPECT_NE(text.find("torch.amp.GradScaler(\"cuda\")"), std::string::npos);
}

}  // namespace
}  // namespace devcheck::lint
