// DC109 deprecated-cuda-amp: torch.cuda.amp.autocast / GradScaler.
#include "../common.h"
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

// Whether a test of the `if` chain or conditional expression around `node`
// asks for torch's version or for the new API (`if is_torch_version(">=",
// "2.3"): torch.amp.GradScaler("cuda") else: torch.cuda.amp.GradScaler()`,
// `hasattr(torch, "amp")`, a flag such as Lightning's
// `_TORCH_GREATER_EQUAL_2_4`), or `node` is in the handler of a `try` whose
// failure says the new API is missing (`except (AttributeError, TypeError)`,
// `except ImportError`): the old spelling is the fallback for a torch that
// has no other.
bool under_version_test(const Source& source, TSNode node) {
  const auto asks = [&](TSNode test) {
    const std::string_view text = source.text(test);
    return names_any(text, {"version"}) || text.find("hasattr(torch") != std::string_view::npos ||
           (names_any(text, {"torch"}) &&
            names_any(text, {"greater", "less", "newer", "older", "_ge", "_gt", "_lt", "_le"}));
  };
  for (TSNode n = ts_node_parent(node); !ts_node_is_null(n); n = ts_node_parent(n)) {
    if (is(n, "except_clause")) {
      // The caught types come before the handler's block.
      const uint32_t count = ts_node_named_child_count(n);
      for (uint32_t i = 0; i + 1 < count; ++i) {
        if (names_any(source.text(ts_node_named_child(n, i)),
                      {"attributeerror", "importerror", "typeerror"})) {
          return true;
        }
      }
      continue;
    }
    if (is(n, "conditional_expression")) {
      if (asks(ts_node_named_child(n, 1))) return true;  // body `if` test `else` other
      continue;
    }
    if (!is(n, "if_statement")) continue;
    if (asks(field(n, "condition"))) return true;
    for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) {
      const TSNode clause = ts_node_named_child(n, i);
      if (is(clause, "elif_clause") && asks(field(clause, "condition"))) return true;
    }
  }
  return false;
}

void check(const RuleContext& c) {
  for (const Call& call : c.source.calls()) {
    std::string_view name;
    if (call.qualified == "torch.cuda.amp.autocast") {
      name = "autocast";
    } else if (call.qualified == "torch.cuda.amp.GradScaler") {
      name = "GradScaler";
    } else {
      continue;
    }
    if (under_version_test(c.source, call.node)) continue;
    std::string message = "torch.cuda.amp." + std::string(name) +
                          " is deprecated since torch 2.4; use torch.amp." + std::string(name) +
                          "(\"cuda\", ...)";
    // Safe to rewrite only when spelled out (`torch.cuda.amp.autocast`) and
    // every argument is a keyword: positions differ between the two APIs.
    const TSNode function = field(call.node, "function");
    const std::string written = c.source.dotted(function);
    const std::string tail = "cuda.amp." + std::string(name);
    std::optional<Fix> fix;
    if (written.size() > tail.size() &&
        written.compare(written.size() - tail.size(), tail.size(), tail) == 0 &&
        c.source.positional(call.node).empty() && !c.source.has_splat(call.node)) {
      const TSNode args = field(call.node, "arguments");
      Fix f;
      f.message = "use torch.amp." + std::string(name) + "(\"cuda\")";
      f.edits.push_back(
          {ts_node_start_byte(function), ts_node_end_byte(function),
           written.substr(0, written.size() - tail.size()) + "amp." + std::string(name)});
      const bool empty = ts_node_named_child_count(args) == 0;
      f.edits.push_back({ts_node_start_byte(args) + 1, ts_node_start_byte(args) + 1,
                         empty ? "\"cuda\"" : "\"cuda\", "});
      fix = std::move(f);
    }
    c.sink.report(call.node, "DC109", std::move(message), std::move(fix));
  }
}

}  // namespace

extern const Rule kRuleDC109;
const Rule kRuleDC109 = {
    {"DC109", "deprecated-cuda-amp", "torch.cuda.amp.autocast / GradScaler are deprecated.", true},
    "import torch\n"
    "scaler = torch.cuda.amp.GradScaler()\n",
    "import torch\n"
    "scaler = torch.amp.GradScaler(\"cuda\")\n",
    check};

}  // namespace devcheck::lint::detail
