// DC103: a tensor made from a NumPy array (`torch.from_numpy(a)`,
// `torch.as_tensor(a)`) is on the CPU; used unmoved beside tensors on a
// device, the op raises a device mismatch. Followed within one scope only
// (docs/lint.md, "How names are followed"): from where the tensor is made,
// or from the name it is assigned to, up to where that name is bound again.
#include <array>
#include <string>

#include "rules.h"

namespace devcheck::lint::detail {
namespace {

constexpr int kMaxDepth = 1500;  // deeper than any real program

// Methods whose result stays on the device of their object.
bool keeps_device(std::string_view method) {
  static constexpr std::array<std::string_view, 18> kMethods = {
      "float", "double",  "half",    "long",      "int",     "bool",
      "byte",  "short",   "clone",   "detach",    "squeeze", "unsqueeze",
      "view",  "reshape", "permute", "transpose", "flatten", "contiguous"};
  for (std::string_view m : kMethods) {
    if (method == m) return true;
  }
  return false;
}

// Whether the value is certainly a NumPy array, or a list or tuple literal
// (as_tensor puts both on the CPU).
bool is_array(const Source& source, TSNode node, int scope, int depth) {
  if (depth > 4 || ts_node_is_null(node)) return false;
  if (is(node, "list") || is(node, "tuple")) return true;
  if (is(node, "identifier")) {
    return is_array(source, source.value_of(std::string(source.text(node)), scope), scope,
                    depth + 1);
  }
  if (!is(node, "call")) return false;
  const TSNode function = field(node, "function");
  if (source.qualify(function).rfind("numpy.", 0) == 0) return true;
  return is(function, "attribute") && source.text(field(function, "attribute")) == "numpy";
}

// Whether the call makes a CPU tensor from an array and is not moved at once.
bool from_array(const Source& source, const Call& call) {
  if ((call.qualified != "torch.from_numpy" && call.qualified != "torch.as_tensor") || call.moved ||
      source.has_splat(call.node)) {
    return false;
  }
  if (call.qualified == "torch.from_numpy") return true;
  const std::vector<TSNode> args = source.positional(call.node);
  const TSNode device = source.keyword(call.node, "device");
  if (args.empty() || (!ts_node_is_null(device) &&
                       string_value(source, device) != std::optional<std::string>("cpu"))) {
    return false;
  }
  return is_array(source, args[0], call.scope, 0);
}

// The largest expression around `node` that is still the same tensor on the
// same device: parentheses, casts and reshapes (`x.float()`), indexing.
TSNode same_tensor(const Source& source, TSNode node) {
  for (;;) {
    const TSNode parent = ts_node_parent(node);
    if (is(parent, "parenthesized_expression") ||
        (is(parent, "subscript") && ts_node_eq(field(parent, "value"), node))) {
      node = parent;
      continue;
    }
    const TSNode call = ts_node_parent(parent);
    if (is(parent, "attribute") && ts_node_eq(field(parent, "object"), node) && is(call, "call") &&
        keeps_device(source.text(field(parent, "attribute")))) {
      node = call;
      continue;
    }
    return node;
  }
}

// A module called as `name(...)` that is on a device: its value was moved
// there (`Net().to(device)`), or a statement `name.to(device)` moves it in
// place, in the module scope, in the scope of the call before it, or (for
// `self.x`) in a method of the same class.
bool module_on_device(const Source& source, TSNode function, int scope, uint32_t at) {
  if (!is(function, "identifier") &&
      !(is(function, "attribute") && source.text(field(function, "object")) == "self")) {
    return false;
  }
  if (on_device(source, function, scope)) return true;
  const std::string_view name = source.text(function);
  const int owner = source.scopes()[scope].owner_class;
  for (const Call& move : source.calls()) {
    if ((move.method != "to" && move.method != "cuda") || source.text(move.object) != name ||
        !is(ts_node_parent(move.node), "expression_statement") ||
        !moves_to_device(source, move.node, move.scope)) {
      continue;
    }
    const bool before = move.scope == scope && ts_node_end_byte(move.node) <= at;
    const bool same_class =
        owner >= 0 && is(function, "attribute") && source.scopes()[move.scope].owner_class == owner;
    if (before || move.scope == 0 || same_class) return true;
  }
  return false;
}

// The value of a name where it is read: the last assignment in its scope
// that ends before, else the last one of the scopes around.
TSNode value_at(const Source& source, TSNode name, int scope) {
  const std::string key(source.text(name));
  const auto found = source.scopes()[scope].assigns.find(key);
  if (found == source.scopes()[scope].assigns.end()) {
    const int parent = source.scopes()[scope].parent;
    return parent < 0 ? TSNode{} : source.value_of(key, parent);
  }
  TSNode value{};
  for (TSNode v : found->second) {
    if (ts_node_end_byte(v) <= ts_node_start_byte(name)) value = v;
  }
  return value;
}

// Whether `node` is a tensor on a device: moved or made there, or the output
// of a module on a device (directly or through the name it was assigned to).
bool device_tensor(const Source& source, TSNode node, int scope) {
  TSNode value = node;
  if (is(node, "identifier")) {
    value = value_at(source, node, scope);
  } else if (is(node, "attribute")) {
    value = value_of_object(source, node, scope);
  }
  if (on_device(source, value, scope)) return true;
  return is(value, "call") &&
         module_on_device(source, field(value, "function"), scope, ts_node_start_byte(node));
}

// The op where the tensor `use` meets a device tensor, or a null node: an
// operand of an arithmetic operator, an argument of a module on a device, or
// an argument (or list element) of a module or torch function beside a device
// tensor. A function of the program's own may do anything and is not judged.
TSNode meets_device(const Source& source, TSNode use, int scope) {
  const TSNode expression = same_tensor(source, use);
  TSNode parent = ts_node_parent(expression);
  if (is(parent, "binary_operator")) {
    const TSNode left = field(parent, "left");
    const TSNode other = ts_node_eq(left, expression) ? field(parent, "right") : left;
    return device_tensor(source, other, scope) ? parent : TSNode{};
  }
  TSNode arguments = parent;
  if (is(parent, "list") || is(parent, "tuple")) arguments = ts_node_parent(parent);
  if (!is(arguments, "argument_list")) return TSNode{};
  const TSNode call = ts_node_parent(arguments);
  const TSNode function = field(call, "function");
  if (ts_node_eq(arguments, parent) &&
      module_on_device(source, function, scope, ts_node_start_byte(call))) {
    return call;
  }
  if (source.qualify(function).rfind("torch.", 0) != 0 &&
      !is_module_name(source, function, scope)) {
    return TSNode{};
  }
  std::vector<TSNode> others = source.positional(call);
  if (!ts_node_eq(arguments, parent)) {
    for (uint32_t i = 0; i < ts_node_named_child_count(parent); ++i) {
      others.push_back(ts_node_named_child(parent, i));
    }
  }
  for (TSNode other : others) {
    if (!ts_node_eq(other, expression) && !ts_node_eq(other, parent) &&
        device_tensor(source, other, scope)) {
      return call;
    }
  }
  return TSNode{};
}

// Whether the assignment target (a name, or a tuple of them) binds `name`.
bool binds(const Source& source, TSNode target, std::string_view name, int depth = 0) {
  if (depth > 8 || ts_node_is_null(target)) return false;
  if (is(target, "identifier")) return source.text(target) == name;
  if (is(target, "attribute") || is(target, "subscript")) return false;
  for (uint32_t i = 0; i < ts_node_named_child_count(target); ++i) {
    if (binds(source, ts_node_named_child(target, i), name, depth + 1)) return true;
  }
  return false;
}

// The uses of one name after it is assigned a CPU tensor, in order, until
// the name is bound again; nested functions and classes are other scopes.
struct UseScan {
  const Source& source;
  std::string_view name;
  uint32_t after;  // the end of the assignment
  int scope;
  bool done = false;
  TSNode use{};  // the first use that meets a device tensor
  TSNode op{};

  void visit(TSNode node, int depth) {
    if (done || depth > kMaxDepth || ts_node_is_null(node) || ts_node_end_byte(node) <= after) {
      return;
    }
    const bool later = ts_node_start_byte(node) > after;
    if (later &&
        (is(node, "function_definition") || is(node, "class_definition") || is(node, "lambda"))) {
      return;
    }
    if (later &&
        (is(node, "assignment") || is(node, "augmented_assignment") || is(node, "for_statement"))) {
      // The value (the loop's iterable) is read before the target is bound.
      visit(field(node, "right"), depth + 1);
      if (binds(source, field(node, "left"), name)) {
        done = true;
        return;
      }
      if (is(node, "for_statement")) {
        visit(field(node, "body"), depth + 1);
        visit(field(node, "alternative"), depth + 1);
      }
      return;
    }
    if (later && is(node, "as_pattern") && binds(source, field(node, "alias"), name)) {
      done = true;
      return;
    }
    if (later && is(node, "identifier") && source.text(node) == name) {
      const TSNode parent = ts_node_parent(node);
      const bool read =
          !(is(parent, "attribute") && !ts_node_eq(field(parent, "object"), node)) &&
          !(is(parent, "keyword_argument") && ts_node_eq(field(parent, "name"), node));
      if (read) {
        op = meets_device(source, node, scope);
        if (!ts_node_is_null(op)) {
          use = node;
          done = true;
        }
      }
      return;
    }
    const uint32_t count = ts_node_child_count(node);
    for (uint32_t i = 0; i < count && !done; ++i) visit(ts_node_child(node, i), depth + 1);
  }
};

void check_array_tensor(const Source& source, const Call& call, Sink& sink) {
  if (!from_array(source, call)) return;
  const TSNode made = same_tensor(source, call.node);
  const TSNode parent = ts_node_parent(made);
  TSNode op{};
  if (is(parent, "assignment") && is(field(parent, "left"), "identifier") &&
      ts_node_eq(field(parent, "right"), made)) {
    UseScan scan{source, source.text(field(parent, "left")), ts_node_end_byte(parent), call.scope};
    scan.visit(source.scopes()[call.scope].node, 0);
    op = scan.op;
  } else {
    op = meets_device(source, made, call.scope);
  }
  if (ts_node_is_null(op)) return;
  const std::string function = source.dotted(field(call.node, "function"));
  sink.report(call.node, "DC103",
              function + "(...) makes a tensor on the CPU, and line " +
                  std::to_string(ts_node_start_point(op).row + 1) +
                  " uses it unmoved with tensors on a device: the op raises a device "
                  "mismatch; move it where it is made: " +
                  function + "(...).to(device)");
}

}  // namespace

void check_numpy_arrays(const Source& source, Sink& sink) {
  for (const Call& call : source.calls()) check_array_tensor(source, call, sink);
}

}  // namespace devcheck::lint::detail
