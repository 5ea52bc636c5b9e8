// DC111's judgement of how a module's plain tensor is read and set (beside
// plain_tensor_uses.cc, whose reads cannot meet a tensor at all): moved at
// each use, read only while the module is built, replaced before every read,
// read only on the way its test does not take. Internal.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../common.h"
#include "../stack.h"
#include "plain_tensor_reads.h"
#include "plain_tensor_uses.h"

namespace devcheck::lint::detail {

namespace {

// How a class's methods read `self.x` (`name`): `moved` where the read is
// moved at once (`self.x.to(self.device)[t]`, `.cuda()`, `.type_as(y)`),
// `unmoved` where it is used as it is (indexed, an operand, a torch
// function's argument, its other attributes, kept under another name).
// Handed to a function that is not torch's (`params.append(self.x)`) is
// neither.
struct Reads {
  int moved = 0;
  int unmoved = 0;
};

// The class scope of the file named `name`, or of the class around `node`
// where `name` is `self`; -1 where there is none.
int class_of(const Source& source, std::string_view name, TSNode node) {
  if (name == "self") {
    TSNode definition = ts_node_parent(node);
    while (!ts_node_is_null(definition) && !is(definition, "class_definition")) {
      definition = ts_node_parent(definition);
    }
    if (ts_node_is_null(definition)) return -1;
    for (int s = 0; s < static_cast<int>(source.scopes().size()); ++s) {
      if (ts_node_eq(source.scopes()[s].node, definition)) return s;
    }
    return -1;
  }
  for (int s = 0; s < static_cast<int>(source.scopes().size()); ++s) {
    if (source.scopes()[s].kind == ScopeKind::kClass && source.scopes()[s].name == name) return s;
  }
  return -1;
}

// Whether the function definition `node` carries the decorator `decorator`
// (`@staticmethod`).
bool decorated(const Source& source, TSNode node, std::string_view decorator) {
  const TSNode parent = ts_node_parent(node);
  if (!is(parent, "decorated_definition")) return false;
  for (uint32_t i = 0, n = ts_node_named_child_count(parent); i < n; ++i) {
    const TSNode d = ts_node_named_child(parent, i);
    if (is(d, "decorator") && source.text(d) == decorator) return true;
  }
  return false;
}

// Whether the function of the file called at `call` (a module-level
// `def`, by its name, or a method of a class of the file called on `self`
// or on the class, `Cls._f(...)`) moves its `index`-th parameter where it
// is used: `std = torch.as_tensor(std, device=data.device)`, `w =
// w.to(x.device)`. A keyword argument (`median_filter(x, kernel=self.kernel)`)
// names the parameter: `keyword` is its name, and `index` is not read.
bool callee_moves_parameter(const Source& source, TSNode call, uint32_t index,
                            std::string_view keyword = {}) {
  const TSNode function = field(call, "function");
  std::string_view callee;
  int owner = -1;
  std::string_view object;
  if (is(function, "identifier")) {
    callee = source.text(function);
  } else if (is(function, "attribute") && is(field(function, "object"), "identifier")) {
    object = source.text(field(function, "object"));
    callee = source.text(field(function, "attribute"));
    owner = class_of(source, object, call);
    if (owner < 0) return false;
  } else {
    return false;
  }
  for (const Scope& scope : source.scopes()) {
    if (scope.kind != ScopeKind::kFunction || scope.name != callee ||
        (owner < 0 ? scope.parent != 0 : scope.owner_class != owner)) {
      continue;
    }
    // A method called on `self`, or a classmethod, is given `self`/`cls`
    // first; a staticmethod, or a function called on its class, is not.
    if (owner >= 0 && keyword.empty() && !decorated(source, scope.node, "@staticmethod") &&
        (object == "self" || decorated(source, scope.node, "@classmethod"))) {
      ++index;
    }
    const TSNode parameters = field(scope.node, "parameters");
    std::string name;
    for (uint32_t i = 0, n = ts_node_named_child_count(parameters); i < n; ++i) {
      TSNode p = ts_node_named_child(parameters, i);
      if (!is(p, "identifier"))
        p = is(p, "typed_parameter") ? ts_node_named_child(p, 0) : field(p, "name");
      // `*args`, `**kwargs`, a bare `*`: no name to move.
      if (!is(p, "identifier")) {
        if (keyword.empty() && i == index) break;
        continue;
      }
      if (keyword.empty() ? i == index : source.text(p) == keyword) {
        name = std::string(source.text(p));
        break;
      }
    }
    if (name.empty()) return false;
    const auto assigned = scope.assigns.find(name);
    if (assigned == scope.assigns.end()) return false;
    return std::any_of(assigned->second.begin(), assigned->second.end(), [&](TSNode value) {
      if (!is(value, "call")) return false;
      const TSNode f = field(value, "function");
      const std::string q = source.qualify(f);
      if (q == "torch.as_tensor" || q == "torch.tensor") {
        const std::vector<TSNode> args = source.positional(value);
        return !args.empty() && source.text(args[0]) == name &&
               !ts_node_is_null(source.keyword(value, "device"));
      }
      if (!is(f, "attribute")) return false;
      const std::string_view method = source.text(field(f, "attribute"));
      return (method == "to" || method == "cuda") && source.text(field(f, "object")) == name;
    });
  }
  return false;
}

// The methods that reshape a tensor or change its dtype where it is.
constexpr std::array<std::string_view, 16> kShape = {
    "repeat",    "view",       "reshape", "expand", "unsqueeze", "squeeze", "flip", "permute",
    "transpose", "contiguous", "clone",   "detach", "float",     "double",  "half", "flatten"};

// Whether `node` heads a chain of shape and dtype methods that ends moved:
// `self.kernel.repeat(c, 1).to(x.device, x.dtype)`. The torch functions that
// copy or wrap a tensor where it is (`torch.clone(torch.as_tensor(self.m))`)
// are links of the chain, and `torch.as_tensor(self.m, device=x.device)` ends
// it moved.
bool moved_down_the_chain(const Source& source, TSNode node) {
  for (TSNode at = node;;) {
    const TSNode parent = ts_node_parent(at);
    if (is(parent, "argument_list") && ts_node_eq(ts_node_named_child(parent, 0), at)) {
      const TSNode call = ts_node_parent(parent);
      const std::string q = source.qualify(field(call, "function"));
      // (torch functions of that one tensor compute where it is: `torch.angle`.)
      const bool own = (q == "torch.angle" || q == "torch.abs" || q == "torch.real" ||
                        q == "torch.imag" || q == "torch.view_as_real") &&
                       ts_node_named_child_count(parent) == 1;
      if (q != "torch.clone" && q != "torch.as_tensor" && q != "torch.tensor" && !own) {
        return false;
      }
      if (q != "torch.clone" && !own && !ts_node_is_null(source.keyword(call, "device"))) {
        return true;
      }
      at = call;
      continue;
    }
    if (!is(parent, "attribute") || !ts_node_eq(field(parent, "object"), at)) return false;
    const std::string_view method = source.text(field(parent, "attribute"));
    if (method == "to" || method == "cuda" || method == "type_as") return true;
    const TSNode call = ts_node_parent(parent);
    if (!is(call, "call") || std::find(kShape.begin(), kShape.end(), method) == kShape.end()) {
      return false;
    }
    at = call;
  }
}

// Whether the read `node` of `self.x` (`name`) heads a chain of shape and
// dtype methods whose result is set on `self.x` again (`self.kernel =
// self.kernel.repeat(c, 1, 1).unsqueeze(1)`): the tensor stays where it was,
// under the same name, and the reads of that name say where it is used.
bool reshaped_in_place(const Source& source, TSNode node, std::string_view name) {
  TSNode at = node;
  for (;;) {
    const TSNode parent = ts_node_parent(at);
    if (!is(parent, "attribute") || !ts_node_eq(field(parent, "object"), at)) break;
    const TSNode call = ts_node_parent(parent);
    if (!is(call, "call") || std::find(kShape.begin(), kShape.end(),
                                       source.text(field(parent, "attribute"))) == kShape.end()) {
      return false;
    }
    at = call;
  }
  if (ts_node_eq(at, node)) return false;
  TSNode assignment = ts_node_parent(at);
  while (is(assignment, "parenthesized_expression")) assignment = ts_node_parent(assignment);
  return is(assignment, "assignment") && source.text(field(assignment, "left")) == name;
}

void count_reads(const Source& source, TSNode node, std::string_view name, Reads& reads) {
  if (stack_nearly_exhausted()) return;  // deeper than the stack allows (stack.h)
  if (is(node, "attribute") && source.text(node) == name) {
    const TSNode parent = ts_node_parent(node);
    if (is(parent, "assignment") && ts_node_eq(field(parent, "left"), node)) return;
    if (reshaped_in_place(source, node, name)) return;
    if (on_a_way_never_taken(source, node)) return;
    // Formatted into a string (`f"{self.mean}"`), or a read that meets no
    // tensor (`.dtype`, a truth value, an index): no use of the tensor.
    if (is(parent, "interpolation") || no_device_use(source, node)) return;
    // `self.x[t.cpu()].to(device)`: indexed on the host, then moved at once;
    // so is `self.x[t.type_as(self.x)].type_as(y)` (type_as takes the device
    // of its argument).
    if (is(parent, "subscript") && ts_node_eq(field(parent, "value"), node)) {
      const TSNode index = field(parent, "subscript");
      const TSNode after = ts_node_parent(parent);
      const TSNode to_host = is(index, "call") ? field(index, "function") : TSNode{};
      const std::string_view host_method =
          is(to_host, "attribute") ? source.text(field(to_host, "attribute")) : "";
      const std::vector<TSNode> host_args =
          host_method == "type_as" ? source.positional(index) : std::vector<TSNode>{};
      if ((host_method == "cpu" || (host_args.size() == 1 && source.text(host_args[0]) == name)) &&
          is(after, "attribute") && ts_node_eq(field(after, "object"), parent)) {
        const std::string_view method = source.text(field(after, "attribute"));
        if (method == "to" || method == "cuda" || method == "type_as") {
          ++reads.moved;
          return;
        }
      }
    }
    if ((is(parent, "attribute") && ts_node_eq(field(parent, "object"), node)) ||
        moved_down_the_chain(source, node)) {
      ++(moved_down_the_chain(source, node) ? reads.moved : reads.unmoved);
      return;
    }
    if (is(parent, "keyword_argument") && is(ts_node_parent(parent), "argument_list") &&
        callee_moves_parameter(source, ts_node_parent(ts_node_parent(parent)), 0,
                               source.text(field(parent, "name")))) {
      ++reads.moved;
      return;
    }
    if (is(parent, "argument_list")) {
      const TSNode call = ts_node_parent(parent);
      // Handed to a function of the file that moves it where it uses it.
      uint32_t index = 0;
      while (index < ts_node_named_child_count(parent) &&
             !ts_node_eq(ts_node_named_child(parent, index), node)) {
        ++index;
      }
      if (callee_moves_parameter(source, call, index)) {
        ++reads.moved;
        return;
      }
      if (source.qualify(field(call, "function")).rfind("torch.", 0) != 0) return;
    }
    ++reads.unmoved;
    return;
  }
  for (uint32_t i = 0, n = ts_node_named_child_count(node); i < n; ++i) {
    count_reads(source, ts_node_named_child(node, i), name, reads);
  }
}

}  // namespace

// Whether the class moves the plain tensor `self.x` itself wherever its
// methods (other than __init__ and its helpers) use it: model.to(device)
// leaves it behind, and each use takes it where it is needed.
bool moved_at_each_use(const Source& source, const AttributeSet& set) {
  Reads reads;
  for (int s = 0; s < static_cast<int>(source.scopes().size()); ++s) {
    const Scope& scope = source.scopes()[s];
    if (scope.kind != ScopeKind::kFunction || scope.owner_class != set.class_scope ||
        in_init(source, s)) {
      continue;
    }
    count_reads(source, scope.node, set.name, reads);
  }
  return reads.moved > 0 && reads.unmoved == 0;
}

namespace {

// Whether the file calls the method `method` of the class of scope
// `class_scope` only in an __init__ or a method an __init__ calls
// (`self.kernel = self.conv.get_kernel()` while a module is built: diffusers'
// DPS blur operator): that method runs only while modules are built. Each
// call must be on `self` in that class, on the class by name
// (`Cls.method(...)`) or on an attribute set only to modules of the class
// (`self.conv = Blur(...)`); a call of the name on any other object, or the
// name referenced other than as a call (`fn = self.method`,
// `hook(self.method)`), may reach it after the build. `forward` and dunder
// methods are never counted: a module's call, or Python itself, runs them
// whenever the module is used.
bool called_only_while_built(const Source& source, int class_scope, std::string_view method) {
  if (method.empty() || method == "forward" ||
      (method.size() > 4 && method.substr(0, 2) == "__" &&
       method.substr(method.size() - 2) == "__")) {
    return false;
  }
  const std::string_view cls = source.scopes()[class_scope].name;
  const std::string_view text = source.text();
  // Every reference of the name other than its definitions is a call's
  // method.
  for (size_t at = text.find(method); at != std::string_view::npos;
       at = text.find(method, at + 1)) {
    const size_t end = at + method.size();
    if (!ends_there(text, end)) continue;
    if (at > 0 &&
        (std::isalnum(static_cast<unsigned char>(text[at - 1])) != 0 || text[at - 1] == '_')) {
      continue;
    }
    const TSNode name = ts_node_named_descendant_for_byte_range(
        source.root(), static_cast<uint32_t>(at), static_cast<uint32_t>(end));
    if (!is(name, "identifier") || source.text(name) != method) continue;  // in a string
    const TSNode parent = ts_node_parent(name);
    if (is(parent, "function_definition") && ts_node_eq(field(parent, "name"), name)) continue;
    if (is(parent, "attribute") && ts_node_eq(field(parent, "attribute"), name) &&
        is(ts_node_parent(parent), "call") &&
        ts_node_eq(field(ts_node_parent(parent), "function"), parent)) {
      continue;  // a call, judged below
    }
    return false;
  }
  bool called = false;
  for (const Call& call : source.calls()) {
    if (call.method != method) continue;
    const std::string_view receiver = source.text(call.object);
    const int caller_class = source.scopes()[call.scope].owner_class;
    // `self.conv.get_kernel()`, where the caller's class sets `self.conv`
    // only to modules of the class (`self.conv = Blur(...)`).
    const auto held = [&] {
      if (!is(call.object, "attribute") || source.text(field(call.object, "object")) != "self" ||
          caller_class < 0) {
        return false;
      }
      bool set = false;
      for (const Scope& other : source.scopes()) {
        if (other.owner_class != caller_class) continue;
        const auto sets = other.assigns.find(std::string(receiver));
        if (sets == other.assigns.end()) continue;
        for (const TSNode value : sets->second) {
          if (!is(value, "call") || source.text(field(value, "function")) != cls) return false;
          set = true;
        }
      }
      return set;
    };
    const bool own = (receiver == "self" && caller_class == class_scope) ||
                     (is(call.object, "identifier") && receiver == cls) || held();
    if (!own || source.scopes()[call.scope].kind != ScopeKind::kFunction ||
        !in_init(source, call.scope)) {
      return false;
    }
    called = true;
  }
  return called;
}

}  // namespace

// Whether `self.x` of the set is read only while the module is built: read
// in __init__ (or a method __init__ calls, or one the file calls only while
// modules are built) after it is set (`self.code[i]` picking each cell's
// operations), and nowhere else in the file (no method, subclass or caller
// reads `.x`): model.to(device) leaving it behind meets nothing.
bool read_only_while_built(const Source& source, const AttributeSet& set) {
  const std::string_view attribute = set.name.substr(4);  // ".x"
  const std::string_view text = source.text();
  // The text of __init__ and the methods it calls, found once.
  std::vector<std::pair<uint32_t, uint32_t>> init;
  bool read_in_init = false;
  for (size_t at = text.find(attribute); at != std::string_view::npos;
       at = text.find(attribute, at + 1)) {
    const size_t end = at + attribute.size();
    if (!ends_there(text, end)) continue;
    if (init.empty()) {
      for (int s = 0; s < static_cast<int>(source.scopes().size()); ++s) {
        const Scope& scope = source.scopes()[s];
        if (scope.kind == ScopeKind::kFunction && scope.owner_class == set.class_scope &&
            (in_init(source, s) || called_only_while_built(source, set.class_scope, scope.name))) {
          init.emplace_back(ts_node_start_byte(scope.node), ts_node_end_byte(scope.node));
        }
      }
    }
    const auto byte = static_cast<uint32_t>(at);
    if (std::none_of(init.begin(), init.end(), [&](const std::pair<uint32_t, uint32_t>& range) {
          return byte >= range.first && byte < range.second;
        })) {
      return false;
    }
    if (byte > ts_node_end_byte(set.value) && byte >= 4) {
      // A read that sets the name again (`self.x = nn.Parameter(self.x)`) is
      // no use of the plain tensor.
      const TSNode node = ts_node_named_descendant_for_byte_range(source.root(), byte - 4, end);
      TSNode assignment = ts_node_parent(node);
      while (!ts_node_is_null(assignment) && !is(assignment, "assignment") &&
             !is(assignment, "augmented_assignment") && !is(assignment, "block")) {
        assignment = ts_node_parent(assignment);
      }
      if (ts_node_is_null(assignment) || is(assignment, "block") ||
          source.text(field(assignment, "left")) != set.name) {
        read_in_init = true;
      }
    }
  }
  return read_in_init;
}

namespace {

// Whether the assignment `set` (`self.x = ...`, a statement) runs on every
// way that reaches `read` in their function and ends before it: no branch,
// loop or handler that does not hold `read` lies around `set`.
bool set_before(TSNode set, TSNode read) {
  if (ts_node_end_byte(set) > ts_node_start_byte(read)) return false;
  for (TSNode n = ts_node_parent(set); !ts_node_is_null(n); n = ts_node_parent(n)) {
    if (is(n, "function_definition")) return true;
    if (within(read, n)) continue;
    if (is(n, "if_statement") || is(n, "elif_clause") || is(n, "else_clause") ||
        is(n, "for_statement") || is(n, "while_statement") || is(n, "try_statement") ||
        is(n, "except_clause") || is(n, "conditional_expression") || is(n, "lambda")) {
      return false;
    }
  }
  return false;
}

}  // namespace

// Whether every read of `self.x` in the file follows, in its method, a set
// of `self.x` on every way to it (`self.mask = torch.repeat_interleave(...)`
// in forward, then `x * self.mask`): the tensor __init__ leaves there is a
// placeholder no code reads, so model.to(device) leaving it behind meets
// nothing. Any read in __init__ (or a helper of it), in another class, or not
// of `self` reads the placeholder.
bool replaced_before_every_read(const Source& source, const AttributeSet& set) {
  const auto nodes = self_attribute_nodes(source, set.name);
  if (!nodes) return false;
  bool read = false;
  for (const TSNode node : *nodes) {
    const TSNode parent = ts_node_parent(node);
    if (is(parent, "assignment") && ts_node_eq(field(parent, "left"), node)) continue;
    // The method around the read, of the class, not __init__ or its helpers.
    TSNode function = parent;
    while (!ts_node_is_null(function) && !is(function, "function_definition")) {
      function = ts_node_parent(function);
    }
    if (ts_node_is_null(function)) return false;
    int method = -1;
    for (int s = 0; s < static_cast<int>(source.scopes().size()); ++s) {
      if (ts_node_eq(source.scopes()[s].node, function)) method = s;
    }
    if (method < 0 || source.scopes()[method].owner_class != set.class_scope ||
        runs_in_init(source, method)) {
      return false;
    }
    const auto sets = source.scopes()[method].assigns.find(std::string(set.name));
    if (sets == source.scopes()[method].assigns.end() ||
        std::none_of(sets->second.begin(), sets->second.end(), [&](TSNode value) {
          const TSNode assignment = ts_node_parent(value);
          return is(assignment, "assignment") &&
                 is(ts_node_parent(assignment), "expression_statement") &&
                 set_before(ts_node_parent(assignment), node);
        })) {
      return false;
    }
    read = true;
  }
  return read;
}

namespace {

// Whether the class of scope `derived` names the class of scope `base` among
// its bases, or one of the file's classes it names does, and so on (`class
// Rotating(Mid)`, `class Mid(QConv1d)`): a name matches as a whole (`Mid`,
// `layers.Mid`), not `MidBlock`.
bool derives_from(const Source& source, int derived, int base) {
  std::vector<int> todo = {derived};
  std::vector<int> seen = {derived};
  while (!todo.empty()) {
    const int c = todo.back();
    todo.pop_back();
    const TSNode bases = field(source.scopes()[c].node, "superclasses");
    if (ts_node_is_null(bases)) continue;
    const std::string_view text = source.text(bases);
    for (int s = 0; s < static_cast<int>(source.scopes().size()); ++s) {
      const Scope& scope = source.scopes()[s];
      if (scope.kind != ScopeKind::kClass || scope.name.empty()) continue;
      bool named = false;
      for (size_t at = text.find(scope.name); at != std::string_view::npos && !named;
           at = text.find(scope.name, at + 1)) {
        const size_t end = at + scope.name.size();
        named = ends_there(text, end) &&
                (at == 0 || (std::isalnum(static_cast<unsigned char>(text[at - 1])) == 0 &&
                             text[at - 1] != '_'));
      }
      if (!named) continue;
      if (s == base) return true;
      if (std::find(seen.begin(), seen.end(), s) == seen.end()) {
        seen.push_back(s);
        todo.push_back(s);
      }
    }
  }
  return false;
}

// Whether the classes of scopes `a` and `b` are two classes of the file,
// neither of which derives from the other, directly or through the file's
// other classes: a set of `self.flag` in one leaves the other's objects
// alone.
bool unrelated_class(const Source& source, int a, int b) {
  if (a < 0 || b < 0 || a == b) return false;
  return !derives_from(source, a, b) && !derives_from(source, b, a);
}

}  // namespace

// Whether the plain set of `self.x` lies on the `else` way of an `if
// self.flag:` and every read of `self.x` in the file lies in the body of an
// `if self.flag:` (the same test), where `self.flag` is set only in the
// class's __init__ before the plain set (or on `self` in a class neither
// derived from it nor a base of it) (`if self.spinor: self.k =
// nn.Parameter(...)` / `else: self.k = torch.Tensor(...)`, read only under
// `if self.spinor:`): the plain tensor is never read, so no move misses it.
bool read_only_on_the_other_way(const Source& source, const AttributeSet& set) {
  TSNode test{};
  for (TSNode n = ts_node_parent(set.value); !ts_node_is_null(n); n = ts_node_parent(n)) {
    if (is(n, "function_definition")) return false;
    if (is(n, "elif_clause")) return false;
    if (is(n, "else_clause") && is(ts_node_parent(n), "if_statement")) {
      test = field(ts_node_parent(n), "condition");
      break;
    }
  }
  if (!is(test, "attribute") || source.text(field(test, "object")) != "self") return false;
  const std::string_view flag = source.text(test);
  const std::string_view text = source.text();
  // Each set of `.flag` (on any object: `model.flag = True` too): `self.flag`
  // in the class's __init__, before the plain set.
  const std::string_view flag_attribute = flag.substr(4);  // ".flag"
  for (size_t at = text.find(flag_attribute); at != std::string_view::npos;
       at = text.find(flag_attribute, at + 1)) {
    const size_t end = at + flag_attribute.size();
    if (!ends_there(text, end)) continue;
    const TSNode name = ts_node_named_descendant_for_byte_range(
        source.root(), static_cast<uint32_t>(at + 1), static_cast<uint32_t>(end));
    const TSNode node = ts_node_parent(name);
    const TSNode parent = ts_node_parent(node);
    if (!is(node, "attribute") || !ts_node_eq(field(node, "attribute"), name) ||
        !((is(parent, "assignment") || is(parent, "augmented_assignment")) &&
          ts_node_eq(field(parent, "left"), node))) {
      continue;
    }
    if (source.text(node) == flag &&
        unrelated_class(source, class_of(source, "self", node), set.class_scope)) {
      continue;
    }
    if (source.text(node) != flag || ts_node_start_byte(node) > ts_node_start_byte(set.value) ||
        source.scopes()[set.method_scope].name != "__init__" ||
        !within(node, source.scopes()[set.method_scope].node)) {
      return false;
    }
  }
  // Each read of `self.x`: in the body of an `if self.flag:`.
  const auto nodes = self_attribute_nodes(source, set.name);
  if (!nodes) return false;
  bool read = false;
  for (const TSNode node : *nodes) {
    const TSNode parent = ts_node_parent(node);
    if (is(parent, "assignment") && ts_node_eq(field(parent, "left"), node)) continue;
    bool guarded = false;
    for (TSNode n = parent; !ts_node_is_null(n) && !guarded; n = ts_node_parent(n)) {
      if (is(n, "function_definition") || is(n, "class_definition")) break;
      const TSNode up = ts_node_parent(n);
      guarded = is(n, "block") && is(up, "if_statement") &&
                ts_node_eq(field(up, "consequence"), n) &&
                source.text(field(up, "condition")) == flag;
    }
    if (!guarded) return false;
    read = true;
  }
  return read;
}

}  // namespace devcheck::lint::detail
