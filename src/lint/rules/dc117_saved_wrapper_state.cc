// DC117 saved-wrapper-state: torch.save of a DataParallel / DDP wrapper's
// state_dict: its keys start with "module.".
#include <algorithm>
#include <string_view>
#include <vector>

#include "../common.h"
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

// A DataParallel / DDP wrapper, also moved (`nn.DataParallel(net).cuda()`).
bool is_wrapper_value(const Source& source, TSNode value, int depth = 0) {
  if (!is(value, "call") || depth > 8) return false;
  const TSNode function = field(value, "function");
  const std::string q = source.qualify(function);
  if (q == "torch.nn.DataParallel" || q == "torch.nn.parallel.DataParallel" ||
      q == "torch.nn.parallel.DistributedDataParallel" ||
      q == "torch.nn.parallel.distributed.DistributedDataParallel") {
    return true;
  }
  if (!is(function, "attribute")) return false;
  const std::string_view method = source.text(field(function, "attribute"));
  return (method == "cuda" || method == "to") &&
         is_wrapper_value(source, field(function, "object"), depth + 1);
}

// The value `object` holds where `at` reads it: its last assignment before
// `at` in its scope (else the enclosing ones'), followed back through
// `x = x.cuda()` and `x = x.to(...)` (a wrapper moved is still one).
TSNode value_at(const Source& source, TSNode object, int scope, uint32_t at, int depth = 0) {
  if (!is(object, "identifier") || depth > 8) return value_of_object(source, object, scope);
  const std::string name(source.text(object));
  TSNode value{};
  for (int s = scope; s >= 0 && ts_node_is_null(value); s = source.scopes()[s].parent) {
    const auto found = source.scopes()[s].assigns.find(name);
    if (found == source.scopes()[s].assigns.end()) continue;
    for (const TSNode rhs : found->second) {
      if (s != scope || ts_node_start_byte(rhs) < at) value = rhs;
    }
  }
  if (!is(value, "call")) return value;
  const TSNode function = field(value, "function");
  if (!is(function, "attribute")) return value;
  const std::string_view method = source.text(field(function, "attribute"));
  const TSNode moved = field(function, "object");
  if ((method == "cuda" || method == "to") && source.text(moved) == name) {
    return value_at(source, moved, scope, ts_node_start_byte(value), depth + 1);
  }
  return value;
}

// The conditions of the `if`s whose first branch holds `node`, up to its
// function (or the module), and that function's (or module's) node.
TSNode conditions_around(const Source& source, TSNode node, std::vector<std::string_view>& out) {
  for (TSNode n = node; !ts_node_is_null(n); n = ts_node_parent(n)) {
    const TSNode parent = ts_node_parent(n);
    if (is(n, "function_definition") || is(n, "module")) return n;
    if (is(parent, "if_statement") && ts_node_eq(field(parent, "consequence"), n)) {
      out.push_back(source.text(field(parent, "condition")));
    }
  }
  return TSNode{};
}

// Whether `code` holds `if A and B: raise ...` (either order) before byte
// `before`: the program refuses to run with both.
bool refuses_both(const Source& source, TSNode code, std::string_view a, std::string_view b,
                  uint32_t before, int depth = 0) {
  // A refusal is a statement a few blocks deep at most.
  if (ts_node_is_null(code) || ts_node_start_byte(code) >= before || depth > 32) return false;
  if (is(code, "if_statement")) {
    const TSNode condition = field(code, "condition");
    const TSNode body = field(code, "consequence");
    if (is(condition, "boolean_operator") && source.text(field(condition, "operator")) == "and") {
      const std::string_view l = source.text(field(condition, "left"));
      const std::string_view r = source.text(field(condition, "right"));
      bool raises = false;
      for (uint32_t i = 0, n = ts_node_named_child_count(body); i < n; ++i) {
        raises = raises || is(ts_node_named_child(body, i), "raise_statement");
      }
      if (raises && ((l == a && r == b) || (l == b && r == a))) return true;
    }
  }
  for (uint32_t i = 0, n = ts_node_named_child_count(code); i < n; ++i) {
    const TSNode child = ts_node_named_child(code, i);
    if (is(child, "function_definition") || is(child, "class_definition")) continue;
    if (refuses_both(source, child, a, b, before, depth + 1)) return true;
  }
  return false;
}

// Whether the save runs only where the wrapping does not: the save is under
// `if A:`, the wrapping under `if B:`, and the function refuses A and B
// together before either (torchvision's train_quantization.py: `if
// args.post_training_quantize and args.distributed: raise RuntimeError(...)`,
// then DDP under `if args.distributed:`, the save under `if
// args.post_training_quantize:`).
bool never_together(const Source& source, TSNode save, TSNode wrapping) {
  std::vector<std::string_view> saved_under;
  std::vector<std::string_view> wrapped_under;
  const TSNode code = conditions_around(source, save, saved_under);
  if (saved_under.empty() ||
      !ts_node_eq(conditions_around(source, wrapping, wrapped_under), code)) {
    return false;
  }
  const uint32_t first = std::min(ts_node_start_byte(save), ts_node_start_byte(wrapping));
  for (const std::string_view a : saved_under) {
    for (const std::string_view b : wrapped_under) {
      if (refuses_both(source, code, a, b, first)) return true;
    }
  }
  return false;
}

// The state_dict() calls of wrappers inside [start, end).
void report_wrapper_states(const Source& source, uint32_t start, uint32_t end, Sink& sink) {
  for (const Call& inner : source.calls()) {
    if (inner.method != "state_dict" || ts_node_start_byte(inner.node) < start ||
        ts_node_end_byte(inner.node) > end) {
      continue;
    }
    const TSNode held = value_at(source, inner.object, inner.scope, ts_node_start_byte(inner.node));
    if (!is_wrapper_value(source, held) || never_together(source, inner.node, held)) continue;
    const std::string name(source.text(inner.object));
    std::string message = name;
    message +=
        " is a DataParallel/DistributedDataParallel wrapper: its state_dict keys start with "
        "'module.' and do not load into the bare model; save ";
    message += name + ".module.state_dict()";
    sink.report(inner.node, "DC117", std::move(message));
  }
}

// Whether the function `function` loads a state dict into a wrapper
// (`ddp_copy.load_state_dict(checkpoint["state_dict"])`): what it saves from
// one is read back into one, whose keys start with "module." too.
bool loads_into_wrapper(const Source& source, int function) {
  if (function < 0) return false;
  for (const Call& load : source.calls()) {
    if (load.method == "load_state_dict" && source.function_of(load.scope) == function &&
        is_wrapper_value(
            source, value_at(source, load.object, load.scope, ts_node_start_byte(load.node)))) {
      return true;
    }
  }
  return false;
}

void check_saved_wrapper(const Source& source, const Call& call, Sink& sink) {
  if (call.qualified != "torch.save" ||
      loads_into_wrapper(source, source.function_of(call.scope))) {
    return;
  }
  const std::vector<TSNode> args = source.positional(call.node);
  if (args.empty()) return;
  // What is saved: the argument, or the dict a name holds (`state = {...}`,
  // then `torch.save(state, path)`).
  TSNode saved = args[0];
  if (is(saved, "identifier")) {
    const TSNode value = source.value_of(std::string(source.text(saved)), call.scope);
    if (is(value, "dictionary") || is(value, "call")) saved = value;
  }
  report_wrapper_states(source, ts_node_start_byte(saved), ts_node_end_byte(saved), sink);
}

void check(const RuleContext& c) {
  for (const Call& call : c.source.calls()) check_saved_wrapper(c.source, call, c.sink);
}

}  // namespace

extern const Rule kRuleDC117;
const Rule kRuleDC117 = {{"DC117", "saved-wrapper-state",
                          "torch.save of a DataParallel/DDP wrapper's state_dict.", false},
                         "import torch\n"
                         "from torch.nn.parallel import DistributedDataParallel as DDP\n"
                         "ddp = DDP(model)\n"
                         "torch.save(ddp.state_dict(), \"model.pt\")\n",
                         "import torch\n"
                         "from torch.nn.parallel import DistributedDataParallel as DDP\n"
                         "ddp = DDP(model)\n"
                         "torch.save(ddp.module.state_dict(), \"model.pt\")\n",
                         check};

}  // namespace devcheck::lint::detail
