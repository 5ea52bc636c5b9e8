// The device flow's expressions (flow.h): what an expression's value is,
// and where, on the way, a value on the host meets one on a device (the
// elements of subscripts, loops and unpacking: elements.cc).
#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../common.h"
#include "../grammar.h"
#include "../stack.h"
#include "run.h"

namespace devcheck::lint::detail {
namespace {

// Expressions longer than this (in bytes) are first asked whether they hold
// anything the flow follows; smaller ones cost less to evaluate than to ask.
constexpr uint32_t kLargeNode = 400;

// Whether `node` is a Python number: a literal, `len(...)`, `int(...)`,
// `float(...)`, `x.item()`, or a name assigned one of those alone.
bool number_expression(const Source& source, TSNode node, int scope, int depth = 0) {
  if (is(node, "integer") || is(node, "float")) return true;
  if (is(node, "identifier") && depth == 0) {
    const auto& assigns = source.scopes()[scope].assigns;
    const auto found = assigns.find(std::string(source.text(node)));
    return found != assigns.end() && found->second.size() == 1 &&
           number_expression(source, found->second[0], scope, depth + 1);
  }
  if (!is(node, "call")) return false;
  const TSNode function = field(node, fields().function);
  if (is(function, "identifier")) {
    const std::string_view name = source.text(function);
    return name == "len" || name == "int" || name == "float";
  }
  return is(function, "attribute") && source.text(field(function, fields().attribute)) == "item";
}

}  // namespace

Sym sym(TSNode node) {
  static const std::vector<Sym> table = [] {
    static constexpr std::pair<const char*, Sym> kNames[] = {
        {"identifier", Sym::kIdentifier},
        {"call", Sym::kCall},
        {"attribute", Sym::kAttribute},
        {"subscript", Sym::kSubscript},
        {"binary_operator", Sym::kBinaryOperator},
        {"comparison_operator", Sym::kComparisonOperator},
        {"parenthesized_expression", Sym::kParenthesizedExpression},
        {"unary_operator", Sym::kUnaryOperator},
        {"await", Sym::kAwait},
        {"conditional_expression", Sym::kConditionalExpression},
        {"none", Sym::kNone},
        {"list", Sym::kList},
        {"tuple", Sym::kTuple},
        {"set", Sym::kSet},
        {"dictionary", Sym::kDictionary},
        {"expression_list", Sym::kExpressionList},
        {"list_comprehension", Sym::kListComprehension},
        {"generator_expression", Sym::kGeneratorExpression},
        {"set_comprehension", Sym::kSetComprehension},
        {"dictionary_comprehension", Sym::kDictionaryComprehension},
        {"named_expression", Sym::kNamedExpression},
        {"boolean_operator", Sym::kBooleanOperator},
        {"lambda", Sym::kLambda},
        {"string", Sym::kString},
        {"integer", Sym::kInteger},
        {"float", Sym::kFloat},
        {"true", Sym::kTrue},
        {"false", Sym::kFalse},
    };
    return symbol_table(kNames, Sym::kOther);
  }();
  return symbol_of(table, node, Sym::kOther);
}

Value FlowRun::lookup(std::string_view name, Frame& frame, bool moved) const {
  const Value* found = frame.env.find(name);
  bool global = false;
  if (found == nullptr && frame.scope != 0) {
    const Env& globals = module_env_ != nullptr ? *module_env_ : globals_;
    found = globals.find(name);
    global = found != nullptr;
  }
  Value v = found != nullptr ? *found : Value{};
  // A module moved in place elsewhere is on the device where it is used: a
  // module-level name moved anywhere, `self.x` moved in any method of the
  // class, a parameter moved by a caller (main() moves the model it passes
  // to train()). A name of this scope is followed by the flow itself.
  if (moved && !moved_elsewhere(name, frame, global, v.parameter)) {
    moved = false;
    // `self.x` as __init__ left it (made on the CPU), where a call reaches
    // this method without the others that move it.
    const auto init = init_attributes_.find(frame.owner_class);
    const Value* made = init != init_attributes_.end() && name.rfind("self.", 0) == 0 &&
                                source_.scopes()[frame.scope].assigns.count(std::string(name)) == 0
                            ? init->second.find(name)
                            : nullptr;
    if (made != nullptr && made->origin == Origin::kUnmovedModule) {
      const TSNode call = call_without_move(frame.scope, name);
      if (!ts_node_is_null(call)) {
        v = *made;
        v.move_skipped = true;
        const bool known = std::any_of(out_.skipped_moves_.begin(), out_.skipped_moves_.end(),
                                       [&](const SkippedMove& s) {
                                         return s.scope == frame.scope && ts_node_eq(s.call, call);
                                       });
        if (!known) out_.skipped_moves_.push_back({frame.scope, call});
      }
    }
  }
  if (moved &&
      (v.kind == Kind::kModule || (v.kind == Kind::kUnknown && v.place == Place::kUnknown)) &&
      v.place != Place::kModuleDevice) {
    if (v.kind == Kind::kUnknown) v.kind = Kind::kModule;
    v.place = Place::kDevice;
    v.origin = Origin::kNone;
    v.held_place = Place::kUnknown;
  }
  return v;
}

bool FlowRun::moved_elsewhere(std::string_view name, const Frame& frame, bool global,
                              bool parameter) const {
  const auto& scopes = source_.scopes();
  const bool self = name.rfind("self.", 0) == 0;
  for (const auto& [scope, moved] : out_.moved_) {
    if (moved != name || scope == frame.scope) continue;
    if (self) {
      if (frame.owner_class < 0 || scopes[scope].owner_class != frame.owner_class) continue;
      // Not when a call reaches this method without the ones that move it.
      if (ts_node_is_null(call_without_move(frame.scope, name))) return true;
      continue;
    }
    // The module's name, moved where it is not a local name.
    if (global && (scope == 0 || scopes[scope].assigns.count(std::string(name)) == 0)) return true;
    if (!parameter || frame.scope == 0) continue;
    // A parameter: moved by a function that calls this one.
    const std::string_view callee = scopes[frame.scope].name;
    for (const Call& call : source_.calls()) {
      if (call.scope != scope) continue;
      const TSNode function = field(call.node, fields().function);
      const std::string_view called = is(function, "attribute")
                                          ? source_.text(field(function, fields().attribute))
                                          : source_.text(function);
      if (called == callee) return true;
    }
  }
  return false;
}

// Whether `name`, seen from `scope`, is assigned both "cpu" and a device's
// string (`if torch.cuda.is_available(): device = "cuda"` / `else: device =
// "cpu"`): a choice, like `"cuda" if ... else "cpu"`, not the last string.
bool FlowRun::device_choice(std::string_view name, int scope) const {
  const std::vector<Scope>& scopes = source_.scopes();
  for (int s = scope; s >= 0; s = scopes[s].parent) {
    const auto found = scopes[s].assigns.find(std::string(name));
    if (found == scopes[s].assigns.end() || found->second.empty()) continue;
    if (found->second.size() < 2) return false;
    bool host = false;
    bool device = false;
    for (const TSNode value : found->second) {
      const auto text = string_value(source_, value);
      if (!text) continue;
      if (is_cpu_string(text)) {
        host = true;
      } else if (!text->empty() && *text != "meta") {
        device = true;
      }
    }
    return host && device;
  }
  return false;
}

// Whether `parameter` of the __init__ of a class (its scope) defaults to
// "cpu" (`def __init__(self, device="cpu")`) and the file makes the class,
// never passing it: in __init__ it is the host.
bool FlowRun::default_host_parameter(int class_scope, std::string_view parameter) const {
  for (const auto& [cls, name, host] : default_host_parameters_) {
    if (cls == class_scope && name == parameter) return host;
  }
  const bool host = find_default_host_parameter(class_scope, parameter);
  default_host_parameters_.emplace_back(class_scope, parameter, host);
  return host;
}

bool FlowRun::find_default_host_parameter(int class_scope, std::string_view parameter) const {
  const std::vector<Scope>& scopes = source_.scopes();
  for (const Scope& init : scopes) {
    if (init.owner_class != class_scope || init.name != "__init__") continue;
    const TSNode parameters = field(init.node, fields().parameters);
    int position = -1;  // among the parameters after self
    bool cpu = false;
    for (uint32_t i = 0, n = ts_node_named_child_count(parameters); i < n; ++i) {
      const TSNode p = ts_node_named_child(parameters, i);
      if (!is(p, "default_parameter") && !is(p, "typed_default_parameter")) continue;
      if (source_.text(field(p, fields().name)) != parameter) continue;
      position = static_cast<int>(i) - 1;
      cpu = is_cpu_string(string_value(source_, field(p, fields().value)));
    }
    if (!cpu || position < 0) return false;
    const std::string_view cls = scopes[class_scope].name;
    bool made = false;
    bool passed = false;
    for (const Call& call : source_.calls()) {
      if (source_.text(field(call.node, fields().function)) != cls) continue;
      made = true;
      const TSNode args = field(call.node, fields().arguments);
      for (uint32_t i = 0, n = ts_node_named_child_count(args); i < n; ++i) {
        const TSNode a = ts_node_named_child(args, i);
        passed = passed || is(a, "list_splat") || is(a, "dictionary_splat") ||
                 (is(a, "keyword_argument") && source_.text(field(a, fields().name)) == parameter);
      }
      passed = passed || static_cast<int>(source_.positional(call.node).size()) > position;
    }
    return made && !passed;
  }
  return false;
}

// Whether `self.x` (`name`) of a class is the host because __init__ keeps in
// it a parameter that defaults to "cpu" (`def __init__(self, device="cpu"):
// self.device = device`) and the file makes the class, never passing it.
bool FlowRun::default_host(int class_scope, std::string_view name) const {
  for (const auto& [cls, attribute, host] : default_hosts_) {
    if (cls == class_scope && attribute == name) return host;
  }
  bool host = false;
  for (const Scope& init : source_.scopes()) {
    if (init.owner_class != class_scope || init.name != "__init__") continue;
    const auto assigns = init.assigns.find(std::string(name));
    if (assigns != init.assigns.end() && assigns->second.size() == 1 &&
        is(assigns->second[0], "identifier")) {
      host = default_host_parameter(class_scope, source_.text(assigns->second[0]));
    }
    break;
  }
  default_hosts_.emplace_back(class_scope, name, host);
  return host;
}

Place FlowRun::device_of(TSNode target, Frame& frame) {
  if (ts_node_is_null(target)) return Place::kUnknown;
  if (is(target, "none")) return Place::kHost;
  if (is(target, "integer")) return Place::kDevice;
  if (const auto s = string_value(source_, target)) {
    if (is_cpu_string(s)) return Place::kHost;
    return *s == "meta" || s->empty() ? Place::kUnknown : Place::kDevice;
  }
  if (is(target, "call") && source_.qualify(field(target, fields().function)) == "torch.device") {
    const std::vector<TSNode> args = source_.positional(target);
    if (!args.empty() && string_value(source_, args[0])) return device_of(args[0], frame);
    return Place::kDevice;
  }
  if (is(target, "attribute")) {
    if (is(field(target, fields().object), "identifier") &&
        source_.text(field(target, fields().object)) == "self" && frame.owner_class >= 0 &&
        default_host(frame.owner_class, source_.text(target))) {
      return Place::kHost;
    }
    if (source_.text(field(target, fields().attribute)) == "device") {
      // A tensor's device (`x.device`) is where x is; a configuration's
      // (`args.device`, `self.device`) is the device chosen.
      const Value of = eval(field(target, fields().object), frame);
      if (of.kind == Kind::kTensor || of.kind == Kind::kModule || of.place != Place::kUnknown) {
        return of.place;
      }
      return Place::kDevice;
    }
    const std::string_view name = source_.text(target);
    return is_device_name(name) || names_any(name, {"gpu", "rank", "cuda"}) ? Place::kDevice
                                                                            : Place::kUnknown;
  }
  if (is(target, "identifier")) {
    const std::string_view name = source_.text(target);
    const TSNode value = source_.value_of(std::string(name), frame.scope);
    if (device_choice(name, frame.scope)) return Place::kDevice;
    if (!ts_node_is_null(value) && !ts_node_eq(value, target)) {
      if (string_value(source_, value) || is(value, "none")) return device_of(value, frame);
      // `device = next(model.parameters()).device`: where that tensor is;
      // `device = self.counts.device` of a tensor known on the host: the
      // host, whatever the name says.
      if (is(value, "attribute") && source_.text(field(value, fields().attribute)) == "device") {
        const TSNode object = field(value, fields().object);
        const Value of = eval(object, frame);
        if (of.kind == Kind::kTensor && (is(object, "call") || of.place == Place::kHost)) {
          return of.place;
        }
      }
      if (is(value, "call") && source_.qualify(field(value, fields().function)) == "torch.device") {
        return device_of(value, frame);
      }
    }
    const Value v = lookup(name, frame);
    if (v.kind == Kind::kTensor) return v.place;
    // `__init__`'s own parameter defaulting to "cpu" that no construction
    // passes (`.to(device)` of `def __init__(self, device="cpu")`): the host.
    if (v.parameter && frame.owner_class >= 0 && source_.scopes()[frame.scope].name == "__init__" &&
        default_host_parameter(frame.owner_class, name)) {
      return Place::kHost;
    }
    // The device a test of torch's device-generic suite is given, where the
    // test runs on the CPU only (`@onlyCPU`).
    if (v.parameter && frame.scope > 0 && (decorators(frame.scope) & kOnlyCpu) != 0) {
      return Place::kHost;
    }
    return is_device_name(name) || names_any(name, {"gpu", "rank", "cuda"}) ? Place::kDevice
                                                                            : Place::kUnknown;
  }
  // A configuration's entry (`cfg["device"]`) is the device chosen.
  const auto key = is(target, "subscript")
                       ? string_value(source_, field(target, fields().subscript))
                       : std::nullopt;
  return key && (is_device_name(*key) || names_any(*key, {"gpu", "cuda"})) ? Place::kDevice
                                                                           : Place::kUnknown;
}

std::vector<FlowRun::Arg> FlowRun::eval_args(TSNode call, Frame& frame) {
  std::vector<Arg> out;
  const TSNode args = field(call, fields().arguments);
  if (is(args, "generator_expression")) {
    out.push_back({args, {}, eval(args, frame), false});
    return out;
  }
  if (!is(args, "argument_list")) return out;
  const uint32_t count = ts_node_named_child_count(args);
  for (uint32_t i = 0; i < count; ++i) {
    const TSNode arg = ts_node_named_child(args, i);
    if (is(arg, "keyword_argument")) {
      const TSNode value = field(arg, fields().value);
      out.push_back({value, source_.text(field(arg, fields().name)), eval(value, frame), false});
    } else if (is(arg, "list") || is(arg, "tuple")) {
      // torch.cat([a, b]), an RNN's (h, c): each element meets the others.
      const uint32_t n = ts_node_named_child_count(arg);
      for (uint32_t j = 0; j < n; ++j) {
        const TSNode element = ts_node_named_child(arg, j);
        out.push_back({element, {}, eval(element, frame), true});
      }
    } else if (is(arg, "list_splat") || is(arg, "dictionary_splat")) {
      out.push_back({arg, {}, eval(ts_node_named_child(arg, 0), frame), true});
    } else if (!is(arg, "comment")) {
      out.push_back({arg, {}, eval(arg, frame), false});
    }
  }
  return out;
}

void FlowRun::meet(TSNode where, TSNode a_node, const Value& a, TSNode b_node, const Value& b,
                   Frame& frame, bool known_tensors_only) {
  auto meets = [&](const Value& host, const Value& other) {
    return host_tensor(host) && (device_value(other) || device_scalar(other)) &&
           (!known_tensors_only || other.kind == Kind::kTensor || other.place == Place::kDevice);
  };
  if (meets(a, b)) {
    out_.meetings_.push_back({where, a_node, a, b, frame.scope});
  } else if (meets(b, a)) {
    out_.meetings_.push_back({where, b_node, b, a, frame.scope});
  }
}

Value FlowRun::eval(TSNode node, Frame& frame) {
  // Deeper than the stack allows (stack.h): unknown, as what is not seen.
  if (ts_node_is_null(node) || stack_nearly_exhausted()) return Value{};
  const Sym type = sym(node);
  if (type == Sym::kIdentifier) return lookup(source_.text(node), frame);
  if (type == Sym::kCall) {
    if (ts_node_end_byte(node) - ts_node_start_byte(node) > kLargeNode && inert(node, frame)) {
      return Value{};
    }
    return eval_call(node, frame);
  }
  if (type == Sym::kAttribute) {
    const TSNode object = field(node, fields().object);
    if (source_.text(object) == "self") {
      // A property of the class (`self.mask` of `@property def mask`): what
      // it returns.
      const int property =
          frame.owner_class >= 0
              ? method_of(frame.owner_class, source_.text(field(node, fields().attribute)))
              : -1;
      if (property >= 0 && (decorators(property) & kProperty) != 0) {
        return analyze(property).value;
      }
      return lookup(source_.text(node), frame);
    }
    // A chain moved in place here (`model.net.to(device)`).
    if (const Value* moved = frame.env.find(source_.text(node))) return *moved;
    const Value v = eval(object, frame);
    const std::string_view attribute = source_.text(field(node, fields().attribute));
    // A diffusers pipeline's images, PIL or NumPy as its call asks.
    if (attribute == "images" && host_images(source_, object)) return Value{};
    // (`values` and `indices`: the parts of a reduction's result, `x.max(1)`.)
    static constexpr std::array<std::string_view, 9> kSame = {
        "data", "T", "mT", "H", "real", "imag", "grad", "values", "indices"};
    // A tensor's other attributes are numbers, sizes, flags; a device tensor
    // that has others (a model's output: `outputs.logits`) holds them where
    // it is. Not a value of unknown kind (a module moved: `obs.quant_min`).
    static constexpr std::array<std::string_view, 13> kNotTensors = {
        "shape",  "dtype",   "device",  "ndim",   "is_cuda", "requires_grad", "is_leaf",
        "layout", "grad_fn", "is_meta", "nbytes", "names",   "itemsize"};
    if (v.kind == Kind::kTensor || (v.kind == Kind::kUnknown && v.place == Place::kDevice)) {
      if (among(attribute, kSame)) return v;
      Value held;
      if (v.kind == Kind::kTensor && !v.scalar && !v.sample &&
          (v.place == Place::kDevice || v.place == Place::kModuleDevice) &&
          !among(attribute, kNotTensors) && attribute.rfind("is_", 0) != 0) {
        held.place = v.place;
      }
      return held;
    }
    Value found;
    int method = -1;
    const bool instance =
        v.kind == Kind::kModule || (v.kind == Kind::kUnknown && v.place == Place::kUnknown);
    if (instance && v.cls >= 0 && member(v, attribute, found, method) && method < 0) {
      return found;
    }
    if (v.kind == Kind::kModule && (attribute == "weight" || attribute == "bias")) {
      Value w;
      w.kind = Kind::kTensor;
      w.place = v.place;
      w.registered = true;
      return w;
    }
    if (v.kind == Kind::kEncoding) {
      Value t = v;
      t.kind = Kind::kTensor;
      return t;
    }
    return Value{};
  }
  if (type == Sym::kSubscript) return eval_subscript(node, frame);
  if (type == Sym::kBinaryOperator) return eval_binary(node, frame);
  if (type == Sym::kComparisonOperator) {
    // Each pair of neighbours; a comparison's other side is most often a
    // number, so only tensors known as such count.
    std::vector<std::pair<TSNode, Value>> parts;
    for (uint32_t i = 0, n = ts_node_named_child_count(node); i < n; ++i) {
      const TSNode part = ts_node_named_child(node, i);
      parts.emplace_back(part, eval(part, frame));
    }
    Value out;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      meet(node, parts[i].first, parts[i].second, parts[i + 1].first, parts[i + 1].second, frame,
           /*known_tensors_only=*/true);
    }
    int tensors = 0;
    for (const auto& [part, v] : parts) {
      if (v.kind == Kind::kTensor) {
        out = v;
        ++tensors;
      }
    }
    // A host tensor compared with numbers (`mask == 0`) is a mask made where
    // it was, of its origin (a factory's, reported there); two tensors
    // compared make one of neither.
    if (tensors > 1 || !host_tensor(out)) out.origin = Origin::kNone;
    return out;
  }
  if (type == Sym::kParenthesizedExpression || type == Sym::kUnaryOperator || type == Sym::kAwait) {
    return eval(ts_node_named_child(node, 0), frame);
  }
  if (type == Sym::kConditionalExpression) {
    const Value a = eval(ts_node_named_child(node, 0), frame);
    eval(ts_node_named_child(node, 1), frame);
    const Value b = eval(ts_node_named_child(node, 2), frame);
    if (a.place != b.place && a.place != Place::kUnknown && b.place != Place::kUnknown) {
      // In a module's method, a host tensor one way and the module's place
      // the other (`self.emb(x) if self.emb else torch.zeros(n)`): the
      // condition does not move the module, so the host way meets it.
      if (a.kind == Kind::kTensor && b.kind == Kind::kTensor) {
        if (a.place == Place::kModuleDevice && host_tensor(b) && b.origin != Origin::kNone)
          return b;
        if (b.place == Place::kModuleDevice && host_tensor(a) && a.origin != Origin::kNone)
          return a;
      }
      Value out = a;
      out.place = Place::kUnknown;
      out.origin = Origin::kNone;
      return out;
    }
    return join(a, b);
  }
  if (type == Sym::kNone) {
    Value none;
    none.kind = Kind::kNone;
    return none;
  }
  if (type == Sym::kList || type == Sym::kTuple || type == Sym::kSet || type == Sym::kDictionary ||
      type == Sym::kExpressionList) {
    // A large table of plain data (an op database, a config dict): nothing
    // to follow in it.
    if (ts_node_end_byte(node) - ts_node_start_byte(node) > kLargeNode && inert(node, frame)) {
      return Value{};
    }
    Value element;
    element.kind = Kind::kNone;
    // A dict's entries by key, where every key is a string.
    std::vector<DictEntry> entries;
    bool keyed = type == Sym::kDictionary;
    bool known = false;
    for (uint32_t i = 0, n = ts_node_named_child_count(node); i < n; ++i) {
      TSNode part = ts_node_named_child(node, i);
      if (is(part, "comment")) continue;
      TSNode key{};
      if (is(part, "pair")) {
        key = field(part, "key");
        part = field(part, fields().value);
      }
      const Value v = eval(part, frame);
      element = join(element, v);
      if (!keyed) continue;
      std::optional<std::string> name = string_value(source_, key);  // none for `**other`
      if (!name) {
        keyed = false;
        continue;
      }
      known = known || v.kind != Kind::kUnknown || v.place != Place::kUnknown;
      entries.push_back({std::move(*name), v});
    }
    // A dict of tensors and numbers (`{"ids": ids, "len": len(ids)}`): an
    // entry the flow cannot tell by its key (`d[k]`, a loop over the values)
    // is unknown.
    if (type == Sym::kDictionary &&
        (element.kind == Kind::kTensor ||
         (element.kind == Kind::kUnknown && element.place != Place::kUnknown))) {
      for (uint32_t i = 0, n = ts_node_named_child_count(node); i < n; ++i) {
        const TSNode part = ts_node_named_child(node, i);
        if (is(part, "pair") &&
            number_expression(source_, field(part, fields().value), frame.scope)) {
          element = Value{};
          break;
        }
      }
    }
    Value list = list_of(element);
    list.asks_host_output = type == Sym::kDictionary && asks_host_output(source_, node);
    if (keyed && known && list.kind == Kind::kList) list.keys = record_dict(std::move(entries));
    return list;
  }
  if (type == Sym::kListComprehension || type == Sym::kGeneratorExpression ||
      type == Sym::kSetComprehension || type == Sym::kDictionaryComprehension) {
    // The loop variables are bound for the body, then forgotten.
    const Env before = frame.env;
    for (uint32_t i = 0, n = ts_node_named_child_count(node); i < n; ++i) {
      const TSNode clause = ts_node_named_child(node, i);
      if (!is(clause, "for_in_clause")) continue;
      const TSNode right = field(clause, fields().right);
      const Value element = element_of(eval(right, frame), right, frame);
      bind(field(clause, fields().left), element, frame, clause);
    }
    TSNode body = field(node, fields().body);
    if (is(body, "pair")) body = field(body, fields().value);
    const Value v = eval(body, frame);
    frame.env = before;
    return list_of(v);
  }
  if (type == Sym::kNamedExpression) {
    const Value v = eval(field(node, fields().value), frame);
    bind(field(node, fields().name), v, frame, node);
    return v;
  }
  if (type == Sym::kBooleanOperator) {
    return join(eval(field(node, fields().left), frame), eval(field(node, fields().right), frame));
  }
  if (type == Sym::kLambda || type == Sym::kString || type == Sym::kInteger ||
      type == Sym::kFloat || type == Sym::kTrue || type == Sym::kFalse) {
    // A string's interpolations hold code (f"{x.numpy()}").
    if (type == Sym::kString) {
      for (uint32_t i = 0, n = ts_node_named_child_count(node); i < n; ++i) {
        const TSNode part = ts_node_named_child(node, i);
        if (is(part, "interpolation")) eval(ts_node_named_child(part, 0), frame);
      }
    }
    return Value{};
  }
  // Anything else: what is inside may still meet (a call in a slice, ...).
  for (uint32_t i = 0, n = ts_node_named_child_count(node); i < n; ++i) {
    eval(ts_node_named_child(node, i), frame);
  }
  return Value{};
}

}  // namespace devcheck::lint::detail
