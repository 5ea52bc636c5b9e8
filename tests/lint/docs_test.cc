// docs/lint.md shows every rule with the two examples its unit holds
// (rule.h): the page's "# bad" and "# good" blocks under the rule's heading
// are the rule's own, and each lints as the page says.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "devcheck/lint.h"
#include "lint/rule.h"

namespace devcheck::lint {
namespace {

struct Example {
  std::string rule;
  bool bad = false;
  std::string code;  // without its "# bad" / "# good" line
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
    std::string code;
    while (std::getline(in, line) && line != "```") {
      ++number;
      code += line + "\n";
    }
    ++number;
    e.bad = code.rfind("# bad\n", 0) == 0;
    if (!e.bad && code.rfind("# good\n", 0) != 0) continue;
    e.code = code.substr(code.find('\n') + 1);
    out.push_back(std::move(e));
  }
  return out;
}

TEST(LintDocs, EachRulesExamplesAreThePagesAndLintAsItSays) {
  std::map<std::string, std::pair<std::string, std::string>> page;
  for (const Example& e : examples()) (e.bad ? page[e.rule].first : page[e.rule].second) = e.code;
  for (const detail::Rule* rule : detail::registry()) {
    const std::string id(rule->info.id);
    SCOPED_TRACE(id);
    LintOptions options;
    options.select = {id};
    EXPECT_FALSE(lint_source(rule->bad, "bad.py", options).empty()) << rule->bad;
    EXPECT_TRUE(lint_source(rule->good, "good.py", options).empty()) << rule->good;
    if (id == "DC100") continue;
    ASSERT_EQ(page.count(id), 1U) << id << " has no section with examples in docs/lint.md";
    EXPECT_EQ(page[id].first, rule->bad) << "docs/lint.md's bad example of " << id;
    EXPECT_EQ(page[id].second, rule->good) << "docs/lint.md's good example of " << id;
  }
}

TEST(LintDocs, EveryExampleOnThePageIsARulesAndLintsAsItSays) {
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

}  // namespace
}  // namespace devcheck::lint
