// DC109 deprecated-cuda-amp: torch.cuda.amp.autocast / GradScaler.
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

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
