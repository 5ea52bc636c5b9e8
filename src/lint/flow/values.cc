// The device flow's values (flow.h): what two ways through leave of a value
// (after an `if` and its `else`), lists of values, and what an `assert`
// says a value is.
#include <string>

#include "run.h"

namespace devcheck::lint::detail {
namespace {

bool same(const Value& a, const Value& b) {
  return a.kind == b.kind && a.place == b.place && a.origin == b.origin &&
         ts_node_eq(a.made, b.made) && a.element == b.element &&
         a.element_place == b.element_place && a.element_origin == b.element_origin &&
         a.element_scalar == b.element_scalar && a.element_cls == b.element_cls && a.cls == b.cls &&
         a.function == b.function && a.keys == b.keys;
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
  // A host tensor one way, a tensor of unknown place the other
  // (`h = torch.Tensor(sizes)` for a list, `h = sizes.float()` else): the
  // host one is what the code meets when that way ran.
  if (a.kind == Kind::kTensor && b.kind == Kind::kTensor) {
    if (a.place == Place::kUnknown && host_tensor(b) && b.origin != Origin::kNone) return b;
    if (b.place == Place::kUnknown && host_tensor(a) && a.origin != Origin::kNone) return a;
  }
  Value out = a;
  if (a.function != b.function) out.function = -1;
  if (a.keys != b.keys) out.keys = -1;
  if (a.kind != b.kind) out.kind = Kind::kUnknown;
  if (a.place != b.place) out.place = Place::kUnknown;
  // Two host tensors (two factories, or a factory on one way and a host copy
  // on the other): on the host either way, reported as the first way made it.
  if (out.place != Place::kHost ||
      (a.origin != b.origin && (a.origin == Origin::kNone || b.origin == Origin::kNone))) {
    out.origin = Origin::kNone;
    out.made = TSNode{};
  }
  out.scalar = a.scalar && b.scalar;
  out.one_element = a.one_element && b.one_element;
  out.one_dim = a.one_dim && b.one_dim;
  out.pinned = a.pinned && b.pinned;
  out.pin_unknown = a.pin_unknown || b.pin_unknown;
  out.registered = a.registered && b.registered;
  out.sample = a.sample && b.sample;
  out.passed = a.passed || b.passed;
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
  e.scalar = list.element_scalar && list.element == Kind::kTensor;
  e.cls = list.element_cls;
  return e;
}

void set_element(Value& list, const Value& element) {
  list.element = element.kind;
  list.element_place = element.place;
  list.element_origin = element.origin;
  list.element_made = element.made;
  list.element_scalar = element.kind == Kind::kTensor && element.scalar;
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
    if (find(name) == nullptr) append(name, value);
  }
}

// `assert isinstance(output, PIL.Image.Image)`: from there on the value is
// what the test says, no tensor (not a type of torch or of the file, which
// may be a tensor or a module, nor a tuple of types); a NumPy array for
// `np.ndarray`.
void FlowRun::exec_assert(TSNode statement, Frame& frame) {
  const TSNode test = ts_node_named_child(statement, 0);
  if (!is(test, "call") || source_.text(field(test, fields().function)) != "isinstance") return;
  const std::vector<TSNode> args = source_.positional(test);
  if (args.size() != 2 || !is(args[0], "identifier")) return;
  const std::string type = source_.qualify(args[1]);
  if (type.empty() || type.rfind("torch", 0) == 0 ||
      source_.classes().count(std::string(source_.text(args[1]))) != 0) {
    return;
  }
  Value v;
  if (type == "numpy.ndarray") {
    v.kind = Kind::kArray;
    v.place = Place::kHost;
  }
  frame.env.set(source_.text(args[0]), v);
}

}  // namespace devcheck::lint::detail
