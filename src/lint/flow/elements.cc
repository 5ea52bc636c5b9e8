// The device flow's elements (flow.h): what a subscript, a loop's turn and
// an unpacking give of the value they take apart.
#include <optional>

#include "../common.h"
#include "../grammar.h"
#include "call_args.h"
#include "run.h"

namespace devcheck::lint::detail {
namespace {

// One element of a dataset (an item, on the host, made at `node`), of a
// list, or of a module container (`self.layers[i]`: a module of the class
// its elements have); nothing for a module that holds no modules.
std::optional<Value> container_element(const Value& v, TSNode node) {
  Value out;
  switch (v.kind) {
    case Kind::kDataset:
      out.place = Place::kHost;
      out.origin = Origin::kDatasetItem;
      out.made = node;
      return out;
    case Kind::kList:
      return element_value(v);
    case Kind::kModule:
      if (v.element != Kind::kModule) return std::nullopt;
      out = v;
      out.cls = v.element_cls;
      out.element = Kind::kUnknown;
      return out;
    default:
      return std::nullopt;
  }
}

// `3` or `-1`.
bool integer_literal(TSNode node) {
  if (is(node, "unary_operator")) node = ts_node_named_child(node, 0);
  return is(node, "integer");
}

}  // namespace

Value FlowRun::eval_subscript(TSNode node, Frame& frame) {
  const TSNode value_node = field(node, fields().value);
  const Value v = eval(value_node, frame);
  for (uint32_t i = 0, n = ts_node_named_child_count(node); i < n; ++i) {
    const TSNode part = ts_node_named_child(node, i);
    if (ts_node_eq(part, value_node)) continue;
    const Value index = eval(part, frame);
    // A host tensor indexed by a device tensor fails ("indices should be
    // either on cpu or on the same device"); the other way round works.
    if (host_tensor(v) && index.kind == Kind::kTensor &&
        (index.place == Place::kDevice || index.place == Place::kModuleDevice)) {
      meet(node, value_node, v, part, index, frame, true);
    }
  }
  Value out;
  switch (v.kind) {
    case Kind::kTensor:
      out = v;
      // `x[0]` of a 1-D tensor is 0-dim; other indices keep dimensions.
      out.scalar = v.one_dim && ts_node_named_child_count(node) == 2 &&
                   integer_literal(field(node, fields().subscript));
      out.one_element = false;
      out.one_dim = false;
      return out;
    case Kind::kEncoding:
      out = v;
      out.kind = Kind::kTensor;
      return out;
    case Kind::kList:
      // `batch["input"]` of a dict whose keys the flow follows.
      if (v.keys >= 0 && ts_node_named_child_count(node) == 2) {
        if (std::optional<Value> entry = dict_entry(v, field(node, fields().subscript))) {
          return *entry;
        }
      }
      return *container_element(v, node);
    case Kind::kDataset:
      return *container_element(v, node);
    case Kind::kModule:
      // A container's module (self.layers[i]).
      return container_element(v, node).value_or(v);
    default:
      break;
  }
  if ((v.origin == Origin::kBatch || v.origin == Origin::kDatasetItem) && v.place == Place::kHost) {
    out = v;
    out.kind = Kind::kTensor;
    return out;
  }
  // Part of something on a device whose kind is not known (an input of
  // forward, what a call given device tensors gives): there too, and a
  // tensor where two indices take it apart (`lengths[:, None]`), as a list's
  // single index could not.
  if (v.kind == Kind::kUnknown && (v.place == Place::kDevice || v.place == Place::kModuleDevice)) {
    out.place = v.place;
    if (ts_node_named_child_count(node) > 2) out.kind = Kind::kTensor;
  }
  return out;
}

Value FlowRun::eval_binary(TSNode node, Frame& frame) {
  const TSNode left = field(node, fields().left);
  const TSNode right = field(node, fields().right);
  const Value a = eval(left, frame);
  const Value b = eval(right, frame);
  meet(node, left, a, right, b, frame);
  if (a.kind != Kind::kTensor && b.kind != Kind::kTensor) {
    // A number with a forward's input: still on the module's device.
    if (a.place != Place::kUnknown && b.kind == Kind::kUnknown && b.place == Place::kUnknown)
      return a;
    if (b.place != Place::kUnknown && a.kind == Kind::kUnknown && a.place == Place::kUnknown)
      return b;
    return Value{};
  }
  // A 0-dim tensor with a value whose place is known (an input moved to a
  // device): that value's place.
  auto placed = [](Value v) {
    v.kind = Kind::kTensor;
    return v;
  };
  // A number keeps a tensor's shape; what else the other side is may
  // broadcast it.
  auto shaped = [](Value v, const Value& other) {
    if (other.kind != Kind::kUnknown || other.place != Place::kUnknown) {
      v.one_element = false;
      v.one_dim = false;
    }
    return v;
  };
  if (a.kind != Kind::kTensor) {
    return b.scalar && a.place != Place::kUnknown ? placed(a) : shaped(b, a);
  }
  if (b.kind != Kind::kTensor) {
    return a.scalar && b.place != Place::kUnknown ? placed(b) : shaped(a, b);
  }
  Value out = a;
  out.scalar = a.scalar && b.scalar;
  // Two tensors of one element (or one and a 0-dim one) make one element.
  out.one_element = (a.one_element || a.scalar) && (b.one_element || b.scalar) &&
                    (a.one_element || b.one_element);
  out.one_dim = (a.one_dim && (b.scalar || b.one_dim)) || (b.one_dim && a.scalar);
  if (a.place != b.place) {
    if (a.place == Place::kHost && b.place != Place::kUnknown) {
      out = b;
    } else if (!(b.place == Place::kHost && a.place != Place::kUnknown)) {
      out.place = Place::kUnknown;
      out.origin = Origin::kNone;
    }
  }
  if (a.scalar && !b.scalar) out = b;
  return out;
}

namespace {

// Whether `node` (what a loop iterates) lies in the body of an `if` (or
// `elif`) whose test is `isinstance(node, list)` (or tuple, or a tuple of
// classes among which one of them and no tensor class): there it is a list
// or tuple, whose elements are its parts, not the samples of a tensor.
bool tested_as_sequence(const Source& source, TSNode node) {
  const std::string_view text = source.text(node);
  for (TSNode n = ts_node_parent(node); !ts_node_is_null(n); n = ts_node_parent(n)) {
    if (is(n, "function_definition") || is(n, "class_definition")) break;
    if (!is(n, "if_statement") && !is(n, "elif_clause")) continue;
    const TSNode body = field(n, fields().consequence);
    if (ts_node_start_byte(node) < ts_node_start_byte(body) ||
        ts_node_end_byte(node) > ts_node_end_byte(body)) {
      continue;
    }
    const TSNode test = field(n, fields().condition);
    if (!is(test, "call") || source.text(field(test, fields().function)) != "isinstance") continue;
    const std::vector<TSNode> args = source.positional(test);
    if (args.size() != 2 || source.text(args[0]) != text) continue;
    bool sequence = false;
    bool tensor = false;
    auto note = [&](TSNode type) {
      const std::string_view name = source.text(type);
      sequence = sequence || name == "list" || name == "tuple";
      tensor = tensor || name.find("Tensor") != std::string_view::npos;
    };
    if (is(args[1], "tuple")) {
      for_each_named_child(args[1], note);
    } else {
      note(args[1]);
    }
    if (sequence && !tensor) return true;
  }
  return false;
}

}  // namespace

Value FlowRun::element_of(const Value& iterable, TSNode node, Frame& frame) {
  Value out;
  switch (iterable.kind) {
    case Kind::kLoader:
      if (loaders_placed_) return out;
      out.place = Place::kHost;
      out.origin = Origin::kBatch;
      out.pinned = iterable.pinned;
      out.pin_unknown = iterable.pin_unknown;
      out.made = node;
      return out;
    case Kind::kTensor:
      out = iterable;
      // A batch's part the code tests as a list or tuple (`elif
      // isinstance(batch[1], (tuple, list)):`) holds whole tensors.
      out.sample = !tested_as_sequence(source_, node);
      // Each element of a 1-D tensor (`for t in torch.linspace(...)`) is
      // 0-dim.
      out.scalar = iterable.one_dim;
      out.one_element = false;
      out.one_dim = false;
      return out;
    case Kind::kDataset:
    case Kind::kList:
    case Kind::kModule:
      // The modules of a container (for layer in self.layers).
      return container_element(iterable, node).value_or(out);
    case Kind::kUnknown:
      // A model's output, a tensor or a tuple of them: what it holds is
      // where it is.
      if (iterable.place == Place::kDevice || iterable.place == Place::kModuleDevice) {
        out.place = iterable.place;
        return out;
      }
      break;
    default:
      break;
  }
  // A loader from elsewhere (`for x, y in train_loader`), or wrapped
  // (`tqdm(loader)`): batches on the host, pinning unknown.
  if (is(node, "call")) {
    const std::vector<TSNode> args = source_.positional(node);
    // zip(a, b): tuples of their elements, where they are when all agree.
    if (source_.text(field(node, fields().function)) == "zip" && !args.empty()) {
      Value parts = element_of(eval(args[0], frame), args[0], frame);
      for (std::size_t i = 1; i < args.size(); ++i) {
        const Value next = element_of(eval(args[i], frame), args[i], frame);
        if (next.place != parts.place) parts.place = Place::kUnknown;
      }
      if (parts.place == Place::kDevice || parts.place == Place::kModuleDevice) {
        out.place = parts.place;
        return out;
      }
      return Value{};
    }
    if (!args.empty()) {
      const Value inner = eval(args[0], frame);
      if (inner.kind == Kind::kLoader || inner.kind == Kind::kDataset) {
        return element_of(inner, args[0], frame);
      }
    }
  }
  if (names_any(source_.text(node), {"loader"}) && iterable.place == Place::kUnknown &&
      !loaders_placed_) {
    out.place = Place::kHost;
    out.origin = Origin::kBatch;
    out.pin_unknown = true;
    out.made = node;
  }
  return out;
}

std::vector<Value> FlowRun::eval_elements(TSNode node, std::size_t count, Frame& frame) {
  std::vector<Value> out;
  if (is(node, "expression_list") || is(node, "tuple") || is(node, "list")) {
    for (uint32_t i = 0, n = ts_node_named_child_count(node); i < n; ++i) {
      out.push_back(eval(ts_node_named_child(node, i), frame));
    }
    return out;
  }
  last_tuple_.clear();
  const Value v = eval(node, frame);
  if (last_tuple_.size() == count) return last_tuple_;
  Value part;
  if (v.kind == Kind::kTensor) {
    part = v;
  } else if ((v.origin == Origin::kBatch || v.origin == Origin::kDatasetItem) &&
             v.place == Place::kHost) {
    part = v;
    part.kind = Kind::kTensor;
  } else if (v.kind == Kind::kList) {
    part = element_value(v);
  } else if (v.kind == Kind::kUnknown &&
             (v.place == Place::kDevice || v.place == Place::kModuleDevice)) {
    part.place = v.place;  // the parts of something on a device (a batch, an output)
  }
  out.assign(count, part);
  return out;
}

// next(model.parameters()) (or of its buffers): a tensor where the model is
// (`device = next(model.parameters()).device`).
std::optional<Value> FlowRun::first_parameter(TSNode function, const std::vector<Arg>& args,
                                              Frame& frame) {
  if (!is(function, "identifier") || source_.text(function) != "next" || args.size() != 1 ||
      !is(args[0].node, "call")) {
    return std::nullopt;
  }
  const TSNode inner = field(args[0].node, fields().function);
  if (!is(inner, "attribute")) return std::nullopt;
  const std::string_view of = source_.text(field(inner, fields().attribute));
  if (of != "parameters" && of != "buffers") return std::nullopt;
  const Value model = eval(field(inner, fields().object), frame);
  if (model.kind != Kind::kModule) return std::nullopt;
  Value v;
  v.kind = Kind::kTensor;
  v.place = model.place;
  v.registered = true;
  return v;
}

// What `for p in model.parameters()` (or buffers(), or their named_ forms,
// pairs of a name and a tensor) gives: tensors where the model is, when
// that is a device.
std::optional<Value> FlowRun::module_tensor(TSNode iterated, Frame& frame) {
  if (!is(iterated, "call")) return std::nullopt;
  const TSNode function = field(iterated, fields().function);
  if (!is(function, "attribute")) return std::nullopt;
  const std::string_view of = source_.text(field(function, fields().attribute));
  if (of != "parameters" && of != "buffers" && of != "named_parameters" && of != "named_buffers") {
    return std::nullopt;
  }
  const Value model = eval(field(function, fields().object), frame);
  // Only a module has parameters: a value of unknown kind on a device
  // (`model = model.to(device)`) is one.
  if ((model.kind != Kind::kModule && model.kind != Kind::kUnknown) ||
      (model.place != Place::kDevice && model.place != Place::kModuleDevice)) {
    return std::nullopt;
  }
  Value v;
  v.kind = Kind::kTensor;
  v.place = model.place;
  v.registered = true;
  return v;
}

// `scores[idx] = values` with a tensor index is index_put_: host values
// meet a device tensor as in `scores + values` (a plain index or slice
// copies across devices).
void FlowRun::index_put(TSNode node, TSNode target, TSNode right, const Value& v, Frame& frame) {
  if (!host_tensor(v)) return;
  const TSNode into = field(target, fields().value);
  if (!is(into, "identifier") && !is(into, "attribute")) return;
  bool tensor = false;
  for_each_named_child(target, [&](TSNode part) {
    if (!tensor && !ts_node_eq(part, into) &&
        (is(part, "identifier") || is(part, "call") || is(part, "attribute") ||
         is(part, "subscript"))) {
      const Value index = eval(part, frame);
      tensor = index.origin != Origin::kBatch && index.origin != Origin::kDatasetItem &&
               (index.kind == Kind::kTensor || device_value(index));
    }
  });
  if (!tensor) return;
  const Value written = eval(into, frame);
  if (written.kind == Kind::kTensor && device_value(written))
    meet(node, into, written, right, v, frame);
}

// `for p in model.parameters()` (`for name, p in model.named_parameters()`:
// the tensor is the last part) binds tensors where the model is.
bool FlowRun::bind_module_tensors(TSNode loop, Frame& frame) {
  const std::optional<Value> tensor = module_tensor(field(loop, fields().right), frame);
  if (!tensor) return false;
  const TSNode left = field(loop, fields().left);
  if (is(left, "pattern_list") || is(left, "tuple_pattern") || is(left, "list_pattern")) {
    const uint32_t count = ts_node_named_child_count(left);
    uint32_t i = 0;
    for_each_named_child(left,
                         [&](TSNode p) { bind(p, ++i == count ? *tensor : Value{}, frame, loop); });
  } else {
    bind(left, *tensor, frame, loop);
  }
  frame.loops.emplace_back(left, *tensor);
  return true;
}

// torch.sparse_coo_tensor(indices, values, ...) (and the compressed forms,
// of two index tensors) without device= is made where its inputs are: on
// the host when all of them are host tensors, on a device when one is.
std::optional<Value> FlowRun::sparse_tensor(TSNode call, std::string_view qualified,
                                            const std::vector<Arg>& args, Frame& frame) {
  const bool coo = qualified == "torch.sparse_coo_tensor";
  if (!coo && qualified != "torch.sparse_csr_tensor" && qualified != "torch.sparse_csc_tensor" &&
      qualified != "torch.sparse_bsr_tensor" && qualified != "torch.sparse_bsc_tensor" &&
      qualified != "torch.sparse_compressed_tensor") {
    return std::nullopt;
  }
  Value v;
  v.kind = Kind::kTensor;
  if (const Arg* device = keyword_arg(args, "device")) {
    v.place = device_of(device->node, frame);
    return v;
  }
  if (has_keyword_splat(args) || frame.default_device > 0 || default_device_set_) return v;
  const std::size_t inputs = coo ? 2 : 3;
  std::size_t host = 0;
  for (std::size_t i = 0; i < args.size() && i < inputs; ++i) {
    if (!args[i].keyword.empty() || args[i].in_sequence) break;
    if (host_tensor(args[i].value)) ++host;
    // An input on a device makes it there (a host one beside it fails).
    if (device_value(args[i].value)) {
      v.place = args[i].value.place;
      return v;
    }
  }
  if (host < inputs) return v;
  v.place = Place::kHost;
  v.origin = Origin::kFactory;
  v.made = call;
  return v;
}

}  // namespace devcheck::lint::detail
