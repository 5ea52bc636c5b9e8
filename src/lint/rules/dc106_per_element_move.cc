// DC106 per-element-move: one host-to-device copy per element where one copy
// of the whole would do: torch.stack([t.to(device) for t in ts]), or a loop
// over a batch's samples that moves each (the device flow knows the batch).
#include <set>

#include "../common.h"
#include "../flow/flow.h"
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

// DC106: torch.stack([t.to(dev) for t in ts]) moves each element; one
// torch.stack(ts).to(dev) does one copy.
void check_element_moves(const Source& source, const Call& call, Sink& sink) {
  if (call.qualified != "torch.stack" && call.qualified != "torch.cat") return;
  const std::vector<TSNode> args = source.positional(call.node);
  if (args.empty() || !(is(args[0], "list_comprehension") || is(args[0], "generator_expression"))) {
    return;
  }
  const TSNode body = field(args[0], "body");
  if (!is(body, "call")) return;
  const TSNode function = field(body, "function");
  if (!is(function, "attribute")) return;
  const std::string_view method = source.text(field(function, "attribute"));
  if (method != "to" && method != "cuda") return;
  const TSNode object = field(function, "object");
  if (!is(object, "identifier")) return;
  // The element moved is the comprehension's own variable.
  bool own = false;
  for (uint32_t i = 0; i < ts_node_named_child_count(args[0]); ++i) {
    const TSNode clause = ts_node_named_child(args[0], i);
    if (is(clause, "for_in_clause")) {
      own = own || source.text(field(clause, "left")) == source.text(object);
    }
  }
  if (!own) return;
  sink.report(
      call.node, "DC106",
      std::string(source.dotted(field(call.node, "function"))) + " of one ." + std::string(method) +
          "() per element copies each one to the device separately; stack first and "
          "move once: " +
          source.dotted(field(call.node, "function")) + "(...)." + std::string(method) + "(...)");
}

void check(const RuleContext& c) {
  for (const Call& call : c.source.calls()) check_element_moves(c.source, call, c.sink);
  std::set<uint32_t> done;
  for (const Move& move : c.flow.moves()) {
    if (!move.per_sample || move.target != Place::kDevice ||
        !done.insert(ts_node_start_byte(move.call)).second) {
      continue;
    }
    c.sink.report(move.call, "DC106",
                  std::string(c.source.text(move.object)) +
                      " is one sample of a batch from a DataLoader, moved to the device on its "
                      "own: one copy per sample where one move of the whole batch would do; "
                      "move the batch once, before the loop over its samples");
  }
}

}  // namespace

extern const Rule kRuleDC106;
const Rule kRuleDC106 = {
    {"DC106", "per-element-move",
     "One .to(device) per element or sample, where one move of the whole would do.", false},
    "import torch\n"
    "batch = torch.stack([t.to(device) for t in tensors])\n",
    "import torch\n"
    "batch = torch.stack(tensors).to(device)\n",
    check};

}  // namespace devcheck::lint::detail
