// The device flow's statements (flow.h): each scope's body runs once, in
// order: an `if` runs each branch from the same names and joins them after;
// a loop's body runs once (what a second turn would see, the first already
// met: loops.cc); assignments bind names (and `self.x`, tuples, starred
// targets).
#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>

#include "../common.h"
#include "../grammar.h"
#include "../stack.h"
#include "run.h"

namespace devcheck::lint::detail {
namespace {

enum class Statement : uint8_t {
  kOther,
  kExpression,
  kReturn,
  kIf,
  kFor,
  kWhile,
  kWith,
  kTry,
  kDefinition,
  kBlock,
  kAssert,
};

Statement statement_kind(TSNode node) {
  static constexpr std::pair<const char*, Statement> kTypes[] = {
      {"expression_statement", Statement::kExpression},
      {"assert_statement", Statement::kAssert},
      {"return_statement", Statement::kReturn},
      {"if_statement", Statement::kIf},
      {"for_statement", Statement::kFor},
      {"while_statement", Statement::kWhile},
      {"with_statement", Statement::kWith},
      {"try_statement", Statement::kTry},
      {"function_definition", Statement::kDefinition},
      {"class_definition", Statement::kDefinition},
      {"decorated_definition", Statement::kDefinition},
      {"block", Statement::kBlock},
      {"module", Statement::kBlock},
      {"except_clause", Statement::kBlock},
      {"except_group_clause", Statement::kBlock},
      {"finally_clause", Statement::kBlock},
      {"else_clause", Statement::kBlock},
  };
  static const std::vector<Statement> table = symbol_table(kTypes, Statement::kOther);
  return symbol_of(table, node, Statement::kOther);
}

// Whether the assignment `node` (`batch[k] = ...`) sits in a loop over the
// keys of `container` that binds `key` (`for k in batch`, `for k, t in
// batch.items()`, `for k in batch.keys()`), in the same function.
bool moves_each_entry(const Source& source, TSNode node, TSNode container, TSNode key) {
  if (!is(key, "identifier")) return false;
  const std::string_view name = source.text(container);
  const std::string_view key_name = source.text(key);
  for (TSNode n = ts_node_parent(node); !ts_node_is_null(n); n = ts_node_parent(n)) {
    if (is(n, "function_definition") || is(n, "class_definition")) return false;
    if (!is(n, "for_statement")) continue;
    TSNode left = field(n, fields().left);
    if (is(left, "pattern_list") || is(left, "tuple_pattern")) left = ts_node_named_child(left, 0);
    if (!is(left, "identifier") || source.text(left) != key_name) continue;
    TSNode right = field(n, fields().right);
    if (is(right, "call")) {
      const TSNode function = field(right, fields().function);
      const std::string_view method =
          is(function, "attribute") ? source.text(field(function, fields().attribute)) : "";
      if (method != "items" && method != "keys") return false;
      right = field(function, fields().object);
    }
    return source.text(right) == name;
  }
  return false;
}

}  // namespace

void FlowRun::exec_block(TSNode block, Frame& frame) {
  if (ts_node_is_null(block)) return;
  for_each_named_child(block, [&](TSNode statement) { exec(statement, frame); });
}

void FlowRun::exec(TSNode statement, Frame& frame) {
  const Statement kind = statement_kind(statement);
  if (kind == Statement::kDefinition || kind == Statement::kOther) return;
  // Deeper than the stack allows (stack.h): not followed.
  if (stack_nearly_exhausted()) return;
  if (kind != Statement::kBlock && kind != Statement::kReturn && says_nothing(statement, frame)) {
    return;
  }
  switch (kind) {
    case Statement::kExpression:
      for_each_named_child(statement, [&](TSNode expression) {
        if (is(expression, "assignment") || is(expression, "augmented_assignment")) {
          exec_assignment(expression, frame);
        } else {
          exec_expression_statement(expression, frame);
        }
      });
      break;
    case Statement::kReturn: {
      const TSNode value = ts_node_named_child(statement, 0);
      if (ts_node_is_null(value)) {
        frame.returns.push_back(Value{});
        break;
      }
      if (is(value, "expression_list") || is(value, "tuple")) {
        std::vector<Value> parts;
        Value element;
        element.kind = Kind::kNone;
        for_each_named_child(value, [&](TSNode part) {
          parts.push_back(eval(part, frame));
          element = join(element, parts.back());
        });
        frame.returns.push_back(list_of(element));
        frame.tuple_returns.push_back(std::move(parts));
      } else {
        Value v = eval(value, frame);
        // A function defined here, returned (a loss a factory builds).
        if (is(value, "identifier") && v.kind == Kind::kUnknown && v.place == Place::kUnknown) {
          const int nested = nested_function(frame.scope, source_.text(value));
          if (nested >= 0) v.function = nested;
        }
        frame.returns.push_back(v);
      }
      break;
    }
    case Statement::kAssert:
      exec_assert(statement, frame);
      break;
    case Statement::kIf:
      exec_if(statement, frame);
      break;
    case Statement::kFor:
      exec_for(statement, frame);
      break;
    case Statement::kWhile: {
      eval(field(statement, fields().condition), frame);
      const Env before = frame.env;
      exec_block(field(statement, fields().body), frame);
      frame.env.merge(before);
      break;
    }
    case Statement::kWith: {
      bool device = false;
      for_each_named_child(statement, [&](TSNode clause) {
        if (!is(clause, "with_clause")) return;
        device = device || source_.text(clause).find("device(") != std::string_view::npos;
        for_each_named_child(clause, [&](TSNode item) {
          const TSNode value = field(item, fields().value);
          if (is(value, "as_pattern")) {
            const Value v = eval(ts_node_named_child(value, 0), frame);
            const TSNode alias = field(value, fields().alias);
            if (!ts_node_is_null(alias)) bind(ts_node_named_child(alias, 0), v, frame, value);
          } else if (!ts_node_is_null(value)) {
            eval(value, frame);
          }
        });
      });
      if (device) ++frame.default_device;
      exec_block(field(statement, fields().body), frame);
      if (device) --frame.default_device;
      break;
    }
    case Statement::kTry:
      for_each_named_child(statement, [&](TSNode part) {
        if (is(part, "block")) {
          exec_block(part, frame);
        } else {
          for_each_named_child(part, [&](TSNode inner) {
            if (is(inner, "block")) exec_block(inner, frame);
          });
        }
      });
      break;
    case Statement::kBlock:
      exec_block(statement, frame);
      break;
    case Statement::kDefinition:
    case Statement::kOther:
      break;
  }
}

void FlowRun::exec_expression_statement(TSNode expression, Frame& frame) {
  if (is(expression, "call")) {
    if (!dicts_.empty()) forget_changed_keys(expression, frame);
    const TSNode function = field(expression, fields().function);
    if (is(function, "attribute")) {
      const TSNode object = field(function, fields().object);
      const std::string_view method = source_.text(field(function, fields().attribute));
      if (method == "to" || method == "cuda" || method == "cpu") {
        eval_move(expression, object, method, frame, /*statement=*/true);
        return;
      }
      const bool named =
          is(object, "identifier") ||
          (is(object, "attribute") && source_.text(field(object, fields().object)) == "self");
      if ((method == "append" || method == "extend" || method == "insert") && named) {
        const std::vector<TSNode> args = source_.positional(expression);
        if (args.empty()) return;
        Value item = eval(args.back(), frame);
        if (method == "extend" && item.kind == Kind::kList) item = element_value(item);
        const Value* list = frame.env.find(source_.text(object));
        if (list != nullptr && list->kind == Kind::kList) {
          Value updated = join(*list, list_of(item));
          frame.env.set(source_.text(object), updated);
        } else if (list != nullptr && list->kind == Kind::kModule && item.kind == Kind::kModule) {
          // nn.ModuleList().append(Net()): its modules' class.
          Value updated = *list;
          updated.element = Kind::kModule;
          updated.element_cls = item.cls;
          frame.env.set(source_.text(object), updated);
        }
        return;
      }
      if (method == "update" && named && keywords_asked(expression, frame)) return;
      if (method == "save_hyperparameters" && source_.text(object) == "self" && frame.init &&
          frame.module_method &&
          ts_node_named_child_count(field(expression, fields().arguments)) == 0) {
        save_hyperparameters(frame);
        return;
      }
      if ((method == "register_buffer" || method == "register_parameter") &&
          source_.text(object) == "self") {
        const std::vector<TSNode> args = source_.positional(expression);
        if (args.size() < 2) return;
        Value v = eval(args[1], frame);
        const auto name = string_value(source_, args[0]);
        if (!name) return;
        // The name lives in the source text only as the string's contents:
        // keep "self.<name>" as a view of an interned copy.
        v.registered = true;
        v.kind = Kind::kTensor;
        // In __init__ nothing has moved the module yet, whatever its base
        // (only an nn.Module has register_buffer: one the file imports too).
        const bool building = frame.init || source_.scopes()[frame.scope].name == "__init__";
        v.place = building ? Place::kUnknown : Place::kModuleDevice;
        v.origin = Origin::kNone;
        interned_.push_back("self." + *name);
        if (building && !frame.init)
          registered_in_init_.emplace_back(frame.owner_class, interned_.back());
        frame.env.set(interned_.back(), v);
        return;
      }
    }
  }
  eval(expression, frame);
}

void FlowRun::exec_assignment(TSNode node, Frame& frame) {
  TSNode right = field(node, fields().right);
  const TSNode left = field(node, fields().left);
  if (is(left, "subscript") && is(right, "string") && keywords_asked(node, frame)) return;
  if (is(node, "augmented_assignment")) {
    const Value target = eval(left, frame);
    const Value value = eval(right, frame);
    meet(node, left, target, right, value, frame);
    // `total = 0`, then `total += loss`: a number plus a tensor is a tensor
    // where that one is.
    if (is(left, "identifier") && target.kind == Kind::kUnknown &&
        target.place == Place::kUnknown && value.kind == Kind::kTensor &&
        value.place != Place::kUnknown) {
      bind(left, value, frame, right);
    }
    return;
  }
  if (ts_node_is_null(right)) return;  // `x: int`
  // `a = b = value`: every target takes the innermost value.
  std::vector<TSNode> targets{left};
  while (is(right, "assignment")) {
    targets.push_back(field(right, fields().left));
    right = field(right, fields().right);
  }
  for (TSNode target : targets) {
    if (is(target, "pattern_list") || is(target, "tuple_pattern") || is(target, "list_pattern")) {
      const std::size_t n = ts_node_named_child_count(target);
      const std::vector<Value> values = eval_elements(right, n, frame);
      std::size_t i = 0;
      for_each_named_child(target, [&](TSNode part) {
        if (i < values.size()) bind(part, values[i], frame, right);
        ++i;
      });
      continue;
    }
    const Value v = eval(right, frame);
    if (is(target, "identifier") && is(right, "identifier") && v.kind == Kind::kModule) {
      frame.aliases.emplace_back(source_.text(target), source_.text(right));
    }
    if (is(target, "subscript")) index_put(node, target, right, v, frame);
    // A device tensor written into a NumPy array (`losses[i] = loss.data`)
    // is converted as .numpy() would be.
    if (is(target, "subscript") && v.place == Place::kDevice &&
        (v.kind == Kind::kTensor || v.kind == Kind::kUnknown) &&
        eval(field(target, fields().value), frame).kind == Kind::kArray) {
      out_.numpy_reads_.push_back({node, v});
    }
    // `outs[key] = model(x)` into a dict (or list) the flow follows (a
    // name, or `self.x`): it holds that too, as after `outs.append(...)`.
    const TSNode container = is(target, "subscript") ? field(target, fields().value) : TSNode{};
    if (is(container, "identifier") ||
        (is(container, "attribute") && source_.text(field(container, fields().object)) == "self")) {
      const std::string_view name = source_.text(container);
      const Value* held = frame.env.find(name);
      if (held != nullptr && held->kind == Kind::kList) {
        Value updated = join(*held, list_of(v));
        updated.keys = dict_stored(*held, field(target, fields().subscript), v);
        frame.env.set(name, updated);
        continue;
      }
      // `for k, t in batch.items(): batch[k] = t.to(device)`: each entry of
      // the batch is moved in turn, the whole batch with them.
      if (held != nullptr && held->place == Place::kHost &&
          (v.place == Place::kDevice || v.place == Place::kModuleDevice) &&
          moves_each_entry(source_, node, container, field(target, fields().subscript))) {
        Value moved = *held;
        moved.place = v.place;
        moved.origin = Origin::kNone;
        moved.made = TSNode{};
        frame.env.set(name, moved);
        continue;
      }
    }
    bind(target, v, frame, right);
  }
}

void FlowRun::bind(TSNode target, const Value& value, Frame& frame, TSNode value_node) {
  if (is(target, "identifier")) {
    frame.env.set(source_.text(target), value);
    return;
  }
  // `x.data = x.data.cuda()`: x itself now lives where the new data does.
  if (is(target, "attribute") && source_.text(field(target, fields().attribute)) == "data" &&
      is(field(target, fields().object), "identifier")) {
    const std::string_view name = source_.text(field(target, fields().object));
    const Value* was = frame.env.find(name);
    if (was != nullptr && was->kind == Kind::kTensor && value.place != was->place) {
      Value v = *was;
      v.place = value.kind == Kind::kTensor ? value.place : Place::kUnknown;
      v.origin = v.place == Place::kHost ? value.origin : Origin::kNone;
      v.made = v.place == Place::kHost ? value.made : TSNode{};
      frame.env.set(name, v);
    }
    return;
  }
  if (is(target, "attribute") && source_.text(field(target, fields().object)) == "self") {
    Value v = value;
    const std::string_view name = source_.text(target);
    // A tensor set on the name of a registered buffer replaces the buffer
    // (nn.Module's __setattr__ keeps it in _buffers): registered too.
    const Value* before = frame.env.find(name);
    const bool buffer = v.kind == Kind::kTensor && before != nullptr &&
                        before->kind == Kind::kTensor && before->registered;
    if (frame.module_method &&
        (v.kind == Kind::kModule || (v.kind == Kind::kTensor && (v.registered || buffer)))) {
      // A submodule or an nn.Parameter: registered, it moves with the module
      // (and so does a loss's weight); while __init__ runs, all is on the host.
      v.registered = true;
      v.place = frame.init ? Place::kUnknown : Place::kModuleDevice;
      v.held_place = Place::kUnknown;
    } else if (frame.module_method && host_tensor(v)) {
      v.origin = Origin::kAttribute;
      v.made = value_node;
    } else if (frame.owner_class >= 0 &&
               ((module_left_on_host(v) && v.origin == Origin::kUnmovedModule) ||
                (v.kind == Kind::kTensor && v.registered)) &&
               foreign_base_anywhere(source_, source_.scopes()[frame.owner_class].name)) {
      // A class with a base from elsewhere may be a module: a layer or an
      // nn.Parameter it set may move with it.
      v.place = Place::kUnknown;
      v.origin = Origin::kNone;
    }
    if (frame.owner_class >= 0) {
      out_.attributes_.push_back({value_node, name, v, frame.owner_class, frame.scope});
    }
    frame.env.set(name, v);
    return;
  }
  if (is(target, "pattern_list") || is(target, "tuple_pattern") || is(target, "list_pattern") ||
      is(target, "parenthesized_expression")) {
    const std::size_t n = ts_node_named_child_count(target);
    std::vector<Value> parts(n, Value{});
    if (value.kind == Kind::kTensor ||
        ((value.origin == Origin::kBatch || value.origin == Origin::kDatasetItem) &&
         value.kind == Kind::kUnknown)) {
      Value part = value;
      part.kind = Kind::kTensor;
      std::fill(parts.begin(), parts.end(), part);
    } else if (value.kind == Kind::kList) {
      std::fill(parts.begin(), parts.end(), element_value(value));
    } else if (value.kind == Kind::kUnknown &&
               (value.place == Place::kDevice || value.place == Place::kModuleDevice)) {
      // The parts of something on a device (a row of a model's output).
      Value part;
      part.place = value.place;
      std::fill(parts.begin(), parts.end(), part);
    }
    std::size_t i = 0;
    for_each_named_child(target, [&](TSNode part) {
      if (i < parts.size()) bind(part, parts[i], frame, value_node);
      ++i;
    });
    return;
  }
  // `*rest` of a pattern: a list of what the other parts are.
  if (is(target, "list_splat_pattern") && ts_node_named_child_count(target) == 1) {
    bind(ts_node_named_child(target, 0),
         value.kind == Kind::kUnknown && value.place == Place::kUnknown ? value : list_of(value),
         frame, value_node);
  }
}

namespace {

bool inside(TSNode node, TSNode outer) {
  return ts_node_start_byte(node) >= ts_node_start_byte(outer) &&
         ts_node_end_byte(node) <= ts_node_end_byte(outer);
}

// `if flag:` (`node`) in a loop, where `flag` is assigned twice in the
// scope: a literal before the loop and its opposite in one branch of this
// `if`. The branch the flag's later value picks runs only on a later turn,
// after the one that set it: the `if`'s block where `first = True` before
// the loop and `first = False` there picks the else (Tacotron2's `if
// first_iter: mel_outputs = ...` / `else: torch.cat((mel_outputs, ...))`);
// an elif or else clause where `start = False` before and `start = True`
// there picks the `if`'s block (MONAI's DiNTS: `if start: _temp =
// f(out + _temp)` / `elif ...: start = True; _temp = f(out)`). Returns the
// branch that sets it (the block or the clause), else a null node.
TSNode first_turn_setter(const Source& source, TSNode node, TSNode condition, TSNode consequence,
                         int scope) {
  if (!is(condition, "identifier")) return TSNode{};
  const auto found = source.scopes()[scope].assigns.find(std::string(source.text(condition)));
  if (found == source.scopes()[scope].assigns.end() || found->second.size() != 2) return TSNode{};
  const TSNode first = found->second[0];
  const TSNode then = found->second[1];
  const bool literals =
      (is(first, "true") && is(then, "false")) || (is(first, "false") && is(then, "true"));
  if (!literals) return TSNode{};
  TSNode loop = ts_node_parent(node);
  while (!ts_node_is_null(loop) && !is(loop, "for_statement") && !is(loop, "while_statement")) {
    if (is(loop, "function_definition") || is(loop, "class_definition")) return TSNode{};
    loop = ts_node_parent(loop);
  }
  if (ts_node_is_null(loop) || ts_node_end_byte(first) > ts_node_start_byte(loop)) return TSNode{};
  if (is(first, "true")) {
    // Only an else follows: an elif would be tried first.
    bool elif = false;
    for_each_named_child(node, [&](TSNode part) { elif = elif || is(part, "elif_clause"); });
    return !elif && inside(then, consequence) ? consequence : TSNode{};
  }
  TSNode setter{};
  for_each_named_child(node, [&](TSNode part) {
    if ((is(part, "elif_clause") || is(part, "else_clause")) && inside(then, part)) setter = part;
  });
  return setter;
}

}  // namespace

void FlowRun::exec_if(TSNode node, Frame& frame) {
  const TSNode condition = field(node, fields().condition);
  eval(condition, frame);
  const Env before = frame.env;
  const TSNode consequence = field(node, fields().consequence);
  const TSNode setter = first_turn_setter(source_, node, condition, consequence, frame.scope);
  auto run_clause = [&](TSNode part) {
    if (is(part, "elif_clause")) {
      eval(field(part, fields().condition), frame);
      exec_block(field(part, fields().consequence), frame);
    } else {
      exec_block(field(part, fields().body), frame);
    }
  };
  // A clause that sets the flag the `if`'s block tests runs first: the
  // block runs from what it left.
  const bool clause_first = !ts_node_is_null(setter) && !ts_node_eq(setter, consequence);
  std::optional<Env> flagged;
  if (clause_first) {
    run_clause(setter);
    flagged = frame.env;
  }
  exec_block(consequence, frame);
  Env after = frame.env;
  if (flagged) after.merge(*flagged);
  bool has_else = false;
  bool elif = false;
  for_each_named_child(node, [&](TSNode part) {
    if (is(part, "elif_clause")) {
      elif = true;
      if (clause_first && ts_node_eq(part, setter)) return;
      frame.env = before;
      run_clause(part);
      after.merge(frame.env);
    } else if (is(part, "else_clause")) {
      has_else = true;
      if (clause_first && ts_node_eq(part, setter)) return;
      // The else a first turn's flag picks runs after the `if`'s block did.
      frame.env = ts_node_eq(setter, consequence) ? after : before;
      run_clause(part);
      after.merge(frame.env);
    }
  });
  if (!has_else) {
    // `if args.cuda: model.cuda()`: where the one way moves a host value to a
    // device and the other leaves it, what follows runs with it on the device
    // whenever the move ran, so a host value it meets there is a mismatch
    // then. (Not the other way round: `if x.is_cuda: x = x.cpu()` leaves the
    // value where it was.)
    const Env moved = after;
    after.merge(before);
    if (!elif) {
      for (const auto& [name, value] : moved.bindings()) {
        const Value* was = before.find(name);
        if (value.place == Place::kDevice && was != nullptr && was->place == Place::kHost &&
            (was->kind == value.kind || was->kind == Kind::kUnknown)) {
          after.set(name, value);
        }
      }
    }
  }
  frame.env = std::move(after);
}

// Lightning's `self.save_hyperparameters()` in a module's __init__ keeps
// each argument of __init__, as the name holds it now, in
// `self.hparams.<name>`: a host tensor there is a plain attribute that
// model.to(device) does not move (gnn-tracking/gnn_tracking#449).
void FlowRun::save_hyperparameters(Frame& frame) {
  const TSNode parameters = field(source_.scopes()[frame.scope].node, fields().parameters);
  for_each_named_child(parameters, [&](TSNode p) {
    if (!is(p, "identifier")) {
      p = is(field(p, fields().name), "identifier") ? field(p, fields().name)
                                                    : ts_node_named_child(p, 0);
    }
    if (!is(p, "identifier")) return;
    const Value* v = frame.env.find(source_.text(p));
    if (v == nullptr || !host_tensor(*v) || ts_node_is_null(v->made)) return;
    Value kept = *v;
    kept.origin = Origin::kAttribute;
    out_.names_.push_back("self.hparams." + std::string(source_.text(p)));
    out_.attributes_.push_back({v->made, out_.names_.back(), kept, frame.owner_class, frame.scope});
    frame.env.set(out_.names_.back(), kept);
  });
}

}  // namespace devcheck::lint::detail
