// DC122 optimizer-state-before-move: `optimizer.load_state_dict(...)` before
// the model is moved to its device in the same function. Loading casts the
// optimizer's state (Adam's exp_avg, a momentum buffer) to where the
// parameters are at that moment, the CPU; moving the model afterwards moves
// the parameters, not the state, and the first step() mixes the two.
#include <algorithm>

#include "../common.h"
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

// Whether `name` holds an optimizer: made by torch.optim.<X>(...) in the
// function or its class, or named as one (`optimizer`, `optim`, `optm`,
// `opt`).
bool is_optimizer(const Source& source, TSNode object, int scope) {
  const TSNode value = value_of_object(source, object, scope);
  if (is(value, "call")) {
    const std::string q = source.qualify(field(value, fields().function));
    if (q.rfind("torch.optim.", 0) == 0) return q.find("lr_scheduler") == std::string::npos;
  }
  std::string_view name = source.text(object);
  if (name.rfind("self.", 0) == 0) name.remove_prefix(5);
  return name == "opt" || name == "optm" || name == "optim" ||
         name.find("optimizer") != std::string_view::npos || name.rfind("optim_", 0) == 0 ||
         name.rfind("opt_", 0) == 0;
}

// The model whose parameters the optimizer was made with
// (`torch.optim.Adam(model.parameters())`: `model`), or empty.
std::string_view optimized_model(const Source& source, TSNode optimizer, int scope) {
  const TSNode made = value_of_object(source, optimizer, scope);
  if (!is(made, "call")) return {};
  const std::vector<TSNode> args = source.positional(made);
  if (args.empty() || !is(args[0], "call")) return {};
  const TSNode function = field(args[0], fields().function);
  if (!is(function, "attribute")) return {};
  const std::string_view method = source.text(field(function, fields().attribute));
  if (method != "parameters" && method != "named_parameters") return {};
  return source.text(field(function, fields().object));
}

// A call's arguments: the positional ones, then the keywords' values.
std::vector<TSNode> arguments(const Source& source, TSNode call) {
  std::vector<TSNode> out = source.positional(call);
  const TSNode list = field(call, fields().arguments);
  for (uint32_t i = 0, n = ts_node_named_child_count(list); i < n; ++i) {
    const TSNode arg = ts_node_named_child(list, i);
    if (is(arg, "keyword_argument")) out.push_back(field(arg, fields().value));
  }
  return out;
}

// The top-level function of the file a call calls (`train(model, ...)`), or -1.
int called_function(const Source& source, TSNode call) {
  const TSNode function = field(call, fields().function);
  if (!is(function, "identifier")) return -1;
  const std::string_view name = source.text(function);
  const auto& scopes = source.scopes();
  for (int s = 1; s < static_cast<int>(scopes.size()); ++s) {
    if (scopes[s].kind == ScopeKind::kFunction && scopes[s].parent == 0 && scopes[s].name == name) {
      return s;
    }
  }
  return -1;
}

// The name of the parameter of `function` that `argument` of `call` binds (empty: none).
std::string_view bound_parameter(const Source& source, int function, TSNode call, TSNode argument) {
  std::vector<std::string_view> names;
  const TSNode parameters = field(source.scopes()[function].node, fields().parameters);
  for (uint32_t i = 0, n = ts_node_named_child_count(parameters); i < n; ++i) {
    const TSNode p = ts_node_named_child(parameters, i);
    TSNode name = p;
    if (!is(p, "identifier")) {
      const TSNode named = field(p, fields().name);
      name = ts_node_is_null(named) ? ts_node_named_child(p, 0) : named;
    }
    names.push_back(is(name, "identifier") ? source.text(name) : std::string_view{});
  }
  const TSNode parent = ts_node_parent(argument);
  if (is(parent, "keyword_argument")) return source.text(field(parent, fields().name));
  const std::vector<TSNode> positional = source.positional(call);
  for (std::size_t i = 0; i < positional.size() && i < names.size(); ++i) {
    if (ts_node_eq(positional[i], argument)) return names[i];
  }
  return {};
}

// The move of its parameter `name` that `function` makes, itself or in a
// function of the file it hands the parameter to (`do_train(model)` ->
// `create_trainer(model)` -> `model.to(device)`); a null node if none.
TSNode moved_in_callee(const Source& source, int function, std::string_view name, int depth) {
  for (const WholeMove& move : whole_moves(source, function)) {
    if (move.name == name) return move.call;
  }
  if (depth == 0) return TSNode{};
  for (const Call& call : source.calls()) {
    if (call.scope != function) continue;
    const int callee = called_function(source, call.node);
    if (callee < 0 || callee == function) continue;
    for (const TSNode arg : arguments(source, call.node)) {
      if (source.text(arg) != name) continue;
      const std::string_view bound = bound_parameter(source, callee, call.node, arg);
      if (bound.empty()) continue;
      const TSNode move = moved_in_callee(source, callee, bound, depth - 1);
      if (!ts_node_is_null(move)) return move;
    }
  }
  return TSNode{};
}

void check(const RuleContext& c) {
  for (const Call& load : c.source.calls()) {
    if (load.method != "load_state_dict" || ts_node_is_null(load.object) ||
        !is_optimizer(c.source, load.object, load.scope)) {
      continue;
    }
    const uint32_t at = ts_node_start_byte(load.node);
    for (const WholeMove& move : whole_moves(c.source, load.scope)) {
      if (ts_node_start_byte(move.call) < at || move.name == c.source.text(load.object)) continue;
      const std::string optimizer(c.source.text(load.object));
      const std::string model(move.name);
      std::string message = optimizer;
      message += ".load_state_dict(...) runs before ";
      message += model;
      message += " is moved to its device (";
      message += line_of(move.call);
      message +=
          "): the loaded state is put where the parameters are now (the CPU) and stays there "
          "when they move; move ";
      message += model;
      message += " first, then load ";
      message += optimizer;
      message += "'s state";
      c.sink.report(load.node, "DC122", message);
      break;
    }
  }
  // The model handed, after the load, to a function of the file that moves
  // it (a trainer): the state stays where the load put it.
  for (const Call& load : c.source.calls()) {
    if (load.method != "load_state_dict" || ts_node_is_null(load.object) ||
        !is_optimizer(c.source, load.object, load.scope)) {
      continue;
    }
    const uint32_t at = ts_node_start_byte(load.node);
    const std::string_view optimized = optimized_model(c.source, load.object, load.scope);
    if (optimized.empty()) continue;
    const std::vector<WholeMove> here = whole_moves(c.source, load.scope);
    if (std::any_of(here.begin(), here.end(),
                    [&](const WholeMove& m) { return ts_node_start_byte(m.call) > at; })) {
      continue;  // found above
    }
    TSNode found{};
    std::string model;
    for (const Call& call : c.source.calls()) {
      if (call.scope != load.scope || ts_node_start_byte(call.node) < at ||
          !ts_node_is_null(found)) {
        continue;
      }
      const int callee = called_function(c.source, call.node);
      if (callee < 0) continue;
      for (const TSNode arg : arguments(c.source, call.node)) {
        if (c.source.text(arg) != optimized) continue;
        // Moved before the load: the state went where the parameters are.
        if (std::any_of(here.begin(), here.end(), [&](const WholeMove& m) {
              return m.name == c.source.text(arg) && ts_node_start_byte(m.call) < at;
            })) {
          continue;
        }
        const std::string_view bound = bound_parameter(c.source, callee, call.node, arg);
        if (bound.empty() || ts_node_is_null(moved_in_callee(c.source, callee, bound, 2))) continue;
        found = call.node;
        model = std::string(c.source.text(arg));
        break;
      }
    }
    if (ts_node_is_null(found)) continue;
    const std::string optimizer(c.source.text(load.object));
    std::string message = optimizer;
    message += ".load_state_dict(...) runs before ";
    message += model;
    message += " is moved to its device (by the call on ";
    message += line_of(found);
    message +=
        "): the loaded state is put where the parameters are now (the CPU) and stays there when "
        "they move; move ";
    message += model;
    message += " first, then load ";
    message += optimizer;
    message += "'s state";
    c.sink.report(load.node, "DC122", std::move(message));
  }
}

}  // namespace

extern const Rule kRuleDC122;
const Rule kRuleDC122 = {
    {"DC122", "optimizer-state-before-move",
     "optimizer.load_state_dict(...) before the model is moved to its device.", false},
    "import torch\n"
    "def resume(model, path, device):\n"
    "    optimizer = torch.optim.Adam(model.parameters())\n"
    "    optimizer.load_state_dict(torch.load(path, map_location='cpu')['optimizer'])\n"
    "    model.to(device)\n",
    "import torch\n"
    "def resume(model, path, device):\n"
    "    model.to(device)\n"
    "    optimizer = torch.optim.Adam(model.parameters())\n"
    "    optimizer.load_state_dict(torch.load(path, map_location='cpu')['optimizer'])\n",
    check};

}  // namespace devcheck::lint::detail
