// The device flow's scopes and statements (flow.h; expressions are in
// flow_eval.cc). Each scope's body runs once, in order: an `if` runs each
// branch from the same names and joins them after; a loop's body runs once
// (what a second turn would see, the first already met); a function runs
// when it is first called (for what it returns) or else after the module's
// code, with its parameters unknown (a forward's inputs on the module's
// device); a class's __init__ runs before its other methods, forward last.
#include <algorithm>
#include <cstring>

#include "common.h"
#include "flow_run.h"

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
};

Statement statement_kind(TSNode node) {
  const char* type = ts_node_type(node);
  static constexpr std::pair<const char*, Statement> kTypes[] = {
      {"expression_statement", Statement::kExpression},
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
  for (const auto& [name, kind] : kTypes) {
    if (std::strcmp(type, name) == 0) return kind;
  }
  return Statement::kOther;
}

// Calls `visit` on each named child, in order (a cursor: a child by index
// costs a walk over the ones before it).
template <typename Visit>
void for_each_named_child(TSNode node, Visit visit) {
  if (ts_node_child_count(node) == 0) return;
  TSTreeCursor cursor = ts_tree_cursor_new(node);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      const TSNode child = ts_tree_cursor_current_node(&cursor);
      if (ts_node_is_named(child)) visit(child);
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
}

bool same(const Value& a, const Value& b) {
  return a.kind == b.kind && a.place == b.place && a.origin == b.origin &&
         ts_node_eq(a.made, b.made);
}

}  // namespace

Value join(const Value& a, const Value& b) {
  if (a.kind == Kind::kNone) return b;
  if (b.kind == Kind::kNone) return a;
  if (same(a, b)) return a;
  // Known beats unknown: a value that is a host tensor on one way through
  // (`if h is None: h = torch.zeros(...)`) is one the code may meet.
  if (a.kind == Kind::kUnknown && a.place == Place::kUnknown) return b;
  if (b.kind == Kind::kUnknown && b.place == Place::kUnknown) return a;
  Value out = a;
  if (a.kind != b.kind) out.kind = Kind::kUnknown;
  if (a.place != b.place) out.place = Place::kUnknown;
  if (a.origin != b.origin || !ts_node_eq(a.made, b.made)) {
    out.origin = Origin::kNone;
    out.made = TSNode{};
  }
  out.scalar = a.scalar && b.scalar;
  out.pinned = a.pinned && b.pinned;
  out.pin_unknown = a.pin_unknown || b.pin_unknown;
  out.registered = a.registered && b.registered;
  out.sample = a.sample && b.sample;
  if (a.held_place != b.held_place || !ts_node_eq(a.held_made, b.held_made)) {
    out.held_place = Place::kUnknown;
    out.held_origin = Origin::kNone;
  }
  if (a.element != b.element) out.element = Kind::kUnknown;
  if (a.element_place != b.element_place) out.element_place = Place::kUnknown;
  return out;
}

void Env::merge(const Env& other) {
  for (auto& [name, value] : bindings_) {
    if (const Value* o = other.find(name)) value = join(value, *o);
  }
  for (const auto& [name, value] : other.bindings()) {
    if (find(name) == nullptr) bindings_.emplace_back(name, value);
  }
}

bool Flow::module_input(int scope, std::string_view name) const {
  return std::find(module_inputs_.begin(), module_inputs_.end(), std::make_pair(scope, name)) !=
         module_inputs_.end();
}

bool Flow::moved_anywhere(std::string_view name) const {
  return std::any_of(moved_.begin(), moved_.end(),
                     [&](const auto& move) { return move.second == name; });
}

Flow::Flow(const Source& source) { FlowRun(source, *this).run(); }

FlowRun::FlowRun(const Source& source, Flow& out)
    : source_(source), out_(out), summaries_(source.scopes().size()) {}

void FlowRun::prepass() {
  const auto& scopes = source_.scopes();
  for (int s = 1; s < static_cast<int>(scopes.size()); ++s) {
    if (scopes[s].kind == ScopeKind::kFunction && scopes[s].parent == 0) {
      functions_.emplace(scopes[s].name, s);
    }
  }
  // Modules moved in place somewhere: `model.to(device)` as a statement, or
  // `model = model.cuda()` of a name that is called (a module, not a
  // tensor). Their outputs are on the device wherever they are called.
  std::vector<std::string_view> called;
  for (const Call& call : source_.calls()) {
    const TSNode function = field(call.node, "function");
    if (is(function, "identifier") || is(function, "attribute"))
      called.push_back(source_.text(function));
  }
  for (const Call& call : source_.calls()) {
    if (call.qualified == "torch.set_default_device" ||
        call.qualified == "torch.set_default_tensor_type") {
      default_device_set_ = true;
    }
    if ((call.method != "to" && call.method != "cuda") || !call.qualified.empty()) continue;
    const TSNode object = call.object;
    if (!is(object, "identifier") &&
        !(is(object, "attribute") && source_.text(field(object, "object")) == "self")) {
      continue;
    }
    const TSNode parent = ts_node_parent(call.node);
    const bool statement = is(parent, "expression_statement");
    const bool rebound = is(parent, "assignment") &&
                         source_.text(field(parent, "left")) == source_.text(object) &&
                         ts_node_eq(field(parent, "right"), call.node);
    if (!statement && !rebound) continue;
    if (rebound && std::find(called.begin(), called.end(), source_.text(object)) == called.end()) {
      continue;
    }
    if (call.method == "to") {
      const std::vector<TSNode> args = source_.positional(call.node);
      const TSNode target = args.empty() ? source_.keyword(call.node, "device") : args[0];
      if (ts_node_is_null(target) || is_dtype(source_, target)) continue;
      const auto s = string_value(source_, target);
      if (s && (*s == "cpu" || *s == "meta")) continue;
    }
    out_.moved_.emplace_back(call.scope, source_.text(object));
  }
  mentions_pin_memory_ = source_.mentions("pin_memory");
}

void FlowRun::run() {
  prepass();
  Frame module;
  module.scope = 0;
  module_env_ = &module.env;
  summaries_[0].state = Summary::kRunning;
  exec_block(source_.root(), module);
  summaries_[0].state = Summary::kDone;
  globals_ = module.env;
  module_env_ = nullptr;
  const auto& scopes = source_.scopes();
  for (int s = 1; s < static_cast<int>(scopes.size()); ++s) {
    if (scopes[s].kind == ScopeKind::kClass) analyze_class(s);
  }
  for (int s = 1; s < static_cast<int>(scopes.size()); ++s) {
    if (scopes[s].kind == ScopeKind::kFunction) analyze(s);
  }
}

void FlowRun::analyze_class(int class_scope) {
  // __init__ first (it sets the attributes the others read), forward last
  // (helpers such as init_hidden set state it reads).
  const auto& scopes = source_.scopes();
  std::vector<int> methods;
  for (int s = class_scope + 1; s < static_cast<int>(scopes.size()); ++s) {
    if (scopes[s].owner_class == class_scope) methods.push_back(s);
  }
  std::stable_sort(methods.begin(), methods.end(), [&](int a, int b) {
    auto rank = [&](int s) {
      return scopes[s].name == "__init__" ? 0 : scopes[s].name == "forward" ? 2 : 1;
    };
    return rank(a) < rank(b);
  });
  for (int m : methods) analyze(m);
}

FlowRun::Summary& FlowRun::analyze(int scope) {
  Summary& summary = summaries_[scope];
  if (summary.state != Summary::kNotRun) return summary;
  summary.state = Summary::kRunning;
  const Scope& s = source_.scopes()[scope];
  Frame frame;
  frame.scope = scope;
  frame.owner_class = s.owner_class;
  if (s.owner_class >= 0) {
    const auto c = source_.classes().find(source_.scopes()[s.owner_class].name);
    frame.module_method = c != source_.classes().end() && c->second.is_module;
    frame.forward = frame.module_method && s.name == "forward";
    frame.init = frame.module_method && s.name == "__init__";
    const auto attributes = class_attributes_.find(s.owner_class);
    if (attributes != class_attributes_.end()) frame.env = attributes->second;
  }
  bind_parameters(s.node, frame);
  const std::size_t first_attribute = out_.attributes_.size();
  exec_block(field(s.node, "body"), frame);
  Value value;
  value.kind = Kind::kNone;
  for (const Value& v : frame.returns) value = join(value, v);
  if (value.kind == Kind::kNone) value = Value{};
  summary.value = value;
  if (!frame.tuple_returns.empty() && frame.returns.size() == frame.tuple_returns.size()) {
    const std::size_t n = frame.tuple_returns.front().size();
    bool alike = true;
    for (const auto& t : frame.tuple_returns) alike = alike && t.size() == n;
    if (alike) {
      summary.tuple = frame.tuple_returns.front();
      for (const auto& t : frame.tuple_returns) {
        for (std::size_t i = 0; i < n; ++i) summary.tuple[i] = join(summary.tuple[i], t[i]);
      }
    }
  }
  if (s.owner_class >= 0) {
    // What this method leaves in `self.x`: the class's attributes, for the
    // methods that run after (joined with what earlier ones left).
    Env& attributes = class_attributes_[s.owner_class];
    for (const auto& [name, value] : frame.env.bindings()) {
      if (name.rfind("self.", 0) != 0) continue;
      Value v = value;
      if (v.registered && frame.module_method) v.place = Place::kModuleDevice;
      const Value* known = attributes.find(name);
      attributes.set(name, known == nullptr || s.name == "__init__" ? v : join(*known, v));
    }
    // Lists filled after their assignment (`self.heads = []`, then
    // `self.heads.append(nn.Linear(...))`): the attribute as the method left it.
    for (std::size_t i = first_attribute; i < out_.attributes_.size(); ++i) {
      AttributeSet& set = out_.attributes_[i];
      if (set.method_scope != scope || set.v.kind != Kind::kList) continue;
      if (const Value* last = frame.env.find(set.name)) {
        if (last->kind == Kind::kList) set.v = *last;
      }
    }
  }
  summary.state = Summary::kDone;
  return summary;
}

void FlowRun::bind_parameters(TSNode function, Frame& frame) {
  const TSNode parameters = field(function, "parameters");
  bool first = true;
  for_each_named_child(parameters, [&](TSNode p) {
    TSNode name = p;
    TSNode type{};
    TSNode fallback{};
    if (!is(p, "identifier")) {
      type = field(p, "type");
      fallback = field(p, "value");
      const TSNode named = field(p, "name");
      name = ts_node_is_null(named) ? ts_node_named_child(p, 0) : named;
    }
    const bool method_self = first && frame.owner_class >= 0;
    first = false;
    if (!is(name, "identifier") || method_self) return;
    Value v;
    // `h=None`: nothing yet (a value the body gives it replaces it).
    if (is(fallback, "none")) v.kind = Kind::kNone;
    const std::string_view text = source_.text(name);
    // A forward's inputs are on its module's device; not those declared or
    // defaulted as something else (`step: int`, `scale=1.0`).
    const bool not_tensor =
        (!ts_node_is_null(type) && source_.text(type).find("Tensor") == std::string_view::npos) ||
        is(fallback, "integer") || is(fallback, "float") || is(fallback, "string") ||
        is(fallback, "true") || is(fallback, "false") || is(p, "list_splat_pattern") ||
        is(p, "dictionary_splat_pattern");
    if (frame.forward && !not_tensor && v.kind != Kind::kNone) v.place = Place::kModuleDevice;
    v.parameter = true;
    if (names_any(text, {"loader"})) {
      v.kind = Kind::kLoader;
      v.pin_unknown = true;
    }
    frame.env.set(text, v);
  });
}

void FlowRun::exec_block(TSNode block, Frame& frame) {
  if (ts_node_is_null(block)) return;
  for_each_named_child(block, [&](TSNode statement) { exec(statement, frame); });
}

void FlowRun::exec(TSNode statement, Frame& frame) {
  switch (statement_kind(statement)) {
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
        for_each_named_child(value, [&](TSNode part) { parts.push_back(eval(part, frame)); });
        Value whole;
        whole.kind = Kind::kList;
        frame.returns.push_back(whole);
        frame.tuple_returns.push_back(std::move(parts));
      } else {
        frame.returns.push_back(eval(value, frame));
      }
      break;
    }
    case Statement::kIf:
      exec_if(statement, frame);
      break;
    case Statement::kFor:
      exec_for(statement, frame);
      break;
    case Statement::kWhile: {
      eval(field(statement, "condition"), frame);
      const Env before = frame.env;
      exec_block(field(statement, "body"), frame);
      frame.env.merge(before);
      break;
    }
    case Statement::kWith: {
      bool device = false;
      for_each_named_child(statement, [&](TSNode clause) {
        if (!is(clause, "with_clause")) return;
        device = device || source_.text(clause).find("device(") != std::string_view::npos;
        for_each_named_child(clause, [&](TSNode item) {
          const TSNode value = field(item, "value");
          if (is(value, "as_pattern")) {
            const Value v = eval(ts_node_named_child(value, 0), frame);
            const TSNode alias = field(value, "alias");
            if (!ts_node_is_null(alias)) bind(ts_node_named_child(alias, 0), v, frame, value);
          } else if (!ts_node_is_null(value)) {
            eval(value, frame);
          }
        });
      });
      if (device) ++frame.default_device;
      exec_block(field(statement, "body"), frame);
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
    const TSNode function = field(expression, "function");
    if (is(function, "attribute")) {
      const TSNode object = field(function, "object");
      const std::string_view method = source_.text(field(function, "attribute"));
      if (method == "to" || method == "cuda" || method == "cpu") {
        eval_move(expression, object, method, frame, /*statement=*/true);
        return;
      }
      const bool named =
          is(object, "identifier") ||
          (is(object, "attribute") && source_.text(field(object, "object")) == "self");
      if ((method == "append" || method == "extend" || method == "insert") && named) {
        const std::vector<TSNode> args = source_.positional(expression);
        if (args.empty()) return;
        Value item = eval(args.back(), frame);
        if (method == "extend" && item.kind == Kind::kList) {
          item.kind = item.element;
          item.place = item.element_place;
        }
        const Value* list = frame.env.find(source_.text(object));
        if (list != nullptr && list->kind == Kind::kList) {
          Value updated = *list;
          Value element;
          element.kind = updated.element;
          element.place = updated.element_place;
          if (updated.element == Kind::kNone) element.kind = Kind::kNone;
          const Value joined = join(element, item);
          updated.element = joined.kind;
          updated.element_place = joined.place;
          frame.env.set(source_.text(object), updated);
        }
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
        v.place = frame.init ? Place::kUnknown : Place::kModuleDevice;
        v.origin = Origin::kNone;
        interned_.push_back("self." + *name);
        frame.env.set(interned_.back(), v);
        return;
      }
    }
  }
  eval(expression, frame);
}

void FlowRun::exec_assignment(TSNode node, Frame& frame) {
  TSNode right = field(node, "right");
  const TSNode left = field(node, "left");
  if (is(node, "augmented_assignment")) {
    const Value target = eval(left, frame);
    const Value value = eval(right, frame);
    meet(node, left, target, right, value, frame);
    return;
  }
  if (ts_node_is_null(right)) return;  // `x: int`
  // `a = b = value`: every target takes the innermost value.
  std::vector<TSNode> targets{left};
  while (is(right, "assignment")) {
    targets.push_back(field(right, "left"));
    right = field(right, "right");
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
    bind(target, v, frame, right);
  }
}

void FlowRun::bind(TSNode target, const Value& value, Frame& frame, TSNode value_node) {
  if (is(target, "identifier")) {
    frame.env.set(source_.text(target), value);
    return;
  }
  if (is(target, "attribute") && source_.text(field(target, "object")) == "self") {
    Value v = value;
    if (frame.module_method &&
        (v.kind == Kind::kModule || (v.kind == Kind::kTensor && v.registered))) {
      // A submodule or an nn.Parameter: registered, it moves with the module
      // (and so does a loss's weight); while __init__ runs, all is on the host.
      v.registered = true;
      v.place = frame.init ? Place::kUnknown : Place::kModuleDevice;
      v.held_place = Place::kUnknown;
    } else if (frame.module_method && host_tensor(v)) {
      v.origin = Origin::kAttribute;
      v.made = value_node;
    }
    const std::string_view name = source_.text(target);
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
      Value part;
      part.kind = value.element;
      part.place = value.element_place;
      std::fill(parts.begin(), parts.end(), part);
    }
    std::size_t i = 0;
    for_each_named_child(target, [&](TSNode part) {
      if (i < parts.size()) bind(part, parts[i], frame, value_node);
      ++i;
    });
  }
}

void FlowRun::exec_if(TSNode node, Frame& frame) {
  eval(field(node, "condition"), frame);
  const Env before = frame.env;
  exec_block(field(node, "consequence"), frame);
  Env after = frame.env;
  bool has_else = false;
  for_each_named_child(node, [&](TSNode part) {
    if (is(part, "elif_clause")) {
      frame.env = before;
      eval(field(part, "condition"), frame);
      exec_block(field(part, "consequence"), frame);
      after.merge(frame.env);
    } else if (is(part, "else_clause")) {
      has_else = true;
      frame.env = before;
      exec_block(field(part, "body"), frame);
      after.merge(frame.env);
    }
  });
  if (!has_else) after.merge(before);
  frame.env = std::move(after);
}

void FlowRun::exec_for(TSNode node, Frame& frame) {
  const TSNode left = field(node, "left");
  const TSNode right = field(node, "right");
  const Env before = frame.env;
  const bool pattern =
      is(left, "pattern_list") || is(left, "tuple_pattern") || is(left, "list_pattern");
  // enumerate(x) and zip(a, b) give tuples of what they iterate.
  const std::string q = is(right, "call") ? source_.dotted(field(right, "function")) : "";
  if (pattern && (q == "enumerate" || q == "zip")) {
    const std::vector<TSNode> args = source_.positional(right);
    std::vector<Value> parts;
    if (q == "enumerate") parts.push_back(Value{});
    for (TSNode arg : args) parts.push_back(element_of(eval(arg, frame), arg, frame));
    if (q == "enumerate" && !args.empty()) parts.resize(2);
    std::size_t i = 0;
    for_each_named_child(left, [&](TSNode part) {
      if (i < parts.size()) bind(part, parts[i], frame, node);
      ++i;
    });
    frame.loops.emplace_back(left, parts.size() > 1 ? parts.back() : Value{});
  } else {
    const Value element = element_of(eval(right, frame), right, frame);
    bind(left, element, frame, node);
    frame.loops.emplace_back(left, element);
  }
  exec_block(field(node, "body"), frame);
  frame.loops.pop_back();
  exec_block(field(node, "alternative"), frame);
  frame.env.merge(before);
}

}  // namespace devcheck::lint::detail
