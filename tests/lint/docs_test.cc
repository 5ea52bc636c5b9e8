// docs/lint.md: every rule has a bad example that is found and a good one
// that is not, and the page says so of the code it shows.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "devcheck/lint.h"

namespace devcheck::lint {
namespace {

struct Example {
  std::string rule;
  bool bad = false;
  std::string code;
  int line = 0;
};

std::vector<Example> examples() {
  std::ifstream in(std::string(DEVCHECK_SOURCE_DIR) + "/docs/lint.md");
  std::vector<Example> out;
  std::string line, rule;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.rfind("### DC", 0) == 0) rule = line.substr(4);
    if (line != "```python") continue;
    Example e;
    e.rule = rule;
    e.line = number + 1;
    while (std::getline(in, line) && line != "```") {
      ++number;
      e.code += line + "\n";
    }
    ++number;
    e.bad = e.code.rfind("# bad\n", 0) == 0;
    if (e.bad || e.code.rfind("# good\n", 0) == 0) out.push_back(std::move(e));
  }
  return out;
}

TEST(LintDocs, EveryExampleIsFoundOrNotAsThePageSays) {
  const std::vector<Example> all = examples();
  ASSERT_GT(all.size(), 20U);
  for (const Example& e : all) {
    LintOptions options;
    options.select = {e.rule};
    const std::vector<Finding> findings = lint_source(e.code, "docs.py", options);
    EXPECT_EQ(findings.empty(), !e.bad)
        << "docs/lint.md:" << e.line << " (" << e.rule << ", " << (e.bad ? "bad" : "good")
        << ") got " << findings.size() << " findings:\n"
        << e.code;
  }
}

TEST(LintDocs, EveryRuleHasABadAndAGoodExample) {
  std::map<std::string, std::pair<int, int>> counts;
  for (const Example& e : examples()) (e.bad ? counts[e.rule].first : counts[e.rule].second)++;
  for (const RuleInfo& r : rules()) {
    if (r.id == "DC100") continue;
    const auto found = counts.find(std::string(r.id));
    ASSERT_NE(found, counts.end()) << r.id << " has no example in docs/lint.md";
    EXPECT_GE(found->second.first, 1) << r.id << " has no bad example";
    EXPECT_GE(found->second.second, 1) << r.id << " has no good example";
  }
}

}  // namespace
}  // namespace devcheck::lint
