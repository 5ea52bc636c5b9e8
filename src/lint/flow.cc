// The device flow's scopes and statements (flow.h; expressions are in
// flow_eval.cc). Each scope's body runs once, in order: an `if` runs each
// branch from the same names and joins them after; a loop's body runs once
// (what a second turn would see, the first already met); a function runs
// when it is first called (for what it returns) or else after the module's
// code, with its parameters unknown (a forward's inputs on the module's
// device); a class's __init__ runs before its other methods, forward last.
#include <algorithm>
#include <cctype>
#include <cstring>

#include "common.h"
#include "flow_run.h"

extern "C" const TSLanguage* tree_sitter_python();

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
  // By symbol id: a table lookup per statement.
  static const std::vector<Statement> table = [] {
    const TSLanguage* language = tree_sitter_python();
    std::vector<Statement> out(ts_language_symbol_count(language), Statement::kOther);
    for (uint32_t symbol = 0; symbol < out.size(); ++symbol) {
      const auto id = static_cast<TSSymbol>(symbol);
      if (ts_language_symbol_type(language, id) != TSSymbolTypeRegular) continue;
      for (const auto& [name, kind] : kTypes) {
        if (std::strcmp(ts_language_symbol_name(language, id), name) == 0) out[symbol] = kind;
      }
    }
    return out;
  }();
  const TSSymbol symbol = ts_node_symbol(node);
  return symbol < table.size() ? table[symbol] : Statement::kOther;
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
         ts_node_eq(a.made, b.made) && a.element == b.element &&
         a.element_place == b.element_place && a.element_origin == b.element_origin &&
         a.element_cls == b.element_cls && a.cls == b.cls;
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
  // Two host tensors of one origin (two factories): that origin, made where
  // the first was.
  if (a.origin != b.origin || out.place != Place::kHost) {
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
  // An empty list (`[]`, element kNone) takes what the other way put in it.
  if (a.element == Kind::kNone || b.element == Kind::kNone) {
    set_element(out, element_value(a.element == Kind::kNone ? b : a));
  } else {
    set_element(out, join(element_value(a), element_value(b)));
  }
  return out;
}

Value element_value(const Value& list) {
  Value e;
  e.kind = list.element;
  e.place = list.element_place;
  e.origin = list.element_origin;
  e.made = list.element_made;
  e.cls = list.element_cls;
  return e;
}

void set_element(Value& list, const Value& element) {
  list.element = element.kind;
  list.element_place = element.place;
  list.element_origin = element.origin;
  list.element_made = element.made;
  list.element_cls = element.cls;
}

Value list_of(const Value& element) {
  // A list of lists (of states per layer) is, for what meets what, a list of
  // what the inner lists hold.
  if (element.kind == Kind::kList) return element;
  Value list;
  list.kind = Kind::kList;
  set_element(list, element);
  return list;
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
  std::vector<std::string_view> called;  // made when first needed, sorted
  for (const Call& call : source_.calls()) {
    if (call.method == "set_default_device" || call.method == "set_default_tensor_type") {
      default_device_set_ = default_device_set_ || call.qualified.rfind("torch.", 0) == 0;
    }
    if ((call.method != "to" && call.method != "cuda") || !call.qualified.empty()) continue;
    const TSNode object = call.object;
    if (!is(object, "identifier") &&
        !(is(object, "attribute") && source_.text(field(object, fields().object)) == "self")) {
      continue;
    }
    const TSNode parent = ts_node_parent(call.node);
    const bool statement = is(parent, "expression_statement");
    const bool rebound = is(parent, "assignment") &&
                         source_.text(field(parent, fields().left)) == source_.text(object) &&
                         ts_node_eq(field(parent, fields().right), call.node);
    if (!statement && !rebound) continue;
    if (rebound && called.empty()) {
      for (const Call& c : source_.calls()) {
        const TSNode function = field(c.node, fields().function);
        if (is(function, "identifier") || is(function, "attribute")) {
          called.push_back(source_.text(function));
        }
      }
      std::sort(called.begin(), called.end());
    }
    if (rebound && !std::binary_search(called.begin(), called.end(), source_.text(object))) {
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

int FlowRun::method_of(int class_scope, std::string_view name) const {
  const auto it =
      std::lower_bound(methods_.begin(), methods_.end(), std::make_tuple(class_scope, name, -1));
  return it != methods_.end() && std::get<0>(*it) == class_scope && std::get<1>(*it) == name
             ? std::get<2>(*it)
             : -1;
}

void FlowRun::find_relevant() {
  const auto& scopes = source_.scopes();
  relevant_.assign(scopes.size(), false);
  class_done_.assign(scopes.size(), false);
  for (int s = 1; s < static_cast<int>(scopes.size()); ++s) {
    if (scopes[s].owner_class >= 0) methods_.emplace_back(scopes[s].owner_class, scopes[s].name, s);
  }
  std::sort(methods_.begin(), methods_.end());
  const bool tokenizers = source_.mentions("return_tensors");
  for (const Call& call : source_.calls()) {
    const std::string& q = call.qualified;
    bool r = call.method == "to" || call.method == "cuda" || call.method == "cpu" ||
             call.method == "numpy" || call.method == "pin_memory" ||
             (tokenizers && !ts_node_is_null(source_.keyword(call.node, "return_tensors")));
    if (!r && !q.empty()) {
      r = is_factory(q) || q == "torch.from_numpy" || q == "torch.as_tensor" ||
          q == "torch.asarray" || q.rfind("numpy.", 0) == 0 || legacy_type_on_cuda(q) ||
          q.rfind("torchvision.datasets.", 0) == 0 || q.find("DataLoader") != std::string::npos ||
          q.find("TensorDataset") != std::string::npos ||
          q.find("Parameter") != std::string::npos || is_module_class(q) || is_wrapper(q);
    }
    if (!r && q.empty()) {
      const TSNode function = field(call.node, fields().function);
      if (is(function, "identifier")) {
        const std::string_view name = source_.text(function);
        r = functions_.count(name) != 0 || source_.classes().count(std::string(name)) != 0 ||
            out_.moved_anywhere(name);
      } else if (is(call.object, "identifier") && source_.text(call.object) == "self") {
        // A method of the class (self.init_hidden()), which may return host tensors.
        const int owner = scopes[call.scope].owner_class;
        r = owner >= 0 && method_of(owner, call.method) >= 0;
      }
    }
    if (r) {
      relevant_[call.scope] = true;
      relevant_calls_.push_back(ts_node_start_byte(call.node));
    }
  }
}

namespace {

// Whether the flow knows something of a value a rule could use (a list of
// who knows what is not that).
bool known(const Value& v) {
  if (v.place != Place::kUnknown || v.origin != Origin::kNone) return true;
  if (v.kind == Kind::kList) {
    return (v.element != Kind::kUnknown && v.element != Kind::kNone) ||
           v.element_place != Place::kUnknown || v.element_origin != Origin::kNone;
  }
  return v.kind != Kind::kUnknown && v.kind != Kind::kNone;
}

// Whether `name` occurs in `text` as a whole name (not inside another).
bool names_in(std::string_view text, std::string_view name) {
  for (auto at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    const std::size_t end = at + name.size();
    const auto part = [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
    };
    if ((at == 0 || (!part(text[at - 1]) && text[at - 1] != '.')) &&
        (end == text.size() || !part(text[end]))) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool FlowRun::says_nothing(TSNode statement, const Frame& frame) const {
  // `outs = []` (then `outs.append(model(x))`): an empty list to fill.
  if (!is(statement, "expression_statement")) return inert(statement, frame);
  if (ts_node_named_child_count(statement) == 1) {
    const TSNode assignment = ts_node_named_child(statement, 0);
    const TSNode right = field(assignment, fields().right);
    if (is(assignment, "assignment") && (is(right, "list") || is(right, "dictionary")) &&
        ts_node_named_child_count(right) == 0) {
      return false;
    }
  }
  return inert(statement, frame);
}

bool FlowRun::inert(TSNode node, const Frame& frame) const {
  const uint32_t start = ts_node_start_byte(node);
  const uint32_t end = ts_node_end_byte(node);
  const auto call = std::lower_bound(relevant_calls_.begin(), relevant_calls_.end(), start);
  if (call != relevant_calls_.end() && *call < end) return false;
  const std::string_view text = source_.text(node);
  for (const auto& [name, value] : frame.env.bindings()) {
    if (known(value) && names_in(text, name)) return false;
  }
  if (frame.scope != 0) {
    const Env& globals = module_env_ != nullptr ? *module_env_ : globals_;
    for (const auto& [name, value] : globals.bindings()) {
      if (known(value) && names_in(text, name)) return false;
    }
  }
  return true;
}

void FlowRun::run() {
  prepass();
  find_relevant();
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
    if (scopes[s].kind == ScopeKind::kFunction && relevant_[s]) analyze(s);
  }
}

void FlowRun::analyze_class(int class_scope) {
  if (class_done_[class_scope]) return;
  class_done_[class_scope] = true;
  // __init__ first (it sets the attributes the others read), forward last
  // (helpers such as init_hidden set state it reads).
  const auto& scopes = source_.scopes();
  // __init__ runs (it sets the attributes), the other methods when they can
  // tell the flow something (or when called).
  std::vector<int> methods;
  for (int s = class_scope + 1; s < static_cast<int>(scopes.size()); ++s) {
    if (scopes[s].owner_class == class_scope && (relevant_[s] || scopes[s].name == "__init__")) {
      methods.push_back(s);
    }
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
  exec_block(field(s.node, fields().body), frame);
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
  const TSNode parameters = field(function, fields().parameters);
  bool first = true;
  for_each_named_child(parameters, [&](TSNode p) {
    TSNode name = p;
    TSNode type{};
    TSNode fallback{};
    if (!is(p, "identifier")) {
      type = field(p, fields().type);
      fallback = field(p, fields().value);
      const TSNode named = field(p, fields().name);
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
  const Statement kind = statement_kind(statement);
  if (kind == Statement::kDefinition || kind == Statement::kOther) return;
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
  TSNode right = field(node, fields().right);
  const TSNode left = field(node, fields().left);
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
    // A device tensor written into a NumPy array (`losses[i] = loss.data`)
    // is converted as .numpy() would be.
    if (is(target, "subscript") && v.place == Place::kDevice &&
        (v.kind == Kind::kTensor || v.kind == Kind::kUnknown) &&
        eval(field(target, fields().value), frame).kind == Kind::kArray) {
      out_.numpy_reads_.push_back({node, v});
    }
    bind(target, v, frame, right);
  }
}

void FlowRun::bind(TSNode target, const Value& value, Frame& frame, TSNode value_node) {
  if (is(target, "identifier")) {
    frame.env.set(source_.text(target), value);
    return;
  }
  if (is(target, "attribute") && source_.text(field(target, fields().object)) == "self") {
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
      std::fill(parts.begin(), parts.end(), element_value(value));
    }
    std::size_t i = 0;
    for_each_named_child(target, [&](TSNode part) {
      if (i < parts.size()) bind(part, parts[i], frame, value_node);
      ++i;
    });
  }
}

void FlowRun::exec_if(TSNode node, Frame& frame) {
  eval(field(node, fields().condition), frame);
  const Env before = frame.env;
  exec_block(field(node, fields().consequence), frame);
  Env after = frame.env;
  bool has_else = false;
  for_each_named_child(node, [&](TSNode part) {
    if (is(part, "elif_clause")) {
      frame.env = before;
      eval(field(part, fields().condition), frame);
      exec_block(field(part, fields().consequence), frame);
      after.merge(frame.env);
    } else if (is(part, "else_clause")) {
      has_else = true;
      frame.env = before;
      exec_block(field(part, fields().body), frame);
      after.merge(frame.env);
    }
  });
  if (!has_else) after.merge(before);
  frame.env = std::move(after);
}

void FlowRun::exec_for(TSNode node, Frame& frame) {
  const TSNode left = field(node, fields().left);
  const TSNode right = field(node, fields().right);
  const Env before = frame.env;
  const bool pattern =
      is(left, "pattern_list") || is(left, "tuple_pattern") || is(left, "list_pattern");
  // enumerate(x) and zip(a, b) give tuples of what they iterate.
  const std::string q = is(right, "call") ? source_.dotted(field(right, fields().function)) : "";
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
  exec_block(field(node, fields().body), frame);
  frame.loops.pop_back();
  exec_block(field(node, fields().alternative), frame);
  frame.env.merge(before);
}

}  // namespace devcheck::lint::detail
