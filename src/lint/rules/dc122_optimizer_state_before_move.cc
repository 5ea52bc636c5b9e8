// DC122 optimizer-state-before-move: `optimizer.load_state_dict(...)` before
// the model is moved to its device in the same function. Loading casts the
// optimizer's state (Adam's exp_avg, a momentum buffer) to where the
// parameters are at that moment, the CPU; moving the model afterwards moves
// the parameters, not the state, and the first step() mixes the two.
// Also an optimizer that makes its state when it is constructed
// (torch.optim.Adagrad's sums; an Optimizer subclass of the file whose
// `__init__` copies the parameters, as Lookahead's slow weights do) made
// before its model is moved: the same state left on the CPU.
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

// The models a launcher moves to its device in `scope`: `fabric.setup(model,
// optimizer)` of a Lightning Fabric, `accelerator.prepare(model, ...)` of an
// Accelerate Accelerator (the object made by one in the same scope or its
// class); each model given, with the call.
std::vector<WholeMove> launcher_moves(const Source& source, int scope) {
  std::vector<WholeMove> out;
  for (const Call& call : source.calls()) {
    if (call.scope != scope || ts_node_is_null(call.object) ||
        (call.method != "setup" && call.method != "setup_module" && call.method != "prepare")) {
      continue;
    }
    const TSNode made = value_of_object(source, call.object, scope);
    if (!is(made, "call")) continue;
    const std::string q = source.qualify(field(made, fields().function));
    if (q != "lightning.Fabric" && q != "lightning.fabric.Fabric" &&
        q != "lightning_fabric.Fabric" && q != "accelerate.Accelerator") {
      continue;
    }
    for (const TSNode arg : source.positional(call.node)) {
      if (is(arg, "identifier")) out.push_back({call.node, source.text(arg)});
    }
  }
  return out;
}

// Whether the class `name` of the file is an Optimizer subclass whose
// `__init__` copies the parameters (`p.clone()`, `torch.zeros_like(p)`).
bool copies_parameters_when_made(const Source& source, std::string_view name) {
  const auto found = source.classes().find(std::string(name));
  if (found == source.classes().end()) return false;
  const TSNode supers = field(source.scopes()[found->second.scope].node, "superclasses");
  bool optimizer = false;
  for (uint32_t i = 0, n = ts_node_is_null(supers) ? 0 : ts_node_named_child_count(supers); i < n;
       ++i) {
    const std::string base = source.qualify(ts_node_named_child(supers, i));
    optimizer |= base == "torch.optim.Optimizer" || base == "torch.optim.optimizer.Optimizer";
  }
  if (!optimizer) return false;
  for (const Call& call : source.calls()) {
    const Scope& scope = source.scopes()[call.scope];
    if (scope.owner_class != found->second.scope || scope.name != "__init__") continue;
    if (call.method == "clone" || call.qualified == "torch.zeros_like" ||
        call.qualified == "torch.full_like" || call.qualified == "torch.empty_like") {
      return true;
    }
  }
  return false;
}

// Whether `call` constructs an optimizer that makes its state right away.
bool makes_state_when_made(const Source& source, const Call& call) {
  if (call.qualified == "torch.optim.Adagrad") return true;
  const TSNode function = field(call.node, fields().function);
  return is(function, "identifier") && copies_parameters_when_made(source, source.text(function));
}

// The model whose `.parameters()` the call's first argument (or `params=`) reads, or empty.
std::string_view parameters_of(const Source& source, TSNode call) {
  const std::vector<TSNode> args = source.positional(call);
  const TSNode first = args.empty() ? source.keyword(call, "params") : args[0];
  if (!is(first, "call")) return {};
  const TSNode function = field(first, fields().function);
  if (!is(function, "attribute")) return {};
  const std::string_view method = source.text(field(function, fields().attribute));
  if (method != "parameters" && method != "named_parameters") return {};
  return source.text(field(function, fields().object));
}

// An optimizer made with its state, and the model it was made for.
struct EagerOptimizer {
  TSNode call{};
  std::string_view model;
  std::string_view name;  // what it is assigned to (empty: nothing)
};

// Those made in `scope`: a construction (`torch.optim.Adagrad(model.parameters())`)
// or a call of a method of a class of the file that returns one made from
// `self.parameters()` (`model.configure_optimizers()`: made for `model`).
std::vector<EagerOptimizer> eager_optimizers(const Source& source) {
  std::vector<EagerOptimizer> out;
  std::vector<std::string_view> returning;  // methods returning one of self's
  for (const Call& call : source.calls()) {
    if (!makes_state_when_made(source, call) || parameters_of(source, call.node) != "self")
      continue;
    const Scope& scope = source.scopes()[call.scope];
    if (scope.owner_class >= 0 && is(ts_node_parent(call.node), "return_statement")) {
      returning.push_back(scope.name);
    }
  }
  for (const Call& call : source.calls()) {
    EagerOptimizer made{call.node, {}, {}};
    if (makes_state_when_made(source, call)) {
      made.model = parameters_of(source, call.node);
      if (made.model == "self") continue;
    } else if (!ts_node_is_null(call.object) &&
               std::find(returning.begin(), returning.end(), call.method) != returning.end() &&
               source.positional(call.node).empty()) {
      made.model = source.text(call.object);
    }
    if (made.model.empty()) continue;
    const TSNode parent = ts_node_parent(call.node);
    if (is(parent, "assignment") && ts_node_eq(field(parent, fields().right), call.node)) {
      made.name = source.text(field(parent, fields().left));
    }
    out.push_back(made);
  }
  return out;
}

// Reports an optimizer that makes its state when made, made before its model
// is moved in the same function (itself, or by a function of the file it is
// handed to), unless its state is loaded again after the move (which puts it
// where the parameters are then).
void check_made_before_move(const RuleContext& c) {
  for (const EagerOptimizer& made : eager_optimizers(c.source)) {
    const Call* call = c.source.call_at(made.call);
    if (call == nullptr) continue;
    const int scope = call->scope;
    const uint32_t at = ts_node_start_byte(made.call);
    const std::vector<WholeMove> moves = whole_moves(c.source, scope);
    if (std::any_of(moves.begin(), moves.end(), [&](const WholeMove& m) {
          return m.name == made.model && ts_node_start_byte(m.call) < at;
        })) {
      continue;  // on its device already
    }
    TSNode move{};
    for (const WholeMove& m : moves) {
      if (m.name == made.model && ts_node_start_byte(m.call) > at) {
        move = m.call;
        break;
      }
    }
    for (const Call& other : c.source.calls()) {
      if (!ts_node_is_null(move)) break;
      if (other.scope != scope || ts_node_start_byte(other.node) < at) continue;
      const int callee = called_function(c.source, other.node);
      if (callee < 0) continue;
      for (const TSNode arg : arguments(c.source, other.node)) {
        if (c.source.text(arg) != made.model) continue;
        const std::string_view bound = bound_parameter(c.source, callee, other.node, arg);
        if (!bound.empty() && !ts_node_is_null(moved_in_callee(c.source, callee, bound, 2))) {
          move = other.node;
          break;
        }
      }
    }
    if (ts_node_is_null(move)) continue;
    const uint32_t moved_at = ts_node_start_byte(move);
    const bool reloaded =
        std::any_of(c.source.calls().begin(), c.source.calls().end(), [&](const Call& l) {
          return l.scope == scope && l.method == "load_state_dict" && !ts_node_is_null(l.object) &&
                 !made.name.empty() && c.source.text(l.object) == made.name &&
                 ts_node_start_byte(l.node) > moved_at;
        });
    if (reloaded) continue;
    std::string message(c.source.text(field(made.call, fields().function)));
    message += "(...) makes the optimizer's state now, where ";
    message += made.model;
    message += "'s parameters are (the CPU), and ";
    message += made.model;
    message += " is moved to its device after it (";
    message += line_of(move);
    message += "): the state stays on the CPU and the first step() mixes the two; move ";
    message += made.model;
    message += " first, then make the optimizer";
    c.sink.report(made.call, "DC122", std::move(message));
  }
}

void check(const RuleContext& c) {
  for (const Call& load : c.source.calls()) {
    if (load.method != "load_state_dict" || ts_node_is_null(load.object) ||
        !is_optimizer(c.source, load.object, load.scope)) {
      continue;
    }
    const uint32_t at = ts_node_start_byte(load.node);
    std::vector<WholeMove> moves = whole_moves(c.source, load.scope);
    const std::vector<WholeMove> launched = launcher_moves(c.source, load.scope);
    const std::string_view optimized = optimized_model(c.source, load.object, load.scope);
    for (const WholeMove& m : launched) {
      if (m.name == optimized) moves.push_back(m);
    }
    std::sort(moves.begin(), moves.end(), [](const WholeMove& a, const WholeMove& b) {
      return ts_node_start_byte(a.call) < ts_node_start_byte(b.call);
    });
    for (const WholeMove& move : moves) {
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
  check_made_before_move(c);
}

}  // namespace

extern const Rule kRuleDC122;
const Rule kRuleDC122 = {
    {"DC122", "optimizer-state-before-move",
     "optimizer.load_state_dict(...), or an optimizer that makes its state when made (Adagrad), "
     "before the model is moved to its device.",
     false},
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
