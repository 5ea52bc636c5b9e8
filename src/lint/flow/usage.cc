// used_as_tensor (flow.h): what the uses of a name the flow has no value for
// say it holds.
#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

#include "../common.h"
#include "flow.h"
#include "run.h"

namespace devcheck::lint::detail {
namespace {

template <std::size_t N>
bool among(std::string_view word, const std::array<std::string_view, N>& words) {
  for (std::string_view w : words) {
    if (w == word) return true;
  }
  return false;
}

struct Evidence {
  bool tensor = false;
  bool module = false;
  // Only what a number or a list never shows: a tensor's attribute or
  // method, the first argument of a torch function, any of a loss.
  bool strict = false;
};

void look(const Source& source, TSNode node, std::string_view name, Evidence& e, int depth) {
  if (depth > 1500 || e.module) return;
  if (is(node, "identifier")) {
    if (source.text(node) != name) return;
    const TSNode parent = ts_node_parent(node);
    if (is(parent, "attribute") && ts_node_eq(field(parent, fields().object), node)) {
      static constexpr std::array<std::string_view, 26> kTensor = {
          "shape",     "dtype",       "ndim",        "is_cuda",    "size",      "dim",
          "numel",     "item",        "numpy",       "view",       "unsqueeze", "squeeze",
          "backward",  "permute",     "transpose",   "contiguous", "reshape",   "detach",
          "argmax",    "softmax",     "masked_fill", "tolist",     "long",      "float",
          "new_zeros", "index_select"};
      static constexpr std::array<std::string_view, 14> kModule = {
          "parameters",      "named_parameters", "train",    "eval",         "state_dict",
          "load_state_dict", "modules",          "children", "zero_grad",    "apply",
          "register_buffer", "add_module",       "forward",  "named_modules"};
      const std::string_view attribute = source.text(field(parent, fields().attribute));
      e.tensor = e.tensor || among(attribute, kTensor) || (e.strict && tensor_method(attribute));
      e.module = e.module || among(attribute, kModule);
      return;
    }
    if (is(parent, "subscript") && ts_node_eq(field(parent, fields().value), node)) {
      const TSNode index = field(parent, fields().subscript);
      e.tensor =
          e.tensor || (!e.strict && !(is(index, "string") || is(index, "concatenated_string")));
      return;
    }
    if (is(parent, "call") && ts_node_eq(field(parent, fields().function), node)) {
      e.module = true;
      return;
    }
    if (is(parent, "binary_operator")) {
      e.tensor = e.tensor || !e.strict;
      return;
    }
    const TSNode list = is(parent, "list") || is(parent, "tuple") ? ts_node_parent(parent) : parent;
    if (is(list, "argument_list")) {
      const TSNode call = ts_node_parent(list);
      const std::string q = source.qualify(field(call, fields().function));
      const bool loss =
          q.find("loss") != std::string::npos || q.find("entropy") != std::string::npos;
      e.tensor =
          e.tensor || (computes_on_arguments(q) &&
                       (!e.strict || loss || ts_node_eq(ts_node_named_child(list, 0), node)));
    }
    return;
  }
  const uint32_t count = ts_node_child_count(node);
  for (uint32_t i = 0; i < count; ++i) look(source, ts_node_child(node, i), name, e, depth + 1);
}

}  // namespace

bool used_as_tensor(const Source& source, TSNode scope_node, std::string_view name,
                    bool passed_to_module, bool strict) {
  Evidence e;
  e.tensor = passed_to_module;
  e.strict = strict;
  look(source, scope_node, name, e, 0);
  return e.tensor && !e.module;
}

// A literal a module may keep without holding a tensor: a number, a
// string, True/False/None, or arithmetic of them.
bool plain_literal(TSNode node) {
  if (is(node, "integer") || is(node, "float") || is(node, "string") || is(node, "true") ||
      is(node, "false") || is(node, "none")) {
    return true;
  }
  if (is(node, "unary_operator")) return plain_literal(field(node, "argument"));
  if (is(node, "binary_operator")) {
    return plain_literal(field(node, "left")) && plain_literal(field(node, "right"));
  }
  return false;
}

// Whether `name` is a parameter of `function` whose default is a plain
// literal other than None (`def __init__(self, eps=1e-3)`), or annotated as
// a number, a bool or a string (`h: int`), which holds no tensor.
bool literal_parameter(const Source& source, TSNode function, std::string_view name) {
  const TSNode parameters = field(function, "parameters");
  for (uint32_t i = 0, n = ts_node_named_child_count(parameters); i < n; ++i) {
    const TSNode p = ts_node_named_child(parameters, i);
    if (is(p, "typed_parameter") || is(p, "typed_default_parameter")) {
      const TSNode own = is(p, "typed_parameter") ? ts_node_named_child(p, 0) : field(p, "name");
      const std::string_view type = source.text(field(p, "type"));
      if (source.text(own) == name &&
          (type == "int" || type == "float" || type == "bool" || type == "str")) {
        return true;
      }
    }
    if ((is(p, "default_parameter") || is(p, "typed_default_parameter")) &&
        source.text(field(p, "name")) == name) {
      // (A None default may stand for a tensor the caller gives: a loss's weight.)
      return plain_literal(field(p, "value")) && !is(field(p, "value"), "none");
    }
  }
  return false;
}

namespace {

// Whether `value` makes a torch.nn layer without parameters or buffers (an
// activation, a pooling, a loss given no weight): `nn.LeakyReLU(0.05)`,
// `torch.nn.MSELoss(reduction=r)`.
bool parameter_free_layer(const Source& source, TSNode value) {
  if (!is(value, "call")) return false;
  const std::string q = source.qualify(field(value, "function"));
  if (!is_module_class(q)) return false;
  const std::string_view layer = std::string_view(q).substr(q.rfind('.') + 1);
  if (layer_has_parameters(layer) || !ts_node_is_null(source.keyword(value, "weight")) ||
      !ts_node_is_null(source.keyword(value, "pos_weight"))) {
    return false;
  }
  // A loss's first positional argument is its weight.
  const bool loss = layer.size() > 4 && layer.substr(layer.size() - 4) == "Loss";
  return !loss || source.positional(value).empty();
}

}  // namespace

bool foreign_base_anywhere(const Source& source, std::string_view class_name) {
  std::vector<std::string_view> pending{class_name};
  std::vector<std::string_view> seen;
  while (!pending.empty()) {
    const std::string_view name = pending.back();
    pending.pop_back();
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
    seen.push_back(name);
    const auto found = source.classes().find(std::string(name));
    if (found == source.classes().end()) continue;
    if (found->second.foreign_base) return true;
    const TSNode bases = field(source.scopes()[found->second.scope].node, "superclasses");
    for (uint32_t i = 0, n = ts_node_is_null(bases) ? 0 : ts_node_named_child_count(bases); i < n;
         ++i) {
      const TSNode base = ts_node_named_child(bases, i);
      if (is(base, "identifier")) pending.push_back(source.text(base));
    }
  }
  return false;
}

bool parameter_free_module(const Source& source, int class_scope) {
  if (class_scope < 0 || class_scope >= static_cast<int>(source.scopes().size())) return false;
  const TSNode node = source.scopes()[class_scope].node;
  if (ts_node_is_null(node)) return false;
  const TSNode bases = field(node, "superclasses");
  if (ts_node_is_null(bases) || ts_node_named_child_count(bases) != 1) return false;
  const std::string base = source.qualify(ts_node_named_child(bases, 0));
  if (base != "torch.nn.Module" && base != "torch.nn.modules.module.Module" &&
      base != "torch.nn.modules.loss._Loss") {
    return false;
  }
  for (const Scope& scope : source.scopes()) {
    if (scope.kind != ScopeKind::kFunction || scope.owner_class != class_scope) continue;
    for (const auto& [name, values] : scope.assigns) {
      if (name.rfind("self.", 0) != 0) continue;
      for (const TSNode value : values) {
        if (!plain_literal(value) && !parameter_free_layer(source, value) &&
            !(is(value, "identifier") &&
              literal_parameter(source, scope.node, source.text(value)))) {
          return false;
        }
      }
    }
  }
  for (const Call& call : source.calls()) {
    const int function = source.function_of(call.scope);
    if (function < 0 || source.scopes()[function].owner_class != class_scope) continue;
    if (call.method == "register_buffer" || call.method == "register_parameter" ||
        call.method == "add_module" || call.method == "register_module" ||
        source.text(field(call.node, "function")) == "setattr") {
      return false;
    }
  }
  return true;
}

Place init_moves_self(const Source& source, int class_scope) {
  Place place = Place::kHost;
  for (const Call& call : source.calls()) {
    if ((call.method != "to" && call.method != "cuda") || !is(call.object, "identifier") ||
        source.text(call.object) != "self" ||
        !is(ts_node_parent(call.node), "expression_statement")) {
      continue;
    }
    const int function = source.function_of(call.scope);
    if (function < 0 || source.scopes()[function].owner_class != class_scope ||
        source.scopes()[function].name != "__init__") {
      continue;
    }
    if (call.method == "to") {
      const std::vector<TSNode> args = source.positional(call.node);
      const TSNode to = args.empty() ? source.keyword(call.node, "device") : args[0];
      if (ts_node_is_null(to) || is_dtype(source, to)) continue;
      const auto s = string_value(source, to);
      if (is_cpu_string(s) || s == "meta") continue;
    }
    if (call.conditional) return Place::kUnknown;
    place = Place::kDevice;
  }
  return place;
}

void place_new_module(const Source& source, int class_scope, Value& v) {
  v.origin = parameter_free_module(source, class_scope) ? Origin::kNone : Origin::kUnmovedModule;
  const Place moved = init_moves_self(source, class_scope);
  if (moved != Place::kHost) {
    v.place = moved;
    v.origin = Origin::kNone;
  }
}

// torch.tensor(state) of a name: it may hold a number (a 0-dim tensor,
// which mixes with any device in an operator), but a module's layers take
// no host tensor of any size (`policy(torch.tensor(obs))`).
bool FlowRun::host_data(const Value& v) const {
  if (v.kind != Kind::kTensor || v.place != Place::kHost || !v.scalar ||
      v.origin != Origin::kFactory || !is(v.made, "call")) {
    return false;
  }
  const Call* made = source_.call_at(v.made);
  const std::vector<TSNode> args = source_.positional(v.made);
  return made != nullptr && made->qualified == "torch.tensor" && !args.empty() &&
         !is_literal_number(args[0]) && !is(args[0], "tuple");
}

}  // namespace devcheck::lint::detail
