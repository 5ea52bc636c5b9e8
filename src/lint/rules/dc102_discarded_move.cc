// DC102 discarded-move: `t.cuda()`, `t.to(dev)`, `t.cpu()` as a statement,
// where the device flow knows t is a tensor (made as one, or used as one and
// never as a module): tensors do not move in place, the copy is dropped.
#include "../common.h"
#include "../flow/flow.h"
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

void check(const RuleContext& c) {
  for (const Move& move : c.flow.moves()) {
    // A name, `self.x` or an element (`batch["ids"]`): what the fix assigns.
    const bool assignable =
        is(move.object, "identifier") || is(move.object, "subscript") ||
        (is(move.object, "attribute") && c.source.text(field(move.object, "object")) == "self");
    if (!move.statement || !assignable) continue;
    bool tensor = move.value.kind == Kind::kTensor;
    if (move.value.kind == Kind::kUnknown && is(move.object, "identifier")) {
      const int function = c.source.function_of(c.source.scope_of(move.call));
      const TSNode body = function < 0 ? c.source.root() : c.source.scopes()[function].node;
      tensor = used_as_tensor(c.source, body, c.source.text(move.object),
                              c.flow.module_input(move.scope, c.source.text(move.object)));
    }
    if (!tensor) continue;
    const std::string name(c.source.text(move.object));
    const TSNode statement = ts_node_parent(move.call);
    const std::string method(c.source.text(field(field(move.call, "function"), "attribute")));
    std::string message = name;
    message += ".";
    message += method;
    message +=
        "(...) returns a moved copy and this discards it: tensors do not move in place; write ";
    message += name;
    message += " = ";
    message += c.source.text(move.call);
    c.sink.report(
        move.call, "DC102", std::move(message),
        Fix{"assign the result to " + name,
            {{ts_node_start_byte(statement), ts_node_start_byte(statement), name + " = "}}});
  }
}

}  // namespace

extern const Rule kRuleDC102;
const Rule kRuleDC102 = {
    {"DC102", "discarded-move",
     "t.cuda() / t.to(dev) as a statement: tensors do not move in place.", true},
    "import torch\n"
    "x = torch.zeros(3)\n"
    "x.cuda()\n",
    "import torch\n"
    "import torch.nn as nn\n"
    "x = torch.zeros(3)\n"
    "x = x.cuda()\n"
    "model = nn.Linear(3, 3)\n"
    "model.to(\"cuda\")\n",
    check};

}  // namespace devcheck::lint::detail
