// DC111 plain-tensor-on-module: `self.x = <a tensor>` in the __init__ of an
// nn.Module subclass (or a host tensor in a method __init__ calls), where
// the device flow knows the value is a plain tensor (not an nn.Parameter,
// not registered; given to the constructor by the file's calls too), or a
// plain list or dict of modules or tensors: model.to(device) moves neither. Not a 0-dim tensor,
// which mixes with tensors on any device, nor one the class's own to() (or
// cuda(), _apply()) sets again, nor one __init__ sets again as an
// nn.Parameter on every way, nor one every read indexes on the host and moves,
// nor one the class packs with a quantized op (a CPU-only module), nor one
// no read of which meets a tensor (plain_tensor_uses.h), nor a list of
// modules each registered where it is appended.
// And a cache: `self.x = None` in __init__, filled by another method with a
// tensor where the inputs are, under a test that does not ask where. And a
// host tensor in the __init__ of a plain class whose object a module keeps.
#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../common.h"
#include "../flow/flow.h"
#include "../rule.h"
#include "../stack.h"
#include "plain_tensor_reads.h"
#include "plain_tensor_uses.h"

namespace devcheck::lint::detail {
namespace {

// Whether the class's own to() (or cuda(), _apply()) sets `self.x` again:
// the class moves the plain tensor with the module itself (SAC's policy
// moving its noise in its to()). `overrides` lists the (class, name) of
// those sets, made once per file.
bool moved_by_own_to(const std::vector<std::pair<int, std::string_view>>& overrides,
                     const AttributeSet& set) {
  return std::find(overrides.begin(), overrides.end(), std::make_pair(set.class_scope, set.name)) !=
         overrides.end();
}

// Whether a method of the class hands `self.x` (`name`) to a quantized op
// (`torch.ops.quantized.linear_prepack(w, self.bias)`): the op packs it into
// a quantized engine's weights, which exist on the CPU only (a dynamically
// quantized RNN cell): the module cannot move, so nothing is left behind.
bool packed_by_quantized_op(const Source& source, int class_scope, std::string_view name) {
  for (const Call& call : source.calls()) {
    if (call.qualified.rfind("torch.ops.quantized.", 0) != 0 ||
        source.scopes()[call.scope].owner_class != class_scope) {
      continue;
    }
    for (const TSNode arg : source.positional(call.node)) {
      if (source.text(arg) == name) return true;
    }
  }
  return false;
}

// Whether `node` runs on every way that reaches `value` in its function: no
// branch lies between them that does not hold `value` too.
bool on_every_way(TSNode node, TSNode value) {
  for (TSNode n = ts_node_parent(node); !ts_node_is_null(n); n = ts_node_parent(n)) {
    if (is(n, "function_definition")) break;
    if ((is(n, "block") || is(n, "conditional_expression")) && !within(value, n)) {
      const TSNode parent = ts_node_parent(n);
      if (is(n, "conditional_expression") || is(parent, "if_statement") ||
          is(parent, "elif_clause") || is(parent, "else_clause") || is(parent, "try_statement") ||
          is(parent, "except_clause")) {
        return false;
      }
    }
  }
  return true;
}

// Whether a class constructs `name` anywhere in the file (`Center(...)`).
bool constructed_in_file(const Source& source, std::string_view name) {
  for (const Call& call : source.calls()) {
    if (source.text(field(call.node, "function")) == name) return true;
  }
  return false;
}

// Whether a method of the class registers `attribute` as a buffer or a
// parameter (`self.register_buffer("freqs_cis", ...)`) on every way that
// reaches the set `value`: a tensor set on that name replaces the buffer
// (nn.Module's __setattr__ keeps it there). A registration in a branch counts
// only for sets in the same branch (`if bias: self.b = t` / `else:
// self.register_parameter("b", None)` leaves a plain tensor when bias is set).
// Where another way registers a tensor under the name (`if
// register: self.register_buffer("c", c)` / `else: self.c = c`), the plain
// way is the caller's choice: it counts only where the file makes the class.
bool registered_by_class(const Source& source, int class_scope, std::string_view attribute,
                         TSNode value) {
  for (const Call& call : source.calls()) {
    if ((call.method != "register_buffer" && call.method != "register_parameter") ||
        source.text(call.object) != "self" ||
        source.scopes()[call.scope].owner_class != class_scope) {
      continue;
    }
    const std::vector<TSNode> args = source.positional(call.node);
    if (args.empty() || string_value(source, args[0]) != attribute) continue;
    if (on_every_way(call.node, value)) return true;
    if (args.size() > 1 && !is(args[1], "none") &&
        !constructed_in_file(source, source.scopes()[class_scope].name)) {
      return true;
    }
  }
  return false;
}

// Whether the method that sets `self.x` to a plain tensor sets it again, later
// and on every way, to a registered one (`self.mask = nn.Parameter(self.mask,
// requires_grad=False)`): nn.Module's __setattr__ registers it then.
bool registered_later(const Source& source, const std::vector<AttributeSet>& sets,
                      const AttributeSet& set) {
  for (const AttributeSet& other : sets) {
    if (other.method_scope != set.method_scope || other.name != set.name ||
        ts_node_start_byte(other.value) <= ts_node_end_byte(set.value)) {
      continue;
    }
    // A plain list of modules set again as a container module
    // (`self.lins = nn.ModuleList(self.lins)`) registers them.
    bool container = false;
    if (!other.v.registered && is(other.value, "call")) {
      const std::string q = source.qualify(field(other.value, "function"));
      container =
          q == "torch.nn.ModuleList" || q == "torch.nn.ModuleDict" || q == "torch.nn.Sequential";
    }
    if ((other.v.registered || container) && on_every_way(other.value, set.value)) return true;
  }
  return false;
}

// The `if` around `node` in its function whose test decides whether a
// method refills `self.x` (`if batch_size != self.last:`), or a null node.
TSNode refill_test(TSNode node) {
  for (TSNode n = ts_node_parent(node); !ts_node_is_null(n); n = ts_node_parent(n)) {
    if (is(n, "function_definition")) break;
    if (is(n, "if_statement")) return field(n, "condition");
  }
  return TSNode{};
}

// Whether `node` holds a read of `name` (`self.x`) outside `skip`.
bool read_outside(const Source& source, TSNode node, std::string_view name, TSNode skip) {
  // Where the stack runs short (stack.h), none: the cache is not reported.
  if (ts_node_eq(node, skip) || stack_nearly_exhausted()) return false;
  if (is(node, "attribute") && source.text(node) == name) {
    const TSNode parent = ts_node_parent(node);
    return !(is(parent, "assignment") && ts_node_eq(field(parent, "left"), node));
  }
  for (uint32_t i = 0, n = ts_node_named_child_count(node); i < n; ++i) {
    if (read_outside(source, ts_node_named_child(node, i), name, skip)) return true;
  }
  return false;
}

// The start byte of the first read of `name` (`self.x`) in `node`, or
// UINT32_MAX; 0 (a read first) where the stack runs short.
uint32_t first_read(const Source& source, TSNode node, std::string_view name) {
  if (stack_nearly_exhausted()) return 0;
  if (is(node, "attribute") && source.text(node) == name) {
    const TSNode parent = ts_node_parent(node);
    return is(parent, "assignment") && ts_node_eq(field(parent, "left"), node)
               ? UINT32_MAX
               : ts_node_start_byte(node);
  }
  uint32_t first = UINT32_MAX;
  for (uint32_t i = 0, n = ts_node_named_child_count(node); i < n && first == UINT32_MAX; ++i) {
    first = first_read(source, ts_node_named_child(node, i), name);
  }
  return first;
}

// Whether the block `block` sets `name` (`self.x = ...`) in one of its own
// statements.
bool block_sets(const Source& source, TSNode block, std::string_view name) {
  for (uint32_t i = 0, n = ts_node_named_child_count(block); i < n; ++i) {
    const TSNode statement = ts_node_named_child(block, i);
    if (!is(statement, "expression_statement")) continue;
    const TSNode assignment = ts_node_named_child(statement, 0);
    if (is(assignment, "assignment") && source.text(field(assignment, "left")) == name) {
      return true;
    }
  }
  return false;
}

// Whether the `if` statement `statement` sets `name` on each of its ways (it
// has an `else`, and its body, each `elif` and the `else` set it), runs on
// every call of its method (no branch, loop or handler around it), and every
// read of `name` in the method follows it: each call reads only what it made
// (fairseq's ESPnet attention, `self.attn = softmax(...)` on both ways of
// `if mask is not None:`); no test keeps an old tensor.
bool set_on_every_branch(const Source& source, TSNode statement, std::string_view name) {
  if (!is(statement, "if_statement") ||
      !block_sets(source, field(statement, "consequence"), name)) {
    return false;
  }
  TSNode function = ts_node_parent(statement);
  for (; !ts_node_is_null(function) && !is(function, "function_definition");
       function = ts_node_parent(function)) {
    if (is(function, "if_statement") || is(function, "elif_clause") ||
        is(function, "else_clause") || is(function, "for_statement") ||
        is(function, "while_statement") || is(function, "try_statement") ||
        is(function, "except_clause")) {
      return false;
    }
  }
  if (ts_node_is_null(function) ||
      first_read(source, field(function, "body"), name) < ts_node_end_byte(statement)) {
    return false;
  }
  bool otherwise = false;
  for (uint32_t i = 0, n = ts_node_named_child_count(statement); i < n; ++i) {
    const TSNode clause = ts_node_named_child(statement, i);
    if (is(clause, "elif_clause") && !block_sets(source, field(clause, "consequence"), name)) {
      return false;
    }
    if (is(clause, "else_clause")) {
      if (!block_sets(source, field(clause, "body"), name)) return false;
      otherwise = true;
    }
  }
  return otherwise;
}

// A cache: `self.x = None` in __init__, filled in another method with a
// tensor where its inputs are (the module's device), under a test that does
// not ask where (`if batch_size != self.last:`), and read outside that `if`
// (on later calls too): model.to(device) does not move it, so a call after a move meets
// the tensor of the first device. Not where the test names the device, the
// class registers the name, or each read moves it.
void cached_on_first_device(const RuleContext& c,
                            const std::vector<std::pair<int, std::string_view>>& overrides) {
  std::vector<uint32_t> done;
  for (const AttributeSet& set : c.flow.attributes()) {
    const auto info = c.source.classes().find(c.source.scopes()[set.class_scope].name);
    if (info == c.source.classes().end() || !info->second.is_module ||
        in_init(c.source, set.method_scope) || set.v.kind != Kind::kTensor || set.v.scalar ||
        set.v.registered ||
        (set.v.place != Place::kModuleDevice && set.v.place != Place::kDevice)) {
      continue;
    }
    const TSNode test = refill_test(set.value);
    if (ts_node_is_null(test) || names_any(c.source.text(test), {"device", "cuda", "is_cuda"}) ||
        set_on_every_branch(c.source, ts_node_parent(test), set.name) ||
        !read_outside(c.source, c.source.scopes()[set.method_scope].node, set.name,
                      ts_node_parent(test))) {
      continue;
    }
    const std::string attribute(set.name.substr(5));
    TSNode none{};
    for (const Scope& scope : c.source.scopes()) {
      if (scope.owner_class != set.class_scope || scope.name != "__init__") continue;
      const auto assigns = scope.assigns.find(std::string(set.name));
      if (assigns == scope.assigns.end()) continue;
      for (const TSNode value : assigns->second) {
        if (is(value, "none")) none = value;
      }
    }
    if (ts_node_is_null(none) ||
        std::find(done.begin(), done.end(), ts_node_start_byte(none)) != done.end() ||
        moved_at_each_use(c.source, set) || moved_by_own_to(overrides, set) ||
        registered_by_class(c.source, set.class_scope, attribute, set.value)) {
      continue;
    }
    done.push_back(ts_node_start_byte(none));
    std::string message(set.name);
    message += " caches a tensor made where the inputs are (";
    message += line_of(set.value);
    message +=
        ", refilled only when its test says so) in a plain attribute, which model.to(device) "
        "does not move: a call after a move meets the tensor of the first device; use "
        "self.register_buffer(\"";
    message += attribute;
    message += "\", None, persistent=False), or refill it when the device changes";
    c.sink.report(none, "DC111", std::move(message));
  }
}

// Whether the class of `class_scope` is a plain class: one without bases (or
// only `object`), so nothing it inherits can be an nn.Module.
bool plain_class(const Source& source, int class_scope) {
  const TSNode bases = field(source.scopes()[class_scope].node, "superclasses");
  if (ts_node_is_null(bases)) return true;
  for (uint32_t i = 0, n = ts_node_named_child_count(bases); i < n; ++i) {
    if (source.text(ts_node_named_child(bases, i)) != "object") return false;
  }
  return true;
}

// Where an nn.Module of the file keeps an object of the plain class
// `name` in its __init__ (`self.observer = Observer(...)`), and its class
// moves nothing itself (no to(), cuda() or _apply() of its own): the set's
// value, or a null node.
TSNode kept_by_module(const RuleContext& c, std::string_view name) {
  for (const AttributeSet& set : c.flow.attributes()) {
    const Scope& cls = c.source.scopes()[set.class_scope];
    const auto info = c.source.classes().find(cls.name);
    if (info == c.source.classes().end() || !info->second.is_module ||
        !runs_in_init(c.source, set.method_scope) || !is(set.value, "call") ||
        c.source.text(field(set.value, "function")) != name) {
      continue;
    }
    const bool moves_itself =
        std::any_of(c.source.scopes().begin(), c.source.scopes().end(), [&](const Scope& s) {
          return s.owner_class == set.class_scope &&
                 (s.name == "to" || s.name == "cuda" || s.name == "_apply");
        });
    if (!moves_itself) return set.value;
  }
  return TSNode{};
}

// A plain object kept by a module: `self.x = <a host tensor>` in the
// __init__ of a plain class (or a method __init__ calls) whose objects an
// nn.Module of the file keeps. model.to(device) walks submodules, parameters
// and buffers only: the object's tensors stay on the host.
void plain_object_on_module(const RuleContext& c,
                            const std::vector<std::pair<int, std::string_view>>& overrides) {
  for (const AttributeSet& set : c.flow.attributes()) {
    const std::string& name = c.source.scopes()[set.class_scope].name;
    const auto info = c.source.classes().find(name);
    if (info == c.source.classes().end() || info->second.is_module || info->second.is_dataset ||
        !runs_in_init(c.source, set.method_scope) || set.v.kind != Kind::kTensor ||
        set.v.place != Place::kHost || set.v.scalar || set.v.registered ||
        !plain_class(c.source, set.class_scope)) {
      continue;
    }
    const TSNode kept = kept_by_module(c, name);
    if (ts_node_is_null(kept) || moved_at_each_use(c.source, set) ||
        moved_by_own_to(overrides, set)) {
      continue;
    }
    std::string message(set.name);
    message += " of ";
    message += name;
    message += ", a plain class whose object a module keeps (";
    message += line_of(kept);
    message +=
        "), holds a plain tensor, which model.to(device) does not move (it moves submodules, "
        "parameters and buffers only); make ";
    message += name;
    message += " an nn.Module and use self.register_buffer(\"";
    message += set.name.substr(5);
    message += "\", ...)";
    c.sink.report(set.value, "DC111", std::move(message));
  }
}

// Whether the plain tensor of `set` is one the file's calls give the
// constructor made on a device (`Holder(torch.empty(n, device=x.device))`),
// and every construction of the class in the file lies in a method that is
// not an __init__ nor one it calls (a per-call object, made where the inputs
// are, which no model.to() reaches: speechbrain's AlivedHypotheses).
bool made_per_call_on_a_device(const Source& source, const AttributeSet& set) {
  if (!set.v.passed || (set.v.place != Place::kDevice && set.v.place != Place::kModuleDevice)) {
    return false;
  }
  const std::string& cls = source.scopes()[set.class_scope].name;
  bool made = false;
  for (const Call& call : source.calls()) {
    if (source.text(field(call.node, "function")) != cls) continue;
    if (source.scopes()[call.scope].kind != ScopeKind::kFunction ||
        runs_in_init(source, call.scope)) {
      return false;
    }
    made = true;
  }
  return made;
}

void check(const RuleContext& c) {
  std::vector<std::pair<int, std::string_view>> overrides;
  for (const AttributeSet& set : c.flow.attributes()) {
    if (set.method_scope < 0) continue;
    const std::string_view method = c.source.scopes()[set.method_scope].name;
    if (method == "to" || method == "cuda" || method == "_apply") {
      overrides.emplace_back(set.class_scope, set.name);
    }
  }
  for (const AttributeSet& set : c.flow.attributes()) {
    const auto info = c.source.classes().find(c.source.scopes()[set.class_scope].name);
    if (info == c.source.classes().end() || !info->second.is_module ||
        !runs_in_init(c.source, set.method_scope)) {
      continue;
    }
    // In a helper of __init__, only what it leaves on the host (a buffer it
    // makes with device= is one it placed on purpose: DDP's gradient buffer).
    if (c.source.scopes()[set.method_scope].name != "__init__" && set.v.place != Place::kHost) {
      continue;
    }
    const std::string attribute(set.name.substr(5));
    std::string message(set.name);
    // A 0-dim tensor (`torch.tensor(1)`) mixes with tensors on any device.
    if (set.v.kind == Kind::kTensor && !set.v.registered && !set.v.scalar) {
      if (moved_at_each_use(c.source, set) || never_used_on_a_device(c.source, set) ||
          made_per_call_on_a_device(c.source, set) || moved_by_own_to(overrides, set) ||
          registered_by_class(c.source, set.class_scope, attribute, set.value) ||
          registered_later(c.source, c.flow.attributes(), set) ||
          packed_by_quantized_op(c.source, set.class_scope, set.name) ||
          read_only_while_built(c.source, set) || replaced_before_every_read(c.source, set) ||
          read_only_on_the_other_way(c.source, set)) {
        continue;
      }
      if (attribute.find('.') != std::string::npos) {  // self.hparams.x
        message +=
            " holds a plain tensor (kept by save_hyperparameters()), which model.to(device) "
            "does not move; make it where it is used, on the device of what it meets";
        c.sink.report(set.value, "DC111", std::move(message));
        continue;
      }
      message += " holds a plain tensor, which model.to(device) does not move; use ";
      message += "self.register_buffer(\"" + attribute + "\", ...) or nn.Parameter(...)";
      if (is(set.value, "call") &&
          c.source.text(set.value).find("Parameter(") != std::string_view::npos) {
        message +=
            " (.to()/.cuda() of a parameter returns a plain tensor: make it on its "
            "device inside nn.Parameter(...))";
      }
    } else if (set.v.kind == Kind::kList && set.v.element == Kind::kModule &&
               !registered_later(c.source, c.flow.attributes(), set) &&
               !modules_registered_one_by_one(c.source, set)) {
      // (A list of tensors is most often a cache the code moves itself.)
      message += is(set.value, "dictionary") ? " holds a plain dict" : " holds a plain list";
      message +=
          " of modules, which model.to(device) does not move and "
          "model.parameters() does not list; use nn.ModuleList(...) or nn.ModuleDict(...)";
    } else {
      continue;
    }
    c.sink.report(set.value, "DC111", std::move(message));
  }
  cached_on_first_device(c, overrides);
  plain_object_on_module(c, overrides);
}

}  // namespace

extern const Rule kRuleDC111;
const Rule kRuleDC111 = {
    {"DC111", "plain-tensor-on-module",
     "A plain tensor (or list of modules) assigned to self in nn.Module.__init__.", false},
    "import torch\n"
    "import torch.nn as nn\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.mask = torch.ones(4, 4).tril()\n",
    "import torch\n"
    "import torch.nn as nn\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.register_buffer(\"mask\", torch.ones(4, 4).tril())\n",
    check};

}  // namespace devcheck::lint::detail
