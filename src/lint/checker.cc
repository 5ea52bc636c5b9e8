// One file: parse, run the device flow and every rule, drop what is
// suppressed or not selected.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "checker.h"
#include "flow/flow.h"
#include "rule.h"
#include "syntax.h"

namespace devcheck::lint {
namespace detail {
namespace {

bool matches(std::string_view rule, const std::vector<std::string>& patterns) {
  return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) {
    return p == "ALL" || rule.compare(0, p.size(), p) == 0;
  });
}

// Line -> rules suppressed there (empty set: all), from `# devcheck: ignore[...]`.
std::map<int, std::set<std::string>> suppressions(const Source& source) {
  std::map<int, std::set<std::string>> out;
  static constexpr std::string_view kMarker = "devcheck: ignore";
  for (TSNode comment : source.comments()) {
    const std::string_view text = source.text(comment);
    const auto at = text.find(kMarker);
    if (at == std::string_view::npos) continue;
    const int line = static_cast<int>(ts_node_start_point(comment).row) + 1;
    std::set<std::string>& rules = out[line];
    std::string_view rest = text.substr(at + kMarker.size());
    if (rest.empty() || rest[0] != '[') {
      rules.clear();
      rules.insert("*");
      continue;
    }
    const auto close = rest.find(']');
    rest = rest.substr(1, close == std::string_view::npos ? std::string_view::npos : close - 1);
    std::string id;
    for (char c : std::string(rest) + ",") {
      if (c == ',' || c == ' ') {
        if (!id.empty()) rules.insert(id);
        id.clear();
      } else {
        id += c;
      }
    }
  }
  return out;
}

bool suppressed(const std::map<int, std::set<std::string>>& table, const Finding& f) {
  for (int line : {f.line, f.end_line}) {
    const auto found = table.find(line);
    if (found != table.end() &&
        (found->second.count("*") != 0 || found->second.count(f.rule) != 0)) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool selected(const std::string& rule, const std::vector<std::string>& select,
              const std::vector<std::string>& ignore) {
  if (!select.empty() && !matches(rule, select)) return false;
  return !matches(rule, ignore);
}

Finding parse_given_up(const std::string& path) {
  Finding f;
  f.path = path;
  f.line = f.column = f.end_line = f.end_column = 1;
  f.rule = "DC100";
  f.message = "the parser gave up on this file after " +
              std::to_string(Parser::kTimeoutMicros / 1'000'000) +
              " s (a long invalid construct it recovers from slowly); nothing in it is checked";
  return f;
}

std::vector<Finding> check_source(std::string_view text, const std::string& path,
                                  const std::vector<std::string>& select,
                                  const std::vector<std::string>& ignore) {
  thread_local Parser parser;
  const auto tree = parser.parse(text);
  if (!tree) {
    // The parser gave up: one finding that says so, where DC100 is asked for.
    if (!selected("DC100", select, ignore)) return {};
    return {parse_given_up(path)};
  }
  const Source source(text, tree.get());
  const Flow flow(source);
  Sink sink(path);
  const RuleContext context{source, flow, sink};
  for (const Rule* rule : registry()) {
    // A rule nobody asked for is not run (its findings would be dropped).
    if ((!select.empty() && !matches(rule->info.id, select)) || matches(rule->info.id, ignore)) {
      continue;
    }
    rule->check(context);
  }
  const auto table = suppressions(source);
  std::vector<Finding> out;
  for (Finding& f : sink.findings()) {
    if (selected(f.rule, select, ignore) && !suppressed(table, f)) out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.line, a.column, a.rule) < std::tie(b.line, b.column, b.rule);
  });
  return out;
}

}  // namespace detail

std::vector<Finding> lint_source(std::string_view source, const std::string& path,
                                 const LintOptions& options) {
  return detail::check_source(source, path, options.select, options.ignore);
}

}  // namespace devcheck::lint
