#include <gtest/gtest.h>

#include "lint/config.h"
#include "lint_testing.h"
#include "lint_testing_fs.h"

namespace devcheck::lint::detail {
namespace {

TEST(LintConfig, ReadsTheDevcheckLintTable) {
  const auto config = parse_config(
      "[project]\n"
      "name = 'x'\n"
      "select = ['NOT-OURS']\n"
      "[tool.devcheck.lint]\n"
      "select = [\"DC1\"]  # all\n"
      "ignore = [\n"
      "  \"DC112\",\n"
      "  'DC114',\n"
      "]\n"
      "exclude = [\"build\", \"vendor/*.py\"]\n"
      "per-file-ignores = { \"tests/*\" = [\"DC101\"], \"conftest.py\" = [\"DC105\"] }\n"
      "[tool.other]\n"
      "ignore = ['X']\n",
      "/repo");
  ASSERT_NE(config, nullptr);
  EXPECT_EQ(config->select, (std::vector<std::string>{"DC1"}));
  EXPECT_EQ(config->ignore, (std::vector<std::string>{"DC112", "DC114"}));
  EXPECT_EQ(config->exclude, (std::vector<std::string>{"build", "vendor/*.py"}));
  ASSERT_EQ(config->per_file_ignores.size(), 2U);
  EXPECT_EQ(config->per_file_ignores[0].first, "tests/*");
  EXPECT_EQ(config->per_file_ignores[1].second, (std::vector<std::string>{"DC105"}));
  EXPECT_EQ(ignored_rules(*config, "/repo/tests/a_test.py"),
            (std::vector<std::string>{"DC112", "DC114", "DC101"}));
  EXPECT_TRUE(excluded(*config, "/repo/build/x.py"));
  EXPECT_TRUE(excluded(*config, "/repo/vendor/y.py"));
  EXPECT_FALSE(excluded(*config, "/repo/src/y.py"));
}

TEST(LintConfig, ReadsAPerFileIgnoresTable) {
  const auto config =
      parse_config("[tool.devcheck.lint.per-file-ignores]\n\"scripts/*.py\" = [\"DC115\"]\n", "/r");
  ASSERT_NE(config, nullptr);
  ASSERT_EQ(config->per_file_ignores.size(), 1U);
  EXPECT_EQ(config->per_file_ignores[0].first, "scripts/*.py");
  EXPECT_EQ(parse_config("[tool.ruff]\nselect = ['E']\n", "/r"), nullptr);
}

TEST(LintConfig, IsFoundUpwardFromEachFile) {
  testing::ScratchDir dir;
  dir.write("pyproject.toml", "[tool.devcheck.lint]\nignore = ['DC105']\n");
  dir.write("sub/pyproject.toml", "[project]\nname = 'no lint table'\n");
  const std::string file = dir.write("sub/deep/a.py", "import torch\ntorch.load(p)\n");
  ConfigFinder finder;
  const Config* config = finder.find(file);
  ASSERT_NE(config, nullptr);
  EXPECT_EQ(config->root, dir.path());
  EXPECT_EQ(config->ignore, (std::vector<std::string>{"DC105"}));
  const LintReport report = lint_paths({dir.path()});
  EXPECT_FALSE(report.has_findings()) << report.to_text();
  LintOptions no_config;
  no_config.use_config = false;
  EXPECT_TRUE(lint_paths({dir.path()}, no_config).has_findings());
}

}  // namespace
}  // namespace devcheck::lint::detail
