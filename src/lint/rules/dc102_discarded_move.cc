// DC102 discarded-move: `t.cuda()`, `t.to(dev)`, `t.cpu()` as a statement,
// where the device flow knows t is a tensor (made as one, or used as one and
// never as a module, or the variable of a loop over what a class annotation
// says holds tensors): tensors do not move in place, the copy is dropped.
#include <algorithm>
#include <string>
#include <vector>

#include "../common.h"
#include "../flow/flow.h"
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

// Whether an annotation says a container of tensors (`Tuple[torch.Tensor,
// ...]`, `Optional[List[Tensor]]`): its loop's variable is one tensor. Not a
// mapping, whose loop gives its keys.
bool tensors_annotation(const Source& source, TSNode type) {
  if (ts_node_is_null(type)) return false;
  std::string_view text = source.text(type);
  if (text.rfind("Optional[", 0) == 0) text.remove_prefix(9);
  if (text.rfind("typing.", 0) == 0) text.remove_prefix(7);
  const bool container = text.rfind("Tuple[", 0) == 0 || text.rfind("List[", 0) == 0 ||
                         text.rfind("Sequence[", 0) == 0 || text.rfind("Iterable[", 0) == 0 ||
                         text.rfind("tuple[", 0) == 0 || text.rfind("list[", 0) == 0;
  return container && text.find("Tensor") != std::string_view::npos;
}

// The annotation of `self.x` (`name`: "x") in the body of the class that
// owns `scope` (`_inputs: Optional[Tuple[torch.Tensor, ...]]`), or a null node.
TSNode class_annotation(const Source& source, int scope, std::string_view name) {
  const int owner = scope >= 0 ? source.scopes()[scope].owner_class : -1;
  if (owner < 0) return TSNode{};
  const TSNode body = field(source.scopes()[owner].node, "body");
  for (uint32_t i = 0, n = ts_node_named_child_count(body); i < n; ++i) {
    const TSNode statement = ts_node_named_child(body, i);
    if (!is(statement, "expression_statement")) continue;
    const TSNode assignment = ts_node_named_child(statement, 0);
    if (is(assignment, "assignment") && source.text(field(assignment, "left")) == name) {
      return field(assignment, "type");
    }
  }
  return TSNode{};
}

// Whether `object` is the variable of the loop around `call` over what its
// annotation says holds tensors: `for t in self._inputs: t.to(device)`.
bool loops_over_annotated_tensors(const Source& source, TSNode call, TSNode object, int scope) {
  const TSNode loop = enclosing_loop(call);
  if (ts_node_is_null(loop) || source.text(field(loop, "left")) != source.text(object)) {
    return false;
  }
  const TSNode over = field(loop, "right");
  if (!is(over, "attribute") || source.text(field(over, "object")) != "self") return false;
  const int function = source.function_of(scope);
  return tensors_annotation(
      source, class_annotation(source, function, source.text(field(over, "attribute"))));
}

// `[o.cuda() for o in xs]` as a statement: the moved copies are built and
// dropped; a module among xs moves in place, a tensor stays where it was.
// Not where the flow knows the elements are modules.
bool dropped_in_a_comprehension(const RuleContext& c, const Move& move) {
  const TSNode comprehension = ts_node_parent(move.call);
  if ((!is(comprehension, "list_comprehension") && !is(comprehension, "set_comprehension") &&
       !is(comprehension, "generator_expression")) ||
      !ts_node_eq(ts_node_named_child(comprehension, 0), move.call) ||
      !is(ts_node_parent(comprehension), "expression_statement") ||
      move.value.kind == Kind::kModule || !is(move.object, "identifier")) {
    return false;
  }
  const TSNode loop = ts_node_named_child(comprehension, 1);
  if (!is(loop, "for_in_clause") ||
      c.source.text(field(loop, "left")) != c.source.text(move.object)) {
    return false;
  }
  std::string message(c.source.text(comprehension));
  message +=
      " builds the moved copies and drops them: a module among them moves in place, but a tensor "
      "does not move; assign each moved tensor (x = x.to(device)) where it is used";
  c.sink.report(move.call, "DC102", std::move(message));
  return true;
}

// `vae = AutoencoderKL.from_pretrained(...)` (in any assignment of the
// name: `vae = vae.to(device)` may come later): a model or a pipeline,
// which moves in place (what else loads so has no .to).
bool pretrained(const Source& source, const Move& move) {
  const std::string name(source.text(move.object));
  for (int s = move.scope; s >= 0; s = source.scopes()[s].parent) {
    const auto found = source.scopes()[s].assigns.find(name);
    if (found == source.scopes()[s].assigns.end() || found->second.empty()) continue;
    return std::any_of(found->second.begin(), found->second.end(), [&](TSNode made) {
      const TSNode function = is(made, "call") ? field(made, "function") : TSNode{};
      return is(function, "attribute") &&
             source.text(field(function, "attribute")) == "from_pretrained";
    });
  }
  return false;
}

// Whether the move takes the object to its own place: `x.to(x.device)`,
// `x.to(device=x.device, dtype=x.dtype)`. A tensor's `.to()` of its own
// device and dtype returns the tensor itself: dropping that loses nothing,
// so such a statement means an object whose `to()` works in place
// (lerobot's normalizer steps rebuild their statistics so).
bool moves_to_its_own_place(const Source& source, const Move& move) {
  const TSNode function = field(move.call, "function");
  if (!is(function, "attribute") || source.text(field(function, "attribute")) != "to") {
    return false;
  }
  const std::string object(source.text(move.object));
  const TSNode args = field(move.call, "arguments");
  const uint32_t n = ts_node_named_child_count(args);
  bool own = false;
  for (uint32_t i = 0; i < n; ++i) {
    TSNode arg = ts_node_named_child(args, i);
    if (is(arg, "keyword_argument")) {
      const std::string_view name = source.text(field(arg, "name"));
      if (name == "non_blocking" || name == "copy") continue;
      arg = field(arg, "value");
    }
    const std::string_view text = source.text(arg);
    if (text != object + ".device" && text != object + ".dtype") return false;
    own = true;
  }
  return own;
}

// Whether a class of the file is no tensor class: its bases are none,
// `object`, nn.Module's, or classes of the file that are none either (an
// imported base may be a Tensor subclass: that is not known).
bool no_tensor_class(const Source& source, std::string_view name, int depth = 0) {
  const auto found = source.classes().find(std::string(name));
  if (found == source.classes().end() || depth > 8) return false;
  if (found->second.is_module) return true;
  const TSNode bases = field(source.scopes()[found->second.scope].node, "superclasses");
  for (uint32_t i = 0, n = ts_node_is_null(bases) ? 0 : ts_node_named_child_count(bases); i < n;
       ++i) {
    const TSNode base = ts_node_named_child(bases, i);
    if (is(base, "keyword_argument")) continue;  // metaclass=...
    const std::string_view text = source.text(base);
    if (text != "object" && !no_tensor_class(source, text, depth + 1)) return false;
  }
  return true;
}

// Whether the move lies in the body of an `if` (or `elif`) whose test is
// `isinstance(x, C)` (C, or a tuple of them, classes of the file that are
// no tensor classes): x is an instance of C there, whose `to()` is its own.
bool under_isinstance_of_a_plain_class(const Source& source, const Move& move) {
  const std::string_view object = source.text(move.object);
  TSNode inner = move.call;
  for (TSNode n = ts_node_parent(move.call); !ts_node_is_null(n);
       inner = n, n = ts_node_parent(n)) {
    if (is(n, "function_definition") || is(n, "class_definition")) break;
    if (!is(n, "if_statement") && !is(n, "elif_clause")) continue;
    if (!ts_node_eq(field(n, "consequence"), inner)) continue;
    const TSNode test = field(n, "condition");
    if (!is(test, "call") || source.text(field(test, "function")) != "isinstance") continue;
    const std::vector<TSNode> args = source.positional(test);
    if (args.size() != 2 || source.text(args[0]) != object) continue;
    bool plain = true;
    if (is(args[1], "tuple")) {
      const uint32_t count = ts_node_named_child_count(args[1]);
      for (uint32_t i = 0; i < count; ++i) {
        plain = plain && no_tensor_class(source, source.text(ts_node_named_child(args[1], i)));
      }
    } else {
      plain = no_tensor_class(source, source.text(args[1]));
    }
    if (plain) return true;
  }
  return false;
}

void check(const RuleContext& c) {
  for (const Move& move : c.flow.moves()) {
    if (dropped_in_a_comprehension(c, move)) continue;
    // A name, `self.x` or an element (`batch["ids"]`): what the fix assigns.
    const bool assignable =
        is(move.object, "identifier") || is(move.object, "subscript") ||
        (is(move.object, "attribute") && c.source.text(field(move.object, "object")) == "self");
    if (!move.statement || !assignable || moves_to_its_own_place(c.source, move) ||
        under_isinstance_of_a_plain_class(c.source, move)) {
      continue;
    }
    bool tensor = move.value.kind == Kind::kTensor;
    if (move.value.kind == Kind::kUnknown && is(move.object, "identifier") &&
        !pretrained(c.source, move)) {
      const int function = c.source.function_of(c.source.scope_of(move.call));
      const TSNode body = function < 0 ? c.source.root() : c.source.scopes()[function].node;
      tensor = used_as_tensor(c.source, body, c.source.text(move.object),
                              c.flow.module_input(move.scope, c.source.text(move.object)));
    }
    if (!tensor && (move.value.kind == Kind::kUnknown || move.value.kind == Kind::kNone) &&
        is(move.object, "identifier") &&
        loops_over_annotated_tensors(c.source, move.call, move.object, move.scope)) {
      const TSNode over = field(enclosing_loop(move.call), "right");
      std::string message(c.source.text(move.call));
      message += " returns a moved copy and this discards it: tensors do not move in place, and ";
      message += c.source.text(over);
      message += " keeps the unmoved ones; build them anew: ";
      message += c.source.text(over);
      message += " = tuple(... for ";
      message += c.source.text(move.object);
      message += " in ";
      message += c.source.text(over);
      message += ")";
      c.sink.report(move.call, "DC102", std::move(message));
      continue;
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
