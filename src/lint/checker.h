#pragma once
// Linting one file's text (checker.cc). Internal.

#include <string>
#include <string_view>
#include <vector>

#include "devcheck/lint.h"

namespace devcheck::lint::detail {

// Whether `rule` is reported under `select` (empty: all) and `ignore`
// (ids or prefixes; `ALL` matches every rule). `ignore` wins.
bool selected(const std::string& rule, const std::vector<std::string>& select,
              const std::vector<std::string>& ignore);

// The one finding of a file the parser gave up on (Parser::kTimeoutMicros).
Finding parse_given_up(const std::string& path);

// The findings of one file's text, sorted by line, column and rule, with
// `# devcheck: ignore[...]` suppressions applied. Thread-safe.
std::vector<Finding> check_source(std::string_view text, const std::string& path,
                                  const std::vector<std::string>& select,
                                  const std::vector<std::string>& ignore);

}  // namespace devcheck::lint::detail
