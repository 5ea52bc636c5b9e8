// The device flow's scopes (flow.h): the runs of the module's code, of each
// class (__init__ first, forward last) and of each function (when first
// called, for what it returns, or else after the module's code, with its
// parameters unknown, or what the file's calls pass them: params.cc), and the
// pass again while that grows (Flow's constructor). Statements are in statements.cc, expressions in
// expressions.cc and calls.cc, values joined after branches in values.cc,
// which functions and statements can tell the flow anything in relevance.cc.
#include <algorithm>
#include <string_view>
#include <utility>

#include "../common.h"
#include "../stack.h"
#include "run.h"

namespace devcheck::lint::detail {
bool Flow::module_input(int scope, std::string_view name) const {
  return std::find(module_inputs_.begin(), module_inputs_.end(), std::make_pair(scope, name)) !=
         module_inputs_.end();
}

bool Flow::moved_anywhere(std::string_view name) const {
  return std::any_of(moved_.begin(), moved_.end(),
                     [&](const auto& move) { return move.second == name; });
}

bool Flow::moves_a_module() const {
  return framework_moves_ || std::any_of(moves_.begin(), moves_.end(), [](const Move& m) {
           return m.target == Place::kDevice && (m.value.kind == Kind::kModule || m.value.cls >= 0);
         });
}

Flow::Flow(const Source& source) {
  // A second run knows what the first saw passed to each function; a third
  // what that taught the functions they call (main -> train -> helper).
  // What depends on the source alone (the relevant calls, the moves in
  // place, ...) is found by the first run and kept by the next.
  ParamHints hints;
  FlowRun flow(source, *this, hints);
  for (int run = 0;; ++run) {
    if (run > 0) flow.restart();
    flow.run();
    ParamHints next = flow.param_hints();
    if (run == 3 || same_hints(next, hints)) break;
    std::vector<std::pair<int, std::string_view>> moved = std::move(moved_);
    const bool framework_moves = framework_moves_;
    *this = Flow();
    moved_ = std::move(moved);
    framework_moves_ = framework_moves;
    hints = std::move(next);
  }
  meetings_.erase(
      std::remove_if(meetings_.begin(), meetings_.end(),
                     [&](const Meeting& m) { return only_when_traced(source, m.where); }),
      meetings_.end());
}

FlowRun::FlowRun(const Source& source, Flow& out, const ParamHints& hints)
    : source_(source),
      out_(out),
      hints_in_(hints),
      passed_(source.scopes().size()),
      recorded_(source.scopes().size(), false),
      summaries_(source.scopes().size()) {}

void FlowRun::restart() {
  const std::size_t n = source_.scopes().size();
  passed_.assign(n, {});
  recorded_.assign(n, false);
  summaries_.assign(n, Summary{});
  globals_ = Env();
  module_env_ = nullptr;
  class_attributes_.clear();
  init_attributes_.clear();
  closures_.clear();
  last_tuple_.clear();
}

void FlowRun::prepass() {
  const auto& scopes = source_.scopes();
  for (int s = 1; s < static_cast<int>(scopes.size()); ++s) {
    if (scopes[s].kind == ScopeKind::kFunction && scopes[s].parent == 0) {
      functions_.emplace(scopes[s].name, s);
    }
  }
  find_nested();
  // Modules moved in place somewhere: `model.to(device)` as a statement, or
  // `model = model.cuda()` of a name that is called (a module, not a
  // tensor). Their outputs are on the device wherever they are called.
  std::vector<std::string_view> called;  // made when first needed, sorted
  const auto imports_accelerate = [&] {
    return std::any_of(source_.imports().begin(), source_.imports().end(),
                       [](const auto& i) { return i.second.rfind("accelerate", 0) == 0; });
  };
  for (const Call& call : source_.calls()) {
    if (call.method == "set_default_device" || call.method == "set_default_tensor_type") {
      default_device_set_ = default_device_set_ || call.qualified.rfind("torch.", 0) == 0;
    }
    // Lightning Fabric's `fabric.setup_dataloaders(...)` and Accelerate's
    // `accelerator.prepare(...)` give loaders that put their batches on the
    // device.
    if (call.qualified.empty() &&
        (call.method == "setup_dataloaders" ||
         ((call.method == "prepare" || call.method == "prepare_data_loader") &&
          imports_accelerate()))) {
      loaders_placed_ = true;
    }
    if ((call.method != "to" && call.method != "cuda") || !call.qualified.empty()) continue;
    const TSNode object = module_chain_root(source_, call.object);
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
      if (is_cpu_string(s) || s == "meta") continue;
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

TSNode FlowRun::call_without_move(int method_scope, std::string_view name) const {
  // Asked again for each read of the name (moved_elsewhere, then lookup):
  // the answer depends on the file alone.
  for (const auto& [scope, asked, answer] : without_move_) {
    if (scope == method_scope && asked == name) return answer;
  }
  const TSNode answer = find_call_without_move(method_scope, name);
  without_move_.emplace_back(method_scope, name, answer);
  return answer;
}

TSNode FlowRun::find_call_without_move(int method_scope, std::string_view name) const {
  const auto& scopes = source_.scopes();
  const Scope& method = scopes[method_scope];
  const int cls = method.owner_class;
  if (cls < 0) return {};
  const auto c = source_.classes().find(scopes[cls].name);
  if (c == source_.classes().end() || c->second.is_module) return {};
  // The methods that move it, and those that call one of them on self.
  std::vector<std::string_view> movers;
  for (const auto& [scope, moved] : out_.moved_) {
    if (moved != name || scopes[scope].owner_class != cls) continue;
    if (scopes[scope].name == "__init__") return {};
    movers.push_back(scopes[scope].name);
  }
  if (movers.empty()) return {};
  auto among_movers = [&](std::string_view m) {
    return std::find(movers.begin(), movers.end(), m) != movers.end();
  };
  for (const Call& call : source_.calls()) {
    if (scopes[call.scope].owner_class == cls && !ts_node_is_null(call.object) &&
        source_.text(call.object) == "self" && among_movers(call.method)) {
      movers.push_back(scopes[call.scope].name);
    }
  }
  if (among_movers(method.name)) return {};
  const std::string_view class_name = scopes[cls].name;
  for (const Call& call : source_.calls()) {
    if (call.method != method.name || ts_node_is_null(call.object) ||
        !is(call.object, "identifier") || scopes[call.scope].owner_class == cls) {
      continue;
    }
    // The object is made there by the class: `Cls(...)` or `Cls.load(...)`.
    const std::string_view object = source_.text(call.object);
    const TSNode made = source_.value_of(std::string(object), call.scope);
    if (ts_node_is_null(made) || !is(made, "call")) continue;
    const TSNode function = field(made, fields().function);
    const std::string_view maker = is(function, "attribute")
                                       ? source_.text(field(function, fields().object))
                                       : source_.text(function);
    if (maker != class_name) continue;
    // Before it there: a method that moves it, or its own move
    // (`clf.model.to(device)`).
    const std::string attribute = std::string(object) + std::string(name.substr(4));
    const bool moved_before =
        std::any_of(source_.calls().begin(), source_.calls().end(), [&](const Call& other) {
          if (other.scope != call.scope || ts_node_is_null(other.object) ||
              ts_node_start_byte(other.node) >= ts_node_start_byte(call.node)) {
            return false;
          }
          const std::string_view on = source_.text(other.object);
          return (on == object && among_movers(other.method)) ||
                 (on == attribute && (other.method == "to" || other.method == "cuda"));
        });
    if (!moved_before) return call.node;
  }
  return {};
}

int FlowRun::only_method(std::string_view name) const {
  if (name.empty() || name.rfind("__", 0) == 0 || name == "forward") return -1;
  int found = -1;
  for (const auto& [cls, method, scope] : methods_) {
    if (method != name) continue;
    if (found >= 0) return -1;
    found = scope;
  }
  return found;
}

void FlowRun::find_module_attributes() {
  const auto& scopes = source_.scopes();
  for (int s = 1; s < static_cast<int>(scopes.size()); ++s) {
    const int owner = scopes[s].owner_class;
    if (owner < 0) continue;
    for (const auto& [name, values] : scopes[s].assigns) {
      if (name.rfind("self.", 0) != 0 || name.find('.', 5) != std::string::npos) continue;
      for (TSNode value : values) {
        // Made and moved at once (`self.net = Net().to(device)`) too.
        if (!is(value = made_module_root(source_, value), "call")) continue;
        const TSNode function = field(value, fields().function);
        const std::string q = source_.qualify(function);
        const auto c = is(function, "identifier")
                           ? source_.classes().find(std::string(source_.text(function)))
                           : source_.classes().end();
        if (is_module_class(q) || is_wrapper(q) || is_torchvision_model(q) ||
            is_pretrained_model(q) || is_metric_class(q) ||
            (c != source_.classes().end() && c->second.is_module)) {
          module_attributes_.emplace_back(owner, name);
          break;
        }
      }
    }
  }
  for (const auto& [scope, name] : out_.moved_) {
    const int owner = scopes[scope].owner_class;
    if (owner >= 0 && name.rfind("self.", 0) == 0) module_attributes_.emplace_back(owner, name);
  }
  std::sort(module_attributes_.begin(), module_attributes_.end());
}

bool FlowRun::module_attribute_call(const Call& call) const {
  if (module_attributes_.empty()) return false;
  const int owner = source_.scopes()[call.scope].owner_class;
  if (owner < 0) return false;
  std::string_view text = source_.text(field(call.node, fields().function));
  if (text.rfind("self.", 0) != 0) return false;
  const std::size_t dot = text.find('.', 5);
  if (dot != std::string_view::npos) text = text.substr(0, dot);
  return std::binary_search(module_attributes_.begin(), module_attributes_.end(),
                            std::make_pair(owner, std::string(text)));
}

void FlowRun::run() {
  if (!prepared_) {
    prepass();
    find_module_attributes();
    find_relevant();
    find_host_inputs();
    prepared_ = true;
  }
  class_done_.assign(source_.scopes().size(), false);
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

bool FlowRun::runs_only_in_init(int scope) {
  const Scope& s = source_.scopes()[scope];
  if (s.name == "forward" || s.name == "__init__" || s.parent != s.owner_class) return false;
  if (!called_outside_init_made_) {
    called_outside_init_made_ = true;
    for (const Call& call : source_.calls()) {
      if (call.method.empty()) continue;
      const Scope& caller = source_.scopes()[call.scope];
      if (caller.name != "__init__" || !is(call.object, "identifier") ||
          source_.text(call.object) != "self") {
        called_outside_init_.push_back(call.method);
      }
    }
    std::sort(called_outside_init_.begin(), called_outside_init_.end());
  }
  if (std::binary_search(called_outside_init_.begin(), called_outside_init_.end(),
                         std::string_view(s.name))) {
    return false;
  }
  // Called at all, by `self.` in an `__init__` of its class.
  for (const Call& call : source_.calls()) {
    if (call.method == s.name && source_.scopes()[call.scope].owner_class == s.owner_class) {
      return true;
    }
  }
  return false;
}

FlowRun::Summary& FlowRun::analyze(int scope) {
  Summary& summary = summaries_[scope];
  if (summary.state != Summary::kNotRun) return summary;
  // A chain of calls deeper than the stack allows (stack.h): what the
  // function returns is unknown here, and it runs when reached from a
  // shallower call.
  if (stack_nearly_exhausted()) {
    unknown_summary_ = Summary{};
    return unknown_summary_;
  }
  summary.state = Summary::kRunning;
  const Scope& s = source_.scopes()[scope];
  Frame frame;
  frame.scope = scope;
  frame.owner_class = s.owner_class;
  if (s.owner_class >= 0) {
    const auto c = source_.classes().find(source_.scopes()[s.owner_class].name);
    frame.module_method = c != source_.classes().end() && c->second.is_module;
    frame.forward = frame.module_method && s.name == "forward";
    frame.init = frame.module_method && (s.name == "__init__" || runs_only_in_init(scope));
    const auto attributes = class_attributes_.find(s.owner_class);
    if (attributes != class_attributes_.end()) frame.env = attributes->second;
    // A helper only __init__ calls runs before anything moves the module:
    // its submodules and parameters are where __init__ has them.
    if (frame.init && s.name != "__init__") {
      for (const auto& [name, v] : frame.env.bindings()) {
        if (v.registered && v.place == Place::kModuleDevice) {
          Value built = v;
          built.place = Place::kUnknown;
          frame.env.set(name, built);
        }
      }
    }
  } else if (const Env* outer = closure(scope)) {
    frame.env = *outer;
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
    if (s.name == "__init__") init_attributes_[s.owner_class] = frame.env;
    for (const auto& [name, value] : frame.env.bindings()) {
      if (name.rfind("self.", 0) != 0) continue;
      Value v = value;
      if (v.registered && (frame.module_method ||
                           std::find(registered_in_init_.begin(), registered_in_init_.end(),
                                     std::make_pair(s.owner_class, std::string_view(name))) !=
                               registered_in_init_.end())) {
        v.place = Place::kModuleDevice;
      }
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
  bool first = frame.owner_class >= 0 && (decorators(frame.scope) & kStatic) == 0;
  // What a framework hands the method (frameworks.cc).
  std::size_t position = 0;
  const Handed handed = framework_handed(source_, frame.scope);
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
    const bool method_self = first;
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
    // Lightning moves the batch to the module's device before its steps,
    // and hands the epoch's end what they returned.
    if (handed == Handed::kStepBatch && position == 0 && !not_tensor && v.kind != Kind::kNone) {
      v.place = Place::kModuleDevice;
    }
    if (handed == Handed::kStepOutputs && position == 0 && !not_tensor) {
      Value output;
      output.place = Place::kModuleDevice;
      v = list_of(output);
    }
    if (handed == Handed::kTrainerLoss && position < 2 && is(p, "identifier")) {
      v.kind = position == 0 ? Kind::kModule : Kind::kUnknown;
      v.place = Place::kDevice;
    }
    ++position;
    v.parameter = true;
    if (names_any(text, {"loader"})) {
      v.kind = Kind::kLoader;
      v.pin_unknown = true;
    }
    if (host_input(frame.scope, text)) {
      v.kind = Kind::kTensor;
      v.place = Place::kHost;
      v.origin = Origin::kInput;
      v.made = name;
    }
    if (const Value* passed = hint(hints_in_, frame.scope, text)) {
      v = *passed;
      v.parameter = true;
      v.passed = true;
    }
    frame.env.set(text, v);
  });
}

}  // namespace devcheck::lint::detail
