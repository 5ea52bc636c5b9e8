// DC100 syntax-error: where the parser lost its way (or Python newer than
// the grammar); the rest of the file is still checked.
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

TSNode first_error(TSNode node) {
  if (ts_node_is_missing(node) || is(node, "ERROR")) return node;
  const uint32_t count = ts_node_child_count(node);
  for (uint32_t i = 0; i < count; ++i) {
    const TSNode child = ts_node_child(node, i);
    if (ts_node_has_error(child)) return first_error(child);
  }
  return TSNode{};
}

void check(const RuleContext& c) {
  if (!ts_node_has_error(c.source.root())) return;
  const TSNode error = first_error(c.source.root());
  if (ts_node_is_null(error)) return;
  c.sink.report(error, "DC100",
                std::string(ts_node_is_missing(error)
                                ? "syntax error: missing " + std::string(ts_node_type(error))
                                : "syntax error") +
                    "; the code around it is not checked");
}

}  // namespace

extern const Rule kRuleDC100;
const Rule kRuleDC100 = {
    {"DC100", "syntax-error", "The file does not parse; the rest of it is still checked.", false},
    "def f(:\n    pass\n",
    "def f():\n    pass\n",
    check};

}  // namespace devcheck::lint::detail
