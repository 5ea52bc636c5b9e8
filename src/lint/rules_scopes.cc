// Rules that follow names within a scope (docs/lint.md, "How names are
// followed"): DC101 factories without device=, DC102 discarded moves,
// DC111 plain tensors on modules, DC113 .numpy() on a device,
// DC116 layers made in forward, DC117 saving a wrapper's state_dict.
#include <algorithm>
#include <array>
#include <cctype>

#include "rules.h"

namespace devcheck::lint::detail {
namespace {

constexpr int kMaxFollow = 8;  // names followed through at most this many assignments

// The value of `self.x` assigned in any method of the class of `scope`.
TSNode self_value(const Source& source, const std::string& name, int scope) {
  const int function = source.function_of(scope);
  if (function < 0) return TSNode{};
  const int owner = source.scopes()[function].owner_class;
  if (owner < 0) return TSNode{};
  TSNode found{};
  for (const Scope& s : source.scopes()) {
    if (s.owner_class != owner) continue;
    const auto it = s.assigns.find(name);
    if (it != s.assigns.end() && !it->second.empty()) found = it->second.back();
  }
  return found;
}

}  // namespace

TSNode value_of_object(const Source& source, TSNode object, int scope) {
  if (is(object, "identifier")) return source.value_of(std::string(source.text(object)), scope);
  if (is(object, "attribute") && source.text(field(object, "object")) == "self") {
    return self_value(source, std::string(source.text(object)), scope);
  }
  return TSNode{};
}

namespace {

bool is_module_value(const Source& source, TSNode value, int scope, int depth) {
  if (depth > kMaxFollow || !is(value, "call")) return false;
  const TSNode function = field(value, "function");
  const std::string q = source.qualify(function);
  const std::string last = q.substr(q.rfind('.') + 1);
  if (q.rfind("torch.nn.", 0) == 0 && !last.empty() && std::isupper(last[0]) != 0 &&
      last != "Parameter") {
    return true;
  }
  if (is(function, "identifier")) {
    const auto c = source.classes().find(std::string(source.text(function)));
    if (c != source.classes().end() && c->second.is_module) return true;
  }
  if (is(function, "attribute")) {
    const std::string_view method = source.text(field(function, "attribute"));
    if (method == "to" || method == "cuda" || method == "cpu" || method == "train" ||
        method == "eval") {
      const TSNode object = field(function, "object");
      return is_module_value(source, object, scope, depth + 1) ||
             is_module_value(source, value_of_object(source, object, scope), scope, depth + 1);
    }
  }
  return false;
}

bool is_tensor_value(const Source& source, TSNode value, int scope, int depth) {
  if (depth > kMaxFollow || !is(value, "call")) return false;
  if (makes_tensor(source, value)) return true;
  const TSNode function = field(value, "function");
  if (!is(function, "attribute")) return false;
  const std::string_view method = source.text(field(function, "attribute"));
  if (method != "to" && method != "cuda" && method != "cpu" && method != "float" &&
      method != "half" && method != "double" && method != "detach" && method != "clone") {
    return false;
  }
  const TSNode object = field(function, "object");
  return is_tensor_value(source, object, scope, depth + 1) ||
         is_tensor_value(source, value_of_object(source, object, scope), scope, depth + 1);
}

}  // namespace

bool moves_to_device(const Source& source, TSNode call, int scope) {
  const TSNode function = field(call, "function");
  const std::string_view method = source.text(field(function, "attribute"));
  if (method == "cuda") return true;
  if (method != "to") return false;
  const TSNode dev = source.keyword(call, "device");
  const std::vector<TSNode> args = source.positional(call);
  const TSNode target = !ts_node_is_null(dev) ? dev : (args.empty() ? TSNode{} : args[0]);
  if (ts_node_is_null(target)) return false;
  if (const auto s = string_value(source, target)) return *s != "cpu" && *s != "meta";
  if (is(target, "attribute") && source.text(field(target, "attribute")) == "device") return true;
  if (is(target, "identifier")) {
    const std::string_view name = source.text(target);
    const TSNode value = source.value_of(std::string(name), scope);
    // `device = "cpu"` / `torch.device("cpu")`: a CPU-only program.
    const bool device_call =
        is(value, "call") && source.qualify(field(value, "function")) == "torch.device";
    const TSNode spelled =
        device_call ? (source.positional(value).empty() ? TSNode{} : source.positional(value)[0])
                    : value;
    if (const auto s = string_value(source, spelled)) return *s != "cpu" && *s != "meta";
    return name.find("device") != std::string_view::npos || name == "dev" || device_call;
  }
  return false;
}

bool on_device(const Source& source, TSNode node, int scope, int depth) {
  if (depth > kMaxFollow || ts_node_is_null(node)) return false;
  if (is(node, "identifier") || is(node, "attribute")) {
    if (is(node, "attribute") && source.text(field(node, "object")) != "self") return false;
    return on_device(source, value_of_object(source, node, scope), scope, depth + 1);
  }
  if (!is(node, "call")) return false;
  const TSNode function = field(node, "function");
  if (is_factory(source.qualify(function))) {
    const TSNode dev = source.keyword(node, "device");
    if (ts_node_is_null(dev)) return false;
    const auto s = string_value(source, dev);
    return s ? *s != "cpu" && *s != "meta" : false;
  }
  if (!is(function, "attribute")) return false;
  const std::string_view method = source.text(field(function, "attribute"));
  if (method == "cpu" || method == "numpy") return false;
  if (moves_to_device(source, node, scope)) return true;
  if (method == "detach" || method == "float" || method == "half" || method == "double" ||
      method == "clone" || method == "contiguous" || method == "squeeze" || method == "flatten" ||
      method == "to") {
    return on_device(source, field(function, "object"), scope, depth + 1);
  }
  return false;
}

namespace {

// How the tensor is used where it is made: 2 an operand of an arithmetic
// operator (it meets the other operand's device there), 1 assigned, 0 anything
// else, where it goes cannot be told. An index is 0: a CPU index tensor
// indexes a tensor on any device; so is a comparison, whose other side is most
// often a number (`if torch.rand(1) < self.p`).
int use_in_place(TSNode call) {
  TSNode parent = ts_node_parent(call);
  while (is(parent, "parenthesized_expression")) parent = ts_node_parent(parent);
  if (is(parent, "binary_operator")) return 2;
  return is(parent, "assignment") || is(parent, "augmented_assignment") ? 1 : 0;
}

// Whether `name`, assigned at `after`, is used later in `scope_node` as a
// whole tensor: anything but an element (`r[0]`, a 0-dim tensor, mixes with
// any device), an index, or the object of a method or attribute (`r.item()`).
bool used_whole(const Source& source, TSNode node, std::string_view name, uint32_t after,
                int depth) {
  if (depth > 1500 || ts_node_end_byte(node) <= after) return false;
  if (is(node, "identifier")) {
    if (ts_node_start_byte(node) <= after || source.text(node) != name) return false;
    const TSNode parent = ts_node_parent(node);
    // Indexed, or an index itself (a CPU index tensor indexes any device).
    if (is(parent, "subscript")) return false;
    return !(is(parent, "attribute") && ts_node_eq(ts_node_child(parent, 0), node));
  }
  const uint32_t count = ts_node_child_count(node);
  for (uint32_t i = 0; i < count; ++i) {
    if (used_whole(source, ts_node_child(node, i), name, after, depth + 1)) return true;
  }
  return false;
}

// The names of a function's parameters (`self` too).
std::vector<std::string_view> parameter_names(const Source& source, TSNode function) {
  std::vector<std::string_view> names;
  const TSNode parameters = field(function, "parameters");
  const uint32_t count = ts_node_named_child_count(parameters);
  for (uint32_t i = 0; i < count; ++i) {
    TSNode p = ts_node_named_child(parameters, i);
    if (!is(p, "identifier")) {
      // `x=1` and `x: T = 1` name it in a field; `x: T`, `*x`, `**x` first.
      const TSNode name = field(p, "name");
      p = ts_node_is_null(name) ? ts_node_named_child(p, 0) : name;
    }
    if (is(p, "identifier")) names.push_back(source.text(p));
  }
  return names;
}

// Whether the arithmetic around `call` (the operators and parentheses it is
// in) names one of `names` outside `call` itself.
bool operands_name(const Source& source, TSNode call, const std::vector<std::string_view>& names) {
  TSNode top = call;
  for (TSNode p = ts_node_parent(call);
       is(p, "binary_operator") || is(p, "parenthesized_expression"); p = ts_node_parent(p)) {
    top = p;
  }
  std::vector<TSNode> stack{top};
  while (!stack.empty()) {
    const TSNode node = stack.back();
    stack.pop_back();
    if (ts_node_eq(node, call)) continue;
    if (is(node, "identifier")) {
      if (std::find(names.begin(), names.end(), source.text(node)) != names.end()) return true;
      continue;
    }
    for (uint32_t i = 0, n = ts_node_named_child_count(node); i < n; ++i) {
      stack.push_back(ts_node_named_child(node, i));
    }
  }
  return false;
}

// Whether a `with torch.device(...)` block (a default device) is around `node`.
bool under_device_context(const Source& source, TSNode node) {
  for (TSNode n = ts_node_parent(node); !ts_node_is_null(n); n = ts_node_parent(n)) {
    if (is(n, "function_definition")) return false;
    if (is(n, "with_statement")) {
      for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) {
        const TSNode clause = ts_node_named_child(n, i);
        if (is(clause, "with_clause") &&
            source.text(clause).find("device(") != std::string_view::npos) {
          return true;
        }
      }
    }
  }
  return false;
}

void check_factory_device(const Source& source, const Call& call, Sink& sink) {
  if (!is_factory(call.qualified)) return;
  const int function = source.function_of(call.scope);
  if (function < 0 || function != call.scope) return;
  // A module's forward gets its inputs on the module's device; elsewhere the
  // function must name a device itself.
  const Scope& f = source.scopes()[function];
  bool forward = false;
  if (f.name == "forward" && f.owner_class >= 0) {
    const auto c = source.classes().find(source.scopes()[f.owner_class].name);
    forward = c != source.classes().end() && c->second.is_module;
  }
  if (!forward && !f.uses_device) return;
  if (source.has_splat(call.node) || !ts_node_is_null(source.keyword(call.node, "device")) ||
      !ts_node_is_null(source.keyword(call.node, "out"))) {
    return;
  }
  const std::vector<TSNode> args = source.positional(call.node);
  // A 0-dim CPU tensor mixes with tensors on any device.
  if (call.qualified == "torch.tensor" && !args.empty() &&
      (is(args[0], "integer") || is(args[0], "float") || is(args[0], "true") ||
       is(args[0], "false"))) {
    return;
  }
  // In a forward every tensor meets the inputs; elsewhere only an operand
  // surely meets the function's device tensors (an index list, a CPU
  // accumulator of .item() values are fine as they are).
  const int use = use_in_place(call.node);
  if (call.moved || use < (forward ? 1 : 2) || under_device_context(source, call.node)) return;
  // Outside a forward and a loop, before the function's first device use
  // (a function that builds on the CPU and moves its results at the end),
  // the tensors it made itself are on the CPU: only an operand passed in
  // (a parameter, `self`) may be on the device already.
  if (!forward && call.loop == Call::kNoLoop &&
      ts_node_start_byte(call.node) < f.first_device_use &&
      !operands_name(source, call.node, parameter_names(source, f.node))) {
    return;
  }
  if (use == 1) {
    // Assigned in a forward: found when the name is then used whole.
    const TSNode assignment = ts_node_parent(call.node);
    const TSNode left = field(assignment, "left");
    if (!is(left, "identifier") ||
        !used_whole(source, f.node, source.text(left), ts_node_end_byte(assignment), 0)) {
      return;
    }
  }
  sink.report(call.node, "DC101",
              source.dotted(field(call.node, "function")) + "(...) without device= in '" +
                  source.scopes()[function].name +
                  "', which works on a device: the tensor is made on the CPU; pass "
                  "device= (e.g. device=x.device)");
}

void check_discarded_move(const Source& source, TSNode statement, Sink& sink) {
  const TSNode call = ts_node_named_child(statement, 0);
  const TSNode function = field(call, "function");
  if (!is(function, "attribute")) return;
  const std::string_view method = source.text(field(function, "attribute"));
  if (method != "cuda" && method != "cpu" && method != "to") return;
  const TSNode object = field(function, "object");
  if (!is(object, "identifier") &&
      !(is(object, "attribute") && source.text(field(object, "object")) == "self")) {
    return;
  }
  const int scope = source.scope_of(call);
  const TSNode value = value_of_object(source, object, scope);
  if (is_module_value(source, value, scope, 0) || !is_tensor_value(source, value, scope, 0)) return;
  const std::string name(source.text(object));
  sink.report(call, "DC102",
              name + "." + std::string(method) +
                  "(...) returns a moved copy and this discards it: tensors do not move in place; "
                  "write " +
                  name + " = " + std::string(source.text(call)),
              Fix{"assign the result to " + name,
                  {{ts_node_start_byte(statement), ts_node_start_byte(statement), name + " = "}}});
}

void check_module_tensors(const Source& source, Sink& sink) {
  for (const auto& [name, info] : source.classes()) {
    if (!info.is_module) continue;
    for (const Scope& s : source.scopes()) {
      if (s.owner_class != info.scope || s.name != "__init__") continue;
      for (const auto& [target, values] : s.assigns) {
        if (target.rfind("self.", 0) != 0) continue;
        for (TSNode value : values) {
          if (!makes_tensor(source, value)) continue;
          const std::string attr = target.substr(5);
          std::string message = target;
          message += " holds a plain tensor, which model.to(device) does not move; use ";
          message += "self.register_buffer(\"" + attr + "\", ...) or nn.Parameter(...)";
          sink.report(value, "DC111", std::move(message));
        }
      }
    }
  }
}

void check_numpy(const Source& source, const Call& call, Sink& sink) {
  if (call.method != "numpy" || !source.positional(call.node).empty()) return;
  if (!on_device(source, call.object, call.scope, 0)) return;
  sink.report(call.node, "DC113",
              ".numpy() on a tensor that is on a device raises a TypeError; copy it to the host "
              "first: .detach().cpu().numpy()");
}

bool has_parameters(std::string_view layer) {
  static constexpr std::array<std::string_view, 20> kPrefixes = {
      "Linear",      "Bilinear",  "Lazy",       "Conv",         "Embedding",
      "BatchNorm",   "LayerNorm", "GroupNorm",  "InstanceNorm", "SyncBatchNorm",
      "RMSNorm",     "LSTM",      "GRU",        "RNN",          "MultiheadAttention",
      "Transformer", "PReLU",     "Sequential", "ModuleList",   "ModuleDict"};
  for (std::string_view p : kPrefixes) {
    if (layer.rfind(p, 0) == 0) return true;
  }
  return false;
}

void check_layer_in_forward(const Source& source, const Call& call, Sink& sink) {
  if (call.qualified.rfind("torch.nn.", 0) != 0 ||
      call.qualified.find(".functional") != std::string::npos) {
    return;
  }
  const std::string layer = call.qualified.substr(call.qualified.rfind('.') + 1);
  if (!has_parameters(layer)) return;
  const int function = source.function_of(call.scope);
  if (function < 0 || source.scopes()[function].name != "forward" ||
      source.scopes()[function].owner_class < 0) {
    return;
  }
  sink.report(call.node, "DC116",
              "nn." + layer +
                  " made inside forward: its weights are new on every call, on the CPU, and never "
                  "trained; create it in __init__ as self.<name> and call it here");
}

bool is_wrapper_value(const Source& source, TSNode value) {
  if (!is(value, "call")) return false;
  const std::string q = source.qualify(field(value, "function"));
  return q == "torch.nn.DataParallel" || q == "torch.nn.parallel.DataParallel" ||
         q == "torch.nn.parallel.DistributedDataParallel" ||
         q == "torch.nn.parallel.distributed.DistributedDataParallel";
}

void check_saved_wrapper(const Source& source, const Call& call, Sink& sink) {
  if (call.qualified != "torch.save") return;
  const std::vector<TSNode> args = source.positional(call.node);
  if (args.empty()) return;
  const uint32_t start = ts_node_start_byte(args[0]);
  const uint32_t end = ts_node_end_byte(args[0]);
  for (const Call& inner : source.calls()) {
    if (inner.method != "state_dict" || ts_node_start_byte(inner.node) < start ||
        ts_node_end_byte(inner.node) > end) {
      continue;
    }
    if (!is_wrapper_value(source, value_of_object(source, inner.object, inner.scope))) continue;
    const std::string name(source.text(inner.object));
    std::string message = name;
    message +=
        " is a DataParallel/DistributedDataParallel wrapper: its state_dict keys start with "
        "'module.' and do not load into the bare model; save ";
    message += name + ".module.state_dict()";
    sink.report(inner.node, "DC117", std::move(message));
  }
}

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

// DC104: DistributedDataParallel(model) and only then model.to(dev) /
// ddp.to(dev): DDP takes the parameters' devices when it is built.
void check_wrap_order(const Source& source, const Call& call, Sink& sink) {
  if (call.qualified != "torch.nn.parallel.DistributedDataParallel" &&
      call.qualified != "torch.nn.parallel.distributed.DistributedDataParallel") {
    return;
  }
  const std::vector<TSNode> args = source.positional(call.node);
  if (args.empty() || !is(args[0], "identifier")) return;
  const std::string model(source.text(args[0]));
  const uint32_t at = ts_node_start_byte(call.node);
  // The name the wrapper is assigned to, if any.
  std::string wrapper;
  const TSNode parent = ts_node_parent(call.node);
  if (is(parent, "assignment") && is(field(parent, "left"), "identifier")) {
    wrapper = std::string(source.text(field(parent, "left")));
  }
  bool before = false;
  TSNode after{};
  for (const Call& move : source.calls()) {
    if ((move.method != "to" && move.method != "cuda") || move.scope != call.scope ||
        !is(move.object, "identifier")) {
      continue;
    }
    const std::string_view name = source.text(move.object);
    const uint32_t where = ts_node_start_byte(move.node);
    if (name == model && where < at) before = true;
    if ((name == model || (!wrapper.empty() && name == wrapper)) && where > at &&
        ts_node_is_null(after)) {
      after = move.node;
    }
  }
  if (before || ts_node_is_null(after)) return;
  sink.report(call.node, "DC104",
              "DistributedDataParallel(" + model +
                  ") is built before the model is on its device (it is moved only after, line " +
                  std::to_string(ts_node_start_point(after).row + 1) +
                  "): move it first: DistributedDataParallel(" + model +
                  ".to(device), device_ids=[...])");
}

}  // namespace

bool is_module_name(const Source& source, TSNode object, int scope) {
  return is_module_value(source, value_of_object(source, object, scope), scope, 0);
}

void check_scopes(const Source& source, Sink& sink) {
  for (const Call& call : source.calls()) {
    check_factory_device(source, call, sink);
    check_numpy(source, call, sink);
    check_layer_in_forward(source, call, sink);
    check_saved_wrapper(source, call, sink);
    check_element_moves(source, call, sink);
    check_wrap_order(source, call, sink);
  }
  for (TSNode statement : source.call_statements()) check_discarded_move(source, statement, sink);
  check_module_tensors(source, sink);
}

}  // namespace devcheck::lint::detail
