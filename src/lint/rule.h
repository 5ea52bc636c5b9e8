#pragma once
// One rule of `devcheck lint` as one unit: what it is (id, name, summary,
// whether --fix applies it), the docs example that it finds and its fixed
// twin, and its check. Each rule is one file in rules/ that defines one
// `Rule` named kRule<ID>; registry.cc lists them all (the build makes the
// list from the files' names), so a new rule is one new file and its test.
// Internal; docs/lint.md shows every rule with its two examples.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "devcheck/lint.h"
#include "syntax.h"

namespace devcheck::lint::detail {

class Flow;

// Collects one file's findings.
class Sink {
 public:
  explicit Sink(std::string path) : path_(std::move(path)) {}
  void report(TSNode node, std::string_view rule, std::string message,
              std::optional<Fix> fix = std::nullopt);
  std::vector<Finding>& findings() { return findings_; }
  // The file's path as the caller gave it.
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::vector<Finding> findings_;
};

// What a check reads and where it reports: the parsed file, the device flow
// over it (flow.h) and the file's findings.
struct RuleContext {
  const Source& source;
  const Flow& flow;
  Sink& sink;
};

struct Rule {
  RuleInfo info;
  // A program the rule finds and the same program fixed, as docs/lint.md
  // shows them (after its "# bad" and "# good" lines); the tests lint both.
  std::string_view bad;
  std::string_view good;
  void (*check)(const RuleContext& context);
};

// Every rule, sorted by id. A constant table: thread-safe.
const std::vector<const Rule*>& registry();

}  // namespace devcheck::lint::detail
