// The rules, one per file in rules/. rule_list.inc is made by the build
// from those files' names (src/lint/CMakeLists.txt): DEVCHECK_LINT_RULE(DC101)
// for rules/dc101_*.cc, in order of id.
#include <algorithm>

#include "rule.h"

namespace devcheck::lint {
namespace detail {

#define DEVCHECK_LINT_RULE(id) extern const Rule kRule##id;
#include "rule_list.inc"
#undef DEVCHECK_LINT_RULE

const std::vector<const Rule*>& registry() {
  static const std::vector<const Rule*> kAll = [] {
    std::vector<const Rule*> all = {
#define DEVCHECK_LINT_RULE(id) &kRule##id,
#include "rule_list.inc"
#undef DEVCHECK_LINT_RULE
    };
    std::sort(all.begin(), all.end(),
              [](const Rule* a, const Rule* b) { return a->info.id < b->info.id; });
    return all;
  }();
  return kAll;
}

}  // namespace detail

const std::vector<RuleInfo>& rules() {
  static const std::vector<RuleInfo> kInfos = [] {
    std::vector<RuleInfo> out;
    for (const detail::Rule* rule : detail::registry()) out.push_back(rule->info);
    return out;
  }();
  return kInfos;
}

}  // namespace devcheck::lint
