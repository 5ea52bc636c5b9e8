#pragma once
// Helpers for the lint tests: lint a snippet, list what was found.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "devcheck/lint.h"

namespace devcheck::lint::testing {

// "LINE RULE" for each finding of `source` (only `rule`'s when given), linted
// as the file `path`.
inline std::vector<std::string> found(const std::string& source, const std::string& rule = "",
                                      const std::string& path = "t.py") {
  LintOptions options;
  if (!rule.empty()) options.select = {rule};
  std::vector<std::string> out;
  for (const Finding& f : lint_source(source, path, options)) {
    out.push_back(std::to_string(f.line) + " " + f.rule);
  }
  return out;
}

// The one finding of `rule` in `source`; fails the test when not exactly one.
inline Finding only(const std::string& source, const std::string& rule) {
  LintOptions options;
  options.select = {rule};
  const std::vector<Finding> all = lint_source(source, "t.py", options);
  if (all.size() != 1) {
    Finding none;
    none.message = "expected one " + rule + " finding, got " + std::to_string(all.size());
    return none;
  }
  return all[0];
}

using Lines = std::vector<std::string>;

// For each (bug, fixed twin) pair, after `head`: `rule` reports on the bug
// and says nothing on its twin.
inline void expect_bugs_found_and_twins_clean(
    const std::string& head, const std::vector<std::pair<std::string, std::string>>& pairs,
    const std::string& rule) {
  for (const auto& [bug, fixed] : pairs) {
    EXPECT_FALSE(found(head + bug, rule).empty()) << bug;
    EXPECT_EQ(found(head + fixed, rule), Lines{}) << fixed;
  }
}

}  // namespace devcheck::lint::testing
