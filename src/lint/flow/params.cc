// The device flow across calls (run.h, ParamHint): what the calls of
// the file's functions, methods and constructors pass to their parameters.
// The rules never read these; the next run of the flow binds them.
#include <algorithm>
#include <cctype>
#include <cstdint>

#include "../common.h"
#include "run.h"

namespace devcheck::lint::detail {
namespace {

bool alike(const Value& a, const Value& b) {
  return a.kind == b.kind && a.place == b.place && a.origin == b.origin && a.cls == b.cls &&
         a.scatters == b.scatters && (a.origin != Origin::kFactory || ts_node_eq(a.made, b.made)) &&
         a.pinned == b.pinned && a.pin_unknown == b.pin_unknown && a.held_place == b.held_place &&
         ts_node_eq(a.held_made, b.held_made);
}

// A tensor on the host no rule reports (how it got there is not one
// thing): where it is, no more.
Value host_only(const Value& a, const Value& b) {
  Value out;
  out.kind = Kind::kTensor;
  out.place = Place::kHost;
  out.pinned = a.pinned && b.pinned;
  out.registered = a.registered && b.registered;  // nn.Parameter(...) both
  return out;
}

// What a rule may use of a value passed in: on a device (a tensor, a model
// moved), a model made in this file and never moved, or a tensor one
// factory of the file made without device= (DC101 reports that factory) or
// one from_numpy made (DC103), a NumPy array, a DataLoader or a Dataset (its
// items are on the host), a batch or an item of them, or a loss holding a
// host tensor.
bool worth_passing(const Value& v) {
  // A NumPy array: what torch.tensor(...) of it makes is a host tensor
  // with data, not a number.
  if (v.kind == Kind::kArray) return true;
  if (v.kind == Kind::kList || v.scalar) return false;
  if (v.place == Place::kDevice || v.place == Place::kModuleDevice) return true;
  // A DataLoader (its batches are on the host), and a loss holding a weight
  // made on the host (a criterion built in main() and handed to train()).
  if (v.kind == Kind::kLoader || v.kind == Kind::kDataset) return true;
  if (v.kind == Kind::kModule && v.held_place == Place::kHost && !ts_node_is_null(v.held_made)) {
    return true;
  }
  if (v.kind == Kind::kTensor && v.place == Place::kHost &&
      (v.origin == Origin::kFactory || v.origin == Origin::kNumpy ||
       v.origin == Origin::kHostCopy) &&
      !ts_node_is_null(v.made)) {
    return true;
  }
  // On the host as every call passes it (host_only): what the function
  // places beside it (`device=t.device`) is on the host too.
  if (v.kind == Kind::kTensor && v.place == Place::kHost && v.origin == Origin::kNone) return true;
  // An instance of a plain class of the file (what its methods do is known).
  if (v.cls >= 0 && v.kind == Kind::kUnknown && v.place == Place::kUnknown) return true;
  // A batch of a DataLoader, or an item of a Dataset, handed on whole
  // (`train_step(model, batch, device)`): its parts are on the host there.
  if (v.place == Place::kHost && (v.origin == Origin::kBatch || v.origin == Origin::kDatasetItem) &&
      !ts_node_is_null(v.made)) {
    return true;
  }
  return v.kind == Kind::kModule && v.place == Place::kHost && v.origin == Origin::kUnmovedModule;
}

}  // namespace

bool same_hints(const ParamHints& a, const ParamHints& b) {
  auto count = [](const ParamHints& h) {
    std::size_t n = 0;
    for (const auto& scope : h) n += scope.size();
    return n;
  };
  if (count(a) != count(b)) return false;
  for (std::size_t s = 0; s < a.size(); ++s) {
    for (const ParamHint& p : a[s]) {
      const Value* other = hint(b, static_cast<int>(s), p.name);
      if (other == nullptr || !alike(*other, p.value)) return false;
    }
  }
  return true;
}

const Value* hint(const ParamHints& hints, int scope, std::string_view name) {
  if (scope < 0 || static_cast<std::size_t>(scope) >= hints.size()) return nullptr;
  for (const ParamHint& p : hints[scope]) {
    if (p.name == name) return &p.value;
  }
  return nullptr;
}

void FlowRun::record_call(int callee, TSNode call, const std::vector<Arg>& args, const Frame& frame,
                          bool on_device) {
  const Scope& scope = source_.scopes()[callee];
  if (scope.kind != ScopeKind::kFunction) return;
  const TSNode parameters = field(scope.node, fields().parameters);
  const TSNode arguments = field(call, fields().arguments);
  // What this call passes to each parameter, by name (unknown where it
  // passes nothing or a list, or splats).
  std::vector<ParamHint> now;
  // A static method has no `self` to skip.
  const bool has_self = scope.owner_class >= 0 && (decorators(callee) & kStatic) == 0;
  bool module_method = false;
  if (scope.owner_class >= 0) {
    const auto c = source_.classes().find(source_.scopes()[scope.owner_class].name);
    module_method = c == source_.classes().end() || c->second.is_module;
  }
  const uint32_t count = ts_node_named_child_count(parameters);
  // How many parameters a positional argument can reach: those after `*` or
  // `*args` take keywords only (`def loss(self, *, beta, x)`).
  std::size_t positional = SIZE_MAX;
  for (uint32_t i = 0; i < count; ++i) {
    TSNode p = ts_node_named_child(parameters, i);
    if (is(p, "positional_separator")) continue;
    if (is(p, "keyword_separator") || is(p, "list_splat_pattern")) {
      positional = std::min(positional, now.size());
      continue;
    }
    if (is(p, "dictionary_splat_pattern")) break;  // **kwargs: stop there
    if (!is(p, "identifier")) {
      const TSNode named = field(p, fields().name);
      p = ts_node_is_null(named) ? ts_node_named_child(p, 0) : named;
    }
    if (!is(p, "identifier")) break;
    if (i == 0 && has_self) continue;
    now.push_back({source_.text(p), Value{}});
  }
  bool splat = false;
  std::size_t position = 0;
  const uint32_t n = is(arguments, "argument_list") ? ts_node_named_child_count(arguments) : 0;
  for (uint32_t i = 0; i < n; ++i) {
    const TSNode arg = ts_node_named_child(arguments, i);
    if (is(arg, "comment")) continue;
    if (is(arg, "list_splat") || is(arg, "dictionary_splat")) {
      splat = true;
      break;
    }
    const bool keyword = is(arg, "keyword_argument");
    const TSNode value_node = keyword ? field(arg, fields().value) : arg;
    Value value;
    for (const Arg& a : args) {
      if (!a.in_sequence && ts_node_eq(a.node, value_node)) value = a.value;
    }
    // In a method of another module class, "the module's device" is not
    // the callee's module; in a plain function (`dag_loss(W)` in a module's
    // method) or a method of a plain class (a loss kept in `self.loss`) it
    // is the caller's module's device, where the value stays.
    if (value.place == Place::kModuleDevice && scope.owner_class >= 0 &&
        scope.owner_class != frame.owner_class && module_method) {
      value = Value{};
    }
    if (!worth_passing(value)) value = Value{};
    // A module's method reads its inputs as on the module's device, which
    // is where the module is: a host tensor given to a module left on the
    // CPU is no mismatch, so none goes in. Its constructor is another matter:
    // what it keeps of a host tensor stays on the host when the module moves.
    // A factory's host tensor one of the module's own methods makes and hands
    // to another (`z = torch.randn(...)`, then `self.step(z)`) is the module's
    // own: it stays on the host wherever the module goes, and goes in.
    // (Not from __init__: what it keeps so is DC111's.)
    const bool own_factory = value.origin == Origin::kFactory && frame.module_method &&
                             scope.owner_class >= 0 && scope.owner_class == frame.owner_class &&
                             source_.scopes()[frame.scope].name != "__init__";
    // A host tensor given to a method of a module on a device
    // (`model.predict(x)`, `model.rank(torch.LongTensor(ids))`) goes in:
    // there it meets the module's device as it would in a call of the
    // module.
    const bool batch_on_device = on_device && value.origin != Origin::kNone;
    if (value.place == Place::kHost && value.kind == Kind::kTensor && module_method &&
        scope.name != "__init__" && !own_factory && !batch_on_device) {
      value = Value{};
    }
    const bool own = own_factory && value.place == Place::kHost;
    if (keyword) {
      const std::string_view name = source_.text(field(arg, fields().name));
      for (ParamHint& p : now) {
        if (p.name == name) {
          p.value = value;
          p.own = own;
        }
      }
    } else if (position < now.size() && position < positional) {
      now[position].own = own;
      now[position++].value = value;
    }
  }
  if (splat) {
    for (ParamHint& p : now) p.value = Value{};
  }
  // A call from within the function's own class or itself (`FixAtoms(
  // self.idx[keep])` in a method of FixAtoms, a recursion) passes what the
  // class already holds, made from what the other calls passed: where the
  // flow cannot follow it, it tells nothing, and the other calls decide.
  const bool from_within =
      frame.scope == callee || (scope.owner_class >= 0 && frame.owner_class == scope.owner_class);
  if (from_within) {
    for (ParamHint& p : now) p.absent = !worth_passing(p.value);
  }
  std::vector<ParamHint>& passed = passed_[callee];
  if (!recorded_[callee]) {
    recorded_[callee] = true;
    passed = std::move(now);
    return;
  }
  // Every call must agree, else nothing is known of the parameter; but a
  // module's own factory tensor (above) that one call passes where another
  // passes what is on the module's device stays: the method meets it there.
  // (A plain function's host tensor, a factory's of a caller that is no
  // method of the module's class, meets nothing there: unknown, as any two
  // values that differ.)
  auto own = [](const ParamHint& p) {
    return p.own && p.value.kind == Kind::kTensor && p.value.place == Place::kHost &&
           p.value.origin == Origin::kFactory;
  };
  for (std::size_t i = 0; i < passed.size() && i < now.size(); ++i) {
    if (now[i].absent) continue;
    if (passed[i].absent) {
      passed[i] = now[i];
    } else if (own(now[i]) && passed[i].value.place == Place::kModuleDevice) {
      passed[i].value = now[i].value;
      passed[i].own = true;
    } else if (own(passed[i]) && now[i].value.place == Place::kModuleDevice) {
      continue;
    } else if (host_tensor(passed[i].value) && host_tensor(now[i].value) &&
               !alike(passed[i].value, now[i].value)) {
      // Host tensors of two origins (two factories): on the host, where
      // what the function makes beside them (`device=t.device`) is too.
      passed[i].value = host_only(passed[i].value, now[i].value);
    } else if (!alike(passed[i].value, now[i].value)) {
      passed[i].value = Value{};
    }
  }
}

int FlowRun::decorators(int scope) const {
  if (decorators_.empty()) decorators_.assign(source_.scopes().size(), -1);
  if (decorators_[scope] < 0) {
    int found = 0;
    const TSNode decorated = ts_node_parent(source_.scopes()[scope].node);
    if (is(decorated, "decorated_definition")) {
      for_each_named_child(decorated, [&](TSNode child) {
        if (!is(child, "decorator")) return;
        const std::string_view text = source_.text(child);
        found |= text == "@staticmethod" ? kStatic
                 : text == "@property"   ? kProperty
                 : text == "@onlyCPU"    ? kOnlyCpu
                                         : 0;
      });
    }
    decorators_[scope] = static_cast<int8_t>(found);
  }
  return decorators_[scope];
}

void FlowRun::moved_by_callee(int callee, TSNode call, Frame& frame) {
  const Scope& scope = source_.scopes()[callee];
  if (scope.kind != ScopeKind::kFunction) return;
  if (std::none_of(out_.moved_.begin(), out_.moved_.end(),
                   [&](const auto& moved) { return moved.first == callee; })) {
    return;
  }
  const bool has_self = scope.owner_class >= 0 && (decorators(callee) & kStatic) == 0;
  std::vector<std::string_view> names;  // the parameters, in order (not self)
  const TSNode parameters = field(scope.node, fields().parameters);
  for (uint32_t i = 0, count = ts_node_named_child_count(parameters); i < count; ++i) {
    TSNode p = ts_node_named_child(parameters, i);
    if (!is(p, "identifier")) {
      const TSNode named = field(p, fields().name);
      p = ts_node_is_null(named) ? ts_node_named_child(p, 0) : named;
    }
    if (!is(p, "identifier")) break;  // *args, **kwargs, `*`, `/`: stop there
    if (i > 0 || !has_self) names.push_back(source_.text(p));
  }
  auto moves = [&](std::string_view parameter) {
    return std::any_of(out_.moved_.begin(), out_.moved_.end(), [&](const auto& moved) {
      return moved.first == callee && moved.second == parameter;
    });
  };
  const TSNode arguments = field(call, fields().arguments);
  std::size_t position = 0;
  for (uint32_t i = 0,
                n = is(arguments, "argument_list") ? ts_node_named_child_count(arguments) : 0;
       i < n; ++i) {
    const TSNode arg = ts_node_named_child(arguments, i);
    if (is(arg, "comment")) continue;
    if (is(arg, "list_splat") || is(arg, "dictionary_splat")) return;
    const bool keyword = is(arg, "keyword_argument");
    const TSNode value = keyword ? field(arg, fields().value) : arg;
    const std::string_view parameter =
        keyword ? source_.text(field(arg, fields().name))
                : (position < names.size() ? names[position] : std::string_view{});
    if (!keyword) ++position;
    if (!is(value, "identifier") || parameter.empty() || !moves(parameter)) continue;
    const Value* known = frame.env.find(source_.text(value));
    if (known == nullptr || known->kind != Kind::kModule || known->place != Place::kHost) continue;
    Value moved = *known;
    moved.place = Place::kDevice;
    moved.origin = Origin::kNone;
    frame.env.set(source_.text(value), moved);
  }
}

ParamHints FlowRun::param_hints() const {
  ParamHints out(passed_.size());
  for (std::size_t s = 0; s < passed_.size(); ++s) {
    for (const ParamHint& p : passed_[s]) {
      if (worth_passing(p.value)) out[s].push_back(p);
    }
  }
  return out;
}

namespace {

// Whether `call` (`x.to(...)`, `x.cuda()`) moves its object to a device
// chosen for the program (`"cuda"`, `device`, `args.device`,
// `torch.device(...)`), not to where another tensor is (`x.to(y.device)`,
// `x.to(y)`, `device = y.device` then `x.to(device)`: y sets the place).
bool moves_to_a_device(const Source& source, const Call& call) {
  if (call.method == "cuda") return true;
  if (call.method != "to") return false;
  const std::vector<TSNode> args = source.positional(call.node);
  const TSNode target = args.empty() ? source.keyword(call.node, "device") : args[0];
  if (ts_node_is_null(target) || is_dtype(source, target) || is(target, "none")) return false;
  if (const auto s = string_value(source, target)) {
    return !is_cpu_string(s) && *s != "meta" && !s->empty();
  }
  if (is(target, "call")) return source.qualify(field(target, fields().function)) == "torch.device";
  const std::string_view text = source.text(target);
  if (!is_device_name(text)) return false;
  if (is(target, "attribute")) {
    // `args.device`, `self.device`: a choice; `y.device` of a name the
    // function computes or is given: where y is.
    const TSNode object = field(target, fields().object);
    if (!is(object, "identifier")) return false;
    const std::string_view name = source.text(object);
    return name == "self" || (source.scopes()[call.scope].assigns.count(std::string(name)) == 0 &&
                              !parameter_of(source, name, call.scope));
  }
  const TSNode value = source.value_of(std::string(text), call.scope);
  return ts_node_is_null(value) || !(is(value, "attribute") || is(value, "call")) ||
         (is(value, "call") && source.qualify(field(value, fields().function)) == "torch.device");
}

// Whether `text` (a function's body) reads where `name` is or moves it:
// `name.device`, `name.is_cuda`, `name.to(`, `name.cuda(`, `name.cpu(`.
bool placed_by_hand(std::string_view text, std::string_view name) {
  for (auto at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    const std::string_view rest = text.substr(at + name.size());
    const bool starts = at == 0 || !(std::isalnum(static_cast<unsigned char>(text[at - 1])) != 0 ||
                                     text[at - 1] == '_' || text[at - 1] == '.');
    if (!starts || rest.empty() || rest[0] != '.') continue;
    for (std::string_view word : {".device", ".is_cuda", ".to(", ".cuda(", ".cpu(", ".get_device",
                                  ".type_as(", ".pin_memory("}) {
      if (rest.rfind(word, 0) == 0) return true;
    }
  }
  return false;
}

}  // namespace

void FlowRun::find_host_inputs() {
  const auto& scopes = source_.scopes();
  // The functions the file calls (by the called name): their callers decide.
  std::vector<std::string_view> called;
  // The parameters each function moves to a device as a tensor (the move's
  // result used, not a module moved in place by a statement).
  std::vector<std::pair<int, std::string_view>> moved;
  for (const Call& call : source_.calls()) {
    if ((call.method == "to" || call.method == "cuda") && call.scope > 0 &&
        is(call.object, "identifier") && !is(ts_node_parent(call.node), "expression_statement") &&
        moves_to_a_device(source_, call)) {
      moved.emplace_back(call.scope, source_.text(call.object));
    }
  }
  if (moved.empty()) return;
  const auto is_called = [&](std::string_view name) {
    if (called.empty()) {
      for (const Call& call : source_.calls()) {
        const TSNode function = field(call.node, fields().function);
        called.push_back(is(function, "attribute") ? call.method : source_.text(function));
      }
      std::sort(called.begin(), called.end());
    }
    return std::binary_search(called.begin(), called.end(), name);
  };
  std::sort(moved.begin(), moved.end());
  moved.erase(std::unique(moved.begin(), moved.end()), moved.end());
  for (auto it = moved.begin(); it != moved.end();) {
    const int s = it->first;
    auto end = it;
    while (end != moved.end() && end->first == s) ++end;
    const Scope& scope = scopes[s];
    const bool module_method = scope.owner_class >= 0 && [&] {
      const auto c = source_.classes().find(scopes[scope.owner_class].name);
      return c == source_.classes().end() || c->second.is_module;
    }();
    const bool nested = scope.parent > 0 && scopes[scope.parent].kind == ScopeKind::kFunction;
    if (scope.kind != ScopeKind::kFunction || module_method || nested ||
        framework_handed(source_, s) != Handed::kNone) {
      it = end;
      continue;
    }
    const auto is_moved = [&](std::string_view name) {
      return std::any_of(it, end, [&](const auto& m) { return m.second == name; });
    };
    bool any_moved = false;
    std::vector<std::string_view> others;
    bool first = scope.owner_class >= 0 && (decorators(s) & kStatic) == 0;
    for_each_named_child(field(scope.node, fields().parameters), [&](TSNode p) {
      const bool self = first;
      first = false;
      TSNode name = p;
      if (is(p, "typed_parameter")) {
        const TSNode type = field(p, fields().type);
        if (source_.text(type).find("Tensor") == std::string_view::npos) return;
        name = ts_node_named_child(p, 0);
      }
      if (self || !is(name, "identifier")) return;
      const std::string_view text = source_.text(name);
      if (is_moved(text)) {
        any_moved = true;
      } else if (!is_device_name(text)) {
        others.push_back(text);
      }
    });
    if (any_moved && !others.empty() && !is_called(scope.name)) {
      const std::string_view body = source_.text(field(scope.node, fields().body));
      for (const std::string_view name : others) {
        if (!placed_by_hand(body, name) && used_as_tensor(source_, scope.node, name, false, true)) {
          host_inputs_.emplace_back(s, name);
        }
      }
    }
    it = end;
  }
  std::sort(host_inputs_.begin(), host_inputs_.end());
}

bool FlowRun::host_input(int scope, std::string_view name) const {
  return !host_inputs_.empty() &&
         std::binary_search(host_inputs_.begin(), host_inputs_.end(), std::make_pair(scope, name));
}

}  // namespace devcheck::lint::detail
