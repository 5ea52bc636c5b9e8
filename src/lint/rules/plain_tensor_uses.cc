#include "plain_tensor_uses.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../common.h"

namespace devcheck::lint::detail {

namespace {

// Whether the method `method` runs only while its module is built
// (in_init), `depth` helpers down from __init__.
bool built_by(const Source& source, int method, int depth) {
  const Scope& scope = source.scopes()[method];
  if (scope.name == "__init__") return true;
  if (depth > 3 || scope.owner_class < 0) return false;
  // Called by `self.m()` from __init__ (or a helper of it) of its class,
  // and from nowhere else: a call from `forward`, another method, a
  // subclass, or on another object (`model.reset()`) runs it again on a
  // built module.
  bool called = false;
  for (const Call& call : source.calls()) {
    if (call.method != scope.name || call.scope == method) continue;  // (recursion)
    const Scope& caller = source.scopes()[call.scope];
    if (!is(call.object, "identifier") || source.text(call.object) != "self") return false;
    // `self.m()` in another class that has its own `m` is that one's.
    if (caller.owner_class != scope.owner_class &&
        std::any_of(source.scopes().begin(), source.scopes().end(), [&](const Scope& other) {
          return other.owner_class == caller.owner_class && other.owner_class >= 0 &&
                 other.name == scope.name && other.kind == ScopeKind::kFunction;
        })) {
      continue;
    }
    if (caller.owner_class != scope.owner_class || !built_by(source, call.scope, depth + 1)) {
      return false;
    }
    called = true;
  }
  return called;
}

}  // namespace

bool in_init(const Source& source, int method) { return built_by(source, method, 0); }

bool runs_in_init(const Source& source, int method) {
  const Scope& scope = source.scopes()[method];
  if (scope.name == "__init__") return true;
  for (const Call& call : source.calls()) {
    if (call.method == scope.name && is(call.object, "identifier") &&
        source.text(call.object) == "self" && source.scopes()[call.scope].name == "__init__" &&
        source.scopes()[call.scope].owner_class == scope.owner_class) {
      return true;
    }
  }
  return false;
}

namespace {

// Whether `node` is the condition of an `if`, `elif` or `while`, or of a
// conditional expression, past `not` and `and`/`or`: Python asks its truth.
bool truth_value(TSNode node) {
  for (TSNode at = node;;) {
    const TSNode parent = ts_node_parent(at);
    if (is(parent, "not_operator") || is(parent, "boolean_operator") ||
        is(parent, "parenthesized_expression")) {
      at = parent;
      continue;
    }
    if (is(parent, "if_statement") || is(parent, "elif_clause") || is(parent, "while_statement")) {
      return ts_node_eq(field(parent, "condition"), at);
    }
    if (is(parent, "conditional_expression")) {
      // `a if test else b`: the test is the second named child.
      return ts_node_named_child_count(parent) == 3 &&
             ts_node_eq(ts_node_named_child(parent, 1), at);
    }
    return false;
  }
}

bool literal(TSNode node) {
  return is(node, "none") || is(node, "integer") || is(node, "float") || is(node, "true") ||
         is(node, "false");
}

// Whether every argument of the call `call` is a number, a bool or None
// (`-1.0`, `dim=0`).
bool literal_arguments(TSNode call) {
  const TSNode args = field(call, "arguments");
  for (uint32_t i = 0, n = ts_node_named_child_count(args); i < n; ++i) {
    TSNode arg = ts_node_named_child(args, i);
    if (is(arg, "keyword_argument")) arg = field(arg, "value");
    if (is(arg, "unary_operator")) arg = field(arg, "argument");
    if (!literal(arg)) return false;
  }
  return true;
}

// The function definition around `node`, or a null node.
TSNode function_around(TSNode node) {
  TSNode function = ts_node_parent(node);
  while (!ts_node_is_null(function) && !is(function, "function_definition")) {
    function = ts_node_parent(function);
  }
  return function;
}

// Whether the function definition `function` has a parameter `name`.
bool has_parameter(const Source& source, TSNode function, std::string_view name) {
  const TSNode parameters = field(function, "parameters");
  for (uint32_t i = 0, n = ts_node_named_child_count(parameters); i < n; ++i) {
    TSNode p = ts_node_named_child(parameters, i);
    if (!is(p, "identifier")) {
      p = is(p, "typed_parameter") ? ts_node_named_child(p, 0) : field(p, "name");
    }
    if (is(p, "identifier") && source.text(p) == name) return true;
  }
  return false;
}

bool always_given(const Source& source, int function, std::string_view parameter, int depth);

// Whether `value`, an argument of a call in scope `caller`, is known not to
// be None (`depth` callers up). Only these are:
//  - the `device` of a tensor-like value, a name or an item (`x.device`,
//    `xs[0].device`; not `self.device` or `self.cfg.device`, which may be
//    None);
//  - a `torch.device(...)` call;
//  - a string literal (`"cuda"`);
//  - a parameter of the caller, never set there, that every call of the
//    caller gives such a value (always_given);
//  - a name the caller sets, only to such values.
// Anything else (`self.device`, `kwargs.get("device")`, `d if c else None`)
// may be None.
bool not_none(const Source& source, int caller, TSNode value, int depth) {
  if (is(value, "string")) return true;
  if (is(value, "attribute")) {
    const TSNode object = field(value, "object");
    if (source.text(field(value, "attribute")) != "device") return false;
    if (is(object, "identifier")) return source.text(object) != "self";
    return is(object, "subscript");
  }
  if (is(value, "call")) return source.text(field(value, "function")) == "torch.device";
  if (!is(value, "identifier")) return false;
  const Scope& scope = source.scopes()[caller];
  const std::string given(source.text(value));
  const auto sets = scope.assigns.find(given);
  if (sets != scope.assigns.end()) {
    return depth <= 3 && std::all_of(sets->second.begin(), sets->second.end(), [&](TSNode v) {
             return !is(v, "identifier") && not_none(source, caller, v, depth + 1);
           });
  }
  return scope.kind == ScopeKind::kFunction && has_parameter(source, scope.node, given) &&
         always_given(source, caller, given, depth + 1);
}

// Whether every call of the function of scope `function` in the file gives
// its parameter `parameter` a value known not to be None (not_none): by
// keyword or by position. Every call of the method's name counts, whatever
// it is called on (`self._f(...)`, `rope.get_freqs(n)`); for `forward`, so
// does a call of the module an attribute of a class of the file holds
// (`self.pos_embed = Rope(...)`, then `self.pos_embed(x, device=d)`). A
// function no call of the file reaches may be given None.
bool always_given(const Source& source, int function, std::string_view parameter, int depth) {
  if (depth > 3) return false;
  const Scope& scope = source.scopes()[function];
  if (scope.owner_class < 0) return false;
  const std::string& cls = source.scopes()[scope.owner_class].name;
  // The parameter's position among the arguments a call passes (after `self`).
  const TSNode parameters = field(scope.node, "parameters");
  int position = -1;
  for (uint32_t i = 1, n = ts_node_named_child_count(parameters); i < n; ++i) {
    TSNode p = ts_node_named_child(parameters, i);
    if (!is(p, "identifier")) {
      p = is(p, "typed_parameter") ? ts_node_named_child(p, 0) : field(p, "name");
    }
    if (is(p, "identifier") && source.text(p) == parameter) position = static_cast<int>(i) - 1;
    if (!is(p, "identifier")) break;
  }
  // The attributes that hold a module of this class (`self.pos_embed`).
  std::vector<std::pair<std::string, int>> holders;
  if (scope.name == "forward") {
    for (const Scope& other : source.scopes()) {
      for (const auto& [target, values] : other.assigns) {
        if (target.rfind("self.", 0) != 0) continue;
        for (const TSNode value : values) {
          if (is(value, "call") && source.text(field(value, "function")) == cls) {
            holders.emplace_back(target, other.owner_class);
          }
        }
      }
    }
  }
  bool called = false;
  for (const Call& call : source.calls()) {
    const std::string_view function_text = source.text(field(call.node, "function"));
    const int caller_class = source.scopes()[call.scope].owner_class;
    const bool method_call = call.method == scope.name || function_text == scope.name;
    const bool module_call =
        std::any_of(holders.begin(), holders.end(), [&](const std::pair<std::string, int>& h) {
          return function_text == h.first && caller_class == h.second;
        });
    if (!method_call && !module_call) continue;
    TSNode value = source.keyword(call.node, parameter);
    if (ts_node_is_null(value)) {
      const std::vector<TSNode> args = source.positional(call.node);
      // `Cls.method(obj, ...)` passes the object too.
      const int at = position + (is(call.object, "identifier") && source.text(call.object) == cls &&
                                         call.method == scope.name
                                     ? 1
                                     : 0);
      if (position < 0 || at >= static_cast<int>(args.size())) return false;
      value = args[at];
    }
    if (!not_none(source, call.scope, value, depth)) return false;
    called = true;
  }
  return called;
}

}  // namespace

bool ends_there(std::string_view text, std::size_t end) {
  return end >= text.size() ||
         (std::isalnum(static_cast<unsigned char>(text[end])) == 0 && text[end] != '_');
}

std::vector<TSNode> attribute_nodes(const Source& source, std::string_view attribute) {
  const std::string_view text = source.text();
  std::vector<TSNode> out;
  for (std::size_t at = text.find(attribute); at != std::string_view::npos;
       at = text.find(attribute, at + 1)) {
    const std::size_t end = at + attribute.size();
    if (!ends_there(text, end)) continue;
    const TSNode name = ts_node_named_descendant_for_byte_range(
        source.root(), static_cast<uint32_t>(at + 1), static_cast<uint32_t>(end));
    const TSNode node = ts_node_parent(name);
    if (is(node, "attribute") && ts_node_eq(field(node, "attribute"), name)) out.push_back(node);
  }
  return out;
}

std::optional<std::vector<TSNode>> self_attribute_nodes(const Source& source,
                                                        std::string_view name) {
  const std::string_view attribute = name.substr(4);  // ".x"
  const std::string_view text = source.text();
  std::vector<TSNode> out;
  for (std::size_t at = text.find(attribute); at != std::string_view::npos;
       at = text.find(attribute, at + 1)) {
    const std::size_t end = at + attribute.size();
    if (!ends_there(text, end)) continue;
    if (at < 4 || text.substr(at - 4, 4) != "self") return std::nullopt;
    const TSNode node = ts_node_named_descendant_for_byte_range(
        source.root(), static_cast<uint32_t>(at - 4), static_cast<uint32_t>(end));
    if (!is(node, "attribute") || source.text(node) != name) return std::nullopt;
    out.push_back(node);
  }
  return out;
}

bool no_device_use(const Source& source, TSNode node) {
  const TSNode function = function_around(node);
  if (!ts_node_is_null(function) && source.text(field(function, "name")) == "get_extra_state") {
    return true;
  }
  TSNode parent = ts_node_parent(node);
  // An index into another value (`y[:, self.x]`, `y[self.x] = v`).
  if (is(parent, "subscript") && !ts_node_eq(field(parent, "value"), node)) return true;
  // `self.x[i][j]`: the elements are read where the tensor is.
  TSNode top = node;
  while (is(parent, "subscript") && ts_node_eq(field(parent, "value"), top)) {
    top = parent;
    parent = ts_node_parent(top);
  }
  if (is(parent, "attribute") && ts_node_eq(field(parent, "object"), top)) {
    // (Not `.device`: a tensor made there is on the host too.)
    static constexpr std::array<std::string_view, 6> kMetadata = {
        "dtype", "shape", "requires_grad", "ndim", "is_cuda", "layout"};
    static constexpr std::array<std::string_view, 6> kToHost = {"size",   "dim",  "numel",
                                                                "tolist", "item", "numpy"};
    const std::string_view name = source.text(field(parent, "attribute"));
    if (std::find(kMetadata.begin(), kMetadata.end(), name) != kMetadata.end()) {
      return !is(ts_node_parent(parent), "call");
    }
    // Filled in place with a number (`self.x.fill_(0.5)`, `.zero_()`).
    const TSNode call = ts_node_parent(parent);
    if ((name == "fill_" || name == "zero_") && is(call, "call")) return literal_arguments(call);
    if (std::find(kToHost.begin(), kToHost.end(), name) != kToHost.end()) {
      return is(ts_node_parent(parent), "call");
    }
    // A chain of methods given only numbers that ends in a number:
    // `self.x.sum().item()`, `self.x.max(0).tolist()`.
    for (TSNode link = parent; is(link, "attribute");) {
      const TSNode called = ts_node_parent(link);
      if (!is(called, "call") || !literal_arguments(called)) return false;
      const std::string_view method = source.text(field(link, "attribute"));
      if (method == "item" || method == "tolist") return true;
      link = ts_node_parent(called);
      if (!is(link, "attribute") || !ts_node_eq(field(link, "object"), called)) return false;
    }
    return false;
  }
  if (is(parent, "comparison_operator")) {
    bool constants = true;
    bool none = false;
    for (uint32_t i = 0, n = ts_node_named_child_count(parent); i < n; ++i) {
      const TSNode operand = ts_node_named_child(parent, i);
      if (ts_node_eq(operand, top)) continue;
      constants = constants && literal(operand);
      none = none || is(operand, "none");
    }
    // `self.x is None` is a bool; `self.x[i] == 1` a tensor where x is, whose
    // truth Python asks.
    return constants && (none || truth_value(parent));
  }
  return truth_value(top);
}

bool never_used_on_a_device(const Source& source, const AttributeSet& set) {
  bool read = false;
  for (const TSNode node : attribute_nodes(source, set.name.substr(4))) {  // ".x"
    const TSNode parent = ts_node_parent(node);
    if ((is(parent, "assignment") || is(parent, "augmented_assignment")) &&
        ts_node_eq(field(parent, "left"), node)) {
      if (is(parent, "augmented_assignment")) return false;  // `self.x += y` reads it
      continue;
    }
    if (is(parent, "interpolation")) continue;  // formatted into a string
    if (!no_device_use(source, node)) return false;
    read = true;
  }
  if (read) return true;
  // Never read: an output, where a method other than __init__ sets it again.
  for (int s = 0; s < static_cast<int>(source.scopes().size()); ++s) {
    const Scope& scope = source.scopes()[s];
    if (scope.kind == ScopeKind::kFunction && scope.owner_class == set.class_scope &&
        !runs_in_init(source, s) && scope.assigns.count(std::string(set.name)) != 0) {
      return true;
    }
  }
  return false;
}

bool modules_registered_one_by_one(const Source& source, const AttributeSet& set) {
  if (!is(set.value, "list") || ts_node_named_child_count(set.value) != 0) return false;
  bool appended = false;
  for (const TSNode node : attribute_nodes(source, set.name.substr(4))) {  // ".x"
    const TSNode parent = ts_node_parent(node);
    if (is(parent, "augmented_assignment") && ts_node_eq(field(parent, "left"), node)) {
      return false;
    }
    // `self.x[i] = m`: an item no add_module registered.
    if (is(parent, "subscript") && ts_node_eq(field(parent, "value"), node) &&
        (is(ts_node_parent(parent), "assignment") ||
         is(ts_node_parent(parent), "augmented_assignment")) &&
        ts_node_eq(field(ts_node_parent(parent), "left"), parent)) {
      return false;
    }
    if (is(parent, "assignment") && ts_node_eq(field(parent, "left"), node)) {
      if (!ts_node_eq(field(parent, "right"), set.value)) return false;
      continue;
    }
    if (!is(parent, "attribute") || !ts_node_eq(field(parent, "object"), node)) continue;
    const std::string_view method = source.text(field(parent, "attribute"));
    if (method == "extend" || method == "insert") return false;
    if (method != "append") continue;
    if (source.text(node) != set.name) return false;
    const TSNode call = ts_node_parent(parent);
    if (!is(call, "call")) return false;
    const std::vector<TSNode> args = source.positional(call);
    if (args.size() != 1) return false;
    const std::string_view module = source.text(args[0]);
    const std::string last = std::string(set.name) + "[-1]";
    TSNode block = call;
    while (!ts_node_is_null(block) && !is(block, "block")) block = ts_node_parent(block);
    if (ts_node_is_null(block)) return false;
    const bool registered =
        std::any_of(source.calls().begin(), source.calls().end(), [&](const Call& c) {
          if (!within(c.node, block)) return false;
          const std::vector<TSNode> a = source.positional(c.node);
          // The same object: a name the list is given too, or its last item.
          const auto same = [&](TSNode registered) {
            return (is(registered, "identifier") && is(args[0], "identifier") &&
                    source.text(registered) == module) ||
                   source.text(registered) == last;
          };
          if (c.method == "add_module" && source.text(c.object) == "self" && a.size() == 2) {
            return same(a[1]);
          }
          return source.text(field(c.node, "function")) == "setattr" && a.size() == 3 &&
                 source.text(a[0]) == "self" && same(a[2]);
        });
    if (!registered) return false;
    appended = true;
  }
  return appended;
}

// Whether the read `node` lies on the `else` way of `... if d is not None
// else ...` (in a tuple there too), `d` a parameter of the function around it
// that every call of the file gives a value (always_given): that way never
// runs.
bool on_a_way_never_taken(const Source& source, TSNode node) {
  TSNode at = node;
  TSNode parent = ts_node_parent(at);
  while (is(parent, "tuple") || is(parent, "parenthesized_expression")) {
    at = parent;
    parent = ts_node_parent(at);
  }
  if (!is(parent, "conditional_expression") || ts_node_named_child_count(parent) != 3 ||
      !ts_node_eq(ts_node_named_child(parent, 2), at)) {
    return false;
  }
  const TSNode test = ts_node_named_child(parent, 1);
  const std::string_view text = source.text(test);
  const std::string_view suffix = " is not None";
  if (!is(test, "comparison_operator") || text.size() <= suffix.size() ||
      text.substr(text.size() - suffix.size()) != suffix) {
    return false;
  }
  const TSNode tested = ts_node_named_child(test, 0);
  if (!is(tested, "identifier")) return false;
  TSNode function = parent;
  while (!ts_node_is_null(function) && !is(function, "function_definition")) {
    function = ts_node_parent(function);
  }
  for (int s = 0; s < static_cast<int>(source.scopes().size()); ++s) {
    const Scope& scope = source.scopes()[s];
    if (scope.kind != ScopeKind::kFunction || !ts_node_eq(scope.node, function)) continue;
    return scope.assigns.count(std::string(source.text(tested))) == 0 &&
           always_given(source, s, source.text(tested), 0);
  }
  return false;
}

}  // namespace devcheck::lint::detail
